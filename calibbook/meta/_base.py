"""The plumbing that both meta-estimators share (CalibratedClassifier, ProbingClassifier).

Each wraps a scikit-learn classifier and returns class probabilities; they share the default
classifier, the checks at the start of ``fit``, ``predict``, the feature attributes and the
scikit-learn tags. What each does with the classifier lives in its own module.
"""

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, MetaEstimatorMixin
from sklearn.preprocessing import LabelEncoder
from sklearn.utils import indexable
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from calibbook._utils.compat import num_features as _num_features
from calibbook._utils.compat import num_samples as _num_samples


class MetaClassifier(ClassifierMixin, MetaEstimatorMixin, BaseEstimator):
    """A classifier that wraps ``estimator`` (default ``LogisticRegression()``)."""

    def _estimator(self):
        if self.estimator is None:
            from sklearn.linear_model import LogisticRegression

            return LogisticRegression()
        return self.estimator

    def _start_fit(self, X, y):
        """Check the data, set ``classes_``; return (X, y, y encoded as 0 .. n_classes - 1)."""
        check_classification_targets(y)
        X, y = indexable(X, y)
        name = type(self).__name__
        if _num_samples(X) == 0:
            raise ValueError(f"{name} cannot be fitted on empty data (0 samples).")
        encoder = LabelEncoder().fit(y)
        self.classes_ = encoder.classes_
        if self.classes_.size < 2:
            raise ValueError(
                f"{name} needs samples of at least 2 classes; got one class "
                f"({np.asarray(self.classes_[0]).item()!r}) in {len(y)} sample(s)."
            )
        return X, y, encoder.transform(y)

    def _copy_feature_attributes(self, fitted, X):
        """Copy ``n_features_in_`` (and ``feature_names_in_``) from a fitted classifier.

        The first one in ``fitted`` that has them is used.
        """
        for clf in fitted:
            if hasattr(clf, "n_features_in_"):
                self.n_features_in_ = clf.n_features_in_
                if hasattr(clf, "feature_names_in_"):
                    self.feature_names_in_ = clf.feature_names_in_
                return
        try:
            self.n_features_in_ = _num_features(X)
        except TypeError:
            pass

    def predict_proba(self, X):
        """Class probabilities: the calibrated ones, or the Probing ones (Algorithm 2).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Rows summing to one.

        Raises
        ------
        sklearn.exceptions.NotFittedError
            If ``fit`` has not been called.
        """
        check_is_fitted(self)
        return self._predict_proba(X)

    def predict(self, X):
        """The class of highest probability (``predict_proba``).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
            Labels from ``classes_``.
        """
        check_is_fitted(self)
        return self.classes_[np.argmax(self.predict_proba(X), axis=1)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        inner = self._estimator().__sklearn_tags__()
        tags.input_tags.sparse = inner.input_tags.sparse
        tags.input_tags.allow_nan = inner.input_tags.allow_nan
        return tags
