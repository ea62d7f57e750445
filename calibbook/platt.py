"""Platt scaling: a sigmoid of the score, fitted by maximum likelihood (Platt 1999)."""

import warnings

import numpy as np

from ._logit import clipped_logit
from .base import BaseCalibrator

__all__ = ["PlattScaling", "TemperatureScaling"]



def platt_targets(y, sample_weight):
    """Platt's smoothed targets (N+ + 1)/(N+ + 2) for positives and 1/(N- + 2) for negatives.

    N+ and N- are the (weighted) numbers of positives and negatives.
    """
    n_pos = np.sum(sample_weight * y)
    n_neg = np.sum(sample_weight) - n_pos
    return np.where(y == 1.0, (n_pos + 1.0) / (n_pos + 2.0), 1.0 / (n_neg + 2.0)), n_pos, n_neg


class PlattScaling(BaseCalibrator):
    r"""Platt scaling: :math:`P(y = 1 \mid f) = 1 / (1 + \exp(A f + B))`.

    A and B maximise the likelihood of Platt's smoothed targets
    :math:`t_+ = (N_+ + 1)/(N_+ + 2)` and :math:`t_- = 1/(N_- + 2)` rather than
    of the 0/1 labels, which keeps them finite even on separable data. The fit is
    Newton's method with a backtracking line search and overflow-free log terms,
    following Lin, Lin & Weng (2007). :doc:`/book/03_platt_scaling` derives the
    model, the smoothed targets and the Newton iteration.

    Which calibrator suits your data and classifier: the decision guide,
    :doc:`/book/which_calibrator`.

    Parameters
    ----------
    logit_input : bool, default=False
        If True, the scores are probabilities in [0, 1] and the sigmoid is fitted
        to logit(score) (clipped away from 0 and 1). This is the right input
        when a classifier outputs probabilities: a sigmoid of the logit can
        represent the identity map (A = -1, B = 0), a sigmoid of p cannot.
    max_iter : int, default=100
        Maximum number of Newton iterations.

    Attributes
    ----------
    a_, b_ : float
        Fitted slope and intercept of ``A f + B`` (A < 0 when larger scores mean
        more likely positive).
    n_iter_ : int
        Newton iterations used.

    See Also
    --------
    calibbook.IsotonicCalibration : The non-parametric alternative.

    References
    ----------
    Platt, "Probabilistic outputs for support vector machines and comparisons to
    regularized likelihood methods", in Advances in Large Margin Classifiers,
    MIT Press (1999). Lin, Lin & Weng, "A note on Platt's probabilistic outputs
    for support vector machines", Machine Learning 68 (2007). Niculescu-Mizil &
    Caruana, "Predicting good probabilities with supervised learning", ICML 2005,
    Eq. 4.

    Examples
    --------
    >>> from calibbook import PlattScaling
    >>> cal = PlattScaling().fit([-2.0, -1.0, 1.0, 2.0], [0, 0, 1, 1])
    >>> bool(cal.predict([0.0])[0] == 0.5)
    True
    >>> cal.a_ < 0  # larger scores, more likely positive
    True
    """

    def __init__(self, logit_input=False, max_iter=100):
        self.logit_input = logit_input
        self.max_iter = max_iter

    @property
    def _requires_probabilities(self):
        return bool(self.logit_input)

    def _features(self, scores):
        if not self.logit_input:
            return scores
        return clipped_logit(scores)

    def _fit(self, scores, y, sample_weight):
        from ._kernels.platt import platt_newton

        if not isinstance(self.max_iter, (int, np.integer)) or self.max_iter < 1:
            raise ValueError(f"max_iter must be a positive integer; got {self.max_iter!r}.")
        w = np.ones_like(scores) if sample_weight is None else sample_weight
        targets, n_pos, n_neg = platt_targets(y, w)
        a0, b0 = 0.0, float(np.log((n_neg + 1.0) / (n_pos + 1.0)))  # Platt's starting point
        a, b, n_iter, converged = platt_newton(self._features(scores), targets, w, a0, b0, self.max_iter)
        if not converged:
            warnings.warn(
                f"PlattScaling: Newton's method stopped after {n_iter} iterations before the "
                "gradient vanished; the fit may be slightly off the optimum.",
                RuntimeWarning,
                stacklevel=3,
            )
        self.a_, self.b_, self.n_iter_ = float(a), float(b), int(n_iter)
        return self

    def _predict(self, scores):
        z = self.a_ * self._features(scores) + self.b_
        # 1 / (1 + exp(z)) without overflow for large |z|
        ez = np.exp(-np.abs(z))
        return np.where(z >= 0, ez / (1.0 + ez), 1.0 / (1.0 + ez))


def _newton_polish(beta, z, y, w, max_iter=20):
    """Newton's method on the convex log-loss in the slope beta = 1 / T, from a close start.

    Brent's search stops within about 1e-8 of the minimiser; these steps converge
    quadratically, so equal data (integer weights or repeated rows) give equal fits.
    """
    from scipy.special import expit

    for _ in range(max_iter):
        p = expit(beta * z)
        gradient = np.sum(w * (p - y) * z)
        curvature = np.sum(w * p * (1.0 - p) * z * z)
        if not curvature > 0:
            break
        step = gradient / curvature
        if not 0 < beta - step < np.inf:
            break
        beta -= step
        if abs(step) <= 4 * np.finfo(float).eps * beta:
            break
    return beta


class TemperatureScaling(BaseCalibrator):
    r"""Temperature scaling: :math:`P(y = 1 \mid z) = 1 / (1 + \exp(-z / T))`, one parameter.

    The score's logit :math:`z` (the decision value itself, or the logit of a
    probability with ``logit_input=True``) is divided by a temperature :math:`T > 0`
    fitted by weighted maximum likelihood on the 0/1 labels. It is Platt scaling
    with the intercept fixed at 0 and the slope kept positive, so it rescales the
    confidence without moving the 0.5 point and never changes the ranking. This is
    scikit-learn's ``CalibratedClassifierCV(method="temperature")`` for two classes
    (Guo et al. 2017 proposed it for neural networks); :doc:`/book/03_platt_scaling`
    derives the two-parameter sigmoid it restricts.

    Which calibrator suits your data and classifier: the decision guide,
    :doc:`/book/which_calibrator`.

    Parameters
    ----------
    logit_input : bool, default=False
        If True, the scores are probabilities in [0, 1] and :math:`z` is their
        logit, computed as scikit-learn does, :math:`\log(p + 10^{-12}) -
        \log(1 - p + 10^{-12})`.

    Attributes
    ----------
    temperature_ : float
        The fitted temperature T; the slope on the logit is 1 / T. It is searched
        for in :math:`[e^{-12}, e^{12}]`; on separable data it sits at the lower end.

    See Also
    --------
    calibbook.PlattScaling : Slope and intercept, fitted to Platt's smoothed targets.

    References
    ----------
    Guo, Pleiss, Sun & Weinberger, "On calibration of modern neural networks", ICML
    2017. Platt (1999), for the sigmoid it restricts.

    Examples
    --------
    >>> from calibbook import TemperatureScaling
    >>> cal = TemperatureScaling().fit([-4.0, -2.0, -1.0, 1.0, 2.0, 4.0], [0, 0, 1, 0, 1, 1])
    >>> float(cal.predict([0.0])[0])
    0.5
    >>> cal.temperature_ > 1  # the scores were over-confident
    True
    """

    _EPS = 1e-12  # scikit-learn's: log(p + eps) keeps 0 and 1 finite

    def __init__(self, logit_input=False):
        self.logit_input = logit_input

    @property
    def _requires_probabilities(self):
        return bool(self.logit_input)

    def _logits(self, scores):
        if not self.logit_input:
            return scores
        return np.log(scores + self._EPS) - np.log(1.0 - scores + self._EPS)

    def _fit(self, scores, y, sample_weight):
        from scipy.optimize import minimize_scalar

        z = self._logits(scores)
        w = 1.0 if sample_weight is None else sample_weight

        def loss(log_inverse_temperature):
            a = np.exp(log_inverse_temperature) * z
            return float(np.sum(w * (np.logaddexp(0.0, a) - y * a)))

        # a convex loss in 1/T; bounded Brent search on log(1/T), to scikit-learn's tolerance
        tolerance = {"xatol": 64 * np.finfo(float).eps}
        best = minimize_scalar(loss, bounds=(-12.0, 12.0), method="bounded", options=tolerance)
        inverse = float(np.exp(best.x))
        if abs(best.x) < 11.0:  # an interior minimum: Newton steps take it to full precision
            inverse = _newton_polish(inverse, z, y, w)
        self.temperature_ = float(1.0 / inverse)
        return self

    def _predict(self, scores):
        from scipy.special import expit

        return expit(self._logits(scores) / self.temperature_)
