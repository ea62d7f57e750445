"""Newton's method for a weighted logistic regression on a few columns (beta calibration).

The model is p = 1 / (1 + exp(-z)) with z = b0 f0 + b1 f1 + c: one or two features (ln s
and -ln(1 - s) in beta calibration, or a transform of them) and an optional intercept. One
evaluation at the coefficients is a pass over the rows: the weighted sums of the loss
w [log(1 + e^z) - y z], its gradient and its Hessian. As in :mod:`calibbook._kernels.platt`,
numpy takes the vectorised exp and log1p of each block of rows and a compiled loop does
the sums; blocks keep the temporaries small.
"""

import numpy as np
from numba import njit

from calibbook._kernels.platt import _is_last_step

_BLOCK = 1 << 15  # rows per block: the temporaries of a block stay in the cache


@njit(cache=True, fastmath={"reassoc"})
def _block_sums(f0, f1, y, w, z, e, log1p_e, with_loss, out):
    """Add the block's loss, gradient and Hessian terms to ``out``.

    The features of a row are (f0, f1, 1); ``e`` = exp(-|z|) and ``log1p_e`` = log1p(e)
    (empty unless ``with_loss``): the row's loss is max(z, 0) + log1p(e) - y z, and p is
    1 / (1 + e) if z >= 0, else e / (1 + e), so nothing overflows. ``w`` empty means
    weights 1. ``out`` = [loss, g0, g1, g2, h00, h01, h02, h11, h12, h22]; the caller
    keeps the terms of the features its model has. Scalar sums, branch-free, and
    reassociated, so that the loop runs on vector registers.
    """
    fval = g0 = g1 = g2 = h00 = h01 = h02 = h11 = h12 = h22 = 0.0
    weighted = w.shape[0] > 0
    for i in range(z.shape[0]):
        wi = w[i] if weighted else 1.0
        inv = 1.0 / (1.0 + e[i])
        positive = z[i] >= 0.0
        p = inv if positive else e[i] * inv
        if with_loss:
            fval += wi * ((z[i] if positive else 0.0) - y[i] * z[i] + log1p_e[i])
        d = wi * (p - y[i])
        h = wi * (inv * e[i] * inv)  # p (1 - p), the same whichever side z lies
        a, b = f0[i], f1[i]
        g0 += a * d
        g1 += b * d
        g2 += d
        h00 += a * a * h
        h01 += a * b * h
        h02 += a * h
        h11 += b * b * h
        h12 += b * h
        h22 += h
    out[0] += fval
    out[1] += g0
    out[2] += g1
    out[3] += g2
    out[4] += h00
    out[5] += h01
    out[6] += h02
    out[7] += h11
    out[8] += h12
    out[9] += h22


def objective(features, y, w, beta, intercept, with_loss=True):
    """Loss (NaN unless ``with_loss``), gradient and Hessian of the weighted log-loss at beta.

    ``features`` is a list of one or two arrays of shape (n,), with a column of ones after
    them when ``intercept``; z = beta . (features, 1). ``y`` are the 0/1 labels and ``w``
    the weights (an empty array for weights 1). Returns (loss, gradient of shape (q,),
    Hessian of shape (q, q)); no penalty.
    """
    n = y.shape[0]
    k = len(features)
    f0, f1 = features[0], features[-1]  # with one feature, f1's sums are dropped
    b0 = beta[0]
    b1 = beta[1] if k == 2 else 0.0
    c = beta[k] if intercept else 0.0
    out = np.zeros(10)
    size = min(n, _BLOCK)
    z, e = np.empty(size), np.empty(size)
    log1p_e = np.empty(size if with_loss else 0)
    for start in range(0, n, _BLOCK):
        stop = min(start + _BLOCK, n)
        m = stop - start
        zb, eb = z[:m], e[:m]
        np.multiply(f0[start:stop], b0, out=zb)
        if k == 2:
            np.multiply(f1[start:stop], b1, out=eb)
            zb += eb
        zb += c
        np.abs(zb, out=eb)
        np.negative(eb, out=eb)
        np.exp(eb, out=eb)  # e = exp(-|z|) <= 1
        lb = log1p_e[:m] if with_loss else log1p_e
        if with_loss:
            np.log1p(eb, out=lb)
        wb = w[start:stop] if w.shape[0] else w
        _block_sums(f0[start:stop], f1[start:stop], y[start:stop], wb, zb, eb, lb, with_loss, out)
    keep = [0, 1, 2][:k] + ([2] if intercept else [])
    g = out[1:4]
    h = np.array([out[[4, 5, 6]], out[[5, 7, 8]], out[[6, 8, 9]]])
    return (out[0] if with_loss else np.nan), g[keep], h[np.ix_(keep, keep)]


def _penalised(x, y, w, beta, penalty, with_loss=True):
    """The objective plus the ridge 0.5 sum(penalty * beta**2) (0 on the intercept)."""
    fval, grad, hess = objective(x, y, w, beta, penalty.size > len(x), with_loss)
    fval = fval + 0.5 * float(np.dot(penalty, beta * beta))
    return fval, grad + penalty * beta, hess + np.diag(penalty)


def _newton_step(grad, hess, total):
    """The Newton step; a tiny ridge keeps the Hessian invertible."""
    ridged = hess + np.diag(np.full(grad.size, 1e-14 * total))
    try:
        return -np.linalg.solve(ridged, grad)
    except np.linalg.LinAlgError:  # pragma: no cover - the ridge makes it positive definite
        return -np.linalg.lstsq(ridged, grad, rcond=None)[0]


def logistic_newton(x, y, w, ridge, intercept, max_iter=100):
    """Minimise sum w [log(1 + e^z) - y z] + ridge |slopes|^2 / 2, z = slopes . x (+ c).

    ``x`` is a list of one or two feature arrays; with ``intercept`` the model adds an
    unpenalised intercept c, which starts at the logit of the weighted base rate (the
    slopes start at 0).

    Newton steps with a backtracking (Armijo) line search, stopped as
    :func:`calibbook._kernels.platt.platt_newton` stops: a step's size is its change to z
    over the data (each column's largest magnitude times the change of its coefficient),
    relative to z; steps below 1e-6 are taken whole (the loss is too flat there for a line
    search to see a decrease); it stops, taking the step, once the step is below 1e-13, or
    once the rate of the last two steps says the next would be below rounding, or once it
    no longer halves (rounding noise in the gradient has the last word). The problem is
    strictly convex when ``ridge`` > 0 and both labels have positive weight.

    Returns (beta, n_iter, converged): beta holds the slopes, then c with ``intercept``.
    """
    total = float(w.sum()) if w.shape[0] else float(y.shape[0])
    reach = np.array([float(np.max(np.abs(f))) for f in x] + [1.0] * intercept)
    penalty = np.array([ridge] * len(x) + [0.0] * intercept)
    beta = np.zeros(penalty.size)
    if intercept:
        n_pos = float(np.dot(w, y)) if w.shape[0] else float(np.count_nonzero(y))
        if 0.0 < n_pos < total:
            beta[-1] = np.log(n_pos / (total - n_pos))
    fval, grad, hess = _penalised(x, y, w, beta, penalty)
    last = previous = np.inf
    for it in range(max_iter):
        delta = _newton_step(grad, hess, total)
        size = float(np.dot(np.abs(delta), reach) / (1.0 + np.dot(np.abs(beta), reach)))
        if _is_last_step(size, last, previous):
            return beta + delta, it + 1, True
        previous = size
        if size <= 1e-6:  # quadratic convergence: full steps, no loss needed
            beta, last = beta + delta, size
            fval, grad, hess = _penalised(x, y, w, beta, penalty, False)
            continue
        last = np.inf
        if np.isnan(fval):
            fval = _penalised(x, y, w, beta, penalty)[0]
        slope = float(np.dot(grad, delta))
        step = 1.0
        while step >= 1e-10:
            trial = beta + step * delta
            nf, ngrad, nhess = _penalised(x, y, w, trial, penalty)
            if nf < fval + 1e-4 * step * slope:
                break
            step *= 0.5
        if step < 1e-10:
            return beta, it, float(np.max(np.abs(grad))) < 1e-6 * total
        beta, fval, grad, hess = trial, nf, ngrad, nhess
    return beta, max_iter, float(np.max(np.abs(grad))) < 1e-10 * total
