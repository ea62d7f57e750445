"""Kernels of the calibration tests: one pass over the rows for each test's sums.

The logistic fits of the calibration intercept and slope reuse the blocked Newton
sums of :mod:`calibbook._kernels.platt`; what is here are the sums of the
Spiegelhalter z-test and the per-group sums of the Hosmer-Lemeshow test.
"""

import numpy as np
from numba import njit

from calibbook._kernels.arrays import zeroed
from calibbook._kernels.binning import equal_frequency_bins


@njit(cache=True)
def spiegelhalter_sums(y, p, w):
    """Weighted sums of (y - p)(1 - 2p) and of (1 - 2p)^2 p (1 - p).

    The numerator and the null variance of Spiegelhalter's z. ``w`` empty means
    weights 1.
    """
    num = 0.0
    var = 0.0
    weighted = w.shape[0] > 0
    for i in range(p.shape[0]):
        wi = w[i] if weighted else 1.0
        c = 1.0 - 2.0 * p[i]
        num += wi * (y[i] - p[i]) * c
        var += wi * c * c * p[i] * (1.0 - p[i])
    return num, var


@njit(cache=True)
def weighted_groups(values, run_weights, run_positives, n_groups, n_terms=-1):
    """Total weight, observed positives and expected positives of equal-weight groups.

    The input are the sorted runs of equal predictions (value, total weight,
    positive weight) of ``calibbook._utils.binning.sorted_runs``, grouped as the
    ``"quantile"`` bins group them (``equal_frequency_bins``: no run is split);
    ``n_terms`` is the number of rows summed into the runs (its rounding slack).
    Within a run the prediction is constant, so the run adds value * weight to
    the expected count. The three sums visit the runs in the same order: a group
    whose only run is the prediction 1 has expected == total exactly, and the
    prediction 0 gives expected == 0.
    """
    starts, total, observed = equal_frequency_bins(run_weights, run_positives, n_groups, n_terms)
    expected = zeroed(np.empty(n_groups))
    for k in range(n_groups):
        for r in range(starts[k], starts[k + 1]):
            expected[k] += values[r] * run_weights[r]
    return total, observed, expected


@njit(cache=True)
def sorted_group_sums(sorted_values, edges):
    """Sum of the sorted values in each group [edges[k - 1], edges[k]) (one pass).

    A value v belongs to group ``searchsorted(edges, v, side="right")``, as in
    ``calibbook._utils.binning.assign_bins``; ``edges`` are non-decreasing (+inf allowed).
    """
    n_edges = edges.shape[0]
    sums = zeroed(np.empty(n_edges + 1))
    k = 0
    for i in range(sorted_values.shape[0]):
        v = sorted_values[i]
        while k < n_edges and v >= edges[k]:
            k += 1
        sums[k] += v
    return sums


@njit(cache=True)
def class_ranges(x, y, w):
    """Smallest and largest x of the positives and of the negatives (rows of weight > 0).

    Returns (min_pos, max_pos, min_neg, max_neg); a class without rows gets
    (+inf, -inf). ``w`` empty means weights 1.
    """
    min_pos = min_neg = np.inf
    max_pos = max_neg = -np.inf
    weighted = w.shape[0] > 0
    for i in range(x.shape[0]):
        if weighted and not w[i] > 0.0:
            continue
        if y[i] == 1.0:
            min_pos = min(min_pos, x[i])
            max_pos = max(max_pos, x[i])
        else:
            min_neg = min(min_neg, x[i])
            max_neg = max(max_neg, x[i])
    return min_pos, max_pos, min_neg, max_neg
