"""BBQ: each equal-frequency binning scored by its marginal likelihood.

Binning B (B = b_min..b_max) cuts the sorted runs at the first run r whose weight before
it reaches the target k W / B (k = 1..B-1; ``np.searchsorted(below, k W / B)`` over the
prefix sums ``below`` of the run weights), and drops the empty bins. A binary search per
cut reads the runs at random, a cache miss per step. Here every cut of every binning is
visited in one sweep in increasing order of its fraction k / B: the reduced fractions
p / q with q <= B_max come in order from the Farey sequence's next-term rule, and each
stands for the cuts k = m p of the binnings B = m q. The runs are then read once, in
order, as a stream, and each binning still meets its own cuts in order, so its bins are
scored in the order of a loop over them: the same sums, bit for bit. O(R + sum_B B).

Two facts make the stream exact. Consecutive fractions differ by at least 1 / B_max^2,
far more than the rounding of k W / B, so the targets of different fractions come in
increasing order. The cuts of one fraction have the same target when W is an integer
(k W is then exact, and k W / B the correctly rounded value of the same real number);
otherwise their targets may differ in the last bits, and they are taken in increasing
order of target (the binnings are independent, so their order does not matter).

Without sample weights the stream merges the sorted scores of the negatives and of the
positives (the buffer of ``calibbook._utils.binning.split_sorted``) into runs on the fly; with
weights it reads the runs of ``sorted_runs``.

The sweeps and the averaged map are reached through ``for_size``: a small first fit runs them
as Python (:mod:`calibbook._kernels.interpreted`). The log marginals stay compiled: their
``math.lgamma`` is the C library's in numba and CPython's own in Python.
"""

import math

import numpy as np
from numba import njit

from calibbook._kernels.arrays import zeroed
from calibbook._kernels.binning import midpoint

# cuts_of_runs: a weight below within this many ulps of W of a target reaches it
_TIE_ULPS = 8.0

# the state of a binning in the sweep, one row (cache line) per binning
_RUN, _CUT, _BELOW, _POS, _SCORE, _N0, _LG0, _N1, _LG1 = range(9)
_N_STATE = 10


@njit(cache=True, inline="always")
def _add_compensated(exact, carry, x):
    """Neumaier's step: exact + x, with the rounding error added to carry."""
    t = exact + x
    carry += (exact - t) + x if abs(exact) >= abs(x) else (x - t) + exact
    return t, carry


@njit(cache=True, inline="always")
def _first_multiple(d, b_lo):
    """The smallest multiple of d that is >= max(d, b_lo) (no division when d >= b_lo)."""
    return d if d >= b_lo else ((b_lo + d - 1) // d) * d


@njit(cache=True, inline="always")
def _bin_prior(lower, upper, strength, prior_clip):
    """(a1, a0): the Beta prior of a bin with cuts ``lower`` and ``upper``."""
    p = min(max(0.5 * (lower + upper), prior_clip), 1.0 - prior_clip)
    return strength * p, strength * (1.0 - p)


@njit(cache=True, inline="always")
def _lgamma_n(state, m, n, strength):
    """lgamma(n + C), remembering the last two values of binning m.

    Unit weights give a binning bins of two sizes (the floor and the ceiling of N / B),
    which alternate; the hit picks its value with a select rather than a branch.
    """
    hit0, hit1 = n == state[m, _N0], n == state[m, _N1]
    if hit0 or hit1:
        return state[m, _LG0] if hit0 else state[m, _LG1]
    value = math.lgamma(n + strength)
    state[m, _N1], state[m, _LG1] = state[m, _N0], state[m, _LG0]
    state[m, _N0], state[m, _LG0] = n, value
    return value


def n_fractions(order):
    """Number of reduced fractions in (0, 1) with denominator <= order: sum of phi(q)."""
    phi = np.arange(order + 1)
    for q in range(2, order + 1):
        if phi[q] == q:  # q is prime
            phi[q::q] -= phi[q::q] // q
    return int(phi[2:].sum())


def record_size(b_min, b_max):
    """Entries a weighted record may need: one per cut of every binning, sum of (B - 1)."""
    return sum(range(b_min - 1, b_max))


def new_record(size):
    """Empty record arrays: first, step, run, below, pos, cut (see ``cuts_of_rows``).

    Allocated by the caller, in NumPy: the kernels that fill them compile less.
    """
    return tuple(np.empty(size, dtype) for dtype in [np.int64] * 3 + [np.float64] * 3)


@njit(cache=True)
def cuts_of_rows(buf, n_neg, b_min, b_max, record):
    """Where the cuts of the binnings B = b_min..b_max fall, for rows of weight 1.

    ``buf`` is the buffer of ``calibbook._utils.binning.split_sorted`` with both parts sorted and
    ``n_neg`` negatives; N rows in all, N * b_max < 2^53 (so every cut of a fraction
    c / d has the target c N / d). One flat loop over the merged rows, as in the fused
    PAV: a run that starts after ``it`` rows is the cut of every pending target <= it.

    Fills ``record`` (``new_record(n_fractions(b_max))``), the record of the sweep, one
    entry per fraction in increasing order: entry e
    stands for the cuts of the binnings B = first[e], first[e] + step[e], ... (<= b_max);
    ``run[e]`` is the first run whose weight below reaches the target (-1 past the last
    run), ``below[e]`` and ``pos[e]`` that weight and positive weight, ``cut[e]`` the
    midpoint between that run's score and the one before.
    """
    rec_first, rec_step, rec_run, rec_below, rec_pos, rec_cut = record
    n = buf.shape[0] - 2
    total = float(n)
    i, j = 0, n_neg + 1
    positives = 0
    run = -1
    cur = v = 0.0
    take_neg = True
    e = 0
    a, b, c, d = 0, 1, 1, b_max  # Farey sequence of order b_max: a / b, then c / d
    target = c * total / d
    for it in range(n + 1):
        if it < n:
            x, y = buf[i], buf[j]
            take_neg = x <= y
            v = x if take_neg else y
            if it > 0 and v == cur:  # the run goes on
                i += take_neg
                j += 1 - take_neg
                positives += 1 - take_neg
                continue
        run += 1  # run `run` starts after `it` rows (the end when it == n)
        while c < d and it >= target:
            rec_first[e] = _first_multiple(d, b_min)
            rec_step[e] = d
            rec_run[e] = run if it < n else -1
            rec_below[e] = it
            rec_pos[e] = positives
            rec_cut[e] = midpoint(cur, v) if it < n else 0.0
            e += 1
            step = (b_max + b) // d
            a, b, c, d = c, d, step * c - a, step * d - b
            target = c * total / d
        if it < n:
            cur = v
            i += take_neg
            j += 1 - take_neg
            positives += 1 - take_neg
    return record


@njit(cache=True)
def cuts_of_runs(values, weights, positives, b_min, b_max, record):
    """``cuts_of_rows`` for weighted runs (sorted distinct ``values``, their ``weights``).

    Cut k / B has the target k W / B with W the weights summed in order. When W is not
    an integer the cuts of one fraction may have targets a few ulps apart; they are
    then recorded one binning per entry (step > b_max), in increasing order of target,
    so the runs are still read forwards only. Fills ``record``
    (``new_record(record_size(b_min, b_max))``) and returns its number of entries, W and
    the positive weight, summed in order.

    A run's weight below reaches a target when it is at least the target less ``tol`` =
    8 ulps of W (``_TIE_ULPS``), the weight below and W in the targets summed with
    compensation (Neumaier):
    a weight below equal to the target in exact arithmetic (equal weights, weights
    scaled by a constant) then reaches it whatever the rounding, so the cuts do not
    jump when the weights are scaled. Integer weights are summed exactly and lie 1 / B
    or more from a target they do not equal: their cuts are unchanged (for W B < 2^48).
    """
    n_runs = values.shape[0]
    total = pos_total = 0.0
    exact = carry = 0.0  # W compensated, for the targets: exact + carry
    for r in range(n_runs):
        total += weights[r]
        pos_total += positives[r]
        exact, carry = _add_compensated(exact, carry, weights[r])
    same_target = total == math.floor(total) and total * b_max < 2.0**53
    tol = _TIE_ULPS * 2.0**-52 * total
    whole = exact + carry
    exact = carry = 0.0  # now the weight below, compensated
    rec_first, rec_step, rec_run, rec_below, rec_pos, rec_cut = record
    targets = np.empty(b_max + 1, np.float64)
    members = np.empty(b_max + 1, np.int64)
    r = 0  # the current run, and the weight and positive weight before it
    below = pos = 0.0
    e = 0
    a, b, c, d = 0, 1, 1, b_max  # Farey sequence of order b_max: a / b, then c / d
    while c < d:
        first = _first_multiple(d, b_min)
        n_members = 0
        if same_target:
            targets[0], members[0] = c * whole / d, first
            n_members = 1
        else:  # each cut has its own target: insertion sort by target
            for big_b in range(first, b_max + 1, d):
                t, w = (big_b // d) * c * whole / big_b, n_members
                while w > 0 and targets[w - 1] > t:
                    targets[w], members[w] = targets[w - 1], members[w - 1]
                    w -= 1
                targets[w], members[w] = t, big_b
                n_members += 1
        for u in range(n_members):
            reach = targets[u] - tol
            while r < n_runs and exact + carry < reach:  # the first run with below >= target
                below += weights[r]
                pos += positives[r]
                exact, carry = _add_compensated(exact, carry, weights[r])
                r += 1
            rec_first[e] = members[u]
            rec_step[e] = d if same_target else b_max + 1
            rec_run[e] = r if r < n_runs else -1
            rec_below[e], rec_pos[e] = below, pos
            rec_cut[e] = midpoint(values[r - 1], values[r]) if 0 < r < n_runs else 0.0
            e += 1
        step = (b_max + b) // d
        a, b, c, d = c, d, step * c - a, step * d - b
    return e, total, pos_total


@njit(cache=True)
def bbq_log_marginals(record, total, pos_total, b_min, b_max, strength, prior_clip):
    """Log marginal likelihood of the binnings B = b_min..b_max, from a ``cuts_of_*`` record.

    The sum over a binning's bins, in order, of lgamma(C) - lgamma(n + C) + lgamma(n1 + a1)
    - lgamma(a1) + lgamma(n0 + a0) - lgamma(a0), where bin j has weight n, positive
    weight n1, and the Beta prior a1 = C p_j, a0 = C (1 - p_j) whose mean p_j is the
    middle of the bin's cuts (halfway between neighbouring bins' extreme scores; the
    outer ends 0 and 1), clipped to [prior_clip, 1 - prior_clip]. A cut at or before a
    binning's previous one would leave an empty bin, and is skipped.
    """
    rec_first, rec_step, rec_run, rec_below, rec_pos, rec_cut = record
    n_models = b_max - b_min + 1
    state = np.empty((n_models, _N_STATE), np.float64)  # not np.zeros: see .arrays
    for m in range(n_models):
        for f in range(_N_STATE):
            state[m, f] = 0.0
        state[m, _N0] = state[m, _N1] = -1.0
    lg_c = math.lgamma(strength)
    for e in range(rec_run.shape[0]):
        r = rec_run[e]
        if r < 0:
            continue
        below, pos, upper = rec_below[e], rec_pos[e], rec_cut[e]
        step = rec_step[e]
        m = rec_first[e] - b_min - step
        while True:  # the binnings B = first, first + step, ... <= b_max (no trip-count division)
            m += step
            if m >= n_models:
                break
            if r <= state[m, _RUN]:
                continue  # an empty bin
            n = below - state[m, _BELOW]
            n1 = pos - state[m, _POS]
            a1, a0 = _bin_prior(state[m, _CUT], upper, strength, prior_clip)
            state[m, _SCORE] += (
                lg_c
                - _lgamma_n(state, m, n, strength)
                + math.lgamma(n1 + a1)
                - math.lgamma(a1)
                + math.lgamma(n - n1 + a0)
                - math.lgamma(a0)
            )
            state[m, _RUN] = r
            state[m, _CUT] = upper
            state[m, _BELOW] = below
            state[m, _POS] = pos
    score = np.empty(n_models, np.float64)
    for m in range(n_models):  # each binning's last bin
        n = total - state[m, _BELOW]
        n1 = pos_total - state[m, _POS]
        a1, a0 = _bin_prior(state[m, _CUT], 1.0, strength, prior_clip)
        score[m] = state[m, _SCORE] + (
            lg_c
            - math.lgamma(n + strength)
            + math.lgamma(n1 + a1)
            - math.lgamma(a1)
            + math.lgamma(n - n1 + a0)
            - math.lgamma(a0)
        )
    return score


@njit(cache=True)
def averaged_map(record, b_min, model_weight, total, pos_total, strength, prior_clip):
    """The weighted average of the step maps of the binnings of positive ``model_weight``.

    From a ``cuts_of_*`` record. Returns ``grid``, the sorted distinct cuts of those
    binnings, and the (len(grid) + 1,) averages on its cells: cell i is
    [grid[i - 1], grid[i]). Binning m (B = b_min + m bins) predicts on each bin its
    posterior mean (n1 + a1) / (n + C); a difference array adds each bin's weighted
    estimate over its cells, binning by binning and bin by bin, and a running sum gives
    the averages. A cut at or before its binning's previous one (an empty bin) is skipped.

    Two passes. The first reads the record in order, which is increasing order of run:
    a cut at a new run is a new grid point, and each binning's cuts are stored in its
    own slot (B - 1 places) in order. The second walks the binnings and their bins.
    """
    rec_first, rec_step, rec_run, rec_below, rec_pos, rec_cut = record
    n_models = model_weight.shape[0]
    b_lo, b_hi = b_min + n_models, b_min - 1  # the binnings of positive weight
    slot = np.empty(n_models + 1, np.int64)
    slot[0] = 0
    for m in range(n_models):
        size = 0
        if model_weight[m] != 0.0:
            b_lo, b_hi = min(b_lo, b_min + m), b_min + m
            size = b_min + m - 1
        slot[m + 1] = slot[m] + size
    n_cuts = zeroed(np.empty(n_models, np.int64))
    last_run = zeroed(np.empty(n_models, np.int64))
    cut_index = np.empty(slot[n_models], np.int64)
    cut_below = np.empty(slot[n_models], np.float64)
    cut_pos = np.empty(slot[n_models], np.float64)
    grid = np.empty(slot[n_models], np.float64)
    n_grid, grid_run = 0, -1
    for e in range(rec_run.shape[0]):
        r, first, step = rec_run[e], rec_first[e], rec_step[e]
        if r < 0 or first > b_hi:
            continue
        if first < b_lo:
            first += (b_lo - first + step - 1) // step * step
        for big_b in range(first, b_hi + 1, step):
            m = big_b - b_min
            if model_weight[m] == 0.0 or r <= last_run[m]:
                continue
            if r != grid_run:
                grid[n_grid] = rec_cut[e]
                n_grid += 1
                grid_run = r
            at = slot[m] + n_cuts[m]
            cut_index[at] = n_grid - 1
            cut_below[at] = rec_below[e]
            cut_pos[at] = rec_pos[e]
            n_cuts[m] += 1
            last_run[m] = r
    # +w e at a bin's first cell, -w e past its last
    diff = zeroed(np.empty(n_grid + 2, np.float64))
    for m in range(n_models):
        w = model_weight[m]
        if w == 0.0:
            continue
        lo, lower, below_lo, pos_lo = 0, 0.0, 0.0, 0.0
        for u in range(n_cuts[m] + 1):
            if u < n_cuts[m]:
                at = slot[m] + u
                hi, upper = cut_index[at] + 1, grid[cut_index[at]]
                below_hi, pos_hi = cut_below[at], cut_pos[at]
            else:
                hi, upper, below_hi, pos_hi = n_grid + 1, 1.0, total, pos_total
            a1, _ = _bin_prior(lower, upper, strength, prior_clip)
            estimate = (pos_hi - pos_lo + a1) / (below_hi - below_lo + strength)
            diff[lo] += w * estimate
            diff[hi] -= w * estimate
            lo, lower, below_lo, pos_lo = hi, upper, below_hi, pos_hi
    averaged = np.empty(n_grid + 1, np.float64)
    acc = 0.0
    for g in range(n_grid + 1):
        acc += diff[g]
        averaged[g] = acc
    return grid[:n_grid].copy(), averaged
