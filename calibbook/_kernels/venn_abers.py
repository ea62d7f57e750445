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
def _suffix_hull_next(cx, cy, nxt):
    """Fills ``nxt``: ``nxt[j]`` is the vertex after P_j on the lower convex hull of P_j, ...,
    P_R (-1: none).

    One right-to-left Graham scan; the hull of P_j.. is P_j followed by the hull of
    P_nxt[j].., so every suffix hull is a chain of these pointers, and so is the scan's
    stack: from its top vertex, each entry's next is the one below it. Collinear points
    are dropped (they change no slope).
    """
    n = cx.shape[0]
    top = -1  # the stack's top vertex (-1: empty)
    nxt[0] = -1
    for j in range(n - 1, 0, -1):
        while top >= 0 and nxt[top] >= 0:  # two vertices or more: a on b
            a, b = top, nxt[top]
            # keep a if it lies strictly below the segment from P_j to P_b
            if (cy[a] - cy[j]) * (cx[b] - cx[j]) < (cy[b] - cy[j]) * (cx[a] - cx[j]):
                break
            top = b
        nxt[j] = top
        top = j


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
def _cumulative(weights, sums, mirrored, cx, cy):
    """Fills ``cx``, ``cy`` with the cumulative sum diagram: P_0 = (0, 0), P_r = (W_1 + ...
    + W_r, S_1 + ... + S_r).

    ``mirrored``: that of the mirrored runs instead (reversed order, labels flipped: weight
    W_{R+1-r}, positive weight W_{R+1-r} - S_{R+1-r}), summed in the mirrored order.
    """
    r = weights.shape[0]
    cx[0] = 0.0
    cy[0] = 0.0
    for k in range(r):
        if mirrored:
            w = weights[r - 1 - k]
            cx[k + 1] = cx[k] + w
            cy[k + 1] = cy[k] + (w - sums[r - 1 - k])
        else:
            cx[k + 1] = cx[k] + weights[k]
            cy[k + 1] = cy[k] + sums[k]


@njit(cache=True, inline="always")
def bridges(cx, cy, nxt, ox, oy, mirrored, out):
    """For each run i, the block (c_i, t_i] of the fit with a case of label 1 tied with run i,
    and the value there.

    The block is runs c_i + 1 .. t_i (1-based) and the added case. The bridge is kept from
    one run to the next: when run i - 1 leaves the right points (it becomes L_{i-1}, moved
    by -e), either L_{i-1} is above the current bridge, which then stays, or it is on or
    below it and becomes the bridge's left end; the new right end is then at or after the
    old one (the tangent from a point below a supporting line, left of its touching point,
    touches the hull at or right of that point). So the walks along the suffix hulls move
    right only: O(R) after the scan.

    ``cx``, ``cy``: the cumulative sum diagram (:func:`_cumulative`), R + 1 points;
    ``nxt``, (R + 1,), is scratch for the suffix hulls. ``out[i - 1]`` is set to the block's
    ``(Y[t] - Y[c] + 1) / (X[t] - X[c] + 1)`` over the sums ``ox``, ``oy`` (here the same
    as ``cx``, ``cy``). With ``mirrored``, ``cx``, ``cy`` is the mirrored diagram and
    ``ox``, ``oy`` the original one: the block is then (R - t, R - c] of the original runs,
    and ``out[R - i]`` is set to its ``(Y[hi] - Y[lo]) / (X[hi] - X[lo] + 1)``.
    """
    r = cx.shape[0] - 1
    _suffix_hull_next(cx, cy, nxt)
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
        if mirrored:
            lo, hi = r - t, r - c
            out[r - i] = (oy[hi] - oy[lo]) / ((ox[hi] - ox[lo]) + 1.0)
        else:
            out[i - 1] = ((oy[t] - oy[c]) + 1.0) / ((ox[t] - ox[c]) + 1.0)


def new_pair_arrays(r):
    """The arrays :func:`pair_values` fills for r runs: (diagram, nxt, pairs).

    Allocated in NumPy (see :func:`calibbook._kernels.aggregate.new_runs`), one array each
    and as few as the kernel needs. Measured at 10^6 runs: fresh arrays 76 ms (one 2-D
    block), 63 ms (separate arrays), 48 ms when reused; the first touch of fresh memory is
    most of the difference.
    """
    diagram = tuple(np.empty(r + 1) for _ in range(4))
    return diagram, np.empty(r + 1, np.int64), (np.empty(r), np.empty(r))


@njit(cache=True)
def pair_values(weights, sums, diagram, nxt, pairs):
    """(p0, p1) of each run: the isotonic value at a case of weight 1 tied with the run,
    labelled 0 and 1.

    p1 is the mean of the bridge's block with the added positive. p0 by symmetry: relabel
    y -> 1 - y and reverse the score order, and the label-0 case becomes a label-1 case of
    the mirrored runs, whose block (c', t'] is the block (R - t', R - c'] of the original
    runs; p0 is that block's positive weight over its weight plus one. Both are ratios of
    the block's own sums, so a block of integer weights gives the same float whichever
    label the added case has.

    Fills the arrays of :func:`new_pair_arrays`: ``pairs`` is (p0, p1); ``diagram`` (the
    diagram and its mirror) and ``nxt`` are scratch. On small problems, while it is not
    compiled, it runs as Python (:mod:`calibbook._kernels.interpreted`).
    """
    cx, cy, mx, my = diagram
    p0, p1 = pairs
    _cumulative(weights, sums, False, cx, cy)
    bridges(cx, cy, nxt, cx, cy, False, p1)
    _cumulative(weights, sums, True, mx, my)
    bridges(mx, my, nxt, cx, cy, True, p0)


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
