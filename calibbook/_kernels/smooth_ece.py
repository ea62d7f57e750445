"""Kernels of the smooth ECE: grid masses, reflected Gaussian smoothing, interpolated sums.

The smooth ECE of Blasiok & Nakkiran is computed, as in their package relplot, on a
regular grid x_i = i / (m - 1), i = 0..m-1, of [0, 1]:

1. each row's weight (and weight times value) is split between the two grid nodes
   around its prediction by linear interpolation (one O(N) pass, ``grid_masses``);
2. the grid arrays are convolved with a Gaussian kernel reflected once at 0 and at 1
   (the reflection repeats neither end node) and cut at distance 1/2, relplot's
   discretisation, half a node off centre when m is even as relplot's is
   (``reflected_smooth``); terms beyond ten bandwidths, below exp(-50) of the peak,
   are skipped, which changes nothing at double precision;
3. the smoothed arrays are interpolated linearly at ``n_eval`` evenly spaced points
   and summed (``interpolated_ratio``) or returned (``interpolate_grid``).
"""

import math

import numpy as np
from numba import njit

from calibbook._kernels.arrays import zeroed

#: Skip kernel terms farther than this many bandwidths (exp(-50) ~ 2e-22 of the peak).
CUTOFF = 10.0


@njit(cache=True)
def grid_masses(p, y, w, m, residual):
    """Weight and weighted value of the rows, split linearly between grid nodes.

    Parameters
    ----------
    p : predictions in [0, 1], shape (n,)
    y : labels (0/1 floats), shape (n,)
    w : weights, shape (n,), or shape (0,) for unit weights
    m : number of grid nodes (>= 2)
    residual : if True the value of a row is p - y, else y

    Returns
    -------
    mass, value : arrays of shape (m,)
    """
    mass = zeroed(np.empty(m))
    value = zeroed(np.empty(m))
    scale = m - 1
    weighted = w.shape[0] > 0
    for i in range(p.shape[0]):
        x = p[i] * scale
        b = int(x)  # p >= 0, so truncation is the floor
        if b > m - 2:
            b = m - 2
        frac = x - b
        lo = 1.0 - frac
        hi = frac
        if weighted:
            lo *= w[i]
            hi *= w[i]
        v = p[i] - y[i] if residual else y[i]
        mass[b] += lo
        mass[b + 1] += hi
        value[b] += lo * v
        value[b + 1] += hi * v
    return mass, value


@njit(cache=True)
def _reflect(a, first, last):
    """Values at grid positions first..last of ``a`` mirrored about its end nodes.

    Position q < 0 reads a[-q] and q > m - 1 reads a[2 (m - 1) - q]: one reflection,
    enough for |positions| within m - 1 of the grid.
    """
    top = a.shape[0] - 1
    ext = np.empty(last - first + 1)
    for j in range(ext.shape[0]):
        q = first + j
        if q < 0:
            q = -q
        elif q > top:
            q = 2 * top - q
        ext[j] = a[q]
    return ext


@njit(cache=True)
def reflected_smooth(a, b, sigma):
    """Convolve two grid arrays with the reflected, truncated Gaussian of bandwidth sigma.

    Node i receives sum_q g((q - s) / (m - 1)) a[refl(i + q)] over |q - s| <= (m - 1) / 2,
    with g the N(0, sigma^2) density, refl the mirror about nodes 0 and m - 1, and
    s = 0 for odd m. For even m relplot's kernel, sampled at linspace(0, 1, m) - 1/2, has
    no node at its centre and its 'valid' convolution shifts it by half a node: s = 1/2.

    Returns
    -------
    sa, sb : the smoothed arrays, shape (m,)
    """
    m = a.shape[0]
    scale = m - 1
    shift = 0.5 if m % 2 == 0 else 0.0
    reach = min(0.5 * scale, CUTOFF * sigma * scale)  # in nodes
    first = math.ceil(shift - reach)
    last = math.floor(shift + reach)
    width = last - first + 1
    ker = np.empty(width)
    norm = 1.0 / (math.sqrt(2.0 * math.pi) * sigma)
    two_var = 2.0 * sigma * sigma
    for k in range(width):
        x = (first + k - shift) / scale
        ker[k] = math.exp(-x * x / two_var) * norm
    ea = _reflect(a, first, scale + last)
    eb = _reflect(b, first, scale + last)
    sa = zeroed(np.empty(m))
    sb = zeroed(np.empty(m))
    # kernel offset outside, nodes inside: the inner loop has no carried sum and vectorises
    for k in range(width):
        kk = ker[k]
        for i in range(m):
            sa[i] += kk * ea[i + k]
            sb[i] += kk * eb[i + k]
    return sa, sb


@njit(cache=True)
def _node_and_fraction(t, scale, h):
    """Left grid node of t (clipped to the last cell) and t's fraction of the way to the next."""
    k = int(t * scale)
    if k < 0:
        k = 0
    elif k > scale - 1:
        k = scale - 1
    # clipped: at t = 1 the rounding of k * h can put r an ulp above 1, and 1 - r below 0
    # would give a grid function of non-negative values a negative value there
    r = (t - k * h) / h
    return k, min(max(r, 0.0), 1.0)


@njit(cache=True)
def interpolated_ratio(num, den, n_eval, eps):
    """sum_j |num(t_j)| / sum_j (den(t_j) + eps) at t_j = j / (n_eval - 1), linear interpolation.

    This is the smooth ECE once ``num`` holds the smoothed residuals and ``den`` the
    smoothed masses: the density-weighted mean of |smoothed residual / density|.
    """
    scale = num.shape[0] - 1
    h = 1.0 / scale
    step = 1.0 / (n_eval - 1)
    top = 0.0
    bottom = 0.0
    for j in range(n_eval):
        t = j * step if j < n_eval - 1 else 1.0
        k, r = _node_and_fraction(t, scale, h)
        top += abs(num[k] * (1.0 - r) + num[k + 1] * r)
        bottom += den[k] * (1.0 - r) + den[k + 1] * r + eps
    return top / bottom


@njit(cache=True)
def interpolate_grid(values, t):
    """Linear interpolation at points t in [0, 1] of the grid function i / (m - 1) -> values[i]."""
    scale = values.shape[0] - 1
    h = 1.0 / scale
    out = np.empty(t.shape[0])
    for j in range(t.shape[0]):
        k, r = _node_and_fraction(t[j], scale, h)
        out[j] = values[k] * (1.0 - r) + values[k + 1] * r
    return out
