"""BBQ: each equal-frequency binning scored by its marginal likelihood."""

import math

import numpy as np
from numba import njit

from .binning import midpoint


@njit(cache=True)
def bbq_models(run_values, run_weights, run_positives, b_min, b_max, strength, prior_clip):
    """Score the equal-frequency binnings with B = b_min..b_max bins over sorted runs.

    Bins follow the tie-aware rule of ``equal_frequency_bins`` (a run joins bin
    #{k : weight before it >= k W / B}); empty bins are dropped. Bin j gets a
    Beta(C p_j, C (1 - p_j)) prior, C = ``strength``, whose mean p_j is the middle
    of the bin's score interval (cut points halfway between neighbouring bins'
    extreme scores, the outer ends at 0 and 1), clipped to [prior_clip, 1 - prior_clip].
    So no cut lies on a training score.
    Prefix sums make each binning cost O(B log R).

    Returns
    -------
    log_marginal : (M,) log marginal likelihood of each binning.
    offsets : (M + 1,) model m's bins are entries offsets[m]:offsets[m + 1] of
    cuts : lower cut of each bin (-inf for the first bin of a model),
    estimates : posterior mean (n1 + C p) / (n + C) of each bin.
    """
    n_runs = run_weights.shape[0]
    below = np.empty(n_runs + 1, np.float64)  # weight of the runs before run r
    pos_below = np.empty(n_runs + 1, np.float64)
    below[0] = pos_below[0] = 0.0
    for r in range(n_runs):
        below[r + 1] = below[r] + run_weights[r]
        pos_below[r + 1] = pos_below[r] + run_positives[r]
    total = below[n_runs]
    n_models = b_max - b_min + 1
    log_marginal = np.empty(n_models, np.float64)
    offsets = np.zeros(n_models + 1, np.int64)
    size = 0
    for b in range(b_min, b_max + 1):
        size += b
    cuts = np.empty(size, np.float64)
    estimates = np.empty(size, np.float64)
    starts = np.empty(b_max + 1, np.int64)
    at = 0
    lg_c = math.lgamma(strength)
    for m in range(n_models):
        b = b_min + m
        # first run of each bin; duplicates (empty bins) are skipped
        n_bins = 0
        starts[0] = 0
        n_bins = 1
        for k in range(1, b):
            target = k * total / b
            # first run with below >= target
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
            score += (lg_c - math.lgamma(n + strength) + math.lgamma(n1 + a1) - math.lgamma(a1)
                      + math.lgamma(n0 + a0) - math.lgamma(a0))
            cuts[at + j] = -np.inf if j == 0 else lower
            estimates[at + j] = (n1 + a1) / (n + strength)
        log_marginal[m] = score
        at += n_bins
        offsets[m + 1] = at
    return log_marginal, offsets, cuts[:at], estimates[:at]


@njit(cache=True)
def average_step_functions(offsets, cuts, estimates, model_weight, grid):
    """Value on each cell of ``grid`` (sorted union of cuts) of the weighted sum of step maps.

    Cell i is [grid[i - 1], grid[i]) (cell 0 below grid[0], the last one above the
    last point). A difference array adds each bin's weighted estimate over its cells.
    """
    diff = np.zeros(grid.shape[0] + 2, np.float64)
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
    out = np.empty(grid.shape[0] + 1, np.float64)
    acc = 0.0
    for i in range(grid.shape[0] + 1):
        acc += diff[i]
        out[i] = acc
    return out
