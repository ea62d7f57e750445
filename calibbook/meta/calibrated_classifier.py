"""A classifier with calibrated probabilities: any scikit-learn classifier plus any calibrator.

Semantics follow scikit-learn's ``CalibratedClassifierCV``: with ``ensemble=True``
each cross-validation fold fits a copy of the classifier on its training part and
a calibrator on the held-out part, and predictions average the folds' calibrated
probabilities; with ``ensemble=False`` one calibrator is fitted on out-of-fold
scores from ``cross_val_predict`` and the classifier is refitted on all the data.
A classifier wrapped in ``sklearn.frozen.FrozenEstimator`` is used as it is and
the calibrator is fitted on all the data given to ``fit``.
"""

import warnings

import numpy as np
from scipy.special import softmax
from sklearn import get_config
from sklearn.base import clone
from sklearn.frozen import FrozenEstimator
from sklearn.model_selection import LeaveOneOut, check_cv, cross_val_predict
from sklearn.utils.metadata_routing import MetadataRouter, MethodMapping, process_routing
from sklearn.utils.validation import has_fit_parameter

from calibbook._utils.compat import check_sample_weight_like, num_samples, safe_indexing
from calibbook._utils.maths import expit
from calibbook._utils.params import Integral, Interval, validate_parameters
from calibbook.meta._base import MetaClassifier
from calibbook.registry import RegisteredName, calibrator_entry

__all__ = ["CalibratedClassifier"]

_RESPONSE_METHODS = ("decision_function", "predict_proba")


def _calibrator_for(method, probabilities=False):
    """A fresh, unfitted calibrator for a registered name or a calibrator instance.

    ``probabilities``: the scores are ``predict_proba`` columns, so temperature scaling
    works on their logits (as scikit-learn's does). ``method`` satisfies the declared
    constraint of ``CalibratedClassifier.method``.
    """
    if not isinstance(method, str):
        return clone(method)
    entry = calibrator_entry(method)
    params = dict(entry.meta_params)
    if entry.name == "temperature":
        params["logit_input"] = probabilities
    return entry.make(**params)


def _response_method(estimator, calibrator):
    """(method name, squash): decision_function first, unless the calibrator needs probabilities.

    A calibrator that needs probabilities (ENIR, BBQ) gets ``predict_proba`` when the
    classifier has it, else the sigmoid of ``decision_function`` (squash=True), as the ENIR
    paper does for SVMs.
    """
    needs_probabilities = getattr(calibrator, "_requires_probabilities", False)
    order = _RESPONSE_METHODS[::-1] if needs_probabilities else _RESPONSE_METHODS
    for name in order:
        if hasattr(estimator, name):
            return name, needs_probabilities and name == "decision_function"
    raise ValueError(
        f"{type(estimator).__name__} has neither decision_function nor predict_proba, "
        "so there is no score to calibrate."
    )


def _scores(estimator, X, response, n_classes):
    """Scores as an (n, n_columns) array: one column when binary, one per class otherwise."""
    method, squash = response
    raw = np.asarray(getattr(estimator, method)(X), dtype=np.float64)
    if squash:
        raw = expit(raw)
    if n_classes == 2:
        if raw.ndim == 2:  # predict_proba: the positive class's column
            raw = raw[:, -1]
        return raw.reshape(-1, 1)
    return raw


def _num_samples_or_none(value):
    """The number of rows of an array-like, or None for anything else (a scalar, a dict)."""
    try:
        return num_samples(value)
    except TypeError:
        return None


def _rows_of_params(params, rows, n_rows):
    """The classifier's fit parameters for a subset of the rows: those with one entry per
    row (of ``n_rows``) are cut to ``rows``, the others passed whole."""
    return {
        key: safe_indexing(value, rows) if _num_samples_or_none(value) == n_rows else value
        for key, value in params.items()
    }


class _ConstantMap:
    """Stands in for a calibrator when a column's labels hold a single class.

    It predicts the fraction of positives, or with ``smoothed=True`` Platt's smoothed target
    (S + 1) / (W + 2), which is where a sigmoid fitted to Platt's targets of one class lands
    (scikit-learn's sigmoid does this: never exactly 0 or 1).
    """

    def __init__(self, smoothed=False):
        self.smoothed = smoothed

    def fit(self, scores, y, sample_weight=None):
        w = np.ones_like(y, dtype=float) if sample_weight is None else sample_weight
        total, positives = float(np.sum(w)), float(np.sum(w * y))
        if self.smoothed:
            self.value_ = (positives + 1.0) / (total + 2.0)
        else:
            self.value_ = positives / total if total > 0 else 0.0
        return self

    def predict(self, scores):
        return np.full(np.shape(scores)[0], self.value_)


class _SoftmaxTemperature:
    """One temperature for all classes: softmax(logits / T), fitted jointly (scikit-learn's).

    The logits are the decision values, or log(p + 1e-12) of ``predict_proba``'s columns.
    """

    _EPS = 1e-12

    def __init__(self, probabilities):
        self.probabilities = probabilities

    def _logits(self, scores):
        return np.log(scores + self._EPS) if self.probabilities else scores

    def fit(self, scores, labels, sample_weight=None):
        from calibbook.calibrators.platt import fit_inverse_temperature

        self.beta_ = fit_inverse_temperature(self._logits(scores), labels, sample_weight)
        return self

    def predict_proba(self, scores):
        return softmax(self.beta_ * self._logits(scores), axis=1)


class _CalibratedPair:
    """A fitted classifier and one calibrator per score column."""

    def __init__(self, estimator, method, response, classes):
        self.estimator = estimator
        self.method = method
        self.response = response
        self.classes = classes

    def fit_calibrators(self, scores, y_encoded, sample_weight):
        from calibbook.calibrators.platt import PlattScaling

        n_classes = self.classes.size
        columns = [1] if n_classes == 2 else range(n_classes)
        # the fold's classifier may not have seen every class: map its columns to ours
        seen = getattr(self.estimator, "classes_", self.classes)
        self.column_classes = (
            np.searchsorted(self.classes, seen) if n_classes > 2 else np.array([1])
        )
        self.calibrators = []
        if self.method == "temperature" and n_classes > 2:
            # one temperature on the softmax of the columns the fold's classifier knows;
            # a row whose class it never saw has no logit and carries no information on T
            known = np.isin(y_encoded, self.column_classes)
            labels = np.searchsorted(self.column_classes, y_encoded[known])
            w = None if sample_weight is None else sample_weight[known]
            cal = _SoftmaxTemperature(self.response[0] == "predict_proba")
            self.calibrators.append(cal.fit(scores[known], labels, w))
            return self
        for j, k in enumerate(columns if n_classes == 2 else self.column_classes):
            target = (y_encoded == k).astype(np.float64)
            present = target if sample_weight is None else target[sample_weight > 0]
            cal = _calibrator_for(self.method, probabilities=self.response[0] == "predict_proba")
            if not 0 < present.sum() < present.size:
                cal = _ConstantMap(smoothed=isinstance(cal, PlattScaling))
            self.calibrators.append(cal.fit(scores[:, j], target, sample_weight))
        return self

    def predict_proba(self, X):
        n_classes = self.classes.size
        scores = _scores(self.estimator, X, self.response, n_classes)
        if n_classes == 2:
            p = self.calibrators[0].predict(scores[:, 0])
            return np.column_stack((1.0 - p, p))
        proba = np.zeros((scores.shape[0], n_classes))
        if isinstance(self.calibrators[0], _SoftmaxTemperature):
            proba[:, self.column_classes] = self.calibrators[0].predict_proba(scores)
            return proba
        for j, (k, cal) in enumerate(zip(self.column_classes, self.calibrators, strict=True)):
            proba[:, k] = cal.predict(scores[:, j])
        total = proba.sum(axis=1, keepdims=True)
        # one-vs-rest probabilities need not sum to one: renormalise, uniform if all vanish
        return np.divide(proba, total, out=np.full_like(proba, 1.0 / n_classes), where=total > 0)


class CalibratedClassifier(MetaClassifier):
    """Any classifier with calibrated probabilities, by cross-validation or on a frozen model.

    The semantics of scikit-learn's ``CalibratedClassifierCV``, with any calibbook
    calibrator: the classifier and its calibrator are fitted on disjoint data.
    :doc:`/book/03_platt_scaling` explains why the calibration data must be held
    out, and :doc:`/book/07_probing` uses this class as the baseline of the
    Probing experiments.

    Which calibrator suits your data and classifier: the decision guide,
    :doc:`/book/which_calibrator`.

    Parameters
    ----------
    estimator : classifier, default=None
        The classifier whose scores are calibrated (``decision_function`` if it
        has one, else ``predict_proba``; ``predict_proba`` first when the
        calibrator needs probabilities). None means ``LogisticRegression()``.
        Wrap a fitted classifier in ``sklearn.frozen.FrozenEstimator`` to calibrate
        it as it is on the data passed to ``fit``.
    method : str or calibrator, default="sigmoid"
        A name from :func:`calibbook.registry.calibrator_names`:
        ``"sigmoid"`` (alias ``"platt"``) is :class:`~calibbook.PlattScaling`;
        ``"temperature"`` is :class:`~calibbook.TemperatureScaling` (on the logits of
        ``predict_proba`` when the classifier has no ``decision_function``), and with
        more than two classes one temperature fitted jointly on the softmax of the
        classifier's logits, as scikit-learn does; ``"isotonic"`` is
        :class:`~calibbook.IsotonicCalibration` with linear interpolation (as in
        scikit-learn); ``"histogram"`` is :class:`~calibbook.HistogramBinning`;
        ``"enir"`` and ``"bbq"`` the ensembles (which need probabilities: they get
        ``predict_proba``, or for a classifier without it the sigmoid of
        ``decision_function``, as the ENIR paper does for SVMs); ``"kde"`` and
        ``"dpm"`` the density-ratio calibrators. Any calibbook calibrator instance
        (cloned for each fold and class) is accepted too.
    cv : int, cross-validation generator, iterable or None, default=None
        Folds for fitting classifier and calibrator on disjoint data: None is 5-fold,
        an integer k is k-fold, both stratified. Ignored for a ``FrozenEstimator``. As
        in scikit-learn, an explicit number of folds must not exceed the smallest
        class, and ``LeaveOneOut`` is refused; so is any splitter whose every
        calibration fold lacks a class (each calibrator would be a constant). A fold
        that lacks a class gets a constant for it: the class's frequency in the fold,
        or for ``"sigmoid"`` Platt's smoothed target 1 / (N + 2) (absent) or
        (N + 1) / (N + 2) (alone), as scikit-learn's sigmoid.
    ensemble : bool, default=True
        True: keep one (classifier, calibrator) pair per fold and average their
        probabilities. False: one calibrator fitted on out-of-fold scores and a
        classifier refitted on all the data.
    n_jobs : int, default=None
        Parallel jobs for ``cross_val_predict`` (ensemble=False).

    Attributes
    ----------
    classes_ : ndarray
        Class labels.
    calibrated_classifiers_ : list
        The fitted (classifier, calibrators) pairs; one when ``ensemble=False`` or
        the estimator is frozen.

    Notes
    -----
    Multiclass problems are calibrated one-vs-rest, one calibrator per class,
    and the probabilities are renormalised to sum to one; ``"temperature"`` is
    the exception, with one temperature for all classes.

    Deliberate differences from ``CalibratedClassifierCV`` (scikit-learn 1.9):

    - the default classifier is ``LogisticRegression()``, not ``LinearSVC``: its
      scores are already close to probabilities, a sensible start for a user who
      names none;
    - ``ensemble`` is True or False; scikit-learn's ``"auto"`` is the same as True
      except for a ``FrozenEstimator``, which this class always calibrates as it is;
    - the sigmoid is fitted by Newton's method to full precision (Lin, Lin & Weng),
      scikit-learn's by L-BFGS to gtol 1e-6, so probabilities agree to about 1e-8;
    - a splitter whose every calibration fold lacks a class is refused (scikit-learn
      refuses only ``LeaveOneOut`` and returns constant maps for the others);
    - ``"histogram"``, ``"enir"``, ``"bbq"``, ``"kde"``, ``"dpm"`` and calibrator
      instances are extra.

    See Also
    --------
    calibbook.BaseCalibrator : The contract of the calibrators it accepts.
    calibbook.ProbingClassifier : Probabilities from a classifier learner by the Probing reduction.

    References
    ----------
    Platt (1999) and Zadrozny & Elkan, KDD 2002, for calibration on held-out
    data; Niculescu-Mizil & Caruana, "Predicting good probabilities with
    supervised learning", ICML 2005; scikit-learn's ``CalibratedClassifierCV``
    (Pedregosa et al., JMLR 12, 2011).

    Examples
    --------
    >>> from calibbook import CalibratedClassifier
    >>> from sklearn.datasets import make_classification
    >>> from sklearn.naive_bayes import GaussianNB
    >>> X, y = make_classification(random_state=0)
    >>> clf = CalibratedClassifier(GaussianNB(), method="isotonic", cv=3).fit(X, y)
    >>> clf.predict_proba(X[:2]).shape
    (2, 2)
    """

    _parameter_constraints = {
        "estimator": [None, "estimator"],
        "method": [RegisteredName(), "calibrator"],
        "cv": [None, Interval(Integral, 2, None), "splitter"],
        "ensemble": ["boolean"],
        "n_jobs": [None, Interval(Integral, None, None)],
    }

    def __init__(self, estimator=None, *, method="sigmoid", cv=None, ensemble=True, n_jobs=None):
        self.estimator = estimator
        self.method = method
        self.cv = cv
        self.ensemble = ensemble
        self.n_jobs = n_jobs

    def fit(self, X, y, sample_weight=None, **fit_params):
        """Fit classifier(s) and calibrator(s).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), optional
            Passed to the calibrators, and to the classifier when its ``fit``
            accepts it (with a warning when it does not: the classifier is then
            fitted unweighted). With scikit-learn's metadata routing enabled, the
            classifier gets it only if it requests it (``set_fit_request``).
        **fit_params : dict
            Passed to the classifier's ``fit``, the rows of each fold for an
            array-like of one entry per sample. With metadata routing enabled, they
            go where they are requested: to the classifier's ``fit`` or to the
            splitter (``groups`` for a group splitter).

        Returns
        -------
        self : CalibratedClassifier

        Raises
        ------
        ValueError
            If the data are empty, ``y`` holds a single class, a class has fewer
            samples than an explicit number of folds, ``cv`` is ``LeaveOneOut`` or
            leaves a class out of every calibration fold, ``method`` or ``ensemble``
            is invalid, or the classifier has neither ``decision_function`` nor
            ``predict_proba``.
        """
        validate_parameters(self)
        calibrator = _calibrator_for(self.method)
        X, y, y_enc = self._start_fit(X, y)
        if sample_weight is not None:
            sample_weight = check_sample_weight_like(sample_weight, X)
        estimator = self._estimator()
        response = _response_method(estimator, calibrator)
        estimator_params, split_params = self._routed_params(estimator, sample_weight, fit_params)
        if isinstance(estimator, FrozenEstimator):
            pair = _CalibratedPair(estimator, self.method, response, self.classes_)
            scores = _scores(estimator, X, response, self.classes_.size)
            self.calibrated_classifiers_ = [pair.fit_calibrators(scores, y_enc, sample_weight)]
        else:
            n_folds = (
                self.cv if isinstance(self.cv, Integral) else getattr(self.cv, "n_splits", None)
            )
            if n_folds and np.bincount(y_enc).min() < n_folds:
                raise ValueError(
                    f"Requesting {n_folds}-fold cross-validation but some class has fewer than "
                    f"{n_folds} examples."
                )
            if isinstance(self.cv, LeaveOneOut):
                raise ValueError(
                    "LeaveOneOut cross-validation leaves one row to calibrate on, so no "
                    "calibration fold holds both classes. Use a splitter whose test folds hold "
                    "every class, such as StratifiedKFold."
                )
            cv = check_cv(self.cv, y_enc, classifier=True)
            fit_folds = self._fit_ensemble if self.ensemble else self._fit_cross_predicted
            self.calibrated_classifiers_ = fit_folds(
                estimator, response, cv, X, y, y_enc, sample_weight, estimator_params, split_params
            )
        self._copy_feature_attributes(
            [pair.estimator for pair in self.calibrated_classifiers_[:1]], X
        )
        return self

    def _routed_params(self, estimator, sample_weight, fit_params):
        """The parameters of the classifier's ``fit`` and of the splitter's ``split``."""
        if get_config()["enable_metadata_routing"]:
            routed = process_routing(self, "fit", sample_weight=sample_weight, **fit_params)
            return routed.estimator.fit, routed.splitter.split
        estimator_params = dict(fit_params)
        if sample_weight is not None and has_fit_parameter(estimator, "sample_weight"):
            estimator_params["sample_weight"] = sample_weight
        elif sample_weight is not None:
            warnings.warn(
                f"{type(estimator).__name__}.fit does not accept sample_weight, so the weights "
                "reach only the calibrators and the classifier is fitted unweighted.",
                UserWarning,
                stacklevel=3,  # the caller of fit
            )
        return estimator_params, {}

    def _fit_ensemble(
        self, estimator, response, cv, X, y, y_enc, sample_weight, estimator_params, split_params
    ):
        """A classifier fitted on each training fold, and its calibrators on the fold's rest."""
        n_classes = self.classes_.size
        n_rows = num_samples(X)
        splits = list(cv.split(X, y_enc, **split_params))
        if all(np.unique(y_enc[test]).size < n_classes for _, test in splits):
            raise ValueError(
                f"Every calibration (test) fold of cv={self.cv!r} lacks a class, so every "
                "calibrator would be a constant. Use a splitter whose test folds hold "
                "every class, such as StratifiedKFold."
            )
        pairs = []
        for train, test in splits:
            est = clone(estimator).fit(
                safe_indexing(X, train),
                safe_indexing(y, train),
                **_rows_of_params(estimator_params, train, n_rows),
            )
            pair = _CalibratedPair(est, self.method, response, self.classes_)
            scores = _scores(est, safe_indexing(X, test), response, n_classes)
            w = None if sample_weight is None else sample_weight[test]
            pairs.append(pair.fit_calibrators(scores, y_enc[test], w))
        return pairs

    def _fit_cross_predicted(
        self, estimator, response, cv, X, y, y_enc, sample_weight, estimator_params, split_params
    ):
        """One classifier fitted on all the rows, its calibrators on the scores each row gets
        from a classifier fitted without its fold (``cross_val_predict``)."""
        raw = cross_val_predict(
            clone(estimator),
            X,
            y,
            cv=cv,
            method=response[0],
            n_jobs=self.n_jobs,
            params={**estimator_params, **split_params},
        )
        raw = expit(raw) if response[1] else raw
        binary = self.classes_.size == 2
        scores = raw[:, -1:] if binary and raw.ndim == 2 else raw.reshape(len(y_enc), -1)
        est = clone(estimator).fit(X, y, **estimator_params)
        pair = _CalibratedPair(est, self.method, response, self.classes_)
        return [pair.fit_calibrators(scores, y_enc, sample_weight)]

    def _predict_proba(self, X):
        proba = sum(pair.predict_proba(X) for pair in self.calibrated_classifiers_)
        return proba / len(self.calibrated_classifiers_)

    def get_metadata_routing(self):
        """Where ``fit`` routes metadata when scikit-learn's metadata routing is enabled.

        As in ``CalibratedClassifierCV``: the classifier's ``fit`` and the splitter's
        ``split`` each receive what they request.

        Returns
        -------
        sklearn.utils.metadata_routing.MetadataRouter
        """
        return (
            MetadataRouter(owner=self)
            .add_self_request(self)
            .add(
                estimator=self._estimator(),
                method_mapping=MethodMapping().add(caller="fit", callee="fit"),
            )
            .add(splitter=self.cv, method_mapping=MethodMapping().add(caller="fit", callee="split"))
        )
