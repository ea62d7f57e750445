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

These edges (training scores, or the points k/K) suit a diagnostic binning of
fixed data. A step map that predicts new scores needs its edges *between* the
training scores instead (:func:`midpoints_below` and :func:`uniform_step_edges`),
so that a rounding-level change of a training score never moves it to another bin.
"""

import numpy as np

STRATEGIES = ("uniform", "quantile")


def sorted_runs(scores, labels=None, weights=None):
    """Sorted unique scores with their total weight and positive weight.

    Without weights, positives and negatives are sorted separately (a plain
    ``np.sort`` is several times faster than ``argsort``) and merged in one pass.
    Rows of zero weight are dropped: they are absent rows.
    """
    from calibbook._kernels.aggregate import (
        merge_runs_with_sentinels,
        merge_sorted_runs,
        weighted_runs,
    )

    if weights is None:
        if labels is None:
            return merge_sorted_runs(np.sort(scores), np.empty(0))
        return merge_runs_with_sentinels(*split_sorted(scores, labels))
    if labels is None:
        labels = np.zeros_like(scores)
    return weighted_runs(scores, weights, labels, np.argsort(scores))


def split_sorted(scores, labels):
    """Sorted scores of the negatives and of the positives, in one buffer with sentinels.

    Returns ``(buf, n_neg)``: ``buf[:n_neg]`` are the scores with label != 1 and
    ``buf[n_neg + 1:-1]`` those with label 1, each sorted; ``buf[n_neg]`` and ``buf[-1]``
    are +inf (see ``_kernels.aggregate.split_with_sentinels``). The two parts are sorted
    in place, with the algorithm of ``np.sort`` on the same inputs as boolean masks give.
    """
    from calibbook._kernels.aggregate import split_with_sentinels

    buf, n_neg = split_with_sentinels(scores, labels)
    buf[:n_neg].sort()
    buf[n_neg + 1 : -1].sort()
    return buf, n_neg


def equal_frequency(run_values, run_weights, run_positives, n_bins):
    """Equal-frequency bins over sorted runs: (inner edges, bin weights, bin positives)."""
    from calibbook._kernels.binning import equal_frequency_bins

    starts, bin_weight, bin_positive = equal_frequency_bins(run_weights, run_positives, n_bins)
    edge_values = np.append(run_values, np.inf)  # a start past the last run means +inf
    return edge_values[starts[1:-1]], bin_weight, bin_positive


def equal_frequency_fit(scores, labels, weights, n_bins, *, cut_between=False):
    """Equal-frequency bins of labelled rows: (inner edges, bin weights, bin positives).

    Unweighted rows take the O(K log N) path over separately sorted negatives and
    positives; weighted rows go through the sorted runs. With ``cut_between`` each
    finite edge (the smallest score of the bin above it) moves down to the midpoint
    between it and the largest training score below it (:func:`midpoints_below`):
    the same rows fall in the same bins, and no edge sits on a training score.
    """
    from calibbook._kernels.binning import equal_frequency_two_sorted, split_by_label

    if weights is None:
        neg, pos = split_by_label(scores, labels)
        neg.sort()
        pos.sort()
        edges, bin_weight, bin_positive = equal_frequency_two_sorted(neg, pos, n_bins)
        if cut_between:
            below = np.maximum(largest_below(neg, edges), largest_below(pos, edges))
            edges = midpoints_below(below, edges)
        return edges, bin_weight, bin_positive
    values, run_weights, run_positives = sorted_runs(scores, labels, weights)
    edges, bin_weight, bin_positive = equal_frequency(values, run_weights, run_positives, n_bins)
    if cut_between:
        edges = midpoints_below(largest_below(values, edges), edges)
    return edges, bin_weight, bin_positive


def largest_below(sorted_values, points):
    """For each point, the largest entry of ``sorted_values`` strictly below it (-inf if none)."""
    if sorted_values.size == 0:
        return np.full(points.shape, -np.inf)
    i = np.searchsorted(sorted_values, points, side="left")
    return np.where(i > 0, sorted_values[np.maximum(i - 1, 0)], -np.inf)


def midpoints_below(below, edges):
    """Move edges that sit on a score down to the midpoint with the score ``below`` them.

    Elementwise: the midpoint of ``below < edges``, or the edge itself where the two are
    adjacent floats (nothing lies strictly between them) or nothing is below (-inf).
    A +inf edge stays +inf.
    """
    with np.errstate(invalid="ignore"):  # -inf and +inf: no midpoint, keep the edge
        mid = 0.5 * below + 0.5 * edges
        return np.where(mid > below, mid, edges)


def uniform_step_edges(bin_min, bin_max):
    """Inner edges of K equal-width bins, moved between the training scores.

    ``bin_min``/``bin_max``: each bin's smallest and largest training score (+inf/-inf
    when empty). The training rows keep their bins; what moves are the edges. The
    edges between two consecutive distinct training scores a < b (with the ends 0
    and 1 of [0, 1] standing in for a below the smallest score and b above the largest)
    are the edges of the empty bins between a's bin and b's, plus one: they split
    (a, b) into equal parts. With no empty bin between, that is the midpoint of a and b.
    """
    n_bins = bin_min.size
    if n_bins == 1:
        return np.empty(0)
    lower = np.maximum.accumulate(bin_max)[:-1]  # largest score below edge j
    upper = np.minimum.accumulate(bin_min[::-1])[::-1][1:]  # smallest score above it
    lower = np.where(np.isfinite(lower), lower, 0.0)
    upper = np.where(np.isfinite(upper), upper, 1.0)
    # edge j separates bins j and j + 1; edges j - 1 and j share a gap when bin j is empty
    starts = np.concatenate(([True], bin_max[1:-1] > -np.inf))
    group = np.cumsum(starts) - 1
    first = np.flatnonzero(starts)
    count = np.diff(np.append(first, n_bins - 1))
    t = (np.arange(n_bins - 1) - first[group] + 1) / (count[group] + 1.0)
    edges = np.minimum((1.0 - t) * lower + t * upper, upper)
    edges = np.where(edges > lower, edges, upper)  # adjacent floats: nothing lies between
    return np.maximum.accumulate(edges)


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
