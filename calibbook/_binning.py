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
    rows. Heavy ties can leave some bins empty (their edges coincide, or are
    +inf past the largest score), and no score ever falls into those.
"""

import numpy as np

STRATEGIES = ("uniform", "quantile")


def sorted_runs(scores, labels=None, weights=None):
    """Sorted unique scores with their total weight and positive weight.

    Without weights, positives and negatives are sorted separately (a plain
    ``np.sort`` is several times faster than ``argsort``) and merged in one pass.
    Rows of zero weight are dropped: they are absent rows.
    """
    from ._kernels.aggregate import merge_sorted_runs, weighted_runs

    if weights is None:
        if labels is None:
            return merge_sorted_runs(np.sort(scores), np.empty(0))
        is_pos = labels == 1
        return merge_sorted_runs(np.sort(scores[~is_pos]), np.sort(scores[is_pos]))
    if labels is None:
        labels = np.zeros_like(scores)
    return weighted_runs(scores, weights, labels, np.argsort(scores))


def equal_frequency(run_values, run_weights, run_positives, n_bins):
    """Equal-frequency bins over sorted runs: (inner edges, bin weights, bin positives)."""
    from ._kernels.binning import equal_frequency_bins

    starts, bin_weight, bin_positive = equal_frequency_bins(run_weights, run_positives, n_bins)
    edge_values = np.append(run_values, np.inf)  # a start past the last run means +inf
    return edge_values[starts[1:-1]], bin_weight, bin_positive


def equal_frequency_fit(scores, labels, weights, n_bins):
    """Equal-frequency bins of labelled rows: (inner edges, bin weights, bin positives).

    Unweighted rows take the O(K log N) path over separately sorted negatives and
    positives; weighted rows go through the sorted runs.
    """
    from ._kernels.binning import equal_frequency_two_sorted, split_by_label

    if weights is None:
        neg, pos = split_by_label(scores, labels)
        neg.sort()
        pos.sort()
        return equal_frequency_two_sorted(neg, pos, n_bins)
    return equal_frequency(*sorted_runs(scores, labels, weights), n_bins)


def uniform_edges(n_bins):
    """Inner edges of K equal-width bins on [0, 1]."""
    return np.linspace(0.0, 1.0, n_bins + 1)[1:-1]


def unit_weights_or_none(weights):
    """None when every weight is 1, so callers can take the unweighted fast path."""
    return None if weights is None or np.all(weights == 1.0) else weights


def bin_edges(values, weights, n_bins, strategy):
    """Inner bin edges (length ``n_bins - 1``, non-decreasing) for validated arrays."""
    if strategy == "uniform":
        return uniform_edges(n_bins)
    labels = np.zeros_like(values)
    return equal_frequency_fit(values, labels, unit_weights_or_none(weights), n_bins)[0]


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
