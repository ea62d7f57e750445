"""Beta calibration (Kull, Silva Filho & Flach 2017): a logistic regression on ln s, -ln(1 - s)."""

import math
import warnings

import numpy as np
from scipy.optimize import brentq
from sklearn.exceptions import ConvergenceWarning

from calibbook._utils.maths import expit
from calibbook._utils.params import Integral, Interval, Options
from calibbook._utils.weights import external_stacklevel, warn_low_total_weight
from calibbook.base import BaseCalibrator

__all__ = ["BetaCalibration"]

#: Scores are clipped to [EPS, 1 - EPS] (betacal's machine epsilon): ln s, ln(1 - s) stay finite.
EPS = float(np.finfo(np.float64).eps)
#: The ridge on the slopes, per unit of weight: it keeps the fit finite on separable data.
RIDGE = 1e-12
_LN2 = math.log(2.0)


def _clipped_logs(scores):
    """(ln s, -ln(1 - s)) of the scores clipped to [EPS, 1 - EPS]."""
    s = np.clip(scores, EPS, 1.0 - EPS)
    return np.log(s), -np.log1p(-s)


def _design(parameters, log_s, log_1ms):
    """The features of each variant's logistic regression, and whether it has an intercept.

    The coefficients (the features' slopes, then the intercept) map to (a, b, c) in
    :func:`_abc`.
    """
    if parameters == "abm":
        return [log_s, log_1ms], True
    if parameters == "ab":  # m = 1/2: ln(2 s) and -ln(2 (1 - s)), no intercept
        return [log_s + _LN2, log_1ms - _LN2], False
    logit = log_s + log_1ms  # "am" (a = b), or "a" (a = b and m = 1/2: no intercept)
    return [logit], parameters == "am"


def _abc(parameters, coef):
    """(a, b, c) of the map logit p = a ln s - b ln(1 - s) + c from a variant's coefficients."""
    if parameters == "abm":
        return coef[0], coef[1], coef[2]
    if parameters == "am":
        return coef[0], coef[0], coef[1]
    if parameters == "ab":
        return coef[0], coef[1], (coef[0] - coef[1]) * _LN2
    return coef[0], coef[0], 0.0


def _midpoint(a, b, c):
    r"""The score m at which the map crosses 1/2: a ln m - b ln(1 - m) + c = 0.

    For a, b > 0 the left side increases from -inf to +inf over (0, 1), so m is unique;
    it is found on u = logit(m), where the left side is a u + (b - a) softplus(u) + c.
    With one of a, b zero (the refit without a feature), m is explicit, and where the map
    stays on one side of 1/2 it is the end of [0, 1] that betacal's bounded search
    approaches (0 when the map lies above 1/2 everywhere, for a map that increases). NaN
    when a = b = 0 (a constant map).
    """
    if a == 0.0 and b == 0.0:
        return math.nan
    if a == 0.0:  # ln(1 - m) = c / b
        r = c / b
        return -math.expm1(r) if r < 0.0 else 0.0
    if b == 0.0:  # ln m = -c / a
        r = -c / a
        return math.exp(r) if r < 0.0 else 1.0
    if a == b:
        return float(expit(-c / a))

    def f(u):
        return a * u + (b - a) * float(np.logaddexp(0.0, u)) + c

    lo, hi = -800.0, 800.0  # beyond +-745, m is 0 or 1 in floating point
    if f(lo) >= 0.0:
        return 0.0
    if f(hi) <= 0.0:
        return 1.0
    return float(expit(brentq(f, lo, hi, xtol=1e-15, rtol=4 * EPS)))


class BetaCalibration(BaseCalibrator):
    r"""Beta calibration: :math:`\operatorname{logit} P(y = 1 \mid s) = a \ln s - b \ln(1 - s) + c`.

    The map :math:`p = 1 / (1 + 1 / (e^c s^a / (1 - s)^b))` is the posterior when the
    scores of each class follow a Beta distribution (Kull, Silva Filho & Flach 2017): the
    log-ratio of two Beta densities is :math:`a \ln s - b \ln(1 - s) + c`. It contains
    the identity (a = b = 1, c = 0), logistic calibration on the logit (a = b), and maps
    that bend differently near 0 and near 1, which a sigmoid of the logit cannot. It is
    fitted, as in the authors' ``betacal`` package, by a logistic regression of the labels
    on the two features :math:`\ln s` and :math:`-\ln(1 - s)`:

    * the scores are first clipped to :math:`[\epsilon, 1 - \epsilon]`, with
      :math:`\epsilon` the float64 machine epsilon (2.2e-16), so the features are finite;
    * ``parameters="abm"``: a, b and the intercept c are free; if the fit gives a < 0 it is
      refitted without :math:`\ln s` (a = 0), else if b < 0 without :math:`-\ln(1 - s)`
      (b = 0), so that the map increases (the refitted coefficient is not constrained
      again); ``"am"``: a = b, a logistic regression on the logit of the score;
      ``"ab"``: m = 1/2, features :math:`\ln(2s)` and :math:`-\ln(2(1 - s))` and no
      intercept (c = (a - b) ln 2); ``"a"``: a = b and m = 1/2, the logit alone;
    * the midpoint m, where the map crosses 1/2, solves
      :math:`c = b \ln(1 - m) - a \ln m`.

    The logistic regression is unpenalised in the paper; betacal approximates that with
    scikit-learn's ``LogisticRegression(C=99999999999)``. Here Newton's method minimises
    the weighted log-loss plus a ridge :math:`10^{-12} W (a^2 + b^2) / 2` on the slopes
    (not on c), W the weights' total: it moves a fit by about :math:`10^{-11}` relative,
    keeps the coefficients finite on separable data (where the unpenalised optimum is at
    infinity), and makes the optimum unique when the scores are all equal. The Newton
    iterations run to rounding, so the fit is closer to the unpenalised optimum than
    betacal's (whose L-BFGS stops at a gradient tolerance).

    Weights are frequencies (a weight of 2 is a row seen twice): the log-likelihood is a
    weighted sum, so integer weights equal repeated rows; the fit reads only the
    proportions of the weights (the ridge grows with their total), but a total below two
    cases warns with :class:`calibbook.LowWeightWarning`. For the same reason a fit on
    Dask data aggregated by :func:`calibbook.distributed.fit_distributed` equals the fit
    on the rows.

    Parameters
    ----------
    parameters : {"abm", "am", "ab", "a"}, default="abm"
        The free parameters of the map, as in betacal (see above).
    max_iter : int, default=100
        Maximum number of Newton iterations of each logistic regression.

    Attributes
    ----------
    a_, b_, c_ : float
        The map's coefficients: :math:`\operatorname{logit} p = a \ln s - b \ln(1 - s) + c`.
    m_ : float
        The score where the map crosses 1/2 (0 or 1 when it stays above or below 1/2 on
        (0, 1), NaN for a constant map).
    n_iter_ : int
        Newton iterations used (in the last logistic regression fitted).

    Warns
    -----
    sklearn.exceptions.ConvergenceWarning
        When Newton's method stops at ``max_iter`` iterations before converging.
    calibbook.LowWeightWarning
        When the sample weights total less than 2.

    See Also
    --------
    calibbook.PlattScaling : With ``logit_input=True``, the two-parameter case a = b.

    References
    ----------
    Kull, Silva Filho & Flach, "Beta calibration: a well-founded and easily implemented
    improvement on logistic calibration for binary classifiers", AISTATS 2017; and
    "Beyond sigmoids: how to obtain well-calibrated probabilities from binary classifiers
    with beta calibration", Electronic Journal of Statistics 11 (2017). The ``betacal``
    package (version 1.1.0) for the conventions followed here.
    :doc:`/book/10_parametric_maps` derives the map and the variants and checks the fit.

    Examples
    --------
    >>> from calibbook import BetaCalibration
    >>> s = [0.1, 0.2, 0.3, 0.4, 0.6, 0.7, 0.8, 0.9]
    >>> cal = BetaCalibration().fit(s, [0, 0, 1, 0, 1, 0, 1, 1])
    >>> bool(cal.a_ >= 0 and cal.b_ >= 0)
    True
    >>> p = cal.predict([0.25, 0.75])
    >>> bool(p[0] < p[1])
    True
    """

    _parameter_constraints = {
        "parameters": [Options("abm", "am", "ab", "a")],
        "max_iter": [Interval(Integral, 1, None)],
    }

    def __init__(self, *, parameters="abm", max_iter=100):
        self.parameters = parameters
        self.max_iter = max_iter

    @property
    def _requires_probabilities(self):
        """The scores are probabilities: the map is on ln s and ln(1 - s)."""
        return True

    def _fit(self, scores, y, sample_weight):
        if sample_weight is None:
            w = np.empty(0)
        else:
            warn_low_total_weight(float(np.sum(sample_weight)), 1, "fit", "BetaCalibration")
            w = sample_weight / np.max(sample_weight)  # the fit reads the proportions alone
        log_s, log_1ms = _clipped_logs(scores)
        x, intercept = _design(self.parameters, log_s, log_1ms)
        coef = self._logistic(x, intercept, y, w)
        if self.parameters == "abm" and (coef[0] < 0.0 or coef[1] < 0.0):
            keep = 1 if coef[0] < 0.0 else 0  # betacal's order: a first
            refit = self._logistic([x[keep]], True, y, w)
            coef = np.zeros(3)
            coef[keep], coef[2] = refit
        a, b, c = (float(v) for v in _abc(self.parameters, coef))
        self.a_, self.b_, self.c_ = a, b, c
        self.m_ = 0.5 if self.parameters in ("ab", "a") else _midpoint(a, b, c)
        return self

    def _logistic(self, x, intercept, y, w):
        """The coefficients of one weighted logistic regression (and ``n_iter_``)."""
        from calibbook._kernels.beta import logistic_newton

        total = float(np.sum(w)) if w.size else float(y.size)
        coef, n_iter, converged = logistic_newton(x, y, w, RIDGE * total, intercept, self.max_iter)
        self.n_iter_ = int(n_iter)
        if not converged:
            warnings.warn(
                f"BetaCalibration did not converge: Newton's method stopped after {n_iter} "
                f"of at most max_iter={self.max_iter} iterations with the gradient still "
                "large. Increase max_iter; a_, b_ and c_ are not the maximum-likelihood fit.",
                ConvergenceWarning,
                stacklevel=external_stacklevel(),
            )
        return coef

    def _predict(self, scores):
        log_s, log_1ms = _clipped_logs(scores)
        return expit(self.a_ * log_s + self.b_ * log_1ms + self.c_)
