"""Venn-ABERS: the isotonic fit at a test point of label 1 (or 0) tied with each run, in O(R).

Runs r = 1..R (distinct scores, increasing) have weight W_r > 0 and positive weight S_r.
The cumulative sum diagram has the points P_0 = (0, 0) and P_r = (W_1 + ... + W_r,
S_1 + ... + S_r). A test case of label 1 and weight 1 tied with run i moves every point
from P_i on by e = (1, 1); shifting the whole diagram by -e instead, the points are
L_a = P_a - e (a < i) and P_b (b >= i), and the isotonic value at the test case is the slope
of the greatest convex minorant over the gap between L_{i-1} and P_i: the slope of the
bridge (lower common tangent) between the left points and the right points.
"""

import numpy as np
from numba import njit

from calibbook._kernels.binning import count_at_or_below

_LARGEST_FLOAT = float(np.finfo(np.float64).max)  # a constant: np.finfo in a kernel compiles


@njit(cache=True, inline="always")
def _suffix_hull_next(cx, cy):
    """``nxt[j]``: the vertex after P_j on the lower convex hull of P_j, ..., P_R (-1: none).

    One right-to-left Graham scan; the hull of P_j.. is P_j followed by the hull of
    P_nxt[j].., so every suffix hull is a chain of these pointers. Collinear points are
    dropped (they change no slope).
    """
    n = cx.shape[0]
    nxt = np.empty(n, np.int64)
    stack = np.empty(n, np.int64)
    top = -1
    nxt[0] = -1
    for j in range(n - 1, 0, -1):
        nxt[j] = -1
        while top >= 1:
            a, b = stack[top], stack[top - 1]
            # keep a if it lies strictly below the segment from P_j to P_b
            if (cy[a] - cy[j]) * (cx[b] - cx[j]) < (cy[b] - cy[j]) * (cx[a] - cx[j]):
                break
            top -= 1
        if top >= 0:
            nxt[j] = stack[top]
        top += 1
        stack[top] = j
    return nxt


@njit(cache=True, inline="always")
def _tangent(cx, cy, nxt, lx, ly, v):
    """The vertex of minimal slope from (lx, ly), walking the hull chain right from vertex v."""
    while nxt[v] >= 0:
        u = nxt[v]
        if (cy[u] - ly) * (cx[v] - lx) <= (cy[v] - ly) * (cx[u] - lx):
            v = u
        else:
            break
    return v


@njit(cache=True, inline="always")
def _cumulative(weights, sums):
    """The cumulative sum diagram: P_0 = (0, 0), P_r = (W_1 + ... + W_r, S_1 + ... + S_r)."""
    r = weights.shape[0]
    cx = np.empty(r + 1, np.float64)
    cy = np.empty(r + 1, np.float64)
    cx[0] = 0.0
    cy[0] = 0.0
    for k in range(r):
        cx[k + 1] = cx[k] + weights[k]
        cy[k + 1] = cy[k] + sums[k]
    return cx, cy


@njit(cache=True)
def bridges(cx, cy):
    """For each run i, the block (c_i, t_i] of the fit with a case of label 1 tied with run i.

    The block is runs c_i + 1 .. t_i (1-based) and the added case, so the value there is
    ``(Y[t] - Y[c] + 1) / (X[t] - X[c] + 1)`` over the cumulative sums X, Y. The bridge is
    kept from one run to the next: when run i - 1 leaves the right points (it becomes
    L_{i-1}, moved by -e), either L_{i-1} is above the current bridge, which then stays, or
    it is on or below it and becomes the bridge's left end; the new right end is then at or
    after the old one (the tangent from a point below a supporting line, left of its
    touching point, touches the hull at or right of that point). So the walks along the
    suffix hulls move right only: O(R) after the scan.

    ``cx``, ``cy``: the cumulative sum diagram (:func:`_cumulative`), R + 1 points.

    Returns
    -------
    c, t : int64 arrays (R,)
    """
    r = cx.shape[0] - 1
    nxt = _suffix_hull_next(cx, cy)
    lefts = np.empty(r, np.int64)
    rights = np.empty(r, np.int64)
    c = 0  # the bridge's left end is L_c
    t = _tangent(cx, cy, nxt, cx[0] - 1.0, cy[0] - 1.0, np.int64(1))  # int64, not Literal[1]
    for i in range(1, r + 1):
        if i > 1:
            lx, ly = cx[c] - 1.0, cy[c] - 1.0
            qx, qy = cx[i - 1] - 1.0, cy[i - 1] - 1.0
            # L_{i-1} on or below the line from L_c to P_t (or P_t just left the right side)
            if t < i or (qy - ly) * (cx[t] - lx) <= (cy[t] - ly) * (qx - lx):
                c = i - 1
                t = _tangent(cx, cy, nxt, qx, qy, max(t, i))
        lefts[i - 1] = c
        rights[i - 1] = t
    return lefts, rights


@njit(cache=True)
def pair_values(weights, sums):
    """(p0, p1) of each run: the isotonic value at a case of weight 1 tied with the run,
    labelled 0 and 1 (float64 arrays, contiguous).

    p1 is the mean of the bridge's block with the added positive. p0 by symmetry: relabel
    y -> 1 - y and reverse the score order, and the label-0 case becomes a label-1 case of
    the mirrored runs, whose block (c', t'] is the block (R - t', R - c'] of the original
    runs; p0 is that block's positive weight over its weight plus one. Both are ratios of
    the block's own sums, so a block of integer weights gives the same float whichever
    label the added case has.

    On small problems, while it is not compiled, it runs as Python
    (:mod:`calibbook._kernels.interpreted`).
    """
    r = weights.shape[0]
    cx, cy = _cumulative(weights, sums)
    c, t = bridges(cx, cy)
    mirror_w = np.empty(r, np.float64)
    mirror_s = np.empty(r, np.float64)
    for k in range(r):
        mirror_w[k] = weights[r - 1 - k]
        mirror_s[k] = weights[r - 1 - k] - sums[r - 1 - k]
    mc, mt = bridges(*_cumulative(mirror_w, mirror_s))
    p0 = np.empty(r, np.float64)
    p1 = np.empty(r, np.float64)
    for i in range(r):
        p1[i] = ((cy[t[i]] - cy[c[i]]) + 1.0) / ((cx[t[i]] - cx[c[i]]) + 1.0)
        lo, hi = r - mt[r - 1 - i], r - mc[r - 1 - i]
        p0[i] = (cy[hi] - cy[lo]) / ((cx[hi] - cx[lo]) + 1.0)
    return p0, p1


@njit(cache=True)
def pair_lookup(knot_lo, knot_hi, p0, p1, scores, tolerance, order, walk, out0, out1):
    """(p0, p1) at each score from the fitted runs (fills ``out0`` and ``out1``).

    The scores are visited in ``order``. k is the number of runs whose first score is at or
    below the score plus the tie tolerance: found by a binary search per score, or, with
    ``walk`` (``order`` then sorts the scores), by one merge walk over the runs, for many
    scores against many runs, where a search per score misses the cache at every read.
    Run k - 1 is tied with the score when its last score is within the tolerance below it,
    and gives both values; otherwise p1 comes from run k (1 past the last run) and p0 from
    run k - 1 (0 before the first).
    """
    n_runs = p1.shape[0]
    big = _LARGEST_FLOAT
    k = 0
    for t in range(order.shape[0]):
        i = order[t]
        high = min(scores[i] + tolerance, big)  # a score near 1.8e308: the slack stops there
        if walk:
            while k < n_runs and knot_lo[k] <= high:
                k += 1
        else:
            k = count_at_or_below(knot_lo, high)
        prev = k - 1 if k > 0 else 0
        low = max(scores[i] - tolerance, -big)
        if k > 0 and knot_hi[prev] >= low:
            out1[i] = p1[prev]
        elif k < n_runs:
            out1[i] = p1[k]
        else:
            out1[i] = 1.0
        out0[i] = p0[prev] if k > 0 else 0.0
