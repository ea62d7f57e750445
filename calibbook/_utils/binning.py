"""Partitions of a score axis into bins, shared by the metrics and by histogram binning.

Two strategies:

``"uniform"``
    K equal-width bins on [0, 1]. Bin k is [k/K, (k+1)/K), where k/K is the float
    nearest to it (so the forecast 0.3 is in bin 3 of 10); the last bin also contains
    1. One function computes the index, ``calibbook._kernels.binning.uniform_bin``
    (:func:`uniform_edges` gives the same edges for a binary search).
``"quantile"``
    K equal-frequency bins that never split tied scores. With total weight W,
    the k-th inner edge is the smallest observed score v whose *strictly
    smaller* scores carry weight at least k W / K. Equivalently, a sample with
    score s lands in bin #{k in 1..K-1 : W(score < s) >= k W / K}. Tied scores
    share W(score < s), hence a bin. The rule depends on the weighted empirical
    distribution only, so integer weights give exactly the bins of repeated
    rows. Heavy ties can leave some bins empty (their edges coincide, or are
    +inf past the largest score), and no score ever falls into those.
    The comparison allows for the rounding of the float sums: W(score < s) counts
    as reaching k W / K from (1 - 2 n eps) k W / K on, n the number of rows of
    positive weight (``calibbook._kernels.binning.share_threshold``). A tie in exact
    arithmetic then resolves the same way whatever the scale of the weights: unit
    weights times 0.1, 1/3 or 1e6 give exactly the unweighted bins.

These edges (training scores, or the points k/K) suit a diagnostic binning of
fixed data. A step map that predicts new scores needs its edges off the training
scores instead (:func:`midpoints_below` and :func:`uniform_step_edges`), so that a
rounding-level change of a training score never moves it to another bin.
"""

import numpy as np

STRATEGIES = ("uniform", "quantile")


def sorted_runs(scores, labels=None, weights=None):
    """Sorted unique scores with their total weight and positive weight.

    Without weights, positives and negatives are sorted separately (a plain
    ``np.sort`` is several times faster than ``argsort``) and merged in one pass.
    Rows of zero weight are dropped: they are absent rows.
    """
    from calibbook._kernels.aggregate import merge_runs_with_sentinels, new_runs
    from calibbook._kernels.interpreted import for_size

    if labels is None:
        labels = np.zeros_like(scores)
    if weights is not None:
        return ordered_runs(scores, weights, labels, np.argsort(scores))
    out = new_runs(scores.size)
    n_runs = for_size(merge_runs_with_sentinels, scores.size)(*split_sorted(scores, labels), out)
    return tuple(a[:n_runs] for a in out)


def ordered_runs(scores, weights, labels, order):
    """Runs of equal scores of weighted rows visited in ``order``, an argsort of ``scores``
    (:func:`calibbook._kernels.aggregate.weighted_runs`): values, weights, positive weights."""
    from calibbook._kernels.aggregate import new_runs, weighted_runs
    from calibbook._kernels.interpreted import for_size

    out = new_runs(scores.size)
    n_runs = for_size(weighted_runs, scores.size)(scores, weights, labels, order, out)
    return tuple(a[:n_runs] for a in out)


def split_sorted(scores, labels):
    """Sorted scores of the negatives and of the positives, in one buffer with sentinels.

    Returns ``(buf, n_neg)``: ``buf[:n_neg]`` are the scores with label != 1 and
    ``buf[n_neg + 1:-1]`` those with label 1, each sorted; ``buf[n_neg]`` and ``buf[-1]``
    are +inf, so that a merge of the two parts (``_kernels.aggregate.merge_runs_with_sentinels``
    and the fused fits that read this buffer) needs no bounds checks. Boolean masks
    and ``np.sort``'s algorithm, in NumPy: nothing to compile on a first fit.
    """
    is_pos = labels == 1.0
    n = scores.shape[0]
    n_neg = n - int(np.count_nonzero(is_pos))
    buf = np.empty(n + 2)
    np.compress(~is_pos, scores, out=buf[:n_neg])
    np.compress(is_pos, scores, out=buf[n_neg + 1 : n + 1])
    buf[n_neg] = buf[n + 1] = np.inf
    buf[:n_neg].sort()
    buf[n_neg + 1 : -1].sort()
    return buf, n_neg


def equal_frequency(run_values, run_weights, run_positives, n_bins, n_terms=-1):
    """Equal-frequency bins over sorted runs: (inner edges, bin weights, bin positives).

    ``n_terms``: the number of rows summed into the runs (-1: one per run), for the
    rounding slack of ``calibbook._kernels.binning.share_threshold``.
    """
    from calibbook._kernels.binning import equal_frequency_bins

    starts, bin_weight, bin_positive = equal_frequency_bins(
        run_weights, run_positives, n_bins, n_terms
    )
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
    n_terms = np.count_nonzero(weights)  # rows of zero weight are absent
    edges, bin_weight, bin_positive = equal_frequency(
        values, run_weights, run_positives, n_bins, n_terms
    )
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


#: How far a training score may lie from an equal-width edge k/K and still count as lying on
#: it: 16 eps, an absolute distance, as the scores are probabilities in [0, 1]. A classifier's
#: probability for one case moves by an ulp or two between calls (a batch and the row alone).
EDGE_SLACK = 16 * np.finfo(np.float64).eps


def uniform_step_edges(bin_min, bin_max):
    """Inner edges k/K of K equal-width bins, each kept ``EDGE_SLACK`` off the training scores.

    ``bin_min``/``bin_max``: each bin's smallest and largest training score (+inf/-inf
    when empty). Let a < k/K <= b be the training scores next to edge k (a below, b at or
    above; -inf/+inf if none). The edge is k/K clipped to [a + slack, b - slack]: it
    stays at k/K unless a training score lies within the slack of it, and then moves just
    far enough. Where the gap (a, b) is narrower than twice the slack, the edge is the
    midpoint of a and b (b if they are adjacent floats). The training rows keep their
    bins (a below the edge, b at or above it), and so do their rounding-level neighbours.
    """
    edges = uniform_edges(bin_min.size)
    below = np.maximum.accumulate(bin_max)[:-1]  # largest score below edge k
    above = np.minimum.accumulate(bin_min[::-1])[::-1][1:]  # smallest score at or above it
    lo, hi = below + EDGE_SLACK, above - EDGE_SLACK
    wide = lo <= hi
    clipped = np.clip(edges, np.where(wide, lo, -np.inf), np.where(wide, hi, np.inf))
    return np.maximum.accumulate(np.where(wide, clipped, midpoints_below(below, above)))


def uniform_edges(n_bins):
    """Inner edges of K equal-width bins on [0, 1]: the floats nearest to k/K, k = 1..K-1.

    The edges of ``calibbook._kernels.binning.uniform_bin``: ``np.searchsorted(edges, s,
    side="right")`` is that bin.
    """
    return np.arange(1, n_bins) / n_bins


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


def binned(values, weights, n_bins, strategy):
    """Inner edges and the bin of each value, for validated arrays: (edges, ids).

    Equal-width bins take their index from ``calibbook._kernels.binning.uniform_bins``
    (one multiply and a check per value, no search).
    """
    if strategy == "uniform":
        from calibbook._kernels.binning import uniform_bins

        return uniform_edges(n_bins), uniform_bins(values, n_bins)
    edges = bin_edges(values, weights, n_bins, strategy)
    return edges, assign_bins(values, edges)


def bin_statistics(y, p, w, ids, n_bins):
    """Per-bin total weight, weighted mean prediction and weighted positive rate.

    Empty bins get weight 0 and NaN means; callers drop them.
    """
    weight = np.bincount(ids, weights=w, minlength=n_bins)
    sum_p = np.bincount(ids, weights=w * p, minlength=n_bins)
    sum_y = np.bincount(ids, weights=w * y, minlength=n_bins)
    with np.errstate(invalid="ignore", divide="ignore"):
        return weight, sum_p / weight, sum_y / weight
