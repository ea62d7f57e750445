"""PAV refits of many resampled data sets at once, for the bands of CORP reliability diagrams."""

import numpy as np
from numba import njit


@njit(cache=True)
def _pav_present(weights, sums, keep, fitted):
    """PAV over the runs listed in ``keep``; fills ``fitted[j]`` for the j-th kept run."""
    q = keep.shape[0]
    bw = np.empty(q, np.float64)
    bs = np.empty(q, np.float64)
    ends = np.empty(q, np.int64)
    top = -1
    for j in range(q):
        top += 1
        bw[top] = weights[keep[j]]
        bs[top] = sums[keep[j]]
        ends[top] = j + 1
        # the pooling rule of _kernels.isotonic.pav_runs
        while top > 0 and bs[top - 1] * bw[top] >= bs[top] * bw[top - 1]:
            bw[top - 1] += bw[top]
            bs[top - 1] += bs[top]
            ends[top - 1] = ends[top]
            top -= 1
    start = 0
    for b in range(top + 1):
        value = bs[b] / bw[b]
        for j in range(start, ends[b]):
            fitted[j] = value
        start = ends[b]


@njit(cache=True)
def _interpolate(xs, fitted, at, out):
    """Linear interpolation through ``(xs, fitted)`` at sorted ``at``, constant beyond the ends."""
    q = xs.shape[0]
    j = 0
    for k in range(at.shape[0]):
        t = at[k]
        while j + 1 < q and xs[j + 1] <= t:
            j += 1
        if t <= xs[0]:
            out[k] = fitted[0]
        elif j + 1 >= q or t == xs[j]:
            out[k] = fitted[j]
        else:
            frac = (t - xs[j]) / (xs[j + 1] - xs[j])
            out[k] = fitted[j] + (fitted[j + 1] - fitted[j]) * frac


@njit(cache=True)
def pav_resampled(x, weights, sums, at):
    """Isotonic fits of many resampled data sets over the same sorted runs, read at ``at``.

    ``x``: the runs' distinct values, increasing (m,); ``weights``: their weights, shape
    (1, m) when shared by every resample or (R, m); ``sums``: their weighted positives,
    (R, m); ``at``: sorted points (k,). Runs of weight 0 are absent from a resample: the
    fit is PAV over the others, joined linearly between them and constant beyond. A
    resample with no run of positive weight gives NaN. Returns an (R, k) array.
    """
    n_res, m = sums.shape
    shared = weights.shape[0] == 1
    out = np.empty((n_res, at.shape[0]), np.float64)
    keep = np.empty(m, np.int64)
    fitted = np.empty(m, np.float64)
    xs = np.empty(m, np.float64)
    for r in range(n_res):
        w = weights[0] if shared else weights[r]
        q = 0
        for i in range(m):
            if w[i] > 0.0:
                keep[q] = i
                xs[q] = x[i]
                q += 1
        if q == 0:
            for j in range(out.shape[1]):
                out[r, j] = np.nan
            continue
        _pav_present(w, sums[r], keep[:q], fitted)
        _interpolate(xs[:q], fitted[:q], at, out[r])
    return out
