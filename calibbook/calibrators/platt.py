"""Platt scaling: a sigmoid of the score, fitted by maximum likelihood (Platt 1999)."""

import warnings

import numpy as np
from scipy.special import softmax
from sklearn.exceptions import ConvergenceWarning

from calibbook._utils.maths import expit, standard_units
from calibbook._utils.params import Integral, Interval
from calibbook._utils.weights import external_stacklevel, warn_low_total_weight
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

    The fit does not depend on the units of the score: it runs on the scores in
    robust standard units (centred at their median, divided by a power of two near
    their interquartile range), and ``fit(a * s + b)`` predicts at ``a * t + b`` what
    ``fit(s)`` predicts at ``t``, for every a > 0 and b that keep the scores finite.
    ``a_`` and ``b_`` are reported in the user's units; predictions are computed in
    the standard units, where they are exact even when ``b_`` is large. Constant
    scores give a constant map, the weighted mean of the smoothed targets.

    The weights are frequencies (a weight of 2 is a row seen twice): N+ and N- are
    weighted counts, so the targets, and the fit, move continuously with the weights'
    total. Platt's targets add one pseudo-case per class, so a total weight below two
    (the prior outweighs the data) warns with :class:`calibbook.LowWeightWarning`
    (one group: the sigmoid).

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

    Warns
    -----
    sklearn.exceptions.ConvergenceWarning
        When Newton's method stops at ``max_iter`` iterations before converging.
    calibbook.LowWeightWarning
        When the sample weights total less than 2.

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
            n_pos = float(np.dot(w, y))
            n_neg = float(np.sum(w)) - n_pos
            # the targets add one pseudo-case per class: below two cases, the prior dominates
            warn_low_total_weight(n_pos + n_neg, 1, "fit", "PlattScaling")
        t_pos, t_neg = (n_pos + 1.0) / (n_pos + 2.0), 1.0 / (n_neg + 2.0)  # Platt's targets
        a0, b0 = 0.0, float(np.log((n_neg + 1.0) / (n_pos + 1.0)))  # Platt's starting point
        features = self._features(scores)
        units = standard_units(features)  # the fit runs in standard units, whatever the user's
        a, b, n_iter, converged = platt_newton(
            units.transform(features), y, w, t_pos, t_neg, a0, b0, self.max_iter
        )
        if not converged:
            if n_iter >= self.max_iter:
                why = f"it reached max_iter={self.max_iter} Newton iterations. Increase max_iter"
            else:
                why = (
                    f"after {n_iter} of at most max_iter={self.max_iter} Newton iterations, "
                    "rounding stopped the line search while the gradient was still large"
                )
            warnings.warn(
                f"PlattScaling did not converge: {why}. a_ and b_ are not the "
                "maximum-likelihood fit.",
                ConvergenceWarning,
                stacklevel=external_stacklevel(),
            )
        self._standard = (units, float(a), float(b))
        self.a_, self.b_ = units.user_slope(a), units.user_intercept(a, b)
        self.n_iter_ = int(n_iter)
        return self

    def _predict(self, scores):
        units, a, b = self._standard  # in standard units: exact for any units of the score
        return expit(-(a * units.transform(self._features(scores)) + b))


def _softmax_temperature_derivatives(logits, labels, w):
    """g(beta) and h(beta), the first two derivatives in beta of the weighted log-loss of
    softmax(beta * logits): the weighted sums of E_p[z] - z_label and of Var_p(z)."""
    observed = logits[np.arange(logits.shape[0]), labels]

    def derivatives(beta):
        p = softmax(beta * logits, axis=1)
        mean = np.sum(p * logits, axis=1)
        spread = np.sum(p * (logits - mean[:, None]) ** 2, axis=1)
        if w is None:
            return float(np.sum(mean - observed)), float(np.sum(spread))
        return float(np.dot(w, mean - observed)), float(np.dot(w, spread))

    return derivatives


def _solve_inverse_temperature(z, labels, sample_weight):
    """(units, beta in standard units, n_iter, status) of temperature scaling.

    ``z`` is one column of binary logits (the model expit(beta z)) or an (n, K) array of
    class logits (softmax(beta z)). The logits are divided by a power of two near their
    median magnitude (:func:`calibbook._utils.maths.standard_units`, without centring), so
    that beta's range of :data:`calibbook._kernels.platt.BETA_BOUNDS` is relative to the
    logits' own scale; status is as in
    :func:`calibbook._kernels.platt.inverse_temperature_newton`.
    """
    from calibbook._kernels.platt import (
        binary_temperature_derivatives,
        inverse_temperature_newton,
    )

    units = standard_units(z, centred=False)
    if z.ndim == 1:
        w = np.empty(0) if sample_weight is None else sample_weight
        derivatives = binary_temperature_derivatives(units.transform(z), labels, w)
    else:
        x = units.transform(z).reshape(z.shape)
        derivatives = _softmax_temperature_derivatives(x, labels, sample_weight)
    beta, n_iter, status = inverse_temperature_newton(derivatives)
    return units, beta, n_iter, status


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
        beta, in the units of ``logits``. The loss is convex in beta; it is minimised by
        safeguarded Newton steps to full precision, in units where the logits' median
        magnitude is about 1, and beta is searched for in [e^-12, e^12] in those units
        (so the range follows the logits' scale, and large logits do not saturate it).

    Notes
    -----
    :class:`TemperatureScaling` solves the binary case with one column of logits
    (a compiled pass per Newton step), and ``CalibratedClassifier`` calls this function
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
    logits = np.asarray(logits, dtype=np.float64)
    units, beta, _, _ = _solve_inverse_temperature(logits, np.asarray(labels), sample_weight)
    return units.user_slope(beta)


class TemperatureScaling(BaseCalibrator):
    r"""Temperature scaling: :math:`P(y = 1 \mid z) = 1 / (1 + \exp(-z / T))`, one parameter.

    The score's logit :math:`z` (the decision value itself, or the logit of a
    probability with ``logit_input=True``) is divided by a temperature :math:`T > 0`
    fitted by weighted maximum likelihood on the 0/1 labels. It is Platt scaling
    with the intercept fixed at 0 and the slope kept positive, so it rescales the
    confidence without moving the 0.5 point and never changes the ranking. This is
    scikit-learn's ``CalibratedClassifierCV(method="temperature")`` for two classes
    (Guo et al. 2017 proposed it for neural networks); :doc:`/book/03_platt_scaling`
    derives the two-parameter sigmoid it restricts. The loss is convex in 1 / T: the
    fit is a safeguarded Newton search on log(1 / T), to full precision, with one
    compiled pass over the rows per step. The fit reads only the weights' proportions
    (there is no prior), but a total below two cases still warns with
    :class:`calibbook.LowWeightWarning`: the frequency reading says the fit rests on it.

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
        The fitted temperature T, in the units of the score; the slope on the logit
        is 1 / T. The fit runs on the logits divided by a power of two near their
        median magnitude, so it does not depend on their units (``fit(a * z)``
        predicts at ``a * t`` what ``fit(z)`` predicts at ``t``, for a > 0; a shift
        of the scores does move the map, which has no intercept), and T is searched
        for in :math:`[e^{-12}, e^{12}]` times that magnitude. On separable data it
        sits at the lower end, on scores unrelated to the labels at the upper end.
    n_iter_ : int
        Newton steps used (each one pass over the rows).

    Warns
    -----
    sklearn.exceptions.ConvergenceWarning
        When the temperature sits at a bound of its range (the likelihood would
        improve beyond it), saying which.
    UserWarning
        When every score lies in [0, 1] and ``logit_input`` is False: the scores look
        like probabilities, and a temperature on them can only predict
        probabilities >= 0.5. It does not switch to ``logit_input=True`` on its own.

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
    >>> logits = [-4.0, -2.0, -1.0, 1.0, 2.0, 4.0]
    >>> cal = TemperatureScaling().fit(logits, [0, 0, 1, 0, 1, 1])
    >>> float(cal.predict([0.0])[0])
    0.5
    >>> cal.temperature_ > 1  # the scores were over-confident
    True
    """

    _EPS = 1e-12  # scikit-learn's: log(p + eps) keeps 0 and 1 finite
    _MAX_ITER = 100  # Newton steps (each a pass over the rows); about 6 suffice

    _parameter_constraints = {"logit_input": ["boolean"]}

    def __init__(self, *, logit_input=False):
        self.logit_input = logit_input

    @property
    def _units(self):
        """A change of scale only: the map has no intercept, so a shift of the scores moves it."""
        return None if self._requires_probabilities else "scale"

    def _logits(self, scores):
        if not self.logit_input:
            return scores
        return np.log(scores + self._EPS) - np.log(1.0 - scores + self._EPS)

    def _fit(self, scores, y, sample_weight):
        from calibbook._kernels.platt import BETA_BOUNDS

        if not self.logit_input and scores.min() >= 0.0 and scores.max() <= 1.0:
            warnings.warn(
                "TemperatureScaling: every score lies in [0, 1], so the scores look like "
                "probabilities; without logit_input=True they are used as logits, and the "
                "fitted map can only predict probabilities >= 0.5. Pass logit_input=True to "
                "scale their logits.",
                UserWarning,
                stacklevel=external_stacklevel(),
            )
        if sample_weight is not None:
            warn_low_total_weight(float(np.sum(sample_weight)), 1, "fit", "TemperatureScaling")
        units, beta, n_iter, status = _solve_inverse_temperature(
            self._logits(scores), y, sample_weight
        )
        self._standard = (units, float(beta))
        with np.errstate(divide="ignore", over="ignore"):  # inf if 1 / T underflows
            self.temperature_ = float(np.float64(1.0) / units.user_slope(beta))
        self.n_iter_ = int(n_iter)
        if status:
            self._warn_unconverged(status, BETA_BOUNDS)
        return self

    def _warn_unconverged(self, status, bounds):
        if status == 2:
            why = f"Newton's method reached {self._MAX_ITER} iterations before converging"
        elif status == 1:
            why = (
                f"the temperature sits at its lower bound (e^-12 = {1 / bounds[1]:.3g} times "
                "the logits' median magnitude): the scores separate the classes, and the "
                "likelihood keeps improving as T goes to 0"
            )
        else:
            why = (
                f"the temperature sits at its upper bound (e^12 = {1 / bounds[0]:.3g} times "
                "the logits' median magnitude): the scores carry no information on the "
                "labels, or rank them backwards, and every prediction is about 0.5"
            )
        warnings.warn(
            f"TemperatureScaling did not converge: {why}.",
            ConvergenceWarning,
            stacklevel=external_stacklevel(),
        )

    def _predict(self, scores):
        units, beta = self._standard  # in standard units, where the fit ran
        return expit(beta * units.transform(self._logits(scores)))
