"""Quadratic logistic scaling: a sigmoid of a quadratic in the score's logit (CalArena's
"Quadratic")."""

import math
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from calibbook._utils.maths import expit, standard_units
from calibbook._utils.params import Integral, Interval
from calibbook._utils.weights import external_stacklevel, warn_low_total_weight
from calibbook.base import BaseCalibrator

__all__ = ["QuadraticScaling"]


_SUBSAMPLE = 1 << 16  # above this many rows, Newton starts from a fit on a quarter of it


def fit_logistic_polynomial(features, y, sample_weight, degree, max_iter=100):
    """Weighted fit of expit(c0 + c1 u [+ c2 u^2]) to Platt's targets, u in standard units.

    ``degree`` is 1 (Platt's line) or 2 (the quadratic). Returns (units, coefficients in
    standard units, n_iter, converged, total weight).
    """
    from calibbook._kernels.quadratic import logistic_newton

    if sample_weight is None:  # weights 1: the kernel takes an empty array
        w = np.empty(0)
        n_pos = float(np.count_nonzero(y == 1.0))
        n_neg = y.size - n_pos
    else:
        w = sample_weight
        n_pos = float(np.dot(w, y))
        n_neg = float(np.sum(w)) - n_pos
    t_pos, t_neg = (n_pos + 1.0) / (n_pos + 2.0), 1.0 / (n_neg + 2.0)  # Platt's targets
    start = np.zeros(degree + 1)
    start[0] = math.log((n_pos + 1.0) / (n_neg + 1.0))  # Platt's starting point
    units = standard_units(features)
    u = units.transform(features)
    if u.size > _SUBSAMPLE:
        # start from the fit on a strided sample: about two fewer passes over all the rows
        step = u.size // (_SUBSAMPLE // 4)
        start, _, _ = logistic_newton(
            u[::step], y[::step], w[::step], t_pos, t_neg, start, max_iter
        )
    coef, n_iter, converged = logistic_newton(u, y, w, t_pos, t_neg, start, max_iter)
    return units, coef, n_iter, converged, n_pos + n_neg


class QuadraticScaling(BaseCalibrator):
    r"""Quadratic logistic scaling: :math:`P(y = 1 \mid z) = \sigma(c_0 + c_1 z + c_2 z^2)`.

    A logistic regression of the label on :math:`z` and :math:`z^2`, where :math:`z` is
    the score itself (a decision value) or, with ``logit_input=True``, the logit of a
    probability. It is CalArena's "Quadratic" (Berta et al.): Platt scaling on the logit
    (:class:`PlattScaling` with ``logit_input=True``) is the case :math:`c_2 = 0`, and the
    extra term lets the map bend the two tails differently (a classifier over-confident
    on one side and under-confident on the other), which a sigmoid of an affine map
    cannot. The quadratic in :math:`z` is the log-odds ratio of two Gaussian class
    densities of :math:`z` with unequal variances, as Platt's line is for equal ones.

    **Not always monotone.** When :math:`c_2 \ne 0` the map increases on one side of
    the vertex :math:`z^* = -c_1 / (2 c_2)` and decreases on the other (``vertex_``). The
    fit does not constrain it: where the vertex falls inside the scores' range, the
    calibrated probabilities are not in the scores' order there. It is monotone over
    the scores' range when the vertex lies outside it (``vertex_`` reports where).

    **Flat beyond the training scores.** A score below the smallest training score (or
    above the largest) gets the map's value there: a quadratic extrapolated far enough
    always turns back (with :math:`c_2 > 0` it sends a score far below the data to
    probability 1), which no calibration map should do, while a flat end keeps the
    last probability the data support. Inside the training range the map is the fitted
    quadratic, unclipped.

    **Targets and separation.** As :class:`PlattScaling`, the coefficients maximise the
    likelihood of Platt's smoothed targets :math:`t_+ = (N_+ + 1)/(N_+ + 2)` and
    :math:`t_- = 1/(N_- + 2)` rather than of the 0/1 labels. Every target lies strictly
    inside (0, 1), so the loss grows without bound along every direction of the
    coefficients that moves the predictor on the data: the fit is finite even on
    separable data, and needs no penalty. (CalArena's fit instead penalises the
    intercept and :math:`c_2` of a fit to the labels; the two differ by :math:`O(1/N)`.)
    The fit is Newton's method with a backtracking line search, on the scores in robust
    standard units, so it does not depend on their units (``fit(a * s + b)`` predicts at
    ``a * t + b`` what ``fit(s)`` predicts at ``t``, for a > 0). Scores taking at most
    two distinct values fit Platt's line through them (a tiny ridge picks it); constant
    scores give a constant map, the weighted mean of the targets.

    The weights are frequencies: :math:`N_+` and :math:`N_-` are weighted counts, and a
    total weight below two (the targets' pseudo-cases outweigh the data) warns with
    :class:`calibbook.LowWeightWarning`. A fit on aggregated (score, weight, positives)
    rows equals the fit on the raw rows.

    Which calibrator suits your data and classifier: the decision guide,
    :doc:`/book/which_calibrator`; :doc:`/book/03_platt_scaling` derives the affine case.

    Parameters
    ----------
    logit_input : bool, default=False
        If True, the scores are probabilities in [0, 1] and :math:`z` is their logit
        (clipped away from 0 and 1), as in :class:`PlattScaling`; the identity map is then
        :math:`c = (0, 1, 0)`.
    max_iter : int, default=100
        Maximum number of Newton iterations.

    Attributes
    ----------
    intercept_ : float
        :math:`c_0`, in the units of :math:`z`.
    coef_ : ndarray of shape (2,)
        :math:`(c_1, c_2)`, the coefficients of :math:`z` and :math:`z^2`, in the units of
        :math:`z` (the fit and the predictions run in standard units, where they stay
        exact even when these are large).
    vertex_ : float or None
        The turning point :math:`-c_1 / (2 c_2)` of the predictor, in the units of
        :math:`z` (the logit with ``logit_input``); None when :math:`c_2 = 0`.
    n_iter_ : int
        Newton iterations used.

    Warns
    -----
    sklearn.exceptions.ConvergenceWarning
        When Newton's method stops before converging.
    calibbook.LowWeightWarning
        When the sample weights total less than 2.

    See Also
    --------
    calibbook.PlattScaling : The affine case, :math:`c_2 = 0`.
    calibbook.TemperatureScaling : One slope, no intercept.

    References
    ----------
    Berta, Holzmüller, Bach & Jordan, CalArena (2026), the "Quadratic" calibrator of the
    probmetrics package. Platt, "Probabilistic outputs for support vector machines and
    comparisons to regularized likelihood methods" (1999), for the smoothed targets.
    Kull, Silva Filho & Flach, "Beta calibration" (AISTATS 2017), for maps that are
    log-odds of class-conditional densities. :doc:`/book/10_parametric_maps` derives the
    map and checks the fit.

    Examples
    --------
    >>> import numpy as np
    >>> from calibbook import QuadraticScaling
    >>> rng = np.random.default_rng(0)
    >>> z = rng.normal(size=2000)
    >>> y = (rng.uniform(size=2000) < 1 / (1 + np.exp(-(z + 0.5 * z**2)))).astype(int)
    >>> cal = QuadraticScaling().fit(z, y)
    >>> [round(float(c), 1) for c in cal.coef_]
    [1.0, 0.5]
    >>> # the truth's is -1: the map falls below it, then rises
    >>> round(cal.vertex_, 1)
    -1.1
    """

    _parameter_constraints = {
        "logit_input": ["boolean"],
        "max_iter": [Interval(Integral, 1, None)],
    }

    def __init__(self, *, logit_input=False, max_iter=100):
        self.logit_input = logit_input
        self.max_iter = max_iter

    def _fit(self, scores, y, sample_weight):
        features = self._features(scores)
        units, coef, n_iter, converged, total = fit_logistic_polynomial(
            features, y, sample_weight, 2, self.max_iter
        )
        if sample_weight is not None:  # one pseudo-case per class: below two, the prior dominates
            warn_low_total_weight(total, 1, "fit", "QuadraticScaling")
        if not converged:
            warnings.warn(
                f"QuadraticScaling did not converge after {n_iter} of at most "
                f"max_iter={self.max_iter} Newton iterations; increase max_iter. The "
                "coefficients are not the maximum-likelihood fit.",
                ConvergenceWarning,
                stacklevel=external_stacklevel(),
            )
        u = units.transform(features)
        if sample_weight is not None:  # a row of weight 0 is absent: it does not widen the range
            u = u[sample_weight > 0]
        self._standard = (units, coef, float(u.min()), float(u.max()))
        self.intercept_, self.coef_, self.vertex_ = _user_coefficients(units, coef)
        self.n_iter_ = int(n_iter)
        return self

    def _predict(self, scores):
        units, (c0, c1, c2), low, high = self._standard  # standard units: exact in any units
        # flat beyond the training scores: a quadratic turns back beyond its vertex
        u = np.clip(units.transform(self._features(scores)), low, high)
        return expit(c0 + u * (c1 + c2 * u))


def _user_coefficients(units, coef):
    """(intercept, [linear, quadratic], vertex) on z, from the coefficients on u = k z - m."""
    c0, c1, c2 = (float(c) for c in coef)
    m = math.ldexp(units.centre, -units.exponent)
    with np.errstate(over="ignore", invalid="ignore"):
        linear = units.user_slope(c1 - 2.0 * c2 * m)
        quadratic = units.user_slope(units.user_slope(c2))  # c2 k^2, each step exact
        intercept = float(c0 - c1 * m + c2 * m * m)
        # z = (u + m) / k, with 1 / k = 2**(shift + exponent)
        vertex = None
        if c2 != 0.0:
            u = -c1 / (2.0 * c2) + m
            vertex = float(np.ldexp(np.float64(u), units.shift + units.exponent))
    return intercept, np.array([linear, quadratic]), vertex
