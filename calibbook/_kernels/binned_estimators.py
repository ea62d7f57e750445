"""Kernels of the debiased binned estimator and of the monotone bin sweep.

``binned_sums`` is one pass over the rows for fixed bins. The sweep works on sorted
runs (distinct score, negative weight, positive weight): with prefix sums over the
runs, a bin's sums are two subtractions, so trying b bins costs O(b) searches and
never revisits the rows.
"""

import numpy as np
from numba import njit

from calibbook._kernels.arrays import zeroed
from calibbook._kernels.binning import bin_index, share_threshold, uniform_bin, uniform_edge

_EPS = float(np.finfo(np.float64).eps)  # a constant: np.finfo inside a kernel compiles


@njit(cache=True)
def binned_sums(values, labels, weights, edges):
    """Per-bin total weight, weighted sum of predictions and weighted sum of labels.

    Bin of a value: the number of ``edges`` at or below it (``np.searchsorted(edges, v,
    side="right")``). Rows are added in order, as ``np.bincount`` adds them.
    """
    n_bins = edges.shape[0] + 1
    ids = bin_index(edges, values)
    weight = zeroed(np.empty(n_bins, np.float64))
    sum_p = zeroed(np.empty(n_bins, np.float64))
    sum_y = zeroed(np.empty(n_bins, np.float64))
    for i in range(values.shape[0]):
        k = ids[i]
        w = weights[i]
        weight[k] += w
        sum_p[k] += w * values[i]
        sum_y[k] += w * labels[i]
    return weight, sum_p, sum_y


@njit(cache=True)
def _threshold(k, n_bins, total, equal_mass, n_terms):
    """Position of the k-th inner edge: ``k W / b`` of the weight, or the value ``k / b``.

    The rules of ``calibbook._utils.binning``: ``share_threshold`` (with its rounding slack
    for ``n_terms`` summed rows) and ``uniform_edge`` (the float nearest to k / b).
    """
    if equal_mass:
        return share_threshold(k, n_bins, total, n_terms)
    return uniform_edge(k, n_bins)


@njit(cache=True)
def _bisect_at_least(keys, t, a, b):
    """First index i in [a, b] with ``keys[i] >= t``, given that b is one (or the end)."""
    while a < b:
        m = (a + b) >> 1
        if keys[m] >= t:
            b = m
        else:
            a = m + 1
    return a


@njit(cache=True)
def _first_at_least(keys, t, lo, hi):
    """First index i in [lo, hi) with ``keys[i] >= t`` (``hi`` if none); keys sorted.

    Gallops from ``lo``: O(log d) for an answer d places away, since successive
    edges of a sweep are searched from the previous one.
    """
    if lo >= hi or keys[lo] >= t:
        return lo
    # keys[lo] < t: double the step until past the answer
    step = 1
    prev = lo
    while prev + step < hi and keys[prev + step] < t:
        prev += step
        step *= 2
    return _bisect_at_least(keys, t, prev + 1, min(prev + step, hi))


@njit(cache=True)
def _first_at_least_before(keys, t, hi):
    """First index i in [0, hi] with ``keys[i] >= t``, given ``keys[hi] >= t``.

    Gallops backwards from ``hi`` (the run whose bin start is sought).
    """
    step = 1
    cur = hi  # keys[cur] >= t
    while cur - step >= 0 and keys[cur - step] >= t:
        cur -= step
        step *= 2
    return _bisect_at_least(keys, t, max(cur - step, 0), cur)


@njit(cache=True)
def _bin_of(keys, r, n_bins, total, equal_mass, n_terms):
    """Bin of run r: the number of inner edges k = 1..b-1 with ``thr(k) <= keys[r]``."""
    if not equal_mass:
        return uniform_bin(keys[r], n_bins)
    u = min(max(int(keys[r] * n_bins / total), 0), n_bins - 1)
    # the estimate is off by at most one edge after rounding: settle it exactly
    while u < n_bins - 1 and keys[r] >= share_threshold(u + 1, n_bins, total, n_terms):
        u += 1
    while u > 0 and keys[r] < share_threshold(u, n_bins, total, n_terms):
        u -= 1
    return u


@njit(cache=True)
def _bin_range(keys, r, n_bins, total, equal_mass, n_terms):
    """Runs [start, stop) of the bin that holds run r."""
    n_runs = keys.shape[0]
    u = _bin_of(keys, r, n_bins, total, equal_mass, n_terms)
    start = 0
    if u > 0:
        start = _first_at_least_before(keys, _threshold(u, n_bins, total, equal_mass, n_terms), r)
    stop = n_runs
    if u < n_bins - 1:
        stop = _first_at_least(
            keys, _threshold(u + 1, n_bins, total, equal_mass, n_terms), r + 1, n_runs
        )
    return start, stop


@njit(cache=True)
def _rate(cum_pos, cum_neg, start, stop):
    """Observed frequency of runs [start, stop).

    From separate positive and negative sums: a bin without negatives gets exactly 1
    and one without positives exactly 0, whatever the rounding of the prefix sums.
    """
    pos = cum_pos[stop] - cum_pos[start]
    neg = cum_neg[stop] - cum_neg[start]
    return pos / (pos + neg)


@njit(cache=True)
def _drops(cum_pos, cum_neg, s0, e0, s1, e1, slack):
    """Whether bin [s0, e0) has a higher observed frequency than bin [s1, e1), beyond rounding.

    ``slack`` bounds the rounding error of a bin's positive plus negative weight (both are
    differences of prefix sums); each rate may then be off by ``slack`` over its bin's weight.
    With ``slack`` 0 (exact sums: integer weights) this is the plain comparison.
    """
    w0 = (cum_pos[e0] - cum_pos[s0]) + (cum_neg[e0] - cum_neg[s0])
    w1 = (cum_pos[e1] - cum_pos[s1]) + (cum_neg[e1] - cum_neg[s1])
    gap = _rate(cum_pos, cum_neg, s0, e0) - _rate(cum_pos, cum_neg, s1, e1)
    return gap > slack / w0 + slack / w1


@njit(cache=True)
def _bin_starts(keys, n_bins, total, equal_mass, n_terms):
    """First run of each of the b bins, plus the number of runs: (b + 1,) int64."""
    n_runs = keys.shape[0]
    starts = np.empty(n_bins + 1, np.int64)
    starts[0] = 0
    for k in range(1, n_bins):
        starts[k] = _first_at_least(
            keys, _threshold(k, n_bins, total, equal_mass, n_terms), starts[k - 1], n_runs
        )
    starts[n_bins] = n_runs
    return starts


@njit(cache=True)
def _violates_all(keys, cum_pos, cum_neg, descents, n_bins, total, equal_mass, n_terms, slack):
    """Whether b bins break monotonicity, checking every pair of adjacent non-empty bins."""
    starts = _bin_starts(keys, n_bins, total, equal_mass, n_terms)
    prev_start = prev_end = np.int64(-1)  # typed int64 from the start: one specialization
    for k in range(n_bins):
        s, e = starts[k], starts[k + 1]
        if e == s:
            continue  # empty bins have no height and are skipped
        # a drop counts only if the two bins hold a descent of the runs' own rates
        # (always true in exact arithmetic), so that both checks decide alike
        if prev_start >= 0 and _drops(cum_pos, cum_neg, prev_start, prev_end, s, e, slack):
            i, stop = 0, descents.shape[0]
            while i < stop:  # bisect for the first descent j >= prev_start
                mid = (i + stop) >> 1
                if descents[mid] < prev_start:
                    i = mid + 1
                else:
                    stop = mid
            if i < descents.shape[0] and descents[i] <= e - 2:  # runs j, j + 1 both inside
                return True
        prev_start, prev_end = s, e
    return False


@njit(cache=True)
def _violates_near_descents(
    keys, cum_pos, cum_neg, descents, n_bins, total, equal_mass, n_terms, slack
):
    """Whether b bins break monotonicity, checking only the pairs that hold a descent.

    Two adjacent blocks of runs whose rates never decrease have non-decreasing means,
    so a violating pair of bins must contain some descent j (rate of run j above rate
    of run j + 1): either both runs in one bin (pairs with its two neighbours) or run
    j last of a bin and run j + 1 first of the next.
    """
    n_runs = keys.shape[0]
    last_start = -1
    for idx in range(descents.shape[0]):
        j = descents[idx]
        s1, e1 = _bin_range(keys, j, n_bins, total, equal_mass, n_terms)
        if s1 == last_start:
            continue  # this bin's pairs were checked for an earlier descent
        if j + 1 < e1:
            last_start = s1
            if s1 > 0:
                s0, _ = _bin_range(keys, s1 - 1, n_bins, total, equal_mass, n_terms)
                if _drops(cum_pos, cum_neg, s0, s1, s1, e1, slack):
                    return True
            if e1 < n_runs:
                _, e2 = _bin_range(keys, e1, n_bins, total, equal_mass, n_terms)
                if _drops(cum_pos, cum_neg, s1, e1, e1, e2, slack):
                    return True
        else:
            _, e2 = _bin_range(keys, j + 1, n_bins, total, equal_mass, n_terms)
            if _drops(cum_pos, cum_neg, s1, e1, e1, e2, slack):
                return True
    return False


@njit(cache=True)
def monotone_sweep(values, weights, positives, equal_mass, n_terms, exact=True):
    """Largest b of the sweep b = 2, 3, ... before the first non-monotone binning.

    Runs: strictly increasing ``values`` with positive total ``weights`` and positive
    weight ``positives``, summed from ``n_terms`` rows. Bins are equal-mass
    (``equal_mass``) or equal-width, with the edges of ``calibbook._utils.binning``. The
    sweep stops at the first b whose non-empty bins have a strictly decreasing observed
    frequency and returns the b before it (1 if already b = 2 breaks); it tries at most
    as many bins as there are runs. Returns ``(b, starts)``: the bins' first runs at
    that b, ``starts[b]`` being the number of runs.

    ``exact``: the weights are integers whose sums are exact, so frequencies compare as
    they are. Otherwise a drop must exceed the rounding of the prefix sums (each off by at
    most ``n_terms`` eps of the total), and a descent of the runs' rates counts when it
    might be one; so that weights scaled by any constant give the bins of the unscaled ones.
    """
    n_runs = values.shape[0]
    cum_pos = np.empty(n_runs + 1, np.float64)
    cum_neg = np.empty(n_runs + 1, np.float64)
    keys = np.empty(n_runs, np.float64) if equal_mass else values
    cum_pos[0] = cum_neg[0] = 0.0
    total = acc_pos = acc_neg = 0.0  # running sums in registers, not re-read from memory
    for r in range(n_runs):
        if equal_mass:
            keys[r] = total  # weight strictly below run r
        total += weights[r]
        acc_pos += positives[r]
        # weights[r] - positives[r] is exactly 0 for a run of positives (same sums)
        acc_neg += weights[r] - positives[r]
        cum_pos[r + 1] = acc_pos
        cum_neg[r + 1] = acc_neg
    eps = _EPS
    slack = 0.0 if exact else 2.0 * max(n_terms, 1) * eps * total
    loose = 1.0 if exact else 1.0 - 8.0 * max(n_terms, 1) * eps  # a possible descent counts
    descents = np.empty(max(n_runs - 1, 0), np.int64)
    n_desc = 0
    for j in range(n_runs - 1):
        # rate_j > rate_{j+1}, cross-multiplied (weights > 0); branch-free, as the
        # outcome is a coin flip on noisy labels
        descents[n_desc] = j
        n_desc += positives[j] * weights[j + 1] > loose * positives[j + 1] * weights[j]
    descents = descents[:n_desc]
    best = 1
    if n_desc == 0:
        best = max(n_runs, 1)  # rates never decrease: no binning breaks monotonicity
    else:
        for b in range(2, n_runs + 1):
            # all pairs cost about b searches, the pairs near descents about 5 per descent
            if b <= 5 * n_desc:
                bad = _violates_all(
                    keys, cum_pos, cum_neg, descents, b, total, equal_mass, n_terms, slack
                )
            else:
                bad = _violates_near_descents(
                    keys, cum_pos, cum_neg, descents, b, total, equal_mass, n_terms, slack
                )
            if bad:
                break
            best = b
    return best, _bin_starts(keys, best, total, equal_mass, n_terms)


@njit(cache=True)
def bin_totals(values, weights, positives, starts):
    """Per-bin weight, weighted sum of predictions and positive weight of runs.

    Summed run by run in order; a run's predictions all equal its value.
    """
    n_bins = starts.shape[0] - 1
    weight = zeroed(np.empty(n_bins, np.float64))
    sum_p = zeroed(np.empty(n_bins, np.float64))
    sum_y = zeroed(np.empty(n_bins, np.float64))
    for k in range(n_bins):
        for r in range(starts[k], starts[k + 1]):
            weight[k] += weights[r]
            sum_p[k] += values[r] * weights[r]
            sum_y[k] += positives[r]
    return weight, sum_p, sum_y
