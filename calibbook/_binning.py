"""Partitions of a score axis into bins, shared by the metrics and by histogram binning.

Two strategies:

``"uniform"``
    K equal-width bins on [0, 1]. Bin k is [k/K, (k+1)/K); the last bin also
    contains 1.
``"quantile"``
    K equal-frequency bins that never split tied scores. With total weight W,
    the k-th inner edge is the smallest observed score v whose *strictly
    smaller* scores carry weight at least k W / K. Equivalently, a sample with
    score s lands in bin #{k in 1..K-1 : W(score < s) >= k W / K}. Tied scores
    share W(score < s), hence a bin. The rule depends on the weighted empirical
    distribution only, so integer weights give exactly the bins of repeated
    rows. Heavy ties can leave some bins empty.
"""

import numpy as np

STRATEGIES = ("uniform", "quantile")


def bin_edges(values, weights, n_bins, strategy):
    """Inner bin edges (length ``n_bins - 1``, non-decreasing).

    ``values`` and ``weights`` are validated 1-D float64 arrays.
    """
    if strategy == "uniform":
        return np.linspace(0.0, 1.0, n_bins + 1)[1:-1]
    keep = weights > 0  # zero-weight rows must not place edges (they are absent rows)
    values, weights = values[keep], weights[keep]
    order = np.argsort(values)
    v, w = values[order], weights[order]
    below = np.concatenate(([0.0], np.cumsum(w)[:-1]))  # weight strictly before each sorted row
    total = below[-1] + w[-1]
    targets = np.arange(1, n_bins) * total / n_bins
    # Within a run of ties only the first row's `below` is the weight strictly
    # below the value; later rows include part of the tie, so mask them out.
    first_of_run = np.concatenate(([True], v[1:] != v[:-1]))
    run_values, run_below = v[first_of_run], below[first_of_run]
    idx = np.searchsorted(run_below, targets, side="left")
    return np.where(idx < run_values.size, run_values[np.minimum(idx, run_values.size - 1)], np.inf)


def assign_bins(values, edges):
    """Bin index of each value: the number of inner edges at or below it."""
    return np.searchsorted(edges, values, side="right")


def bin_statistics(y, p, w, ids, n_bins):
    """Per-bin total weight, weighted mean prediction and weighted positive rate.

    Empty bins get weight 0 and NaN means; callers drop them.
    """
    weight = np.bincount(ids, weights=w, minlength=n_bins)
    sum_p = np.bincount(ids, weights=w * p, minlength=n_bins)
    sum_y = np.bincount(ids, weights=w * y, minlength=n_bins)
    with np.errstate(invalid="ignore", divide="ignore"):
        return weight, sum_p / weight, sum_y / weight
