"""Newton's method for Platt scaling (Lin, Lin & Weng 2007) and for temperature scaling.

One evaluation at (a, b) is a pass over the rows: z = a f + b, e = exp(-|z|), and the
weighted sums of the loss, its gradient and its Hessian. numpy's exp and log1p are
vectorised (several times faster than a scalar loop's), so each block of rows takes
them from numpy and a compiled loop does the sums; blocks keep the temporaries small.
Temperature scaling is Platt's loss with the intercept fixed at 0 and the labels as
targets, so its one-parameter Newton search takes the same pass.
"""

import numpy as np
from numba import njit

_BLOCK = 1 << 15  # rows per block: the temporaries of a block stay in the cache


@njit(cache=True, fastmath={"reassoc"})
def _block_sums(f, y, w, t_pos, t_neg, z, e, small, big, log1p_e, with_loss, out):
    """Add the block's loss, gradient and Hessian terms to ``out``.

    With p = 1 / (1 + exp(z)), q = 1 - p and the row's target t (``t_pos`` if y == 1
    else ``t_neg``), each row contributes w [t z + log(1 + exp(-z))] if z >= 0 and
    w [(t - 1) z + log(1 + exp(z))] otherwise (the same value, written so that exp never
    overflows). The caller passes e = exp(-|z|), ``small`` = e / (1 + e), ``big`` =
    1 / (1 + e) and ``log1p_e`` = log1p(e): p is ``small`` if z >= 0, else ``big``.
    ``w`` empty means weights 1. ``out`` = [loss, g_a, g_b, h_aa, h_ab, h_bb].

    Branch-free (the signs of z and the labels are random), and the sums may be
    reassociated, so that the loop runs on vector registers.
    """
    fval = ga = gb = haa = hab = hbb = 0.0
    weighted = w.shape[0] > 0
    for i in range(f.shape[0]):
        wi = w[i] if weighted else 1.0
        t = t_pos if y[i] == 1.0 else t_neg
        positive = z[i] >= 0.0
        p = small[i] if positive else big[i]
        q = big[i] if positive else small[i]
        if with_loss:
            fval += wi * ((t if positive else t - 1.0) * z[i] + log1p_e[i])
        d = wi * (t - p)  # derivative of the row's loss in z, times its weight
        ga += f[i] * d
        gb += d
        h = wi * p * q
        haa += f[i] * f[i] * h
        hab += f[i] * h
        hbb += h
    out[0] += fval
    out[1] += ga
    out[2] += gb
    out[3] += haa
    out[4] += hab
    out[5] += hbb


def objective(f, y, w, t_pos, t_neg, a, b, with_loss=True):
    """Loss (NaN unless ``with_loss``), gradient and Hessian of Platt's loss at (a, b).

    ``y`` are the 0/1 labels, ``w`` the weights (an empty array for weights 1), and
    ``t_pos``, ``t_neg`` Platt's targets of the two classes. Returns
    (loss, g_a, g_b, h_aa, h_ab, h_bb).
    """
    out = np.zeros(6)
    n = f.shape[0]
    size = min(n, _BLOCK)
    z, e, small, big = np.empty(size), np.empty(size), np.empty(size), np.empty(size)
    log1p_e = np.empty(size if with_loss else 0)
    for start in range(0, n, _BLOCK):
        stop = min(start + _BLOCK, n)
        m = stop - start
        zb, eb, sb, bb = z[:m], e[:m], small[:m], big[:m]
        np.multiply(f[start:stop], a, out=zb)
        zb += b
        np.abs(zb, out=eb)
        np.negative(eb, out=eb)
        np.exp(eb, out=eb)  # e = exp(-|z|) <= 1
        np.add(eb, 1.0, out=bb)
        np.divide(eb, bb, out=sb)  # e / (1 + e)
        np.divide(1.0, bb, out=bb)  # 1 / (1 + e)
        lb = log1p_e[:m] if with_loss else log1p_e
        if with_loss:
            np.log1p(eb, out=lb)
        wb = w[start:stop] if w.shape[0] else w
        fb, yb = f[start:stop], y[start:stop]
        _block_sums(fb, yb, wb, t_pos, t_neg, zb, eb, sb, bb, lb, with_loss, out)
    if not with_loss:
        out[0] = np.nan
    return tuple(out)


def _newton_step(ga, gb, haa, hab, hbb, total):
    """The Newton step (da, db); a tiny ridge keeps the Hessian invertible."""
    haa_r, hbb_r = haa + 1e-12 * total, hbb + 1e-12 * total
    det = haa_r * hbb_r - hab * hab
    return -(hbb_r * ga - hab * gb) / det, -(-hab * ga + haa_r * gb) / det


def _is_last_step(size, last, previous):
    """Whether a Newton step of relative size ``size`` is all the error left: it is below
    1e-13; or it is below 1e-6 and either it has not halved since the last full step
    ``last`` (rounding noise has the last word), or at the quadratic rate shown since the
    ``previous`` step the next would fall below rounding (size * (size / previous)^2)."""
    if size <= 1e-13:
        return True
    return size <= 1e-6 and (size > 0.5 * last or size * (size / previous) ** 2 <= 1e-16)


def platt_newton(f, y, w, t_pos, t_neg, a, b, max_iter=100, grad_tol=1e-10):
    """Minimise the weighted cross-entropy of p = 1/(1+exp(a f + b)) against the targets.

    Newton steps with a backtracking (Armijo) line search; a tiny ridge keeps the
    Hessian invertible. The features ``f`` should be in standard units (of order 1). A
    step's size is that of its change to a f + b over the data, relative to a f + b.
    Steps below 1e-6 relative are taken whole: Newton converges quadratically there,
    while the loss is too flat for a line search to see a decrease (those evaluations
    skip the loss, and its log1p). It stops, taking the step, once the Newton step is
    below 1e-13 relative, or once the rate of the last two steps says the next would be
    below rounding, or once it no longer halves from one such step to the next
    (rounding noise in the gradient has the last word then: the step is its size). The
    test is on the step, not the gradient, because the gradient's size says nothing
    about the error where the Hessian is small (separable data). When the line search
    can no longer decrease the loss, the fit counts as converged if the gradient is
    already small (below 1e-6 times the total weight).

    Returns (a, b, n_iter, converged); after ``max_iter`` iterations, converged says
    whether the gradient is below ``grad_tol`` times the total weight.
    """
    total = float(w.sum()) if w.shape[0] else float(f.shape[0])
    reach = float(np.max(np.abs(f)))  # sizes are of a f + b: a is tiny where f is huge
    fval, ga, gb, haa, hab, hbb = objective(f, y, w, t_pos, t_neg, a, b)
    last = previous = np.inf  # the previous full step's relative size; the previous step's
    for it in range(max_iter):
        da, db = _newton_step(ga, gb, haa, hab, hbb, total)
        size = (abs(da) * reach + abs(db)) / (1.0 + abs(a) * reach + abs(b))
        if _is_last_step(size, last, previous):
            return a + da, b + db, it + 1, True  # the step is the remaining error
        previous = size
        if size <= 1e-6:
            # quadratic convergence has set in, and the loss is too flat for the line
            # search to resolve a decrease in floating point: take full Newton steps
            a, b, last = a + da, b + db, size
            fval, ga, gb, haa, hab, hbb = objective(f, y, w, t_pos, t_neg, a, b, False)
            continue
        last = np.inf
        if np.isnan(fval):  # the last evaluation skipped the loss: the line search needs it
            fval = objective(f, y, w, t_pos, t_neg, a, b)[0]
        slope = ga * da + gb * db
        step = 1.0
        while step >= 1e-10:
            na, nb = a + step * da, b + step * db
            nf, nga, ngb, nhaa, nhab, nhbb = objective(f, y, w, t_pos, t_neg, na, nb)
            if nf < fval + 1e-4 * step * slope:
                break
            step *= 0.5
        if step < 1e-10:
            return a, b, it, max(abs(ga), abs(gb)) < 1e-6 * total
        a, b = na, nb
        fval, ga, gb, haa, hab, hbb = nf, nga, ngb, nhaa, nhab, nhbb
    return a, b, max_iter, max(abs(ga), abs(gb)) < grad_tol * total


#: The range of the inverse temperature (in standard units) that temperature scaling searches.
BETA_BOUNDS = (float(np.exp(-12.0)), float(np.exp(12.0)))

_EPS = float(np.finfo(np.float64).eps)


def binary_temperature_derivatives(z, y, w):
    """g(beta) = dL/dbeta and h(beta) = d2L/dbeta2 of L = sum w [log(1 + e^(beta z)) - y beta z].

    It is Platt's loss with targets y, slope a = -beta and intercept 0, so one pass of
    :func:`objective` gives both (``w`` empty means weights 1).
    """

    def derivatives(beta):
        _, ga, _, haa, _, _ = objective(z, y, w, 1.0, 0.0, -beta, 0.0, False)
        return -ga, haa

    return derivatives


def inverse_temperature_newton(derivatives, max_iter=100):
    """Minimise a convex loss of beta on ``BETA_BOUNDS`` from its derivatives g and h.

    ``derivatives(beta)`` returns (g, h), g increasing in beta. Newton steps on log(beta)
    (beta * exp(-g / (beta h)): always positive) from beta = 1, inside a bracket [lo, hi]
    of the minimum that every evaluation narrows (g > 0 moves hi, g < 0 moves lo). A step
    that leaves the bracket, or that has not halved since the last one (Newton creeps
    towards a minimum at infinity, separable data), is replaced by the bound itself when
    the bracket still ends there untested (so a minimum beyond the bound is found in one
    evaluation), else by the bracket's geometric midpoint. Stops when the step is below
    4 ulps of beta (taking it), or when the bracket has closed.

    Returns (beta, n_iter, status): status 0 inside the bounds, -1 at the lower bound, +1 at
    the upper bound, 2 when ``max_iter`` evaluations did not converge.
    """
    low_bound, high_bound = BETA_BOUNDS
    lo, hi = low_bound, high_bound
    tested = set()
    beta, last = 1.0, np.inf  # last: the previous Newton step's size, in log(beta)
    for it in range(1, max_iter + 1):
        g, h = derivatives(beta)
        tested.add(beta)
        if g == 0.0:
            return beta, it, _bound_status(beta)
        if g > 0.0:
            hi = beta
        else:
            lo = beta
        if hi - lo <= 4 * _EPS * hi:  # closed: at a bound the minimum lies beyond it
            beta = lo if lo == high_bound else hi if hi == low_bound else 0.5 * (lo + hi)
            return beta, it, _bound_status(beta)
        # Newton on log(beta); with no curvature (saturated or constant logits), leave the bracket
        with np.errstate(over="ignore"):  # a tiny curvature overflows the step: leave the bracket
            step = -g / (beta * h) if h > 0.0 else (np.inf if g < 0.0 else -np.inf)
            new = beta * np.exp(step)
        if abs(new - beta) <= 4 * _EPS * beta:
            return min(max(new, lo), hi), it, 0
        if lo < new < hi and abs(step) <= 0.5 * last:
            beta, last = float(new), abs(step)
            continue
        if g < 0.0 and hi == high_bound and high_bound not in tested:
            beta = high_bound  # test the bound itself: the minimum may lie beyond it
        elif g > 0.0 and lo == low_bound and low_bound not in tested:
            beta = low_bound
        else:
            beta = float(np.sqrt(lo * hi))
        last = np.inf
    return beta, max_iter, 2


def _bound_status(beta):
    return 1 if beta == BETA_BOUNDS[1] else -1 if beta == BETA_BOUNDS[0] else 0
