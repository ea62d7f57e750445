"""Kernels of spline calibration: cubic B-spline rows and the penalised logistic sums.

A natural cubic spline on knots 0 = t_1 < ... < t_K = 1 is written in the clamped cubic
B-spline basis (K + 2 functions); each row of the design has at most four non-zero values,
stored as the index of the first and the four values. Beyond [0, 1] the row is the linear
extrapolation f(0) + f'(0) u (or f(1) + f'(1) (u - 1)), which is what a natural spline is
there. One Newton step is one pass over the rows.
"""

import numpy as np
from numba import njit


@njit(cache=True)
def bspline_rows(u, t, start, val):
    """Fill ``start`` (n,) and ``val`` (n, 4): the non-zero clamped cubic B-splines at ``u``.

    ``t`` are the knots, t[0] = 0 < ... < t[-1] = 1. The full knot vector repeats 0 and 1
    four times; the basis has t.size + 2 functions.
    """
    k = t.shape[0]
    # filled in loops: numba compiles slice assignment with its error messages (a second)
    tau = np.zeros(k + 6)
    for j in range(k):
        tau[3 + j] = t[j]
    for j in range(k + 3, k + 6):
        tau[j] = 1.0
    left = np.empty(4)
    right = np.empty(4)
    first = tau[4]  # the first knot after 0 (1 when there is no interior knot)
    last = tau[k + 1]  # the last knot before 1
    for r in range(u.shape[0]):
        x = u[r]
        if x < 0.0:  # f(0) + f'(0) x, with f'(0) = 3 (a1 - a0) / t_2
            s = 3.0 * x / first
            start[r] = 0
            val[r, 0], val[r, 1], val[r, 2], val[r, 3] = 1.0 - s, s, 0.0, 0.0
            continue
        if x > 1.0:  # f(1) + f'(1) (x - 1), with f'(1) = 3 (a_K+1 - a_K) / (1 - t_K-1)
            s = 3.0 * (x - 1.0) / (1.0 - last)
            start[r] = k - 2
            val[r, 0], val[r, 1], val[r, 2], val[r, 3] = 0.0, 0.0, -s, 1.0 + s
            continue
        # the span: tau[i] <= x < tau[i + 1], with i in [3, k + 1]
        lo, hi = 3, k + 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if tau[mid] <= x:
                lo = mid
            else:
                hi = mid - 1
        i = lo
        val[r, 0] = 1.0
        for j in range(1, 4):  # Cox-de Boor (Piegl & Tiller, algorithm A2.2)
            left[j] = x - tau[i + 1 - j]
            right[j] = tau[i + j] - x
            saved = 0.0
            for q in range(j):
                temp = val[r, q] / (right[q + 1] + left[j - q])
                val[r, q] = saved + right[q + 1] * temp
                saved = left[j - q] * temp
            val[r, j] = saved
        start[r] = i - 3


@njit(cache=True)
def linear_predictor(start, val, a):
    """eta_r = sum_j val[r, j] a[start[r] + j]."""
    n = start.shape[0]
    eta = np.empty(n)
    for r in range(n):
        s = start[r]
        eta[r] = (
            val[r, 0] * a[s] + val[r, 1] * a[s + 1] + val[r, 2] * a[s + 2] + val[r, 3] * a[s + 3]
        )
    return eta


@njit(cache=True)
def logistic_sums(start, val, y, w, eta, e, log1p_e, grad, hess):
    """The weighted log-loss sum_r w_r [log(1 + e^eta_r) - y_r eta_r]; fills its gradient
    and Hessian in the B-spline coefficients (``grad`` and ``hess`` are overwritten).

    The caller passes eta, e = exp(-|eta|) and log1p(e) (numpy's vectorised exp and log1p
    are faster than a scalar loop's): log(1 + e^eta) = max(eta, 0) + log1p(e), and
    p = expit(eta) is 1 / (1 + e) or e / (1 + e), so nothing overflows.
    """
    for j in range(grad.shape[0]):  # loops, not slice assignment: see bspline_rows
        grad[j] = 0.0
        for m in range(hess.shape[1]):
            hess[j, m] = 0.0
    loss = 0.0
    for r in range(start.shape[0]):
        wr = w[r]
        s = start[r]
        et = eta[r]
        er = e[r]
        positive = et >= 0.0
        loss += wr * ((et if positive else 0.0) + log1p_e[r] - y[r] * et)
        p = 1.0 / (1.0 + er) if positive else er / (1.0 + er)
        g = wr * (p - y[r])
        h = wr * p * (1.0 - p)
        for j in range(4):
            vj = val[r, j]
            grad[s + j] += g * vj
            hv = h * vj
            for m in range(j, 4):
                hess[s + j, s + m] += hv * val[r, m]
    for j in range(hess.shape[0]):  # the upper triangle was summed; mirror it
        for m in range(j):
            hess[j, m] = hess[m, j]
    return loss
