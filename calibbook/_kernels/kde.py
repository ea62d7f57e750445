"""Kernel sums for KDE calibration: exact compact kernels in O((N + M) log N), exact Gaussian.

Compact kernels. Every compact kernel of calibbook is a polynomial in |u| on
[-1, 1]: K(u) = sum_p q_p |u|^p. For a query x the points inside the window
[x - h, x + h] are found by binary search in the sorted training scores, and
sum_i w_i K((x - x_i) / h) is a polynomial in x whose coefficients are sums of
weighted moments of the training points in the window, read off prefix sums.

Moments are taken in units of h around a *local* origin: the sorted scores are
cut into cells of width at most h (a cell starts at its first point s and holds
the points in [s, s + h)), and each point's moment t^j uses t = (x_i - c) / h
with c = s + h / 2 the centre of its cell, so |t| <= 1/2; prefix sums restart at
every cell. A window of half-width h meets at most four cells, and inside each
one the binomial expansion of (d - t)^p with |d| <= 1.5 adds terms of size at
most 2^9 times the cell weight. Global prefix sums of raw powers x_i^9 would
instead cancel catastrophically.
"""

import math

import numpy as np
from numba import njit, prange

from calibbook._kernels.binning import count_at_or_below, count_below

# Coefficients q_p of K(u) = sum_p q_p |u|^p on |u| <= 1 (each integrates to 1).
BOXCAR = np.array([0.5])
EPANECHNIKOV = np.array([0.75, 0.0, -0.75])
TRICUBE = (70.0 / 81.0) * np.array([1.0, 0.0, 0.0, -3.0, 0.0, 0.0, 3.0, 0.0, 0.0, -1.0])
COMPACT_COEFFICIENTS = {"boxcar": BOXCAR, "epanechnikov": EPANECHNIKOV, "tricube": TRICUBE}


@njit(cache=True)
def build_cells(xs, w, h, degree):
    """Cell structure and restarting prefix sums of local moments.

    Parameters
    ----------
    xs : sorted training scores, shape (n,)
    w : their weights, shape (n,)
    h : cell width (the bandwidth)
    degree : highest moment needed (the kernel polynomial's degree)

    Returns
    -------
    point_cell : ordinal of each point's cell, shape (n,)
    cell_start : first point of each cell, shape (n_cells + 1,) (last entry n)
    cell_centre : centre of each cell, shape (n_cells,)
    prefix : shape (n + n_cells, degree + 1); for a point range [a, b) inside
        cell c the moment sums are prefix[b + c] - prefix[a + c].
    """
    n = xs.shape[0]
    # Cells are opened greedily: a point at least h past the current cell's first
    # point opens a new cell. No integer grid index, so any range of scores works.
    point_cell = np.empty(n, np.int64)
    cell_start = np.empty(n + 1, np.int64)
    cell_centre = np.empty(n)
    n_cells = 0
    first = 0.0
    for i in range(n):
        if i == 0 or xs[i] - first >= h:
            first = xs[i]
            cell_start[n_cells] = i
            cell_centre[n_cells] = first + 0.5 * h
            n_cells += 1
        point_cell[i] = n_cells - 1
    cell_start = cell_start[: n_cells + 1].copy()
    cell_centre = cell_centre[:n_cells].copy()
    cell_start[n_cells] = n
    prefix = np.zeros((n + n_cells, degree + 1))
    for c in range(n_cells):
        row = cell_start[c] + c  # the zero row that opens cell c
        for i in range(cell_start[c], cell_start[c + 1]):
            t = (xs[i] - cell_centre[c]) / h
            tj = w[i]
            for j in range(degree + 1):
                prefix[row + 1, j] = prefix[row, j] + tj
                tj *= t
            row += 1
    return point_cell, cell_start, cell_centre, prefix


@njit(cache=True)
def _binomials(n):
    out = np.zeros((n + 1, n + 1))
    for p in range(n + 1):
        out[p, 0] = 1.0
        for j in range(1, p + 1):
            out[p, j] = out[p - 1, j - 1] + (out[p - 1, j] if j <= p - 1 else 0.0)
    return out


@njit(cache=True)
def _range_sum(prefix, a, b, c, d, sign, q, binom):
    """sum over points [a, b) of cell c of w_i K(u_i), with u_i = d - t_i, |u_i| = sign * u_i."""
    degree = q.shape[0] - 1
    total = 0.0
    for j in range(degree + 1):
        m = prefix[b + c, j] - prefix[a + c, j]
        if m == 0.0:
            continue
        # coefficient of (-t)^j: sum_p q_p sign^p C(p, j) d^(p - j)
        coef = 0.0
        dpow = 1.0
        for p in range(j, degree + 1):
            if q[p] != 0.0:
                s = sign if (p % 2) == 1 else 1.0
                coef += q[p] * s * binom[p, j] * dpow
            dpow *= d
        total += coef * m * (-1.0 if (j % 2) == 1 else 1.0)
    return total


@njit(cache=True)
def compact_kernel_sums(
    xs, point_cell, cell_start, cell_centre, prefix, h, q, queries, out_sum, out_mass
):
    """For each query x: sum_i w_i K((x - x_i) / h) over the window [x - h, x + h].

    Also writes the total weight of the cells the window touches (``out_mass``),
    the scale of the rounding error of the sum, and -1 there when the window is
    empty (so the sum is exactly zero).
    """
    binom = _binomials(q.shape[0] - 1)
    n_cells = cell_start.shape[0] - 1
    for r in range(queries.shape[0]):
        x = queries[r]
        lo = count_below(xs, x - h)
        hi = count_at_or_below(xs, x + h)
        if hi <= lo:
            out_sum[r] = 0.0
            out_mass[r] = -1.0
            continue
        mid = count_at_or_below(xs, x)  # points <= x have u >= 0
        total = 0.0
        mass = 0.0
        c = point_cell[lo]
        while c < n_cells and cell_start[c] < hi:
            a = max(lo, cell_start[c])
            b = min(hi, cell_start[c + 1])
            d = (x - cell_centre[c]) / h
            split = min(max(mid, a), b)
            if split > a:
                total += _range_sum(prefix, a, split, c, d, 1.0, q, binom)
            if b > split:
                total += _range_sum(prefix, split, b, c, d, -1.0, q, binom)
            mass += prefix[cell_start[c + 1] + c, 0]
            c += 1
        out_sum[r] = total
        out_mass[r] = mass


@njit(cache=True, parallel=True)
def gaussian_log_sums(xs, w, h, queries, cutoff, out, nearest):
    """Scaled Gaussian kernel sums, overflow- and underflow-free.

    For each query x with nearest training score x_n (found by binary search),
    writes ``nearest[r] = x_n`` and

        out[r] = log sum_i w_i exp(-[(x - x_i)^2 - (x - x_n)^2] / (2 h^2)),

    so that log sum_i w_i exp(-(x - x_i)^2 / (2 h^2)) = out[r] - (x - x_n)^2 / (2 h^2).
    The exponents are written (x_n - x_i)(2x - x_i - x_n), exact to rounding
    even when |x| is huge, and each is <= 0 (the nearest term is 1). Terms more
    than ``cutoff`` below the largest are skipped: together they weigh less than
    N exp(-cutoff) of the sum, so cutoff = 37 + log N truncates below 1e-16
    relative.
    """
    n = xs.shape[0]
    two_h2 = 2.0 * h * h
    for r in prange(queries.shape[0]):
        x = queries[r]
        k = count_below(xs, x)
        if k == n or (k > 0 and x - xs[k - 1] <= xs[k] - x):
            k -= 1
        xn = xs[k]
        dmin = abs(x - xn)
        reach = math.sqrt(dmin * dmin + two_h2 * cutoff)
        # the nearest point always counts (x +- reach can round past it when h is tiny)
        lo = min(count_below(xs, x - reach), k)
        hi = max(count_at_or_below(xs, x + reach), k + 1)
        s = 0.0
        for i in range(lo, hi):
            s += w[i] * math.exp(-((xn - xs[i]) * (2.0 * x - xs[i] - xn)) / two_h2)
        out[r] = math.log(s)
        nearest[r] = xn


@njit(cache=True)
def linear_binning(xs, w, lo, delta, n_grid):
    """Linear binning: each point's weight is split between its two neighbouring grid nodes."""
    g = np.zeros(n_grid)
    for i in range(xs.shape[0]):
        pos = (xs[i] - lo) / delta
        j = math.floor(pos)
        if j < 0:
            j, frac = 0, 0.0
        elif j >= n_grid - 1:
            j, frac = n_grid - 2, 1.0
        else:
            frac = pos - j
        g[j] += w[i] * (1.0 - frac)
        g[j + 1] += w[i] * frac
    return g


@njit(cache=True)
def _grid_interp(v, j, lo, delta, n_grid, values):
    """``np.interp(v, grid, values)`` at a v with grid[j] <= v < grid[j + 1], its formula."""
    if j == n_grid - 1:
        return values[j]
    x0 = lo + delta * j
    if x0 == v:
        return values[j]
    x1 = lo + delta * (j + 1)
    slope = (values[j + 1] - values[j]) / (x1 - x0)
    out = slope * (v - x0) + values[j]
    if np.isnan(out):  # as numpy: from the other end, then the common value
        out = slope * (v - x1) + values[j + 1]
        if np.isnan(out) and values[j] == values[j + 1]:
            out = values[j]
    return out


@njit(cache=True)
def binned_posterior(x, clip_lo, clip_hi, frame, lo, delta, n_grid, a_grid, b_grid, floor, out):
    """a / (a + b) from the binned sums on the grid lo + delta * k (k < n_grid).

    Each query is first clipped to [clip_lo, clip_hi], then standardised as
    ``calibbook.calibrators.kde._standardise`` does it, with
    ``frame = (centre, halve, f1, f2, far)``: z = (v - centre) * f1 * f2 (from v / 2 and
    centre / 2 when ``halve``), clipped to [-far, far]; the grid is on that scale. a and b are
    the linear
    interpolations of ``a_grid`` and ``b_grid``, computed as ``np.interp`` computes them
    (the same bracket and formula); the grid is uniform, so the bracket comes from
    (v - lo) / delta and a step or two instead of a binary search. Queries off the grid,
    or where a + b < ``floor``, are left to the exact sums: their indices are returned.
    """
    n = x.shape[0]
    centre, halve, f1, f2, far = frame
    last = lo + delta * (n_grid - 1)
    bad = np.empty(n, np.int64)
    n_bad = 0
    for i in range(n):
        v = min(max(x[i], clip_lo), clip_hi)
        d = 0.5 * v - 0.5 * centre if halve else v - centre
        v = min(max(d * f1 * f2, -far), far)
        if not (v >= lo and v <= last):
            bad[n_bad] = i
            n_bad += 1
            continue
        j = min(int((v - lo) / delta), n_grid - 1)
        while j > 0 and lo + delta * j > v:  # the largest j with grid[j] <= v
            j -= 1
        while j < n_grid - 1 and lo + delta * (j + 1) <= v:
            j += 1
        a = _grid_interp(v, j, lo, delta, n_grid, a_grid)
        b = _grid_interp(v, j, lo, delta, n_grid, b_grid)
        if a + b >= floor:
            out[i] = a / (a + b)
        else:
            bad[n_bad] = i
            n_bad += 1
    return bad[:n_bad]
