"""The calibrator contract shared by every calibbook calibrator.

A calibrator maps a 1-D array of classifier scores to calibrated probabilities
``P(y = 1 | score)``::

    cal = SomeCalibrator().fit(scores, y, sample_weight=None)
    p = cal.predict(new_scores)          # 1-D, every entry in [0, 1]

Subclasses implement two hooks that receive already-validated float64 arrays:

``_fit(scores, y, sample_weight)``
    learn the map and store the fitted state in attributes ending in ``_``;
    ``sample_weight`` is None (unweighted: take the fast path) or a float64 array;
``_predict(scores)``
    evaluate the learned map.

Everything else (validation, the not-fitted check, the output guarantee, the
scikit-learn interface: ``classes_``, ``predict_proba``, ``score``, ``transform``,
``set_output``, the tags) lives here, once.
"""

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from calibbook._utils.maths import clipped_logit
from calibbook._utils.params import validate_parameters
from calibbook._utils.validation import (
    check_binary_labels,
    check_consistent_length,
    check_fit_input,
    check_sample_weight,
    check_scores,
)

__all__ = ["BaseCalibrator"]


class BaseCalibrator(ClassifierMixin, TransformerMixin, BaseEstimator):
    r"""Base class of calibbook calibrators: the contract every calibrator shares.

    A calibrator learns a map from a 1-D array of classifier scores to calibrated
    probabilities :math:`P(y = 1 \mid s)`. ``fit`` validates its input once and
    hands float64 arrays to the subclass's ``_fit``; ``predict`` checks that the
    calibrator is fitted, validates the new scores, calls ``_predict`` and
    guarantees a finite result in [0, 1]. Every calibrator is a scikit-learn
    estimator: it clones, pickles and round-trips ``get_params``/``set_params``.

    Subclasses set ``_requires_probabilities = True`` when their scores must
    already lie in [0, 1] (for instance equal-width histogram binning).

    **A probabilistic classifier of y given the score.** scikit-learn sees a
    calibrator as a binary classifier whose single feature is the score:
    ``classes_`` is ``array([0, 1])``, ``predict_proba`` returns the two columns
    :math:`[1 - p, p]`, and ``score`` is the negative Brier score
    :math:`-\sum_i w_i (p_i - y_i)^2 / \sum_i w_i`, higher is better. So
    ``GridSearchCV``, ``cross_val_score`` and scikit-learn's probability scorers
    (``"neg_brier_score"``, ``"neg_log_loss"``, ``"roc_auc"``, which all call
    ``predict_proba``) select a calibrator's parameters, and with no ``scoring``
    they rank by ``score``, which equals ``"neg_brier_score"``. Unlike other
    classifiers, ``predict`` returns the probabilities :math:`p`, not labels:
    that is the calibrator contract. Scorers that need labels (``"accuracy"``,
    ``"f1"``) therefore do not apply; threshold ``predict_proba`` yourself.

    Why the Brier score: it is a strictly proper scoring rule (its expectation is
    best at the true :math:`P(y = 1 \mid s)`), so it rewards calibration and
    refinement together; and it is bounded, so it stays finite for the maps that
    output exactly 0 or 1 on a pure bin (histogram binning, isotonic, ENIR), where
    one unlucky validation fold would make the log-loss infinite. Pass
    ``scoring="neg_log_loss"`` to select by log-loss instead (scikit-learn clips
    the probabilities there).

    **A transformer of the score column.** ``transform`` returns the calibrated
    probabilities in the shape of its input: a 1-D array for 1-D scores, one
    column for a single-column 2-D input (array or DataFrame). So a calibrator can
    be a middle step of a ``Pipeline`` or calibrate one column inside a
    ``ColumnTransformer`` (select it as a list, ``["score"]``, to get a column).
    ``get_feature_names_out`` gives ``["<classname>0"]`` and
    ``set_output(transform="pandas")`` makes ``transform`` return a DataFrame, as
    scikit-learn's ``IsotonicRegression`` does. ``predict`` is always 1-D.

    The contract and the measures it is judged by are set out in :doc:`/book/intro`
    and :doc:`/book/01_measuring_calibration`.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        ``array([0, 1])``, set by ``fit``: the labels after encoding (booleans
        become 0 and 1). ``predict_proba``'s columns follow this order.

    See Also
    --------
    calibbook.CalibratedClassifier : Fits a calibrator on a classifier's held-out scores.

    References
    ----------
    Pedregosa et al., "Scikit-learn: machine learning in Python", JMLR 12 (2011),
    for the estimator conventions; Niculescu-Mizil & Caruana, "Predicting good
    probabilities with supervised learning", ICML 2005, for calibration as a map
    fitted on held-out scores; G. W. Brier, "Verification of forecasts expressed in
    terms of probability", Monthly Weather Review 78 (1950), and Gneiting & Raftery,
    "Strictly proper scoring rules, prediction, and estimation", JASA 102 (2007),
    for ``score``.

    Examples
    --------
    Every subclass follows the same two calls:

    >>> from calibbook import IsotonicCalibration
    >>> cal = IsotonicCalibration().fit([0.1, 0.4, 0.35, 0.8], [0, 0, 1, 1])
    >>> cal.predict([0.2, 0.9]).tolist()
    [0.0, 1.0]
    >>> isinstance(cal, BaseCalibrator)
    True

    The scikit-learn view: two-column probabilities and the negative Brier score,
    here :math:`-((0 - 0)^2 + (1 - 0)^2) / 2`:

    >>> cal.classes_.tolist()
    [0, 1]
    >>> cal.predict_proba([0.2, 0.9]).tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    >>> cal.score([0.2, 0.9], [0, 0])
    -0.5

    Model selection: with no ``scoring``, ``GridSearchCV`` keeps the parameters of
    the lowest cross-validated Brier score; a single bin (the base rate) loses to
    ten on informative scores.

    >>> import numpy as np
    >>> from sklearn.model_selection import GridSearchCV
    >>> from calibbook import HistogramBinning
    >>> rng = np.random.default_rng(0)
    >>> s = rng.uniform(size=400)
    >>> y = (rng.uniform(size=400) < s).astype(int)
    >>> search = GridSearchCV(HistogramBinning(), {"n_bins": [1, 10]}).fit(s, y)
    >>> search.best_params_
    {'n_bins': 10}

    Inside a ``Pipeline``, a column of scores in gives a column of probabilities out:

    >>> cal.transform([[0.2], [0.9]]).tolist()
    [[0.0], [1.0]]
    >>> cal.get_feature_names_out().tolist()
    ['isotoniccalibration0']
    """

    @property
    def _requires_probabilities(self):
        """Whether scores must be probabilities: with ``logit_input`` (subclasses may say more)."""
        return bool(getattr(self, "logit_input", False))

    @property
    def _units(self):
        """How the fitted map follows a change of the score's units (issue 28).

        ``"affine"``: ``fit(a * s + b)`` predicts at ``a * t + b`` what ``fit(s)`` predicts
        at ``t``, for every a > 0 and b that keep the scores finite; ``"scale"``: the same
        with b = 0 only; None: the scores are probabilities, whose units are fixed.
        Subclasses whose map is not affine-invariant override it.
        """
        return None if self._requires_probabilities else "affine"

    def _features(self, scores):
        """What the map is fitted on: the clipped logit with ``logit_input``, else the score."""
        return clipped_logit(scores) if getattr(self, "logit_input", False) else scores

    #: What each constructor parameter may be; checked when ``fit`` starts (see ``_params``).
    _parameter_constraints: dict = {}

    def fit(self, scores, y, sample_weight=None):
        """Learn the calibration map.

        Parameters
        ----------
        scores : array-like of shape (n_samples,) or (n_samples, 1)
            Uncalibrated classifier outputs (decision values or probabilities).
        y : array-like of shape (n_samples,)
            Binary labels in {0, 1} (or booleans); both classes must be present.
        sample_weight : array-like of shape (n_samples,), optional
            Non-negative frequency weights: an integer weight is equivalent to
            repeating the row that many times, and the fit depends on the total
            as well as the proportions (weights that sum to 1 are one case). A
            total below two cases per bin, block or kernel warns with
            :class:`calibbook.LowWeightWarning`; rescale relative importances to
            sum to the number of rows.

        Returns
        -------
        self : BaseCalibrator
            The fitted calibrator, with ``classes_ = array([0, 1])``.

        Raises
        ------
        ValueError
            If the scores are empty or hold NaN or infinity, the labels are not
            binary or hold a single class, the lengths differ, a weight is
            negative, or the method needs probabilities and a score lies outside
            [0, 1] (the message names the problem); or a parameter of the
            calibrator is invalid.
        """
        validate_parameters(self)
        s, labels, w = check_fit_input(
            scores,
            y,
            sample_weight,
            probabilities=self._requires_probabilities,
            estimator=type(self).__name__,
        )
        self._fit(s, labels, w)
        # set last: a failed _fit must not leave a calibrator that looks fitted
        self.classes_ = np.array([0, 1])
        return self

    def predict(self, scores):
        """Calibrated probabilities ``P(y = 1 | score)`` of new scores (not labels).

        Parameters
        ----------
        scores : array-like of shape (n_samples,) or (n_samples, 1)
            Scores of the same kind as those passed to ``fit``.

        Returns
        -------
        ndarray of shape (n_samples,)
            Calibrated probabilities, each finite and in [0, 1]; always 1-D, and
            equal to ``predict_proba(scores)[:, 1]``.

        Raises
        ------
        sklearn.exceptions.NotFittedError
            If ``fit`` has not been called.
        ValueError
            If the scores are invalid (as in ``fit``).
        """
        check_is_fitted(self)
        s = check_scores(
            scores, probabilities=self._requires_probabilities, estimator=type(self).__name__
        )
        p = np.asarray(self._predict(s), dtype=np.float64)
        if not np.isfinite(p).all():  # a defect in a subclass, never the user's fault
            raise RuntimeError(f"{type(self).__name__} produced non-finite probabilities.")
        return np.clip(p, 0.0, 1.0)

    def predict_proba(self, scores):
        """Probabilities of both classes, in the order of ``classes_`` (0, then 1).

        This is what scikit-learn's probability scorers (``"neg_brier_score"``,
        ``"neg_log_loss"``, ``"roc_auc"``) call.

        Parameters
        ----------
        scores : array-like of shape (n_samples,) or (n_samples, 1)
            Scores of the same kind as those passed to ``fit``.

        Returns
        -------
        ndarray of shape (n_samples, 2)
            ``[1 - p, p]`` with ``p = predict(scores)``; each row sums to 1.

        Raises
        ------
        sklearn.exceptions.NotFittedError, ValueError
            As ``predict``.
        """
        p = self.predict(scores)
        return np.column_stack([1.0 - p, p])

    def score(self, scores, y, sample_weight=None):
        r"""The negative Brier score of the calibrated probabilities: higher is better.

        :math:`-\sum_i w_i (p_i - y_i)^2 / \sum_i w_i` with ``p = predict(scores)``,
        a number in [-1, 0]. It equals scikit-learn's ``"neg_brier_score"`` scorer,
        and it is what ``GridSearchCV`` and ``cross_val_score`` maximise when no
        ``scoring`` is given (see the class docstring for why the Brier score).

        Parameters
        ----------
        scores : array-like of shape (n_samples,) or (n_samples, 1)
            Scores of the same kind as those passed to ``fit``.
        y : array-like of shape (n_samples,)
            True labels in {0, 1} (or booleans); one class alone is allowed.
        sample_weight : array-like of shape (n_samples,), optional
            Non-negative weights of the samples.

        Returns
        -------
        float
            The negative (weighted) mean squared difference between the
            probabilities and the labels.

        Raises
        ------
        sklearn.exceptions.NotFittedError
            If ``fit`` has not been called.
        ValueError
            If the scores, labels or weights are invalid or their lengths differ.
        """
        p = self.predict(scores)
        labels = check_binary_labels(y, require_both=False)
        check_consistent_length(scores=p, y=labels)
        w = check_sample_weight(sample_weight, p.shape[0])
        return -float(np.sum(w * (p - labels) ** 2) / np.sum(w))

    def transform(self, scores):
        """Calibrated probabilities in the shape of the input, for pipelines.

        Parameters
        ----------
        scores : array-like of shape (n_samples,) or (n_samples, 1)
            Scores of the same kind as those passed to ``fit``; a one-column
            DataFrame is a 2-D input.

        Returns
        -------
        ndarray of shape (n_samples,) or (n_samples, 1)
            ``predict(scores)``, as one column when ``scores`` is 2-D; a DataFrame
            with the column ``get_feature_names_out()`` after
            ``set_output(transform="pandas")``.

        Raises
        ------
        sklearn.exceptions.NotFittedError, ValueError
            As ``predict``.
        """
        return self._calibrated_like(scores)

    def fit_transform(self, scores, y, sample_weight=None):
        """Fit, then return ``transform`` of the training scores.

        Parameters
        ----------
        scores, y, sample_weight
            As in ``fit``.

        Returns
        -------
        ndarray of shape (n_samples,) or (n_samples, 1)
            As ``transform``.
        """
        return self.fit(scores, y, sample_weight=sample_weight)._calibrated_like(scores)

    def get_feature_names_out(self, input_features=None):
        """The name of ``transform``'s one output column.

        As in scikit-learn's ``IsotonicRegression``, the name is the lower-cased
        class name followed by 0 (a calibrator accepts 1-D input, which has no
        feature name), and ``input_features`` is ignored.

        Parameters
        ----------
        input_features : array-like of str or None
            Ignored.

        Returns
        -------
        ndarray of str objects, shape (1,)
            For example ``["histogrambinning0"]``.

        Raises
        ------
        sklearn.exceptions.NotFittedError
            If ``fit`` has not been called.
        """
        check_is_fitted(self)
        return np.asarray([f"{type(self).__name__.lower()}0"], dtype=object)

    def _calibrated_like(self, scores):
        # not `transform` itself: set_output wraps it, and fit_transform must wrap once
        p = self.predict(scores)
        ndim = getattr(scores, "ndim", None)
        if ndim is None:  # a list; predict has validated it, so this cannot fail
            ndim = np.ndim(scores)
        return p[:, None] if ndim == 2 else p

    def _fit(self, scores, y, sample_weight):  # pragma: no cover - abstract
        raise NotImplementedError

    def _predict(self, scores):  # pragma: no cover - abstract
        raise NotImplementedError

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.one_d_array = True
        tags.input_tags.two_d_array = False
        tags.target_tags.required = True
        return tags
