"""Newton's method for Platt scaling (Lin, Lin & Weng 2007), in one pass per iteration."""

import numpy as np
from numba import njit


@njit(cache=True)
def _objective(f, t, w, a, b):
    """Negative log-likelihood, gradient and Hessian at (a, b), numerically safe.

    With z = a f + b and p = 1 / (1 + exp(z)), each row contributes
    w [t z + log(1 + exp(-z))] if z >= 0 and w [(t - 1) z + log(1 + exp(z))]
    otherwise (the same value, written so that exp never overflows).
    """
    fval = ga = gb = haa = hab = hbb = 0.0
    for i in range(f.shape[0]):
        z = a * f[i] + b
        if z >= 0.0:
            e = np.exp(-z)
            fval += w[i] * (t[i] * z + np.log1p(e))
            p = e / (1.0 + e)
            q = 1.0 / (1.0 + e)
        else:
            e = np.exp(z)
            fval += w[i] * ((t[i] - 1.0) * z + np.log1p(e))
            p = 1.0 / (1.0 + e)
            q = e / (1.0 + e)
        d = w[i] * (t[i] - p)  # derivative of the row's loss in z, times its weight
        ga += f[i] * d
        gb += d
        h = w[i] * p * q
        haa += f[i] * f[i] * h
        hab += f[i] * h
        hbb += h
    return fval, ga, gb, haa, hab, hbb


@njit(cache=True)
def platt_newton(f, t, w, a, b, max_iter=100, grad_tol=1e-10):
    """Minimise the weighted cross-entropy of p = 1/(1+exp(a f + b)) against targets t.

    Newton steps with a backtracking (Armijo) line search; a tiny ridge keeps the
    Hessian invertible. Stops when both gradient components fall below
    ``grad_tol`` times the total weight, or once the Newton step itself is below
    1e-13 relative (it then estimates the remaining error). Steps below 1e-6
    relative are taken whole: Newton converges quadratically there, while the loss
    is too flat for a line search to see a decrease. When the line search can no longer
    decrease the loss, rounding has the last word: the fit counts as converged
    if the gradient is already small (below 1e-6 times the total weight).

    Returns (a, b, n_iter, converged).
    """
    total = 0.0
    for i in range(w.shape[0]):
        total += w[i]
    fval, ga, gb, haa, hab, hbb = _objective(f, t, w, a, b)
    for it in range(max_iter):
        if max(abs(ga), abs(gb)) < grad_tol * total:
            return a, b, it, True
        haa_r, hbb_r = haa + 1e-12 * total, hbb + 1e-12 * total
        det = haa_r * hbb_r - hab * hab
        da = -(hbb_r * ga - hab * gb) / det
        db = -(-hab * ga + haa_r * gb) / det
        size = max(abs(da), abs(db)) / (1.0 + abs(a) + abs(b))
        if size <= 1e-13:
            return a + da, b + db, it + 1, True  # the step is the remaining error
        if size <= 1e-6:
            # quadratic convergence has set in, and the loss is too flat for the line
            # search to resolve a decrease in floating point: take full Newton steps
            a, b = a + da, b + db
            fval, ga, gb, haa, hab, hbb = _objective(f, t, w, a, b)
            continue
        slope = ga * da + gb * db
        step = 1.0
        while step >= 1e-10:
            na, nb = a + step * da, b + step * db
            nf, nga, ngb, nhaa, nhab, nhbb = _objective(f, t, w, na, nb)
            if nf < fval + 1e-4 * step * slope:
                break
            step *= 0.5
        if step < 1e-10:
            return a, b, it, max(abs(ga), abs(gb)) < 1e-6 * total
        a, b = na, nb
        fval, ga, gb, haa, hab, hbb = nf, nga, ngb, nhaa, nhab, nhbb
    return a, b, max_iter, max(abs(ga), abs(gb)) < grad_tol * total
