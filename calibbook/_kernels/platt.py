"""Newton's method for Platt scaling (Lin, Lin & Weng 2007): loss, gradient and Hessian.

One evaluation at (a, b) is a pass over the rows: z = a f + b, e = exp(-|z|), and the
weighted sums of the loss, its gradient and its Hessian. numpy's exp and log1p are
vectorised (several times faster than a scalar loop's), so each block of rows takes
them from numpy and a compiled loop does the sums; blocks keep the temporaries small.
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


def platt_newton(f, y, w, t_pos, t_neg, a, b, max_iter=100, grad_tol=1e-10):
    """Minimise the weighted cross-entropy of p = 1/(1+exp(a f + b)) against the targets.

    Newton steps with a backtracking (Armijo) line search; a tiny ridge keeps the
    Hessian invertible. Stops when both gradient components fall below
    ``grad_tol`` times the total weight, or once the Newton step itself is below
    1e-13 relative (it then estimates the remaining error). Steps below 1e-6
    relative are taken whole: Newton converges quadratically there, while the loss
    is too flat for a line search to see a decrease (those evaluations skip the loss,
    and its log1p). When the line search can no longer decrease the loss, rounding has
    the last word: the fit counts as converged if the gradient is already small (below
    1e-6 times the total weight).

    Returns (a, b, n_iter, converged).
    """
    total = float(w.sum()) if w.shape[0] else float(f.shape[0])
    fval, ga, gb, haa, hab, hbb = objective(f, y, w, t_pos, t_neg, a, b)
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
            fval, ga, gb, haa, hab, hbb = objective(f, y, w, t_pos, t_neg, a, b, False)
            continue
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
