"""Newton's method for a logistic regression on (1, f, f^2) against smoothed targets."""

import math

import numpy as np
from numba import njit


@njit(cache=True)
def objective(f, y, w, t_pos, t_neg, c0, c1, c2, with_loss):
    """Loss, gradient and Hessian of the cross-entropy of p = expit(c0 + c1 f + c2 f^2).

    ``y`` are the 0/1 labels, ``w`` the weights (empty for weights 1), ``t_pos`` and
    ``t_neg`` the targets of the two classes. Returns an array of 10: the loss (0 unless
    ``with_loss``), the gradient in (c0, c1, c2) and the Hessian's entries
    (00, 01, 02, 11, 12, 22).
    """
    weighted = w.shape[0] > 0
    # sums in locals (registers), not in the output array
    loss = g0 = g1 = g2 = h0 = h1 = h2 = h3 = h4 = 0.0
    for i in range(f.shape[0]):
        x = f[i]
        x2 = x * x
        z = c0 + c1 * x + c2 * x2
        t = t_pos if y[i] == 1.0 else t_neg
        wi = w[i] if weighted else 1.0
        e = math.exp(-abs(z))  # <= 1: no overflow
        r = 1.0 / (1.0 + e)
        p = r if z >= 0.0 else e * r
        if with_loss:  # t log(1/p) + (1 - t) log(1/(1 - p)), overflow-free
            loss += wi * (math.log1p(e) + (max(z, 0.0) - t * z))
        d = wi * (p - t)
        g0 += d
        g1 += d * x
        g2 += d * x2
        h = wi * p * (1.0 - p)
        hx2 = h * x2
        h0 += h
        h1 += h * x
        h2 += hx2
        h3 += hx2 * x
        h4 += hx2 * x2
    out = np.empty(10)
    out[0], out[1], out[2], out[3] = loss, g0, g1, g2
    out[4], out[5], out[6], out[7], out[8], out[9] = h0, h1, h2, h2, h3, h4
    return out


def _gradient_hessian(values, k):
    """The gradient and the Hessian of the first ``k`` coefficients."""
    g = values[1 : 1 + k]
    h00, h01, h02, h11, h12, h22 = values[4:10]
    hess = np.array([[h00, h01, h02], [h01, h11, h12], [h02, h12, h22]])[:k, :k]
    return g, hess


def _newton_step(g, hess, total):
    """-H^-1 g, with a tiny ridge, on the Hessian scaled to a unit diagonal.

    The scaling matters: with a far score the entries span 30 orders of magnitude (u^4
    beside 1), and a plain solve can meet an exactly zero pivot. Directions the scaled
    Hessian cannot resolve (fewer distinct scores than coefficients) get no step.
    """
    k = g.shape[0]
    hess = hess + 1e-12 * total * np.eye(k)
    d = 1.0 / np.sqrt(np.diag(hess))
    scaled = hess * np.outer(d, d)
    step = np.linalg.lstsq(scaled, -g * d, rcond=1e-14)[0]
    return step * d


def logistic_newton(f, y, w, t_pos, t_neg, c, max_iter=100):
    """Minimise the cross-entropy of expit(c0 + c1 f [+ c2 f^2]) against Platt's targets.

    ``c`` holds the starting coefficients (length 2 fits the line, 3 the quadratic); the
    features ``f`` should be in standard units. Newton steps with an Armijo backtracking
    line search; a tiny ridge (1e-12 times the total weight) keeps the Hessian invertible
    when the features take fewer distinct values than there are coefficients. A step's size
    is that of its change to the linear predictor over the data, relative to the predictor;
    the stopping rule is Platt's (:func:`calibbook._kernels.platt.platt_newton`).

    Returns (c, n_iter, converged).
    """
    from calibbook._kernels.platt import _is_last_step

    c = np.array(c, dtype=np.float64)
    k = c.shape[0]
    full = np.zeros(3)

    def evaluate(coef, with_loss=True):
        full[:k] = coef
        return objective(f, y, w, t_pos, t_neg, full[0], full[1], full[2], with_loss)

    total = float(w.sum()) if w.shape[0] else float(f.shape[0])
    reach = float(np.max(np.abs(f)))
    powers = reach ** np.arange(k)  # the size of each coefficient's term over the data
    values = evaluate(c)
    last = previous = np.inf
    for it in range(max_iter):
        g, hess = _gradient_hessian(values, k)
        step = _newton_step(g, hess, total)
        size = float(np.dot(np.abs(step), powers) / (1.0 + np.dot(np.abs(c), powers)))
        if _is_last_step(size, last, previous):
            return c + step, it + 1, True
        previous = size
        if size <= 1e-6:  # quadratic convergence: the loss is too flat for a line search
            c, last = c + step, size
            values = evaluate(c, False)
            values[0] = np.nan
            continue
        last = np.inf
        fval = values[0] if not np.isnan(values[0]) else evaluate(c)[0]
        slope = float(np.dot(g, step))
        t = 1.0
        while t >= 1e-10:
            new = evaluate(c + t * step)
            if new[0] < fval + 1e-4 * t * slope:
                break
            t *= 0.5
        if t < 1e-10:
            return c, it, bool(np.max(np.abs(g)) < 1e-6 * total)
        c, values = c + t * step, new
    g, _ = _gradient_hessian(values, k)
    return c, max_iter, bool(np.max(np.abs(g)) < 1e-10 * total)
