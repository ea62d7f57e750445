"""The fits along a near-isotonic path, replayed from the runs and the recorded merges:
the fusing of equal neighbours that :func:`.path.scored_path` leaves implicit, and the
fit at any lambda."""

import numpy as np
from numba import njit

from calibbook._kernels.arrays import zeroed


@njit(cache=True)
def initial_coefficients(weights, violations):
    """c of each run as a block of its own at lam = 0: (nu_right - nu_left) / w."""
    n = weights.shape[0]
    out = np.empty(n, np.float64)
    left = 0
    for i in range(n):
        v = violations[i]
        out[i] = 0.0 if v == left else (v - left) / weights[i]
        left = v
    return out


@njit(cache=True)
def _fuse_equal(weights, sums, violations, W, S, coef, nxt, left, right, fused_coef):
    """Fuse neighbouring runs with exactly equal means, as :func:`.path.scored_path` does first.

    Fills each block's weight, sum and c at its first run (``W``, ``S``, ``coef``) and
    the first run of the next block (``nxt``, -1 for the last), and records each fusing
    in ``left``, ``right``, ``fused_coef`` (when they are not empty): the block's first
    run, the run taken in, c of the block after it. Returns the number of fusings.
    """
    n = weights.shape[0]
    record = left.shape[0] > 0
    k = 0
    prev_mean = np.nan
    left_viol = 0  # the violation flag before the block
    h = 0
    for i in range(n):
        mean = sums[i] / weights[i]
        v = violations[i]
        if mean == prev_mean:
            W[h] += weights[i]
            S[h] += sums[i]
            c = 0.0 if v == left_viol else (v - left_viol) / W[h]
            coef[h] = c
            if record:
                left[k], right[k], fused_coef[k] = h, i, c
            k += 1
        else:
            if i > 0:
                nxt[h] = i
            left_viol = violations[i - 1] if i > 0 else 0
            h = i
            W[h], S[h] = weights[i], sums[i]
            coef[h] = 0.0 if v == left_viol else (v - left_viol) / W[h]
        prev_mean = mean
    if n > 0:
        nxt[h] = -1
    return k


@njit(cache=True)
def fused_events(weights, sums, violations):
    """The fusing of neighbouring runs with equal means at lam = 0, as merge events.

    The path's merges start with these, in run order (:func:`.path.scored_path` leaves them
    implicit): lambda 0, the block's first run, the run taken in, c of the block after.
    """
    n = weights.shape[0]
    W = np.empty(n, np.float64)
    S = np.empty(n, np.float64)
    coef = np.empty(n, np.float64)
    nxt = np.empty(n, np.int64)
    left = np.empty(max(n - 1, 1), np.int64)
    right = np.empty(max(n - 1, 1), np.int64)
    fused_coef = np.empty(max(n - 1, 1), np.float64)
    k = _fuse_equal(weights, sums, violations, W, S, coef, nxt, left, right, fused_coef)
    return zeroed(np.empty(k, np.float64)), left[:k], right[:k], fused_coef[:k]


@njit(cache=True)
def fit_at(weights, sums, violations, merge_lam, merge_left, merge_right, merge_coef, lam):
    """Fitted value of every run at ``lam``: fuse the runs with equal means, then replay
    the merges with merge_lam <= lam."""
    n = weights.shape[0]
    W = np.empty(n, np.float64)
    S = np.empty(n, np.float64)
    coef = np.empty(n, np.float64)
    nxt = np.empty(n, np.int64)
    none = np.empty(0, np.int64)
    _fuse_equal(weights, sums, violations, W, S, coef, nxt, none, none, np.empty(0))
    for k in range(merge_lam.shape[0]):
        if merge_lam[k] > lam:
            break
        h, g = merge_left[k], merge_right[k]
        W[h] += W[g]
        S[h] += S[g]
        nxt[h] = nxt[g]
        coef[h] = merge_coef[k]
    out = np.empty(n, np.float64)
    h = 0
    while h >= 0:
        end = nxt[h] if nxt[h] >= 0 else n
        v = S[h] / W[h] - lam * coef[h]
        for r in range(h, end):
            out[r] = v
        h = nxt[h]
    return out
