"""Pool-adjacent-violators over sorted runs of scores."""

import numpy as np
from numba import njit

from calibbook._kernels.binning import bin_index, sorted_index


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
def pav_two_sorted(buf, n_neg):
    """PAV straight from the buffer of ``calibbook._utils.binning.split_sorted`` with sorted parts.

    Fuses ``merge_runs_with_sentinels`` and ``pav_runs``: each run of equal scores is
    pushed as soon as it is complete, so the runs are never stored. The arithmetic is
    that of the two steps (the same sums in the same order), so the blocks are the same
    bit for bit.

    Returns
    -------
    lower, upper : float64 arrays (n_blocks,)
        The first and last score of each block.
    block_weight, block_sum : float64 arrays (n_blocks,)
    """
    n = buf.shape[0] - 2
    lower = np.empty(n, np.float64)
    upper = np.empty(n, np.float64)
    bw = np.empty(n, np.float64)
    bs = np.empty(n, np.float64)
    top = -1
    i, j = 0, n_neg + 1
    cur = cur_w = cur_p = 0.0
    for it in range(n + 1):
        if it < n:
            a, b = buf[i], buf[j]
            take_neg = a <= b
            v = a if take_neg else b
            i += take_neg
            j += 1 - take_neg
            if it > 0 and v == cur:
                cur_w += 1.0
                cur_p += 0.0 if take_neg else 1.0
                continue
        if it > 0:  # the run of ``cur`` is complete: push it and pool
            top += 1
            lower[top] = cur
            upper[top] = cur
            bw[top] = cur_w
            bs[top] = cur_p
            while top > 0 and bs[top - 1] * bw[top] >= bs[top] * bw[top - 1]:
                bw[top - 1] += bw[top]
                bs[top - 1] += bs[top]
                upper[top - 1] = upper[top]
                top -= 1
        if it < n:
            cur = v
            cur_w = 0.0 + 1.0
            cur_p = 0.0 + (0.0 if take_neg else 1.0)
    m = top + 1
    return lower[:m].copy(), upper[:m].copy(), bw[:m].copy(), bs[:m].copy()


def step_values(block_starts, block_values, x):
    """Value of the block whose first score is the largest one <= x (first block below all).

    A gather after :func:`.binning.sorted_index` (compiled only for many queries).
    """
    return block_values[np.maximum(sorted_index(block_starts, x) - 1, 0)]


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
            span = x1 - x0
            if span == np.inf:  # knots near -+1.8e308: halve both differences
                out[i] = knots_y[j] + (knots_y[j + 1] - knots_y[j]) * (
                    (0.5 * v - 0.5 * x0) / (0.5 * x1 - 0.5 * x0)
                )
            else:
                out[i] = knots_y[j] + (knots_y[j + 1] - knots_y[j]) * (v - x0) / span
    return out
