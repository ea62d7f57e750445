"""BBQ's fit before the sweep over the cuts, frozen: a binary search per cut, then a search per
bin. The oracle of tests/unit/test_aggregation.py, which wants the sweep equal to it bit for bit.
Kept as it was, so do not tidy it.
"""

import numpy as np
from numba import njit


@njit
def merge_sorted_runs(neg, pos):
    """Runs of equal scores from the sorted scores of negatives and positives.

    calibbook's kernel of that time (``calibbook._kernels.aggregate``), moved here when the
    package stopped using it.
    """
    n_neg, n_pos = neg.shape[0], pos.shape[0]
    n = n_neg + n_pos
    values = np.empty(n, np.float64)
    weights = np.empty(n, np.float64)
    positives = np.empty(n, np.float64)
    i = j = 0
    r = -1
    while i < n_neg or j < n_pos:
        if j >= n_pos or (i < n_neg and neg[i] <= pos[j]):
            v, is_pos = neg[i], 0.0
            i += 1
        else:
            v, is_pos = pos[j], 1.0
            j += 1
        if r < 0 or v != values[r]:
            r += 1
            values[r] = v
            weights[r] = 0.0
            positives[r] = 0.0
        weights[r] += 1.0
        positives[r] += is_pos
    return values[: r + 1], weights[: r + 1], positives[: r + 1]


def _old_bbq_kernels():
    """The BBQ kernels before the sweep: a binary search per cut, then a search per bin."""
    import math

    from calibbook._kernels.binning import midpoint

    @njit
    def bbq_models(run_values, run_weights, run_positives, b_min, b_max, strength, prior_clip):
        n_runs = run_weights.shape[0]
        below = np.empty(n_runs + 1)
        pos_below = np.empty(n_runs + 1)
        below[0] = pos_below[0] = 0.0
        for r in range(n_runs):
            below[r + 1] = below[r] + run_weights[r]
            pos_below[r + 1] = pos_below[r] + run_positives[r]
        total = below[n_runs]
        n_models = b_max - b_min + 1
        log_marginal = np.empty(n_models)
        offsets = np.zeros(n_models + 1, np.int64)
        size = 0
        for b in range(b_min, b_max + 1):
            size += b
        cuts = np.empty(size)
        estimates = np.empty(size)
        starts = np.empty(b_max + 1, np.int64)
        at = 0
        lg_c = math.lgamma(strength)
        for m in range(n_models):
            b = b_min + m
            starts[0] = 0
            n_bins = 1
            for k in range(1, b):
                target = k * total / b
                r = np.searchsorted(below[:n_runs], target, side="left")
                if r < n_runs and r > starts[n_bins - 1]:
                    starts[n_bins] = r
                    n_bins += 1
            starts[n_bins] = n_runs
            score = 0.0
            for j in range(n_bins):
                lo_r, hi_r = starts[j], starts[j + 1]
                lower = 0.0 if j == 0 else midpoint(run_values[lo_r - 1], run_values[lo_r])
                upper = 1.0 if j == n_bins - 1 else midpoint(run_values[hi_r - 1], run_values[hi_r])
                p = min(max(0.5 * (lower + upper), prior_clip), 1.0 - prior_clip)
                n = below[hi_r] - below[lo_r]
                n1 = pos_below[hi_r] - pos_below[lo_r]
                n0 = n - n1
                a1, a0 = strength * p, strength * (1.0 - p)
                score += (
                    lg_c
                    - math.lgamma(n + strength)
                    + math.lgamma(n1 + a1)
                    - math.lgamma(a1)
                    + math.lgamma(n0 + a0)
                    - math.lgamma(a0)
                )
                cuts[at + j] = -np.inf if j == 0 else lower
                estimates[at + j] = (n1 + a1) / (n + strength)
            log_marginal[m] = score
            at += n_bins
            offsets[m + 1] = at
        return log_marginal, offsets, cuts[:at], estimates[:at]

    @njit
    def average_step_functions(offsets, cuts, estimates, model_weight, grid):
        diff = np.zeros(grid.shape[0] + 2)
        for m in range(model_weight.shape[0]):
            w = model_weight[m]
            if w == 0.0:
                continue
            lo, hi = offsets[m], offsets[m + 1]
            for j in range(lo, hi):
                first = 0 if j == lo else np.searchsorted(grid, cuts[j], side="left") + 1
                if j == hi - 1:
                    last = grid.shape[0] + 1
                else:
                    last = np.searchsorted(grid, cuts[j + 1], side="left") + 1
                diff[first] += w * estimates[j]
                diff[last] -= w * estimates[j]
        out = np.empty(grid.shape[0] + 1)
        acc = 0.0
        for i in range(grid.shape[0] + 1):
            acc += diff[i]
            out[i] = acc
        return out

    return bbq_models, average_step_functions


_OLD_BBQ = []


def _old_bbq_fit(s, y, w, strength, clip, prune, prune_alpha):
    """Frozen copy of ``BBQ._fit`` before the sweep (runs from the old ``sorted_runs``)."""
    from calibbook._utils.binning import ordered_runs
    from calibbook.calibrators._model_averaging import pruning_alpha, relative_likelihoods
    from calibbook.calibrators.bbq import _bin_range

    if not _OLD_BBQ:
        _OLD_BBQ.extend(_old_bbq_kernels())
    bbq_models, average_step_functions = _OLD_BBQ
    if w is None:
        is_pos = y == 1
        values, weights, positives = merge_sorted_runs(np.sort(s[~is_pos]), np.sort(s[is_pos]))
    else:
        values, weights, positives = ordered_runs(s, w, y, np.argsort(s))
    b_min, b_max = _bin_range(weights.sum())
    log_ml, offsets, cuts, estimates = bbq_models(
        values, weights, positives, b_min, b_max, strength, clip
    )
    weight = relative_likelihoods(-2.0 * log_ml, prune, pruning_alpha(prune, prune_alpha, 0.001))
    used = np.repeat(weight > 0, np.diff(offsets))
    grid = np.unique(cuts[used & np.isfinite(cuts)])
    averaged = average_step_functions(offsets, cuts, estimates, weight, grid)
    keep = weight > 0
    return (
        grid,
        np.clip(averaged, 0.0, 1.0),
        np.arange(b_min, b_max + 1)[keep],
        weight[keep],
        log_ml[keep],
    )
