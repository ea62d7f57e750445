"""Spline calibration: a penalised logistic regression on a natural cubic spline (Lucena 2018)."""

import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from calibbook._utils.maths import expit, standard_units
from calibbook._utils.params import Integral, Interval, Options, Real, check_random_state
from calibbook._utils.weights import external_stacklevel, warn_low_total_weight
from calibbook.base import BaseCalibrator

__all__ = ["SplineCalibration"]

_DEFAULT_GRID = np.logspace(-6.0, 6.0, 25)
_TOL = 1e-12  # Newton stops after a step whose decrement is below _TOL |objective|


class _Penalties:
    """A parameter constraint: a non-empty array-like of finite, non-negative penalties."""

    def is_satisfied_by(self, value):
        if isinstance(value, str) or not hasattr(value, "__len__"):
            return False
        try:
            grid = np.asarray(value, dtype=np.float64)
        except (TypeError, ValueError):
            return False
        return grid.ndim == 1 and grid.size > 0 and bool(np.all(np.isfinite(grid) & (grid >= 0)))

    def __str__(self):
        return "a non-empty 1-D array of finite, non-negative penalties"


def _knots_from_integral(integral_at, lo, hi, k):
    """Knots in u = (z - lo) / (hi - lo) from the integral of the quantile function."""
    half = 0.5 / (k - 1)
    levels = np.arange(1, k - 1) / (k - 1)
    inner = (integral_at(levels + half) - integral_at(levels - half)) / (2.0 * half)
    # ties make windows coincide: keep knots at least 1e-9 apart, so that the basis stays sound
    knots = [0.0]
    for v in (inner - lo) / (hi - lo):
        if knots[-1] + 1e-9 < v < 1.0 - 1e-9:
            knots.append(float(v))
    knots.append(1.0)
    return np.array(knots)


def unweighted_quantile_knots(z, n_knots):
    """:func:`quantile_knots` of unsorted, unweighted ``z`` without a sort (a partition at the
    window edges); None when the order statistics it reads do not show n_knots distinct
    values (then the caller sorts)."""
    n = z.size
    edges = (2.0 * np.arange(1, n_knots) - 1.0) / (2.0 * (n_knots - 1))  # the windows' edges
    ranks = np.minimum(np.floor(edges * n).astype(np.int64), n - 1)
    kth = np.unique(np.concatenate(([0, n - 1], ranks)))
    part = np.partition(z, kth)
    if np.count_nonzero(np.diff(part[kth]) > 0) + 1 < n_knots:
        return None
    below = np.concatenate(([0.0], np.cumsum(np.add.reduceat(part, kth)[:-1])))  # sum rank < kth
    sums = dict(zip(kth.tolist(), below.tolist(), strict=True))

    def integral_at(levels):  # int_0^F Q(r) dr = (sum of ranks < r + (F n - r) z_(r)) / n
        r = np.minimum(np.floor(levels * n).astype(np.int64), n - 1)
        return (np.array([sums[i] for i in r]) + (levels * n - r) * part[r]) / n

    lo, hi = part[0], part[-1]
    return _knots_from_integral(integral_at, lo, hi, n_knots), (lo, hi)


def quantile_knots(z, w, n_knots):
    """Knots 0 = t_1 < ... < t_K = 1 on the features ``z`` (sorted) with weights ``w``.

    The end knots are the smallest and largest features of positive weight; interior knot j
    is the weighted mean of the features whose mass lies within 1 / (2 (K - 1)) of the level
    j / (K - 1) (a quantile averaged over a window, so that it moves continuously with the
    weights and depends on the weighted distribution only). Returns the knots in the units
    ``u = (z - lo) / (hi - lo)`` and (lo, hi); None when every feature is equal.
    """
    keep = w > 0
    z, w = z[keep], w[keep]
    lo, hi = z[0], z[-1]
    n_distinct = int(np.count_nonzero(np.diff(z) > 0)) + 1
    if n_distinct < 2:
        return None, (lo, hi)
    k = min(n_knots, n_distinct)
    cum = np.concatenate(([0.0], np.cumsum(w)))
    cum /= cum[-1]
    integral = np.concatenate(([0.0], np.cumsum(w * z) / np.sum(w)))  # int_0^F Q(r) dr
    knots = _knots_from_integral(lambda f: np.interp(f, cum, integral), lo, hi, k)
    return knots, (lo, hi)


def natural_spline_design(t):
    """(C, omega) for knots ``t``: C (K + 2, K), orthonormal columns spanning the clamped
    B-spline coefficients with f''(0) = f''(1) = 0 (a natural spline), and omega (K,), the
    roughness int_0^1 f''(u)^2 du, which is sum_j omega_j b_j^2 in the reduced coefficients
    b (a = C b). The first two columns span the linear functions, whose omega is exactly 0
    (so that a large penalty leaves the linear part to the data); the others diagonalise
    the roughness (Demmler & Reinsch 1975)."""
    from scipy.interpolate import BSpline
    from scipy.linalg import null_space

    tau = np.concatenate(([0.0] * 3, t, [1.0] * 3))
    m = t.size + 2
    second = [BSpline(tau, np.eye(m)[j], 3).derivative(2) for j in range(m)]
    ends = np.array([[d(0.0), d(1.0)] for d in second]).T  # (2, m)
    natural = null_space(ends)
    greville = (tau[1:-3] + tau[2:-2] + tau[3:-1]) / 3.0  # the coefficients of f(u) = u
    linear, _ = np.linalg.qr(np.column_stack([np.ones(m), greville]))
    rest = natural - linear @ (linear.T @ natural)
    rest = np.linalg.svd(rest, full_matrices=False)[0][:, : m - 4]
    # f'' is linear on each interval: two Gauss-Legendre points per interval are exact
    g = np.array([-1.0, 1.0]) / np.sqrt(3.0)
    mid, half = (t[1:] + t[:-1]) / 2.0, (t[1:] - t[:-1]) / 2.0
    x = (mid[:, None] + half[:, None] * g).ravel()
    wq = np.repeat(half, 2)
    d2 = np.array([d(x) for d in second])  # (m, points)
    gram = (d2 * wq) @ d2.T
    s, v = np.linalg.eigh(rest.T @ gram @ rest)
    c = np.column_stack([linear, rest @ v])
    return c, np.concatenate(([0.0, 0.0], np.maximum(s, 0.0)))


class _Problem:
    """The design of one fit (rows in the B-spline basis, C, omega), shared by the CV fits."""

    def __init__(self, u, y, t, design=None):
        from calibbook._kernels.spline import bspline_rows

        self.start = np.empty(u.size, dtype=np.int64)
        self.val = np.empty((u.size, 4))
        bspline_rows(u, t, self.start, self.val)
        self.y = y
        self.c, self.omega = natural_spline_design(t) if design is None else design
        self.u, self.t = u, t

    def warm_start(self, w, penalty, b, max_iter):
        """A start for Newton on many rows: the fit on every m-th row (weights times m), which
        is close, so that the full fit takes two or three passes instead of six."""
        step = self.y.size >> 16
        if step < 2:
            return b
        sub = _Problem(self.u[::step].copy(), self.y[::step].copy(), self.t, (self.c, self.omega))
        sub_w = w[::step] * step
        if not (np.dot(sub_w, sub.y) > 0 and np.dot(sub_w, 1.0 - sub.y) > 0):
            return b
        return sub.fit(sub_w, penalty, b, max_iter)[0]

    def fit(self, w, penalty, b, max_iter):
        """Newton's method with backtracking on sum w loss + penalty b' omega b, from ``b``.

        Returns (b, iterations, status): 0 converged, 1 stopped at ``max_iter``, 2 the
        classes are separated (the objective fell below 1e-12 of the weights' total: the
        likelihood has no maximum, and the map is already a step to within 1e-12)."""
        from calibbook._kernels.spline import linear_predictor, logistic_sums

        c, omega = self.c, self.omega
        ga, ha = np.empty(c.shape[0]), np.empty((c.shape[0], c.shape[0]))

        def evaluate(b):
            eta = linear_predictor(self.start, self.val, c @ b)
            e = np.exp(-np.abs(eta))
            loss = logistic_sums(self.start, self.val, self.y, w, eta, e, np.log1p(e), ga, ha)
            ob = omega * b
            grad = c.T @ ga + 2.0 * penalty * ob
            hess = c.T @ ha @ c + np.diag(2.0 * penalty * omega)
            return loss + penalty * float(b @ ob), grad, hess

        value, grad, hess = evaluate(b)
        floor = 1e-12 * float(np.sum(w))
        for n_iter in range(1, max_iter + 1):
            if value <= floor:
                return b, n_iter - 1, 2
            try:
                step = np.linalg.solve(hess, grad)
            except np.linalg.LinAlgError:  # no penalty and too few distinct scores
                step = np.linalg.lstsq(hess, grad, rcond=None)[0]
            decrement = float(grad @ step)
            if not np.isfinite(decrement):
                step = np.linalg.lstsq(hess, grad, rcond=None)[0]
                decrement = float(grad @ step)
            if n_iter > 1 and decrement <= _TOL * abs(value):  # relative: weights of any size
                return b - step, n_iter, 0
            scale = 1.0
            for _ in range(60):
                trial = b - scale * step
                new = evaluate(trial)
                if new[0] <= value - 1e-4 * scale * decrement:
                    break
                scale /= 2.0
            else:  # rounding: no descent along the Newton direction
                return b, n_iter, 0 if decrement <= 1e-6 * abs(value) else 1
            b, (value, grad, hess) = trial, new
        return b, max_iter, 1

    def start_point(self, w):
        """The constant fit: logit of the weighted rate, in the reduced coefficients."""
        rate = float(np.dot(w, self.y) / np.sum(w))
        level = np.log(rate) - np.log1p(-rate)
        return self.c.T @ np.full(self.c.shape[0], level)


def fold_weights(w, n_folds, phase):
    """(n_folds, n) frequency weights of the folds: the cumulative mass is dealt out in
    units, unit m to fold (m + phase) mod n_folds, so that a row of weight 3 and three
    rows of weight 1 land in the same folds, and the folds move continuously with ``w``."""
    cum = np.concatenate(([0.0], np.cumsum(w))) + phase
    k = np.arange(n_folds)[:, None]

    def mass_below(x):  # measure of {r < x : floor(r) mod n_folds == k}
        return np.floor(x / n_folds) + np.clip(np.mod(x, n_folds) - k, 0.0, 1.0)

    return np.diff(mass_below(cum[None, :]), axis=1)


class SplineCalibration(BaseCalibrator):
    r"""Spline calibration: a penalised logistic regression on a natural cubic spline of the score.

    The calibrated probability is :math:`\operatorname{expit}(f(x))`, where :math:`x` is the
    logit of the score (``logit_input=True``, the default, as in Lucena's ``SplineCalib``,
    which works on the log-odds scale) or the score itself, and :math:`f` is a natural cubic
    spline: cubic between ``n_knots`` knots, twice continuously differentiable, and linear
    beyond the end knots. :math:`f` maximises the weighted log-likelihood less
    :math:`\lambda \int_0^1 f''(u)^2\,du`, where :math:`u = (x - x_{(1)}) / (x_{(n)} -
    x_{(1)})` maps the training range to [0, 1]; the strength :math:`\lambda` is ``penalty``,
    or, when it is None, the value of ``penalty_grid`` with the least cross-validated
    log-loss over ``cv`` folds, after which the map is refitted on all the data. A large
    penalty tends to logistic regression on :math:`x` (Platt scaling on the logit, without
    Platt's smoothed targets); a small one to the unpenalised natural spline. The fit is
    Newton's method (one compiled pass over the rows per step) in the clamped cubic B-spline
    basis restricted to natural splines.

    **Knots.** The end knots are the smallest and largest training features; the others
    sit at the quantiles of levels :math:`j / (K - 1)`, each averaged over a window of mass
    :math:`1 / (K - 1)` around its level, so that they move continuously with the weights
    (Lucena samples his knots at random from the training scores instead).

    **Beyond the training range** a natural spline is linear in :math:`x`, with the slope
    it has at the end knot (a logistic tail, as Platt scaling). With
    ``out_of_bounds="extrapolate"`` the map follows that line, so the probabilities tend to
    0 or 1 monotonically; with the default ``"clip"``, as the house's other non-parametric
    maps, a score beyond the range gets the probability at the nearest end knot, which no
    training case lies beyond.

    **Units.** The penalty is measured in :math:`u`, which does not change when the scores
    are replaced by :math:`a s + b` (a > 0), nor do the knots or the folds: on raw scores
    (``logit_input=False``) the map is affine-invariant.

    **Weights** are frequencies: the fit and the folds of the cross-validation (the
    cumulative weight in score order, dealt out one case at a time to the folds in turn,
    from a phase drawn from ``random_state``) treat a row of weight 3 as three rows. A
    total below two cases per fold (per fit with a fixed penalty) warns
    :class:`calibbook.LowWeightWarning`; when no fold can be held out at all (a total below
    about one case), the largest penalty of the grid is used.

    Which calibrator suits your data and classifier: the decision guide,
    :doc:`/book/which_calibrator`.

    Parameters
    ----------
    logit_input : bool, default=True
        If True, the scores are probabilities and the spline is fitted to their logit
        (clipped away from 0 and 1), as Lucena recommends; set False for decision values.
    n_knots : int, default=20
        Number of knots (at least 2; with 2 the map is logistic regression on :math:`x`, and
        the penalty has nothing to act on). Fewer are used when the scores take fewer values.
    penalty : float or None, default=None
        :math:`\lambda`; None chooses it by cross-validation over ``penalty_grid``.
    penalty_grid : array-like or None, default=None
        Candidate penalties; None means ``np.logspace(-6, 6, 25)``.
    cv : int, default=5
        Number of folds of the cross-validation.
    random_state : int, Generator or None, default=0
        Seeds the phase of the folds.
    max_iter : int, default=100
        Maximum number of Newton iterations per fit.
    out_of_bounds : {"clip", "extrapolate"}, default="clip"
        Scores beyond the training range get the probability at the nearest end ("clip")
        or follow the spline's linear tail ("extrapolate").

    Attributes
    ----------
    knots_ : ndarray
        The knots, in the units of the features (the logit of the score with
        ``logit_input``).
    penalty_ : float
        The penalty used for the final fit.
    penalty_grid_ : ndarray or None
        The candidate penalties, largest first (None with a fixed ``penalty``).
    cv_losses_ : ndarray or None
        The cross-validated mean log-loss of each penalty of ``penalty_grid_`` (None with
        a fixed ``penalty``, or when the weights are too few to hold out a fold).
    coef_ : ndarray of shape (n_knots + 2,)
        Coefficients of the clamped cubic B-splines on ``u``.
    n_iter_ : int
        Newton iterations of the final fit.

    Warns
    -----
    sklearn.exceptions.ConvergenceWarning
        When Newton's method stops at ``max_iter`` iterations before converging.
    calibbook.LowWeightWarning
        When the weights total less than two cases per fold.

    See Also
    --------
    calibbook.PlattScaling : The limit of a large penalty (with ``logit_input``).

    References
    ----------
    B. Lucena, "Spline-based probability calibration", arXiv:1809.07751 (2018).
    Hastie, Tibshirani & Friedman, The Elements of Statistical Learning, 2nd ed. (2009),
    sections 5.2 and 5.4, for natural cubic splines and their roughness penalty.
    Green & Silverman, Nonparametric Regression and Generalized Linear Models (1994).
    :doc:`/book/10_parametric_maps` derives the map and checks the fit.

    Examples
    --------
    >>> import numpy as np
    >>> from calibbook import SplineCalibration
    >>> rng = np.random.default_rng(0)
    >>> p = rng.uniform(0.01, 0.99, size=2000)
    >>> # over-confident scores
    >>> y = (rng.uniform(size=2000) < p**2).astype(int)
    >>> cal = SplineCalibration().fit(p, y)
    >>> q = cal.predict([0.5, 0.9])
    >>> bool(abs(q[0] - 0.25) < 0.05 and abs(q[1] - 0.81) < 0.05)
    True
    """

    _parameter_constraints = {
        "logit_input": ["boolean"],
        "n_knots": [Interval(Integral, 2, None)],
        "penalty": [Interval(Real, 0, None), None],
        "penalty_grid": [_Penalties(), None],
        "cv": [Interval(Integral, 2, None)],
        "random_state": ["random_state"],
        "max_iter": [Interval(Integral, 1, None)],
        "out_of_bounds": [Options("clip", "extrapolate")],
    }

    def __init__(
        self,
        *,
        logit_input=True,
        n_knots=20,
        penalty=None,
        penalty_grid=None,
        cv=5,
        random_state=0,
        max_iter=100,
        out_of_bounds="clip",
    ):
        self.logit_input = logit_input
        self.n_knots = n_knots
        self.penalty = penalty
        self.penalty_grid = penalty_grid
        self.cv = cv
        self.random_state = random_state
        self.max_iter = max_iter
        self.out_of_bounds = out_of_bounds

    def _grid(self):
        grid = _DEFAULT_GRID if self.penalty_grid is None else self.penalty_grid
        return np.sort(np.asarray(grid, dtype=np.float64))[::-1]  # smooth first: warm starts

    def _fit(self, scores, y, sample_weight):
        w = np.ones_like(scores) if sample_weight is None else sample_weight
        grid = self._grid() if self.penalty is None else None
        total = float(np.sum(w))
        warn_low_total_weight(total, 1 if grid is None else self.cv, "fold", type(self).__name__)
        x = self._features(scores)
        units = standard_units(x)
        z = units.transform(x)
        found = None
        if sample_weight is None and grid is None and z.size > self.n_knots:  # no sort needed
            found = unweighted_quantile_knots(z, self.n_knots)
        if found is None:  # the folds need the order, and weighted quantiles a sort
            order = np.lexsort((y, z))
            zs, ys, ws = z[order], y[order], w[order]
            found = quantile_knots(zs, ws, self.n_knots)
        else:
            zs, ys, ws = z, y, w
        t, (lo, hi) = found
        self._standard = (units, lo, hi)
        if t is None:  # one distinct feature: the weighted rate
            self._t, self.coef_ = None, None
            rate = float(np.dot(ws, ys) / total)
            self._level = float(np.log(rate) - np.log1p(-rate))
            self.knots_, self.penalty_, self.n_iter_ = x[:1].copy(), 0.0, 0
            self.cv_losses_ = self.penalty_grid_ = None
            return self
        problem = _Problem((zs - lo) / (hi - lo), ys, t)
        if grid is None:
            self.penalty_, self.cv_losses_ = float(self.penalty), None
            self.penalty_grid_ = None
        else:
            self.penalty_grid_ = grid
            self.penalty_, self.cv_losses_ = self._cross_validate(problem, ws, grid)
        b = problem.warm_start(ws, self.penalty_, problem.start_point(ws), self.max_iter)
        b, n_iter, status = problem.fit(ws, self.penalty_, b, self.max_iter)
        if status:
            why = (
                f"it reached max_iter={self.max_iter} Newton iterations; increase max_iter"
                if status == 1
                else "the scores separate the classes, so the likelihood has no maximum; the "
                "map is a step to within 1e-12"
            )
            warnings.warn(
                f"SplineCalibration did not converge: {why}.",
                ConvergenceWarning,
                stacklevel=external_stacklevel(),
            )
        self._t, self.coef_, self.n_iter_ = t, problem.c @ b, int(n_iter)
        # back to the features' units: z = (x 2^-shift - centre) 2^-exponent
        knots = np.ldexp(lo + t * (hi - lo), units.exponent) + units.centre
        self.knots_ = np.ldexp(knots, units.shift)
        return self

    def _cross_validate(self, problem, w, grid):
        """(chosen penalty, mean held-out log-loss per grid value, in the grid's order)."""
        from calibbook._kernels.spline import linear_predictor

        total = float(np.sum(w))
        phase = check_random_state(self.random_state).uniform(0.0, self.cv)
        folds = fold_weights(w, self.cv, phase)
        held = folds.sum(axis=1)
        usable = [k for k in range(self.cv) if held[k] > 0 and total - held[k] > 1e-9 * total]
        if not usable:
            return float(grid[0]), None
        losses = np.zeros(grid.size)
        for k in usable:
            train = np.maximum(w - folds[k], 0.0)
            b = problem.start_point(train)
            for g, lam in enumerate(grid):  # warm starts, from the smoothest fit
                b, _, _ = problem.fit(train, lam, b, self.max_iter)
                eta = linear_predictor(problem.start, problem.val, problem.c @ b)
                loss = np.logaddexp(0.0, eta) - problem.y * eta
                losses[g] += float(np.dot(folds[k], loss))
        losses /= sum(held[k] for k in usable)
        best = int(np.argmin(losses))  # the first minimum: ties go to the larger penalty
        return float(grid[best]), losses

    def _predict(self, scores):
        units, lo, hi = self._standard
        z = units.transform(self._features(scores))
        if self._t is None:
            return np.full(z.shape, expit(self._level))
        from calibbook._kernels.spline import bspline_rows, linear_predictor

        u = (z - lo) / (hi - lo)
        if self.out_of_bounds == "clip":
            u = np.clip(u, 0.0, 1.0)
        start, val = np.empty(u.size, dtype=np.int64), np.empty((u.size, 4))
        bspline_rows(u, self._t, start, val)
        return expit(linear_predictor(start, val, self.coef_))
