"""Platt scaling: a sigmoid of the score, fitted by maximum likelihood (Platt 1999)."""

import warnings

import numpy as np
from scipy.special import logsumexp, softmax

from calibbook._utils.maths import expit
from calibbook._utils.params import Integral, Interval
from calibbook.base import BaseCalibrator

__all__ = ["PlattScaling", "TemperatureScaling", "fit_inverse_temperature"]


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

    _parameter_constraints = {
        "logit_input": ["boolean"],
        "max_iter": [Interval(Integral, 1, None)],
    }

    def __init__(self, *, logit_input=False, max_iter=100):
        self.logit_input = logit_input
        self.max_iter = max_iter

    def _fit(self, scores, y, sample_weight):
        from calibbook._kernels.platt import platt_newton

        if sample_weight is None:  # weights 1: the kernel takes an empty array
            w = np.empty(0)
            n_pos = float(np.count_nonzero(y == 1.0))
            n_neg = y.size - n_pos
        else:
            w = sample_weight
            n_pos = np.sum(w * y)
            n_neg = np.sum(w) - n_pos
        t_pos, t_neg = (n_pos + 1.0) / (n_pos + 2.0), 1.0 / (n_neg + 2.0)  # Platt's targets
        a0, b0 = 0.0, float(np.log((n_neg + 1.0) / (n_pos + 1.0)))  # Platt's starting point
        a, b, n_iter, converged = platt_newton(
            self._features(scores), y, w, t_pos, t_neg, a0, b0, self.max_iter
        )
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
        return expit(-(self.a_ * self._features(scores) + self.b_))


def fit_inverse_temperature(logits, labels, sample_weight=None):
    """The slope beta = 1 / T maximising the weighted likelihood of softmax(beta * logits).

    Parameters
    ----------
    logits : ndarray of shape (n, K)
        One row of class logits per sample (for two classes, ``[0, z]`` gives the
        binary model expit(beta * z)).
    labels : ndarray of int, shape (n,)
        The column of each sample's class.
    sample_weight : ndarray of shape (n,), optional

    Returns
    -------
    float
        beta in [e^-12, e^12]. The loss is convex in beta: a bounded Brent search on
        log(beta), to scikit-learn's tolerance, then Newton steps from its answer
        (quadratic convergence, so equal data, such as integer weights and repeated
        rows, give equal fits to full precision).

    Notes
    -----
    :class:`TemperatureScaling` calls it with two columns, and ``CalibratedClassifier``
    with one column per class (one temperature on the softmax, as scikit-learn).
    :doc:`/book/03_platt_scaling` relates the model to Platt's.

    References
    ----------
    Guo, Pleiss, Sun & Weinberger, "On calibration of modern neural networks", ICML 2017.

    Examples
    --------
    >>> import numpy as np
    >>> from calibbook.calibrators.platt import fit_inverse_temperature
    >>> logits = np.array([[0.0, -4.0], [0.0, -1.0], [0.0, 1.0], [0.0, 2.0], [0.0, 4.0]])
    >>> beta = fit_inverse_temperature(logits, np.array([0, 1, 0, 1, 1]))
    >>> bool(0 < beta < 1)  # the logits were over-confident: T > 1
    True
    """
    from scipy.optimize import minimize_scalar

    w = np.ones(logits.shape[0]) if sample_weight is None else sample_weight
    observed = logits[np.arange(logits.shape[0]), labels]

    def loss(log_beta):
        beta = np.exp(log_beta)
        return float(np.dot(w, logsumexp(beta * logits, axis=1) - beta * observed))

    best = minimize_scalar(
        loss, bounds=(-12.0, 12.0), method="bounded", options={"xatol": 64 * np.finfo(float).eps}
    )
    beta = float(np.exp(best.x))
    if abs(best.x) >= 11.0:  # at a bound (separable or uninformative data): keep Brent's answer
        return beta
    for _ in range(20):
        p = softmax(beta * logits, axis=1)
        mean = np.sum(p * logits, axis=1)
        gradient = np.dot(w, mean - observed)
        curvature = np.dot(w, np.sum(p * logits * logits, axis=1) - mean * mean)
        if not curvature > 0:
            break
        step = gradient / curvature
        if not 0 < beta - step < np.inf:
            break
        beta -= step
        if abs(step) <= 4 * np.finfo(float).eps * beta:
            break
    return float(beta)


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

    _parameter_constraints = {"logit_input": ["boolean"]}

    def __init__(self, *, logit_input=False):
        self.logit_input = logit_input

    def _logits(self, scores):
        if not self.logit_input:
            return scores
        return np.log(scores + self._EPS) - np.log(1.0 - scores + self._EPS)

    def _fit(self, scores, y, sample_weight):
        z = self._logits(scores)
        logits = np.column_stack((np.zeros_like(z), z))  # softmax([0, z]) = expit(z)
        beta = fit_inverse_temperature(logits, y.astype(np.intp), sample_weight)
        self.temperature_ = float(1.0 / beta)
        return self

    def _predict(self, scores):
        return expit(self._logits(scores) / self.temperature_)
