"""Kernels for histogram bins: equal-frequency bins over runs, equal-width bins over rows."""

import numpy as np
from numba import njit

from calibbook._kernels.arrays import filled, zeroed

#: Relative rounding slack of a weight sum, per summed term (see ``share_threshold``).
SLACK_PER_TERM = 2.0 * np.finfo(np.float64).eps


@njit(cache=True)
def share_threshold(k, n_bins, total, n_terms):
    """The weight a bin start needs below it: ``k * total / n_bins``, less the rounding slack.

    A run starts bin k (or a later one) when the weight strictly below it reaches k W / K.
    The weights below and the total are float sums of ``n_terms`` non-negative terms, each
    off by at most (n - 1) u of itself (u = eps / 2), and k W / K adds two roundings; so
    W(score < s) >= (1 - 2 n eps) k W / K counts as reaching the share. Ties in exact
    arithmetic then resolve alike at every scale of the weights (unit weights times 0.1,
    1/3 or 1e-6 give the unweighted bins), at the price of merging near ties closer than
    2 n eps of the share, where the float sums cannot tell the two sides apart anyway.
    """
    return k * total / n_bins * (1.0 - SLACK_PER_TERM * max(n_terms, 1))


@njit(cache=True)
def equal_frequency_bins(weights, positives, n_bins, n_terms=-1):
    """Group sorted runs into ``n_bins`` equal-frequency bins without splitting a run.

    Run r (total weight W) joins bin #{k in 1..K-1 : weight of runs before r reaches
    k W / K} (``share_threshold``). ``n_terms`` is how many rows were summed into the
    run weights (the rounding slack grows with it); -1 means one row per run.

    Returns
    -------
    starts : int64 array (n_bins + 1,)
        Index of the first run of each bin; ``starts[K]`` is the number of runs.
        Bins with ``starts[k] == starts[k + 1]`` are empty.
    bin_weight, bin_positive : float64 arrays (n_bins,)
    """
    n_runs = weights.shape[0]
    if n_terms < 0:
        n_terms = n_runs
    total = 0.0
    for r in range(n_runs):
        total += weights[r]
    starts = np.empty(n_bins + 1, np.int64)
    bin_weight = zeroed(np.empty(n_bins, np.float64))
    bin_positive = zeroed(np.empty(n_bins, np.float64))
    starts[0] = 0
    below = 0.0
    k = np.int64(1)  # not a literal 1: one specialization of share_threshold
    for r in range(n_runs):
        while k < n_bins and below >= share_threshold(k, n_bins, total, n_terms):
            starts[k] = r
            k += 1
        bin_weight[k - 1] += weights[r]
        bin_positive[k - 1] += positives[r]
        below += weights[r]
    while k <= n_bins:
        starts[k] = n_runs
        k += 1
    return starts, bin_weight, bin_positive


@njit(cache=True)
def midpoint(a, b):
    """A cut between the scores a < b: their midpoint, or b if they are adjacent floats.

    Adjacent floats have no float strictly between them, and the rounded midpoint
    lands on a or b; b keeps a below the cut and b above it, as a bin's rows are.
    """
    m = 0.5 * a + 0.5 * b  # 0.5 * (a + b) overflows for |a|, |b| near the largest float
    return m if m > a else b


@njit(cache=True)
def uniform_edge(k, n_bins):
    """The k-th edge of ``n_bins`` equal-width bins of [0, 1]: the float nearest to k / K.

    One correctly rounded division, so the forecast 0.3 (the float nearest to 3/10) is
    the edge 3 of 10 itself. ``np.linspace`` computes k * (1 / K) instead, whose 0.3 is
    0.30000000000000004, and 0.3 then fell into the bin below.
    """
    return k / n_bins


@njit(cache=True)
def uniform_bin(s, n_bins):
    """Equal-width bin of a score s in [0, 1]: the k with edge k <= s < edge k + 1.

    The edges are ``uniform_edge`` (k/K as the nearest float); 1 falls in the last bin.
    ``int(s * K)`` alone can be one off, as the product rounds (the float just below
    5/6, times 6, rounds to 5.0): it is the first guess, and comparisons with the edges
    themselves settle it exactly.
    """
    k = min(max(int(s * n_bins), 0), n_bins - 1)
    while k > 0 and s < uniform_edge(k, n_bins):
        k -= 1
    while k < n_bins - 1 and s >= uniform_edge(k + 1, n_bins):
        k += 1
    return k


@njit(cache=True)
def uniform_bins(scores, n_bins):
    """``uniform_bin`` of every score: (n,) int64."""
    out = np.empty(scores.shape[0], np.int64)
    for i in range(scores.shape[0]):
        out[i] = uniform_bin(scores[i], n_bins)
    return out


@njit(cache=True)
def uniform_bin_sums(scores, labels, weights, n_bins):
    """Weight, positive weight, smallest and largest score per equal-width bin of [0, 1].

    Bin k = [k/K, (k+1)/K) with k/K the nearest float (``uniform_bin``). Rows of zero
    weight are absent: they count in no bin's scores (an empty bin has smallest score
    +inf and largest -inf).
    """
    bin_weight = zeroed(np.empty(n_bins, np.float64))
    bin_positive = zeroed(np.empty(n_bins, np.float64))
    bin_min = filled(np.empty(n_bins), np.inf)
    bin_max = filled(np.empty(n_bins), -np.inf)
    for i in range(scores.shape[0]):
        s = scores[i]
        k = uniform_bin(s, n_bins)
        bin_weight[k] += weights[i]
        bin_positive[k] += weights[i] * labels[i]
        if weights[i] > 0.0:
            bin_min[k] = min(bin_min[k], s)
            bin_max[k] = max(bin_max[k], s)
    return bin_weight, bin_positive, bin_min, bin_max


@njit(cache=True)
def count_at_or_below(sorted_values, v):
    """Number of entries of ``sorted_values`` that are <= v (``searchsorted(..., side="right")``).

    Branch-free: with random queries the branches of a classic binary search are
    unpredictable, which makes it (and numpy's version) several times slower.
    """
    m = sorted_values.shape[0]
    if m == 0:
        return 0
    base = 0
    n = m
    while n > 1:
        half = n >> 1
        base = base + half if sorted_values[base + half] <= v else base
        n -= half
    return base + (1 if sorted_values[base] <= v else 0)


@njit(cache=True)
def count_below(sorted_values, v):
    """Number of entries of ``sorted_values`` that are < v (``searchsorted(..., side="left")``).

    Branch-free, as :func:`count_at_or_below`. numba's own ``np.searchsorted`` takes about a
    second to compile, more than every kernel that calls it; these two take a tenth of that.
    """
    m = sorted_values.shape[0]
    if m == 0:
        return 0
    base = 0
    n = m
    while n > 1:
        half = n >> 1
        base = base + half if sorted_values[base + half] < v else base
        n -= half
    return base + (1 if sorted_values[base] < v else 0)


@njit(cache=True)
def bin_index(edges, x):
    """``np.searchsorted(edges, x, side="right")`` for sorted ``edges`` and finite queries.

    Binary search costs log2(K) dependent memory reads per query. Instead, split
    [edges[0], edges[-1]] into G equal buckets and record how many edges fall in
    the buckets before each one; a query then needs one multiply, one table read
    and a search among the few edges of its own bucket (6-10x faster at 1e7
    queries). Exact: the bucket map g(v) = int((v - lo) * scale) is monotone in v
    (correctly rounded arithmetic), so every edge of an earlier bucket is < v and
    every edge of a later bucket is > v, whatever the rounding.
    """
    n_edges = edges.shape[0]
    out = np.empty(x.shape[0], np.int64)
    lo = edges[0] if n_edges else 0.0
    hi = edges[n_edges - 1] if n_edges else 0.0
    n_buckets = min(4 * n_edges, 1 << 20)
    width = hi - lo
    # few queries, or degenerate edges (equal, a few ulps apart, a range that overflows):
    # one bucket, a plain binary search
    bucketed = n_edges >= 8 and x.shape[0] >= 4 * n_edges and width > 0.0
    bucketed = bucketed and np.isfinite(width) and np.isfinite(n_buckets / width)
    if not bucketed:
        n_buckets = 0
    scale = n_buckets / width if bucketed else 0.0
    # before[g] = number of edges whose bucket is < g
    before = np.empty(n_buckets + 2, np.int64)
    for g in range(n_buckets + 2):
        before[g] = 0
    for j in range(n_edges):
        before[(min(int((edges[j] - lo) * scale), n_buckets) if bucketed else 0) + 1] += 1
    for g in range(1, n_buckets + 2):
        before[g] += before[g - 1]
    for i in range(x.shape[0]):
        v = x[i]
        if v < lo:
            out[i] = 0
        elif v >= hi:
            out[i] = n_edges
        else:
            g = min(int((v - lo) * scale), n_buckets) if bucketed else 0
            first, stop = before[g], before[g + 1]
            out[i] = first + count_at_or_below(edges[first:stop], v)
    return out


@njit(cache=True)
def split_by_label(scores, labels):
    """Scores of negatives and of positives, in two arrays (one pass, no boolean masks)."""
    n_pos = 0
    for i in range(labels.shape[0]):
        if labels[i] == 1.0:
            n_pos += 1
    neg = np.empty(labels.shape[0] - n_pos, np.float64)
    pos = np.empty(n_pos, np.float64)
    i_neg = i_pos = 0
    for i in range(labels.shape[0]):
        if labels[i] == 1.0:
            pos[i_pos] = scores[i]
            i_pos += 1
        else:
            neg[i_neg] = scores[i]
            i_neg += 1
    return neg, pos


@njit(cache=True)
def _kth_of_two(a, b, j):
    """The j-th smallest (0-based) element of the union of sorted arrays a and b."""
    na, nb = a.shape[0], b.shape[0]
    lo, hi = max(0, j + 1 - nb), min(j + 1, na)
    while True:
        i = (lo + hi) // 2  # elements taken from a among the j + 1 smallest
        if i < na and j - i >= 0 and b[j - i] > a[i]:
            lo = i + 1
        elif i > 0 and j + 1 - i < nb and a[i - 1] > b[j + 1 - i]:
            hi = i - 1
        else:
            top = -np.inf
            if i > 0:
                top = a[i - 1]
            if j - i >= 0 and b[j - i] > top:
                top = b[j - i]
            return top


@njit(cache=True)
def equal_frequency_two_sorted(neg, pos, n_bins):
    """Equal-frequency bins of unit-weight rows given as sorted negatives and positives.

    Same bins as ``equal_frequency_bins`` on the merged runs, in O(K log N) after the
    two sorts: the k-th edge is the smallest score with at least k N / K rows strictly
    below it (``share_threshold``, with the slack of the weighted path), found from an
    order statistic of the union and, when that one sits inside a run of ties, the next
    distinct score.

    Returns inner edges (K - 1,), bin weights (K,), bin positives (K,).
    """
    n = neg.shape[0] + pos.shape[0]
    total = float(n)
    edges = np.empty(n_bins - 1, np.float64)
    for k in range(1, n_bins):
        t = share_threshold(k, n_bins, total, n)
        j = int(np.ceil(t))
        if j >= n:
            edges[k - 1] = np.inf
            continue
        u = _kth_of_two(neg, pos, j)
        below = count_below(neg, u) + count_below(pos, u)
        if below >= t:
            edges[k - 1] = u
        else:  # u's run of ties started before the target: the edge is the next value
            nxt = np.inf
            i_neg = count_at_or_below(neg, u)
            i_pos = count_at_or_below(pos, u)
            if i_neg < neg.shape[0]:
                nxt = neg[i_neg]
            if i_pos < pos.shape[0] and pos[i_pos] < nxt:
                nxt = pos[i_pos]
            edges[k - 1] = nxt
    bin_weight = np.empty(n_bins, np.float64)
    bin_positive = np.empty(n_bins, np.float64)
    prev_all, prev_pos = 0, 0
    for k in range(n_bins):
        if k < n_bins - 1:
            c_pos = count_below(pos, edges[k])
            c_all = c_pos + count_below(neg, edges[k])
        else:
            c_pos, c_all = pos.shape[0], n
        bin_weight[k] = c_all - prev_all
        bin_positive[k] = c_pos - prev_pos
        prev_all, prev_pos = c_all, c_pos
    return edges, bin_weight, bin_positive


# Queries from which a sorted lookup is compiled (bucketed, ``_kernels.binning.bin_index``)
# rather than NumPy's binary search: below it, the search costs less than the compile.
COMPILED_LOOKUP_FROM = 1 << 14


def sorted_index(edges, x):
    """``np.searchsorted(edges, x, side="right")`` for sorted ``edges`` and finite queries.

    Fewer than ``COMPILED_LOOKUP_FROM`` queries: NumPy's own search, nothing to compile
    (a first prediction on a few scores waits for no compiler). More: the bucketed
    lookup ``bin_index``, several times faster per query, whose compile (a few tenths of
    a second, once per machine with the cache) the queries then pay for. Both give the
    same indices.
    """
    if x.shape[0] < COMPILED_LOOKUP_FROM:
        return np.searchsorted(edges, x, side="right")
    return bin_index(edges, x)
