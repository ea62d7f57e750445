"""Block centres of centred isotonic regression: the weighted mean score of each PAV block."""

import numpy as np
from numba import njit


@njit(cache=True)
def centres_two_sorted(buf, n_neg, upper, scale):
    """Mean score of each block, from the buffer of ``calibbook._utils.binning.split_sorted``.

    ``buf[:n_neg]`` and ``buf[n_neg + 1:-1]`` are the sorted scores of the two classes (with
    +inf sentinels after each part), ``upper`` the last score of each block, increasing. The
    scores are merged again in order and summed block by block, each multiplied by ``scale``
    (a power of two that keeps the sums finite), and the mean is divided back by it.
    """
    n = buf.shape[0] - 2
    m = upper.shape[0]
    out = np.empty(m, np.float64)
    i, j = 0, n_neg + 1
    b = 0
    total = 0.0
    count = 0.0
    for _ in range(n):
        a, c = buf[i], buf[j]
        if a <= c:
            v = a
            i += 1
        else:
            v = c
            j += 1
        while v > upper[b]:  # the block is complete (each block holds one score at least)
            out[b] = total / count / scale
            b += 1
            total = 0.0
            count = 0.0
        total += v * scale
        count += 1.0
    out[b] = total / count / scale
    return out


@njit(cache=True)
def centres_runs(values, weights, ends, scale):
    """Weighted mean of the run ``values`` over each block (``ends``: one past its last run)."""
    m = ends.shape[0]
    out = np.empty(m, np.float64)
    start = 0
    for b in range(m):
        total = 0.0
        weight = 0.0
        for r in range(start, ends[b]):
            total += weights[r] * (values[r] * scale)
            weight += weights[r]
        out[b] = total / weight / scale
        start = ends[b]
    return out
