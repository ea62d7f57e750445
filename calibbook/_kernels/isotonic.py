"""Pool-adjacent-violators over sorted runs of scores."""

import numpy as np
from numba import njit

from .binning import bin_index


@njit(cache=True)
def pav_runs(weights, sums):
    """Isotonic (non-decreasing) weighted least squares fit of ``sums / weights``.

    Runs come sorted by score; ``weights`` are positive and ``sums`` are the
    weighted sums of the responses. Adjacent blocks are pooled while the left
    block's mean is at least the right one's, so the returned block means are
    strictly increasing. Each run is pushed once and each pooling removes a
    block, so the cost is O(R).

    Returns
    -------
    ends : int64 array (n_blocks,)
        One past the last run of each block.
    block_weight, block_sum : float64 arrays (n_blocks,)
    """
    n = weights.shape[0]
    ends = np.empty(n, np.int64)
    bw = np.empty(n, np.float64)
    bs = np.empty(n, np.float64)
    top = -1
    for i in range(n):
        top += 1
        bw[top] = weights[i]
        bs[top] = sums[i]
        ends[top] = i + 1
        # pool while mean(top - 1) >= mean(top); cross-multiplied, weights > 0
        while top > 0 and bs[top - 1] * bw[top] >= bs[top] * bw[top - 1]:
            bw[top - 1] += bw[top]
            bs[top - 1] += bs[top]
            ends[top - 1] = ends[top]
            top -= 1
    return ends[: top + 1], bw[: top + 1], bs[: top + 1]


@njit(cache=True)
def step_values(block_starts, block_values, x):
    """Value of the block whose first score is the largest one <= x (first block below all)."""
    counts = bin_index(block_starts, x)
    out = np.empty(x.shape[0], np.float64)
    for i in range(x.shape[0]):
        out[i] = block_values[max(counts[i] - 1, 0)]
    return out


@njit(cache=True)
def linear_values(knots_x, knots_y, x):
    """Piecewise-linear interpolation through the knots, constant beyond the ends."""
    m = knots_x.shape[0]
    counts = bin_index(knots_x, x)
    out = np.empty(x.shape[0], np.float64)
    for i in range(x.shape[0]):
        v = x[i]
        if v <= knots_x[0]:
            out[i] = knots_y[0]
        elif v >= knots_x[m - 1]:
            out[i] = knots_y[m - 1]
        else:
            j = counts[i] - 1  # knots_x[j] <= v < knots_x[j + 1]
            x0, x1 = knots_x[j], knots_x[j + 1]
            out[i] = knots_y[j] + (knots_y[j + 1] - knots_y[j]) * (v - x0) / (x1 - x0)
    return out
