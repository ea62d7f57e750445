"""PlattScaling's fit before issue 18, frozen: benchmarks/bench_platt.py's baseline and
tests/unit/test_platt.py's oracle.

A compiled Newton iteration on Platt's targets that calls exp and log1p once per row; the
current fit (numpy's exp over blocks, a branch-free compiled sum) must find the same optimum
to 1e-10 and be faster. Kept as it was, so do not tidy it.
"""

import numpy as np
from numba import njit

from calibbook.calibrators.platt import platt_targets


@njit(cache=True)
def _old_objective(f, t, w, a, b):
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
        d = w[i] * (t[i] - p)
        ga += f[i] * d
        gb += d
        h = w[i] * p * q
        haa += f[i] * f[i] * h
        hab += f[i] * h
        hbb += h
    return fval, ga, gb, haa, hab, hbb


@njit(cache=True)
def _old_newton(f, t, w, a, b, max_iter, grad_tol):
    total = 0.0
    for i in range(w.shape[0]):
        total += w[i]
    fval, ga, gb, haa, hab, hbb = _old_objective(f, t, w, a, b)
    for it in range(max_iter):
        if max(abs(ga), abs(gb)) < grad_tol * total:
            return a, b, it, True
        haa_r, hbb_r = haa + 1e-12 * total, hbb + 1e-12 * total
        det = haa_r * hbb_r - hab * hab
        da = -(hbb_r * ga - hab * gb) / det
        db = -(-hab * ga + haa_r * gb) / det
        size = max(abs(da), abs(db)) / (1.0 + abs(a) + abs(b))
        if size <= 1e-13:
            return a + da, b + db, it + 1, True
        if size <= 1e-6:
            a, b = a + da, b + db
            fval, ga, gb, haa, hab, hbb = _old_objective(f, t, w, a, b)
            continue
        slope = ga * da + gb * db
        step = 1.0
        while step >= 1e-10:
            na, nb = a + step * da, b + step * db
            nf, nga, ngb, nhaa, nhab, nhbb = _old_objective(f, t, w, na, nb)
            if nf < fval + 1e-4 * step * slope:
                break
            step *= 0.5
        if step < 1e-10:
            return a, b, it, max(abs(ga), abs(gb)) < 1e-6 * total
        a, b = na, nb
        fval, ga, gb, haa, hab, hbb = nf, nga, ngb, nhaa, nhab, nhbb
    return a, b, max_iter, max(abs(ga), abs(gb)) < grad_tol * total


def old_platt_fit(features, y, sample_weight=None, max_iter=100):
    """The old fit on already-transformed scores: ``(a, b, converged)``, from Platt's start."""
    w = np.ones_like(features) if sample_weight is None else sample_weight
    t, n_pos, n_neg = platt_targets(y, w)
    b0 = float(np.log((n_neg + 1.0) / (n_pos + 1.0)))
    a, b, _, converged = _old_newton(features, t, w, 0.0, b0, max_iter, 1e-10)
    return a, b, converged
