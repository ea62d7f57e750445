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
    """Base class of calibbook calibrators (scikit-learn compatible).

    Subclasses set ``_requires_probabilities = True`` when their scores must
    already lie in [0, 1] (for instance equal-width histogram binning).
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
        self
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
        """Calibrated probabilities ``P(y = 1 | score)``, shape (n_samples,), in [0, 1]."""
        check_is_fitted(self)
        s = check_scores(
            scores, probabilities=self._requires_probabilities, estimator=type(self).__name__
        )
        p = np.asarray(self._predict(s), dtype=np.float64)
        if not np.isfinite(p).all():  # a defect in a subclass, never the user's fault
            raise RuntimeError(f"{type(self).__name__} produced non-finite probabilities.")
        return np.clip(p, 0.0, 1.0)

    def transform(self, scores):
        """Alias of :meth:`predict`, so a calibrator can sit inside a Pipeline."""
        return self.predict(scores)

    def fit_transform(self, scores, y, sample_weight=None):
        """Fit, then return the calibrated probabilities of the training scores."""
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
