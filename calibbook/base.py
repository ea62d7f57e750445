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
scikit-learn tags) lives here, once.
"""

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted

from ._validation import check_fit_input, check_scores

__all__ = ["BaseCalibrator"]


class BaseCalibrator(BaseEstimator):
    r"""Base class of calibbook calibrators: the contract every calibrator shares.

    A calibrator learns a map from a 1-D array of classifier scores to calibrated
    probabilities :math:`P(y = 1 \mid s)`. ``fit`` validates its input once and
    hands float64 arrays to the subclass's ``_fit``; ``predict`` checks that the
    calibrator is fitted, validates the new scores, calls ``_predict`` and
    guarantees a finite result in [0, 1]. Every calibrator is a scikit-learn
    estimator: it clones, pickles and round-trips ``get_params``/``set_params``,
    and it can sit in a ``Pipeline`` (``transform`` is ``predict``).

    Subclasses set ``_requires_probabilities = True`` when their scores must
    already lie in [0, 1] (for instance equal-width histogram binning).

    The contract and the measures it is judged by are set out in :doc:`/book/intro`
    and :doc:`/book/01_measuring_calibration`.

    See Also
    --------
    calibbook.CalibratedClassifier : Fits a calibrator on a classifier's held-out scores.

    References
    ----------
    Pedregosa et al., "Scikit-learn: machine learning in Python", JMLR 12 (2011),
    for the estimator conventions; Niculescu-Mizil & Caruana, "Predicting good
    probabilities with supervised learning", ICML 2005, for calibration as a map
    fitted on held-out scores.

    Examples
    --------
    Every subclass follows the same two calls:

    >>> from calibbook import IsotonicCalibration
    >>> cal = IsotonicCalibration().fit([0.1, 0.4, 0.35, 0.8], [0, 0, 1, 1])
    >>> cal.predict([0.2, 0.9]).tolist()
    [0.0, 1.0]
    >>> isinstance(cal, BaseCalibrator)
    True
    """

    _requires_probabilities = False

    def fit(self, scores, y, sample_weight=None):
        """Learn the calibration map.

        Parameters
        ----------
        scores : array-like of shape (n_samples,)
            Uncalibrated classifier outputs (decision values or probabilities).
        y : array-like of shape (n_samples,)
            Binary labels in {0, 1} (or booleans); both classes must be present.
        sample_weight : array-like of shape (n_samples,), optional
            Non-negative weights; an integer weight is equivalent to repeating
            the row that many times.

        Returns
        -------
        self : BaseCalibrator
            The fitted calibrator.

        Raises
        ------
        ValueError
            If the scores are empty or hold NaN or infinity, the labels are not
            binary or hold a single class, the lengths differ, a weight is
            negative, or the method needs probabilities and a score lies outside
            [0, 1] (the message names the problem); or a parameter of the
            calibrator is invalid.
        """
        s, labels, w = check_fit_input(
            scores,
            y,
            sample_weight,
            probabilities=self._requires_probabilities,
            estimator=type(self).__name__,
        )
        self._fit(s, labels, w)
        return self

    def predict(self, scores):
        """Calibrated probabilities ``P(y = 1 | score)`` of new scores.

        Parameters
        ----------
        scores : array-like of shape (n_samples,)
            Scores of the same kind as those passed to ``fit``.

        Returns
        -------
        ndarray of shape (n_samples,)
            Calibrated probabilities, each finite and in [0, 1].

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

    def transform(self, scores):
        """Alias of ``predict``, so a calibrator can sit inside a Pipeline.

        Parameters
        ----------
        scores : array-like of shape (n_samples,)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        return self.predict(scores)

    def fit_transform(self, scores, y, sample_weight=None):
        """Fit, then return the calibrated probabilities of the training scores.

        Parameters
        ----------
        scores, y, sample_weight
            As in ``fit``.

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        return self.fit(scores, y, sample_weight=sample_weight).predict(scores)

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
