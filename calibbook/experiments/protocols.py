"""The comparison protocols: which classifiers and calibrators, fitted on which split.

:func:`repeated_cv_protocol` is the ENIR paper's protocol (repeated stratified k-fold, the
base classifier *and* every calibrator fitted on the training folds, evaluated on the test
fold); :func:`holdout_calibration_protocol` is Niculescu-Mizil & Caruana's (the calibrators
see a separate calibration split that the base classifier never saw). Both return a tidy
:class:`pandas.DataFrame` with columns ``dataset, classifier, method, repeat, fold,
measure, value`` and cache their results on disk (see :func:`repeated_cv_protocol`'s
``cache_dir``). The calibrators they compare come from ``calibbook.registry``
(:func:`paper_calibrators`, :func:`all_calibrators` and their variants); the base
classifiers from :func:`base_classifiers`.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import numpy as np

from calibbook._utils.optional import require
from calibbook._utils.params import Choices, Integral, Interval, validate_params
from calibbook.experiments import FIT_TIME, MEASURES, _cache
from calibbook.registry import calibrator_entry, registered

__all__ = [
    "all_calibrators",
    "base_classifiers",
    "classifier_scores",
    "holdout_calibration_protocol",
    "paper_calibrators",
    "recommended_calibrators",
    "repeated_cv_protocol",
    "variant_calibrators",
]

# columns of the protocols' tidy results, in order
_COLUMNS = ["dataset", "classifier", "method", "repeat", "fold", "measure", "value"]


# ---------------------------------------------------------------------------
# building blocks
# ---------------------------------------------------------------------------
#: The base classifiers' short names, in the order their docstring describes them.
BASE_CLASSIFIERS = ("LR", "SVM", "NB", "Tree", "Boost", "RF", "MLP")


@validate_params(
    {
        "names": [Choices(*BASE_CLASSIFIERS)],
        # scikit-learn's estimators take a seed or a RandomState, not a Generator
        "random_state": [None, Interval(Integral, 0, None), np.random.RandomState],
    }
)
def base_classifiers(names=("LR", "SVM", "NB"), random_state=0):
    """The base classifiers by short name.

    Parameters
    ----------
    names : str or list or tuple of str
        Any of ``"LR"`` (standardised logistic regression), ``"SVM"`` (standardised
        linear SVM; its scores are the sigmoid of the decision values, as in the
        ENIR paper), ``"NB"`` (Gaussian naive Bayes), ``"Tree"`` (a decision tree
        with at least 5 samples per leaf), ``"Boost"`` (histogram gradient
        boosting), ``"RF"`` (a random forest of 100 trees) and ``"MLP"`` (a
        standardised multilayer perceptron, one hidden layer of 100 units).
    random_state : int
        Seed of the randomised classifiers.

    Returns
    -------
    dict
        name -> unfitted scikit-learn classifier.

    Raises
    ------
    ValueError
        If a name is not one of the seven above.

    References
    ----------
    Naeini & Cooper, "Binary classifier calibration using an ensemble of near
    isotonic regression models", ICDM 2016, Section IV-C (LR, SVM and NB are its
    base classifiers); :doc:`/book/08_comparison` uses it for every comparison.

    Examples
    --------
    >>> from calibbook.experiments import base_classifiers
    >>> sorted(base_classifiers(["NB", "Tree"]))
    ['NB', 'Tree']
    """
    from sklearn.ensemble import HistGradientBoostingClassifier, RandomForestClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.naive_bayes import GaussianNB
    from sklearn.neural_network import MLPClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import LinearSVC
    from sklearn.tree import DecisionTreeClassifier

    factories = {
        "LR": lambda: make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000)),
        "SVM": lambda: make_pipeline(
            StandardScaler(), LinearSVC(max_iter=5000, random_state=random_state)
        ),
        "NB": lambda: GaussianNB(),
        "Tree": lambda: DecisionTreeClassifier(min_samples_leaf=5, random_state=random_state),
        "Boost": lambda: HistGradientBoostingClassifier(max_iter=100, random_state=random_state),
        "RF": lambda: RandomForestClassifier(n_estimators=100, random_state=random_state),
        # early stopping holds out 10% of the training rows and ends the (otherwise
        # 200-epoch) fit when the validation score stalls: no convergence warnings
        "MLP": lambda: make_pipeline(
            StandardScaler(),
            MLPClassifier(early_stopping=True, max_iter=500, random_state=random_state),
        ),
    }
    names = (names,) if isinstance(names, str) else names
    return {name: factories[name]() for name in names}


# The paper's three in the column order of its Tables IV--VI, then the book's other methods
# in the order its chapters introduce them. Labels and classes come from the registry; a
# calibrator registered later (and compared) joins the comparison after these.
_PAPER = ("isotonic", "bbq", "enir")
_TABLE_ORDER = (
    *_PAPER,
    *("histogram", "sigmoid", "kde", "dpm"),
    *("beta", "quadratic", "spline", "centered_isotonic", "scaling_binning", "venn_abers"),
)

# (registered name, suffix of the label, parameters) of the variants the comparison runs
_VARIANTS = (
    ("sigmoid", "logit", {"logit_input": True}),
    ("kde", "logit", {"logit_input": True}),
    ("dpm", "logit", {"logit_input": True}),
    ("bbq", "elbow", {"prune": "elbow"}),
    ("enir", "elbow", {"prune": "elbow"}),
    ("temperature", "logit", {"logit_input": True}),
    ("quadratic", "logit", {"logit_input": True}),
    ("scaling_binning", "logit", {"logit_input": True}),
)


def _table_entries():
    """The registry's compared calibrators, in ``_TABLE_ORDER`` (others after them)."""
    position = {name: i for i, name in enumerate(_TABLE_ORDER)}
    compared = [entry for entry in registered() if entry.compared]
    return sorted(compared, key=lambda entry: position.get(entry.name, len(position)))


def paper_calibrators():
    """The three calibrators of Tables IV--VI: ``IsoRegC``, ``BBQ`` and ``ENIR``.

    Returns
    -------
    dict
        label -> unfitted calibrator with default parameters: isotonic regression
        (:class:`~calibbook.IsotonicCalibration`), :class:`~calibbook.BBQ` and
        :class:`~calibbook.ENIR`, under their labels in ``calibbook.registry``.

    References
    ----------
    Naeini & Cooper, "Binary classifier calibration using an ensemble of near
    isotonic regression models", ICDM 2016, Section IV-C.
    :doc:`/book/08_comparison` uses it for Tables IV--VI.

    Examples
    --------
    >>> from calibbook.experiments import paper_calibrators
    >>> list(paper_calibrators())
    ['IsoRegC', 'BBQ', 'ENIR']
    """
    entries = [calibrator_entry(name) for name in _PAPER]
    return {entry.label: entry.make() for entry in entries}


def all_calibrators():
    """Every compared calibrator with its default parameters (the paper's three first).

    The calibrators are those of ``calibbook.registry`` marked ``compared`` (all but
    temperature scaling, which the ENIR paper predates), under their registry labels.

    Returns
    -------
    dict
        label -> unfitted calibrator: the three of :func:`paper_calibrators`, then
        ``Hist`` (:class:`~calibbook.HistogramBinning`), ``Platt``
        (:class:`~calibbook.PlattScaling`), ``KDE`` (:class:`~calibbook.KDECalibration`)
        and ``DPM`` (:class:`~calibbook.DPMCalibration`), in the order the chapters
        introduce them; then the calibrators of :doc:`/book/10_parametric_maps` and
        :doc:`/book/11_ties_and_guarantees`: ``Beta``, ``Quad``, ``Spline``, ``CIR``
        (centred isotonic), ``ScBin`` (scaling-binning) and ``VA`` (Venn--ABERS).

    References
    ----------
    Naeini & Cooper, "Binary classifier calibration using an ensemble of near
    isotonic regression models", ICDM 2016, Section IV-C (the first three);
    :doc:`/book/08_comparison` uses it to rank all of them.

    Examples
    --------
    >>> from calibbook.experiments import all_calibrators
    >>> list(all_calibrators())  # doctest: +NORMALIZE_WHITESPACE
    ['IsoRegC', 'BBQ', 'ENIR', 'Hist', 'Platt', 'KDE', 'DPM', 'Beta', 'Quad',
     'Spline', 'CIR',
     'ScBin', 'VA']
    """
    return {entry.label: entry.make() for entry in _table_entries()}


def variant_calibrators():
    """Variants of calibbook's calibrators that the comparison runs beside the defaults.

    Returns
    -------
    dict
        name -> unfitted calibrator, named by the registry label and the variant:

        * ``Platt-logit``, ``KDE-logit``, ``DPM-logit``: Platt scaling, KDE and DPM on
          the logit of the classifier's probability, the input scale that
          :doc:`/book/03_platt_scaling` and :doc:`/book/06_density_calibration`
          recommend for probabilities (for an SVM, whose scores are
          sigmoid(f), the logit recovers the decision value f);
        * ``BBQ-elbow``, ``ENIR-elbow``: BBQ and ENIR with the elbow pruning of the
          authors' reference code (``prune="elbow"``), the variant the papers ran;
        * ``Temp-logit``, ``Quad-logit``, ``ScBin-logit``: temperature scaling,
          quadratic scaling and scaling-binning on the logit of the probability, the
          input :doc:`/book/10_parametric_maps` derives them on.

    References
    ----------
    Naeini & Cooper, ICDM 2016 and their code, github.com/pakdaman/calibration;
    :doc:`/book/08_comparison` ranks them with the defaults.

    Examples
    --------
    >>> from calibbook.experiments import variant_calibrators
    >>> list(variant_calibrators())  # doctest: +NORMALIZE_WHITESPACE
    ['Platt-logit', 'KDE-logit', 'DPM-logit', 'BBQ-elbow', 'ENIR-elbow', 'Temp-logit',
     'Quad-logit', 'ScBin-logit']
    """
    out = {}
    for name, suffix, params in _VARIANTS:
        entry = calibrator_entry(name)
        out[f"{entry.label}-{suffix}"] = entry.make(**params)
    return out


def recommended_calibrators():
    """One calibrator per method, each run the way the book recommends for probabilities.

    :doc:`/book/03_platt_scaling` and :doc:`/book/06_density_calibration` say why on
    logit inputs; :doc:`/book/08_comparison` and :doc:`/book/which_calibrator` rank
    them.

    Returns
    -------
    dict
        name -> unfitted calibrator: each of :func:`all_calibrators`, replaced by its
        ``-logit`` variant of :func:`variant_calibrators` where it has one. So
        ``IsoRegC``, ``BBQ``, ``ENIR``, ``Hist``, ``Beta``, ``Spline``, ``CIR`` and ``VA``
        with their defaults, and ``Platt-logit``, ``KDE-logit``, ``DPM-logit``,
        ``Quad-logit`` and ``ScBin-logit`` on the logit of the probability.

    Examples
    --------
    >>> from calibbook.experiments import recommended_calibrators
    >>> list(recommended_calibrators())  # doctest: +NORMALIZE_WHITESPACE
    ['IsoRegC', 'BBQ', 'ENIR', 'Hist', 'Platt-logit', 'KDE-logit', 'DPM-logit', 'Beta',
     'Quad-logit', 'Spline', 'CIR', 'ScBin-logit', 'VA']
    """
    variants = variant_calibrators()
    out = {}
    for label, calibrator in all_calibrators().items():
        logit = f"{label}-logit"
        if logit in variants:
            out[logit] = variants[logit]
        else:
            out[label] = calibrator
    return out


def classifier_scores(estimator, X):
    """Scores in [0, 1] of a fitted classifier for the positive class.

    ``predict_proba[:, 1]`` when the classifier has it, otherwise the logistic
    sigmoid of ``decision_function`` (so ENIR, BBQ and equal-width histogram
    binning, which need probabilities, can be applied to an SVM).

    Parameters
    ----------
    estimator : fitted scikit-learn binary classifier
        With ``predict_proba`` or ``decision_function``.
    X : array-like of shape (n_samples, n_features)

    Returns
    -------
    ndarray of float64, shape (n_samples,)

    References
    ----------
    Naeini & Cooper, "Binary classifier calibration using an ensemble of near
    isotonic regression models", ICDM 2016, Section IV-C (the SVM's decision values go
    through a sigmoid); :doc:`/book/08_comparison` uses it for every base classifier.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.svm import LinearSVC
    >>> from calibbook.experiments import classifier_scores
    >>> X = np.array([[-2.0], [-1.0], [1.0], [2.0]]); y = np.array([0, 0, 1, 1])
    >>> s = classifier_scores(LinearSVC().fit(X, y), X)
    >>> bool(np.all((s > 0) & (s < 1)) and np.all(np.diff(s) > 0))
    True
    """
    if hasattr(estimator, "predict_proba"):
        return np.asarray(estimator.predict_proba(X))[:, 1].astype(np.float64)
    from calibbook._utils.maths import expit  # imports scipy: on first use only

    return expit(np.asarray(estimator.decision_function(X), dtype=np.float64))


def _as_datasets(datasets):
    """Normalise the ``datasets`` argument to a list of (name, loader)."""
    from calibbook.datasets import load_benchmark

    if isinstance(datasets, tuple) and len(datasets) == 2 and not isinstance(datasets[0], str):
        datasets = {"data": datasets}
    if isinstance(datasets, str):
        datasets = [datasets]
    if isinstance(datasets, dict):
        return [(str(k), (lambda v=v: v)) for k, v in datasets.items()]
    return [(str(n), (lambda n=n: load_benchmark(n))) for n in datasets]


def _as_classifiers(classifiers, random_state):
    """Normalise the ``classifiers`` argument to a dict name -> unfitted classifier."""
    if isinstance(classifiers, str):
        classifiers = [classifiers]
    if isinstance(classifiers, dict):
        return dict(classifiers)
    return base_classifiers(tuple(classifiers), random_state=random_state)


# ---------------------------------------------------------------------------
# protocols
# ---------------------------------------------------------------------------
def _debiased_bins(n_bins, n_rows):
    """Equal-mass bins of the ``dCE2`` measure on a test fold of ``n_rows`` rows.

    As many as the ECE's ``n_bins``, but at most half the rows: a bin must hold more
    than one row to estimate the variance of its label mean, and with at most
    ``n_rows // 2`` bins some bin always does (the debiased error refuses data where
    none does). Within one fold every method gets the same bins, so the cap never
    favours one over another; it only binds on test folds of fewer than ``2 * n_bins``
    rows (the smallest data sets of the full run).
    """
    return max(1, min(int(n_bins), int(n_rows) // 2))


def _evaluate_split(X, y, train, test, clf, calibrators, calib_size, seed, n_bins, include_raw):
    """Fit classifier + calibrators on one split; return [(method, measure, value)]."""
    from sklearn.base import clone
    from sklearn.model_selection import train_test_split

    from calibbook.metrics import (
        calibration_report,
        debiased_calibration_error,
        expected_calibration_error,
        maximum_calibration_error,
        smooth_ece,
    )

    if calib_size is None:
        fit_idx = cal_idx = train
    else:
        fit_idx, cal_idx = train_test_split(
            train, test_size=calib_size, stratify=y[train], random_state=seed
        )
    model = clone(clf).fit(X[fit_idx], y[fit_idx])
    s_cal = classifier_scores(model, X[cal_idx])
    s_test = classifier_scores(model, X[test])
    preds, times = {}, {}
    if include_raw:
        preds["raw"] = s_test
    for name, cal in calibrators.items():
        c = clone(cal)
        t0 = time.perf_counter()
        c.fit(s_cal, y[cal_idx])
        times[name] = time.perf_counter() - t0
        preds[name] = c.predict(s_test)
    report = calibration_report(y[test], preds, n_bins=n_bins)
    positional = {"n_bins": n_bins, "strategy": "positional"}
    debiased = {"n_bins": _debiased_bins(n_bins, len(test)), "strategy": "quantile"}
    for m, p in preds.items():
        report.loc[m, "ECE_pos"] = expected_calibration_error(y[test], p, **positional)
        report.loc[m, "MCE_pos"] = maximum_calibration_error(y[test], p, **positional)
        report.loc[m, "smECE"] = smooth_ece(y[test], p)
        # signed and squared: the mean over folds stays unbiased (a root would not)
        report.loc[m, "dCE2"] = debiased_calibration_error(y[test], p, **debiased)
    rows = [(m, meas, float(report.loc[m, meas])) for m in report.index for meas in MEASURES]
    rows += [(m, FIT_TIME, t) for m, t in times.items()]
    return rows


def _tqdm():
    """tqdm's progress bar class: a widget in notebooks, text elsewhere."""
    import warnings

    with warnings.catch_warnings():  # tqdm.auto warns when ipywidgets is missing
        warnings.simplefilter("ignore")
        return require("tqdm.auto", "experiments").tqdm


def _cross_validate(
    X,
    y,
    ds_name,
    clf_name,
    clf,
    calibrators,
    bar,
    *,
    n_splits,
    n_repeats,
    calib_size,
    random_state,
    n_bins,
    include_raw,
):
    """The long-format results (``_COLUMNS``) of one classifier on one data set, a row per
    fold, calibrator and measure; ``bar`` advances by one fold at a time."""
    pd = require("pandas", "experiments")
    from sklearn.model_selection import RepeatedStratifiedKFold

    cv = RepeatedStratifiedKFold(n_splits=n_splits, n_repeats=n_repeats, random_state=random_state)
    rows = []
    for i, (train, test) in enumerate(cv.split(X, y)):
        repeat, fold = divmod(i, n_splits)
        bar.set_postfix_str(f"{ds_name}/{clf_name}", refresh=False)
        scored = _evaluate_split(
            X,
            y,
            train,
            test,
            clf,
            calibrators,
            calib_size,
            random_state + i,
            n_bins,
            include_raw,
        )
        rows += [(ds_name, clf_name, m, repeat, fold, meas, v) for m, meas, v in scored]
        bar.update(1)
    return pd.DataFrame(rows, columns=_COLUMNS)


def _write_cache(frame, path):
    """Write ``frame`` to the cache file ``path`` (whole or not at all: through a temporary
    file), and return it as read back, so that a cold run gives the numbers a warm one will."""
    pd = require("pandas", "experiments")
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".tmp{os.getpid()}")
    frame.to_csv(tmp, index=False, float_format="%.17g")
    os.replace(tmp, path)
    return pd.read_csv(path)


def _run_protocol(
    protocol,
    datasets,
    classifiers,
    calibrators,
    *,
    n_splits,
    n_repeats,
    calib_size,
    random_state,
    n_bins,
    include_raw,
    cache_dir,
    use_cache,
    disable,
):
    pd = require("pandas", "experiments")
    tqdm = _tqdm()
    if calibrators is None:
        calibrators = paper_calibrators()
    calibrators = dict(calibrators)
    clfs = _as_classifiers(classifiers, random_state)
    data = _as_datasets(datasets)
    cache_dir = Path(cache_dir) if cache_dir is not None else _cache.default_cache_dir()
    settings = {
        "n_splits": n_splits,
        "n_repeats": n_repeats,
        "calib_size": calib_size,
        "random_state": random_state,
        "n_bins": n_bins,
        "include_raw": include_raw,
    }
    # what else a cached result depends on; calibbook's own code is hashed once per process
    common = {
        "version": 1,
        "protocol": protocol,
        "calibrators": {k: _cache.estimator_key(v) for k, v in calibrators.items()},
        **settings,
        "software": _cache.software_versions(),
        "source": _cache.source_hash(),
    }
    frames = []
    total = len(data) * len(clfs) * n_splits * n_repeats
    with tqdm(total=total, desc=protocol, unit="fold", disable=disable) as bar:
        for ds_name, loader in data:
            X, y = loader()
            X = np.asarray(X, dtype=np.float64)
            y = np.asarray(y).astype(np.int64)
            digest = _cache.data_digest(X, y)
            for clf_name, clf in clfs.items():
                config = {
                    **common,
                    "dataset": ds_name,
                    "data": digest,
                    "classifier": clf_name,
                    "classifier_params": _cache.estimator_key(clf),
                }
                path = _cache.cache_path(cache_dir, config)
                if use_cache and path.exists():
                    frames.append(pd.read_csv(path))
                    bar.update(n_splits * n_repeats)
                    continue
                frame = _cross_validate(X, y, ds_name, clf_name, clf, calibrators, bar, **settings)
                frames.append(_write_cache(frame, path) if use_cache else frame)
    out = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=_COLUMNS)
    return out[_COLUMNS]


def repeated_cv_protocol(
    datasets,
    classifiers=("LR", "SVM", "NB"),
    calibrators=None,
    *,
    n_splits=10,
    n_repeats=10,
    random_state=0,
    n_bins=10,
    include_raw=True,
    cache_dir=None,
    use_cache=True,
    disable=False,
):
    """Repeated stratified k-fold, calibrating on the training folds (ENIR paper, Sec. IV-C).

    For every data set, base classifier, repeat and fold: the classifier is
    fitted on the training folds, each calibrator is fitted on the classifier's
    scores *of those same training folds*, and everything is evaluated on the
    test fold.

    Parameters
    ----------
    datasets : str, list of str, dict name -> (X, y), or a tuple (X, y)
        Benchmark names (see :func:`calibbook.datasets.benchmark_names`) or data.
    classifiers : list of str or dict name -> estimator
        Short names for :func:`base_classifiers`, or unfitted classifiers.
    calibrators : dict name -> calibrator, optional
        Unfitted calibbook calibrators (cloned for every fold). Defaults to
        :func:`paper_calibrators`. The uncalibrated classifier is added as
        method ``"raw"`` when ``include_raw``.
    n_splits, n_repeats : int
        k and the number of repetitions (the paper: 10 and 10).
    random_state : int
        Seed of the fold assignment and of the randomised classifiers.
    n_bins : int
        Bins of ECE and MCE (equal-width) and of ``ECE_pos`` and ``MCE_pos``
        (positional groups); the debiased error ``dCE2`` takes as many equal-mass
        bins, at most half the test fold's rows.
    cache_dir : path-like, optional
        Where results are cached: one CSV per data set and classifier, named by a
        hash of the configuration (data, every setting, the versions of calibbook,
        NumPy, SciPy, scikit-learn and numba, and a SHA-256 of calibbook's
        ``*.py`` source files, so any change to calibbook's code invalidates the
        cache). Default, resolved at each call: ``$CALIBBOOK_CACHE`` if set, else
        the user's cache directory -- ``$XDG_CACHE_HOME/calibbook/experiments``
        if ``XDG_CACHE_HOME`` is set, else ``~/.cache/calibbook/experiments``
        (Linux), ``~/Library/Caches/calibbook/experiments`` (macOS) or
        ``%LOCALAPPDATA%\\calibbook\\Cache\\experiments`` (Windows); never inside
        the installed package.
    use_cache : bool
        Read and write the cache.
    disable : bool
        Disable the tqdm progress bar.

    Returns
    -------
    pandas.DataFrame
        Tidy: ``dataset, classifier, method, repeat, fold, measure, value``. The
        measures are :data:`MEASURES` plus ``"FitTime"`` (seconds spent in the
        calibrator's ``fit``; not recorded for ``"raw"``). ``dCE2`` is the debiased
        estimate of the *squared* binned error, negative on some folds: average it
        over folds as it is (the mean stays unbiased) and take a root, if at all,
        only of the mean.

    Raises
    ------
    ValueError
        If a base classifier or benchmark name is unknown.

    References
    ----------
    Naeini & Cooper, "Binary classifier calibration using an ensemble of near
    isotonic regression models", ICDM 2016, Section IV-C.
    :doc:`/book/08_comparison` runs it on 40 data sets and discusses its bias.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from calibbook import PlattScaling
    >>> from calibbook.experiments import repeated_cv_protocol
    >>> data = {"toy": make_classification(200, random_state=0)}
    >>> res = repeated_cv_protocol(data, ["LR"], {"Platt": PlattScaling()}, n_splits=2,
    ...                            n_repeats=1, use_cache=False, disable=True)
    >>> list(res.columns)
    ['dataset', 'classifier', 'method', 'repeat', 'fold', 'measure', 'value']
    >>> sorted(res.method.unique()), int(res.fold.nunique())
    (['Platt', 'raw'], 2)
    """
    return _run_protocol(
        "repeated_cv",
        datasets,
        classifiers,
        calibrators,
        n_splits=n_splits,
        n_repeats=n_repeats,
        calib_size=None,
        random_state=random_state,
        n_bins=n_bins,
        include_raw=include_raw,
        cache_dir=cache_dir,
        use_cache=use_cache,
        disable=disable,
    )


def holdout_calibration_protocol(
    datasets,
    classifiers=("LR", "SVM", "NB"),
    calibrators=None,
    *,
    calib_size=0.3,
    n_splits=10,
    n_repeats=1,
    random_state=0,
    n_bins=10,
    include_raw=True,
    cache_dir=None,
    use_cache=True,
    disable=False,
):
    """Repeated stratified k-fold with a separate calibration split (Niculescu-Mizil & Caruana).

    As :func:`repeated_cv_protocol`, except that the training folds are split
    (stratified) once more: the base classifier is fitted on a fraction
    ``1 - calib_size`` of them and the calibrators on the remaining
    ``calib_size``, so the calibrators see scores of data the classifier never
    fitted -- the same situation as at test time.

    Parameters
    ----------
    calib_size : float in (0, 1) or int
        Size of the calibration split of the training folds.
    datasets, classifiers, calibrators, n_splits, n_repeats, random_state
        As in :func:`repeated_cv_protocol`.
    n_bins, include_raw, cache_dir, use_cache, disable
        As in :func:`repeated_cv_protocol`.

    Returns
    -------
    pandas.DataFrame
        Same tidy layout as :func:`repeated_cv_protocol`.

    Raises
    ------
    ValueError
        If a base classifier or benchmark name is unknown.

    References
    ----------
    Niculescu-Mizil & Caruana, "Predicting good probabilities with supervised
    learning", ICML 2005. :doc:`/book/08_comparison` compares the two protocols.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from calibbook import IsotonicCalibration
    >>> from calibbook.experiments import holdout_calibration_protocol
    >>> data = {"toy": make_classification(300, random_state=0)}
    >>> res = holdout_calibration_protocol(
    ...     data, ["Tree"], {"IsoRegC": IsotonicCalibration()},
    ...     n_splits=2, use_cache=False, disable=True)
    >>> sorted(res.measure.unique())  # doctest: +NORMALIZE_WHITESPACE
    ['ACC', 'AUC', 'Brier', 'ECE', 'ECE_pos', 'FitTime', 'LogLoss', 'MCE',
     'MCE_pos', 'RMSE',
     'dCE2', 'smECE']
    """
    return _run_protocol(
        "holdout_calibration",
        datasets,
        classifiers,
        calibrators,
        n_splits=n_splits,
        n_repeats=n_repeats,
        calib_size=calib_size,
        random_state=random_state,
        n_bins=n_bins,
        include_raw=include_raw,
        cache_dir=cache_dir,
        use_cache=use_cache,
        disable=disable,
    )
