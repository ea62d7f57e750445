"""Comparison experiments: protocols, Demšar's statistics and the paper's tables.

Three layers, each usable on its own.

* **Protocols** -- :func:`repeated_cv_protocol` (the ENIR paper's: repeated
  stratified k-fold, the base classifier *and* every calibrator fitted on the
  training folds, evaluated on the test fold) and
  :func:`holdout_calibration_protocol` (Niculescu-Mizil & Caruana: the
  calibrators see a separate calibration split the base classifier never saw).
  Both return a tidy :class:`pandas.DataFrame` with columns
  ``dataset, classifier, method, repeat, fold, measure, value`` and cache
  their results on disk, one CSV file per (data set, classifier), keyed by a
  hash of everything that determines the numbers (including calibbook's own
  source code); the cache lives in the user's cache directory (see
  :func:`repeated_cv_protocol`'s ``cache_dir``), never inside the package.
* **Statistics** (Demšar, JMLR 2006) -- :func:`average_ranks`,
  :func:`friedman_test` (Friedman chi-square and Iman--Davenport F),
  :func:`holm_test` (step-down comparisons with a control) and
  :func:`nemenyi_critical_difference`.
* **Tables** -- :func:`rank_table` (Tables IV--VI of Naeini & Cooper, ICDM 2016,
  with significance marks), :func:`improvement_ci` (their Table II) and
  :func:`fit_time_table` (measured counterpart of their Table VII).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

__all__ = [
    "MEASURES",
    "HIGHER_IS_BETTER",
    "base_classifiers",
    "paper_calibrators",
    "all_calibrators",
    "variant_calibrators",
    "recommended_calibrators",
    "classifier_scores",
    "repeated_cv_protocol",
    "holdout_calibration_protocol",
    "dataset_means",
    "average_ranks",
    "FriedmanResult",
    "friedman_test",
    "holm_test",
    "nemenyi_critical_difference",
    "rank_table",
    "format_rank_table",
    "improvement_ci",
    "fit_time_table",
    "fold_summary",
]

#: Measures computed on every test fold. The first seven are those of
#: :func:`calibbook.metrics.calibration_report` (ECE and MCE with equal-width bins); ``ECE_pos``
#: and ``MCE_pos`` use the positional groups of the authors' evaluation code.
MEASURES = ("AUC", "ACC", "RMSE", "ECE", "MCE", "Brier", "LogLoss", "ECE_pos", "MCE_pos")
#: Measures for which a larger value is better; all the others are errors.
HIGHER_IS_BETTER = frozenset({"AUC", "ACC"})
#: Extra measure: seconds spent in the calibrator's ``fit`` (not a quality measure).
FIT_TIME = "FitTime"

_COLUMNS = ["dataset", "classifier", "method", "repeat", "fold", "measure", "value"]
_PACKAGE_ROOT = Path(__file__).resolve().parent


# ---------------------------------------------------------------------------
# building blocks
# ---------------------------------------------------------------------------
def base_classifiers(names=("LR", "SVM", "NB"), random_state=0):
    """The base classifiers by short name.

    Parameters
    ----------
    names : iterable of str
        Any of ``"LR"`` (standardised logistic regression), ``"SVM"`` (standardised
        linear SVM; its scores are the sigmoid of the decision values, as in the
        ENIR paper), ``"NB"`` (Gaussian naive Bayes), ``"Tree"`` (a decision tree
        with at least 5 samples per leaf) and ``"Boost"`` (histogram gradient
        boosting).
    random_state : int
        Seed of the randomised classifiers.

    Returns
    -------
    dict
        name -> unfitted scikit-learn classifier.

    Raises
    ------
    ValueError
        If a name is not one of the five above.

    References
    ----------
    Naeini & Cooper, "Binary classifier calibration using an ensemble of near
    isotonic regression models", ICDM 2016, Section IV-C. (LR, SVM and NB are its base classifiers);
    :doc:`/book/08_comparison` uses it for every comparison.

    Examples
    --------
    >>> from calibbook.experiments import base_classifiers
    >>> sorted(base_classifiers(["NB", "Tree"]))
    ['NB', 'Tree']
    """
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.naive_bayes import GaussianNB
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import LinearSVC
    from sklearn.tree import DecisionTreeClassifier

    factories = {
        "LR": lambda: make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000)),
        "SVM": lambda: make_pipeline(StandardScaler(), LinearSVC(max_iter=5000, random_state=random_state)),
        "NB": lambda: GaussianNB(),
        "Tree": lambda: DecisionTreeClassifier(min_samples_leaf=5, random_state=random_state),
        "Boost": lambda: HistGradientBoostingClassifier(max_iter=100, random_state=random_state),
    }
    out = {}
    for name in names:
        if name not in factories:
            raise ValueError(f"unknown base classifier {name!r}; choose from {sorted(factories)}")
        out[name] = factories[name]()
    return out


def paper_calibrators():
    """The three calibrators of Tables IV--VI: ``IsoRegC``, ``BBQ`` and ``ENIR``.

    Returns
    -------
    dict
        name -> unfitted calibrator with default parameters: isotonic regression
        (:class:`~calibbook.IsotonicCalibration`), :class:`~calibbook.BBQ` and
        :class:`~calibbook.ENIR`.

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
    from .bbq import BBQ
    from .enir import ENIR
    from .isotonic import IsotonicCalibration

    return {"IsoRegC": IsotonicCalibration(), "BBQ": BBQ(), "ENIR": ENIR()}


def all_calibrators():
    """Every calibbook calibrator with its default parameters (paper's three first).

    Returns
    -------
    dict
        name -> unfitted calibrator: the three of :func:`paper_calibrators`, then
        ``Hist`` (:class:`~calibbook.HistogramBinning`), ``Platt``
        (:class:`~calibbook.PlattScaling`), ``KDE`` (:class:`~calibbook.KDECalibration`)
        and ``DPM`` (:class:`~calibbook.DPMCalibration`).

    References
    ----------
    Naeini & Cooper, "Binary classifier calibration using an ensemble of near
    isotonic regression models", ICDM 2016, Section IV-C. (the first three);
    :doc:`/book/08_comparison` uses it to rank all seven.

    Examples
    --------
    >>> from calibbook.experiments import all_calibrators
    >>> list(all_calibrators())
    ['IsoRegC', 'BBQ', 'ENIR', 'Hist', 'Platt', 'KDE', 'DPM']
    """
    from .dpm import DPMCalibration
    from .histogram_binning import HistogramBinning
    from .kde import KDECalibration
    from .platt import PlattScaling

    out = paper_calibrators()
    out.update(
        {
            "Hist": HistogramBinning(),
            "Platt": PlattScaling(),
            "KDE": KDECalibration(),
            "DPM": DPMCalibration(),
        }
    )
    return out


def variant_calibrators():
    """Variants of calibbook's calibrators that the comparison runs beside the defaults.

    Returns
    -------
    dict
        name -> unfitted calibrator:

        * ``Platt-logit``, ``KDE-logit``, ``DPM-logit``: Platt scaling, KDE and DPM on
          the logit of the classifier's probability, the input scale that
          :doc:`/book/03_platt_scaling` and :doc:`/book/06_density_calibration`
          recommend for probabilities (for an SVM, whose scores are
          sigmoid(f), the logit recovers the decision value f);
        * ``BBQ-elbow``, ``ENIR-elbow``: BBQ and ENIR with the elbow pruning of the
          authors' reference code (``prune="elbow"``), the variant the papers ran.

    References
    ----------
    Naeini & Cooper, ICDM 2016 and their code, github.com/pakdaman/calibration;
    :doc:`/book/08_comparison` ranks them with the defaults.

    Examples
    --------
    >>> from calibbook.experiments import variant_calibrators
    >>> list(variant_calibrators())
    ['Platt-logit', 'KDE-logit', 'DPM-logit', 'BBQ-elbow', 'ENIR-elbow']
    """
    from .bbq import BBQ
    from .dpm import DPMCalibration
    from .enir import ENIR
    from .kde import KDECalibration
    from .platt import PlattScaling

    return {
        "Platt-logit": PlattScaling(logit_input=True),
        "KDE-logit": KDECalibration(logit_input=True),
        "DPM-logit": DPMCalibration(logit=True),
        "BBQ-elbow": BBQ(prune="elbow"),
        "ENIR-elbow": ENIR(prune="elbow"),
    }


def recommended_calibrators():
    """One calibrator per method, each run the way the book recommends for probabilities.

    Returns
    -------
    dict
        name -> unfitted calibrator: ``IsoRegC``, ``BBQ``, ``ENIR`` and ``Hist`` with
        their defaults, and ``Platt-logit``, ``KDE-logit``, ``DPM-logit`` on the logit
        of the probability (see :func:`variant_calibrators`).

    References
    ----------
    :doc:`/book/03_platt_scaling` and :doc:`/book/06_density_calibration` (why logit
    inputs); :doc:`/book/08_comparison` and :doc:`/book/which_calibrator` rank these seven.

    Examples
    --------
    >>> from calibbook.experiments import recommended_calibrators
    >>> list(recommended_calibrators())
    ['IsoRegC', 'BBQ', 'ENIR', 'Hist', 'Platt-logit', 'KDE-logit', 'DPM-logit']
    """
    out = {k: v for k, v in all_calibrators().items() if k in ("IsoRegC", "BBQ", "ENIR", "Hist")}
    variants = variant_calibrators()
    out.update({k: variants[k] for k in ("Platt-logit", "KDE-logit", "DPM-logit")})
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
    isotonic regression models", ICDM 2016, Section IV-C. (the SVM's decision values go through a sigmoid);
    :doc:`/book/08_comparison` uses it for every base classifier.

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
    d = np.asarray(estimator.decision_function(X), dtype=np.float64)
    return 0.5 * (1.0 + np.tanh(0.5 * d))  # overflow-free sigmoid


def _as_datasets(datasets):
    """Normalise the ``datasets`` argument to a list of (name, loader)."""
    from .datasets import load_benchmark

    if isinstance(datasets, tuple) and len(datasets) == 2 and not isinstance(datasets[0], str):
        datasets = {"data": datasets}
    if isinstance(datasets, str):
        datasets = [datasets]
    if isinstance(datasets, dict):
        return [(str(k), (lambda v=v: v)) for k, v in datasets.items()]
    return [(str(n), (lambda n=n: load_benchmark(n))) for n in datasets]


def _as_classifiers(classifiers, random_state):
    if isinstance(classifiers, str):
        classifiers = [classifiers]
    if isinstance(classifiers, dict):
        return dict(classifiers)
    return base_classifiers(tuple(classifiers), random_state=random_state)


def _data_digest(X, y):
    h = hashlib.sha256()
    for a in (np.ascontiguousarray(X, dtype=np.float64), np.ascontiguousarray(y, dtype=np.float64)):
        h.update(str(a.shape).encode())
        h.update(a.tobytes())
    return h.hexdigest()


def _estimator_key(est):
    from sklearn.base import BaseEstimator

    if isinstance(est, BaseEstimator):
        params = est.get_params(deep=True)
        items = {k: (_estimator_key(v) if isinstance(v, BaseEstimator) else repr(v)) for k, v in sorted(params.items())}
        return [type(est).__module__ + "." + type(est).__qualname__, items]
    return repr(est)


def _software_versions():
    # Part of the cache key: a new scikit-learn or NumPy can move the numbers, and a
    # cache written under the old one must not answer for the new one.
    import numba
    import scipy
    import sklearn

    from . import __version__

    return {"calibbook": __version__, "numpy": np.__version__, "scipy": scipy.__version__,
            "sklearn": sklearn.__version__, "numba": numba.__version__}


@functools.lru_cache(maxsize=None)
def _source_hash(package_root=None):
    """SHA-256 over calibbook's source: every ``*.py`` file below ``package_root``.

    Part of the cache key, so that a change to any calibbook source file (a bug
    fix in a calibrator, a new default) invalidates the cached results even when
    ``__version__`` stays the same. The files are visited in the order of their
    relative POSIX paths; each contributes its relative path and its bytes.
    Computed once per process and root (``functools.lru_cache``).

    Parameters
    ----------
    package_root : path-like, optional
        Root of the package to hash. Default: the installed calibbook package.

    Returns
    -------
    str
        64 hexadecimal digits.

    Examples
    --------
    >>> from calibbook.experiments import _source_hash
    >>> h = _source_hash()
    >>> len(h), h == _source_hash()
    (64, True)
    """
    root = Path(package_root).resolve() if package_root is not None else _PACKAGE_ROOT
    h = hashlib.sha256()
    for rel in sorted(p.relative_to(root).as_posix() for p in root.rglob("*.py")):
        data = (root / rel).read_bytes()
        for part in (rel.encode("utf-8"), data):
            h.update(len(part).to_bytes(8, "little"))  # length-prefixed: no ambiguous concatenations
            h.update(part)
    return h.hexdigest()


def _user_cache_dir(appname="calibbook", platform=None):
    """The per-user cache directory of ``appname`` on this platform, read from the environment now.

    ``$XDG_CACHE_HOME/<appname>`` when ``XDG_CACHE_HOME`` is set to an absolute
    path; otherwise ``~/Library/Caches/<appname>`` on macOS,
    ``%LOCALAPPDATA%\\<appname>\\Cache`` on Windows and ``~/.cache/<appname>``
    elsewhere (the locations of ``platformdirs.user_cache_dir``, without the
    dependency).

    Parameters
    ----------
    appname : str, default="calibbook"
        Name of the application's subdirectory.
    platform : str, optional
        A ``sys.platform`` value (``"linux"``, ``"darwin"``, ``"win32"``, ...).
        Default: this one.

    Returns
    -------
    pathlib.Path
        Not created here.

    Examples
    --------
    >>> from calibbook.experiments import _user_cache_dir
    >>> "calibbook" in _user_cache_dir().parts
    True
    """
    platform = sys.platform if platform is None else platform
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    if xdg and os.path.isabs(xdg):  # the XDG spec: relative paths are invalid, ignore them
        return Path(xdg) / appname
    if platform == "win32":
        base = os.environ.get("LOCALAPPDATA") or str(Path.home() / "AppData" / "Local")
        return Path(base) / appname / "Cache"
    if platform == "darwin":
        return Path.home() / "Library" / "Caches" / appname
    return Path.home() / ".cache" / appname


def _default_cache_dir():
    """Where the protocols cache their results when ``cache_dir`` is not given.

    ``$CALIBBOOK_CACHE`` if set (and not empty), else ``experiments`` in
    :func:`_user_cache_dir`. Read at every call, so setting the variable after
    import takes effect.

    Returns
    -------
    pathlib.Path
        Not created here.

    Examples
    --------
    >>> import os
    >>> from calibbook.experiments import _default_cache_dir
    >>> "CALIBBOOK_CACHE" in os.environ or "calibbook" in _default_cache_dir().parts
    True
    """
    env = os.environ.get("CALIBBOOK_CACHE", "")
    return Path(env) if env else _user_cache_dir("calibbook") / "experiments"


def _cache_path(cache_dir, config):
    blob = json.dumps(config, sort_keys=True, default=repr).encode()
    return Path(cache_dir) / f"{config['dataset']}-{config['classifier']}-{hashlib.sha256(blob).hexdigest()[:16]}.csv"


# ---------------------------------------------------------------------------
# protocols
# ---------------------------------------------------------------------------
def _evaluate_split(X, y, train, test, clf, calibrators, calib_size, seed, n_bins, include_raw):
    """Fit classifier + calibrators on one split; return [(method, measure, value)]."""
    from sklearn.base import clone
    from sklearn.model_selection import train_test_split

    from .metrics import calibration_report, expected_calibration_error, maximum_calibration_error

    if calib_size is None:
        fit_idx = cal_idx = train
    else:
        fit_idx, cal_idx = train_test_split(train, test_size=calib_size, stratify=y[train], random_state=seed)
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
    for m, p in preds.items():
        report.loc[m, "ECE_pos"] = expected_calibration_error(y[test], p, n_bins=n_bins, strategy="positional")
        report.loc[m, "MCE_pos"] = maximum_calibration_error(y[test], p, n_bins=n_bins, strategy="positional")
    rows = [(m, meas, float(report.loc[m, meas])) for m in report.index for meas in MEASURES]
    rows += [(m, FIT_TIME, t) for m, t in times.items()]
    return rows


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
    import warnings

    import pandas as pd
    from sklearn.model_selection import RepeatedStratifiedKFold

    with warnings.catch_warnings():  # tqdm.auto warns when ipywidgets is missing
        warnings.simplefilter("ignore")
        from tqdm.auto import tqdm

    if calibrators is None:
        calibrators = paper_calibrators()
    calibrators = dict(calibrators)
    clfs = _as_classifiers(classifiers, random_state)
    data = _as_datasets(datasets)
    cache_dir = Path(cache_dir) if cache_dir is not None else _default_cache_dir()
    source = _source_hash()  # calibbook's own code, hashed once per process
    frames = []
    total = len(data) * len(clfs) * n_splits * n_repeats
    with tqdm(total=total, desc=protocol, unit="fold", disable=disable) as bar:
        for ds_name, loader in data:
            X, y = loader()
            X = np.asarray(X, dtype=np.float64)
            y = np.asarray(y).astype(np.int64)
            digest = _data_digest(X, y)
            for clf_name, clf in clfs.items():
                config = {
                    "version": 1,
                    "protocol": protocol,
                    "dataset": ds_name,
                    "data": digest,
                    "classifier": clf_name,
                    "classifier_params": _estimator_key(clf),
                    "calibrators": {k: _estimator_key(v) for k, v in calibrators.items()},
                    "n_splits": n_splits,
                    "n_repeats": n_repeats,
                    "calib_size": calib_size,
                    "random_state": random_state,
                    "n_bins": n_bins,
                    "include_raw": include_raw,
                    "software": _software_versions(),
                    "source": source,
                }
                path = _cache_path(cache_dir, config)
                if use_cache and path.exists():
                    frames.append(pd.read_csv(path))
                    bar.update(n_splits * n_repeats)
                    continue
                cv = RepeatedStratifiedKFold(n_splits=n_splits, n_repeats=n_repeats, random_state=random_state)
                rows = []
                for i, (train, test) in enumerate(cv.split(X, y)):
                    repeat, fold = divmod(i, n_splits)
                    bar.set_postfix_str(f"{ds_name}/{clf_name}", refresh=False)
                    for m, meas, v in _evaluate_split(
                        X, y, train, test, clf, calibrators, calib_size, random_state + i, n_bins, include_raw
                    ):
                        rows.append((ds_name, clf_name, m, repeat, fold, meas, v))
                    bar.update(1)
                frame = pd.DataFrame(rows, columns=_COLUMNS)
                if use_cache:
                    cache_dir.mkdir(parents=True, exist_ok=True)
                    tmp = path.with_suffix(f".tmp{os.getpid()}")
                    frame.to_csv(tmp, index=False, float_format="%.17g")
                    os.replace(tmp, path)
                    frame = pd.read_csv(path)  # identical numbers cold and warm
                frames.append(frame)
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
        Bins of ECE and MCE.
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
        calibrator's ``fit``; not recorded for ``"raw"``).

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
    datasets, classifiers, calibrators, n_splits, n_repeats, random_state, n_bins, include_raw, cache_dir, use_cache, disable
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
    >>> res = holdout_calibration_protocol(data, ["Tree"], {"IsoRegC": IsotonicCalibration()},
    ...                                    n_splits=2, use_cache=False, disable=True)
    >>> sorted(res.measure.unique())
    ['ACC', 'AUC', 'Brier', 'ECE', 'ECE_pos', 'FitTime', 'LogLoss', 'MCE', 'MCE_pos', 'RMSE']
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


# ---------------------------------------------------------------------------
# statistics (Demšar 2006)
# ---------------------------------------------------------------------------
def dataset_means(results, classifier, measure, methods=None):
    """Data sets x methods table of one measure, averaged over repeats and folds.

    Parameters
    ----------
    results : pandas.DataFrame
        Tidy output of a protocol.
    classifier, measure : str
        Which rows to use.
    methods : list of str, optional
        Columns (and their order); default all methods present.

    Returns
    -------
    pandas.DataFrame
        Index: data set; columns: methods.

    References
    ----------
    Demšar, "Statistical comparisons of classifiers over multiple data sets",
    JMLR 7 (2006), 1-30. Section 3 (one value per data set
    and method is the input of every test); :doc:`/book/08_comparison`.

    Examples
    --------
    >>> import pandas as pd
    >>> rows = [(d, "LR", m, 0, 0, "RMSE", v) for d, vals in
    ...         {"a": (0.30, 0.32, 0.35), "b": (0.20, 0.25, 0.21), "c": (0.40, 0.41, 0.45)}.items()
    ...         for m, v in zip(["ENIR", "BBQ", "raw"], vals)]
    >>> results = pd.DataFrame(rows, columns=["dataset", "classifier", "method", "repeat",
    ...                                       "fold", "measure", "value"])
    >>> from calibbook.experiments import dataset_means
    >>> dataset_means(results, "LR", "RMSE", ["ENIR", "raw"])
    method   ENIR   raw
    dataset
    a        0.3  0.35
    b        0.2  0.21
    c        0.4  0.45
    """
    r = results[(results["classifier"] == classifier) & (results["measure"] == measure)]
    table = r.pivot_table(index="dataset", columns="method", values="value", aggfunc="mean")
    if methods is not None:
        table = table[list(methods)]
    return table


def _direction(higher_is_better, measure):
    if higher_is_better is not None:
        return bool(higher_is_better)
    if measure is not None:
        return measure in HIGHER_IS_BETTER
    return False


def average_ranks(table, *, higher_is_better=None, measure=None, return_ranks=False):
    """Average rank of each method over data sets (rank 1 = best; ties get average ranks).

    Parameters
    ----------
    table : pandas.DataFrame or array-like of shape (n_datasets, n_methods)
        One row per data set, one column per method.
    higher_is_better : bool, optional
        Direction of the measure. If omitted, taken from ``measure``
        (``AUC`` and ``ACC`` are higher-is-better); default lower-is-better.
    measure : str, optional
        Name of the measure, used only to set the direction.
    return_ranks : bool
        Also return the per-data-set ranks.

    Returns
    -------
    pandas.Series (and pandas.DataFrame of ranks if ``return_ranks``)

    Raises
    ------
    ValueError
        If the table holds NaN (every method needs a value on every data set).

    References
    ----------
    Demšar, "Statistical comparisons of classifiers over multiple data sets",
    JMLR 7 (2006), 1-30. Section 3.2.2; :doc:`/book/08_comparison`.

    Examples
    --------
    >>> from calibbook.experiments import average_ranks
    >>> average_ranks([[0.30, 0.32, 0.35], [0.20, 0.25, 0.20]]).tolist()
    [1.25, 2.5, 2.25]
    """
    import pandas as pd
    from scipy.stats import rankdata

    if not isinstance(table, pd.DataFrame):
        table = pd.DataFrame(np.asarray(table, dtype=np.float64))
    values = table.to_numpy(dtype=np.float64)
    if np.isnan(values).any():
        raise ValueError("table contains NaN; every method needs a value on every data set")
    sign = -1.0 if _direction(higher_is_better, measure) else 1.0
    ranks = pd.DataFrame(rankdata(sign * values, axis=1), index=table.index, columns=table.columns)
    avg = ranks.mean(axis=0).rename("average_rank")
    return (avg, ranks) if return_ranks else avg


@dataclass(frozen=True)
class FriedmanResult:
    """Friedman test on average ranks (Demšar 2006, Sec. 3.2.2), as returned by :func:`friedman_test`.

    Parameters
    ----------
    chi2 : float
        Friedman's statistic :math:`\\chi^2_F`.
    chi2_pvalue : float
        Its p-value, from the :math:`\\chi^2` distribution with ``k - 1`` degrees of freedom.
    F : float
        The Iman--Davenport statistic :math:`F_F`.
    F_pvalue : float
        Its p-value, from the F distribution with ``(k - 1, (k - 1)(N - 1))`` degrees of freedom.
    k : int
        Number of methods.
    n_datasets : int
        Number of data sets N.

    References
    ----------
    Demšar, "Statistical comparisons of classifiers over multiple data sets",
    JMLR 7 (2006), 1-30.; :doc:`/book/08_comparison`.

    Examples
    --------
    >>> from calibbook.experiments import friedman_test
    >>> result = friedman_test([3.143, 2.000, 2.893, 1.964], n_datasets=14)
    >>> result.k, result.n_datasets
    (4, 14)
    """

    chi2: float
    chi2_pvalue: float
    F: float
    F_pvalue: float
    k: int
    n_datasets: int


def friedman_test(table_or_ranks, n_datasets=None, *, higher_is_better=None, measure=None):
    """Friedman chi-square and the Iman--Davenport F statistic.

    .. math::
        \\chi^2_F = \\frac{12N}{k(k+1)}\\Big[\\sum_j R_j^2 - \\frac{k(k+1)^2}{4}\\Big],
        \\qquad F_F = \\frac{(N-1)\\chi^2_F}{N(k-1) - \\chi^2_F},

    with :math:`\\chi^2_F` on :math:`k-1` and :math:`F_F` on :math:`(k-1, (k-1)(N-1))`
    degrees of freedom. Given the table, :math:`\\chi^2_F` is corrected for ties:
    it is divided by :math:`C = 1 - \\sum_i \\sum_g (t_{ig}^3 - t_{ig}) / (N k (k^2 - 1))`,
    where :math:`t_{ig}` are the sizes of the groups of tied values in data set
    :math:`i`. Ties are common in calibration tables: every increasing map leaves
    the AUC of the raw scores unchanged.

    Parameters
    ----------
    table_or_ranks : pandas.DataFrame / 2-D array (data sets x methods), or 1-D average ranks
        Either the raw table (ranked with :func:`average_ranks`) or the average ranks.
    n_datasets : int
        Needed (only) when average ranks are given.
    higher_is_better, measure
        Direction, as in :func:`average_ranks`.

    Returns
    -------
    FriedmanResult

    Raises
    ------
    ValueError
        If average ranks are given without ``n_datasets``, the input is neither
        1-D nor 2-D, there are fewer than 2 methods or data sets, or the table
        holds NaN.

    Notes
    -----
    With the table, :math:`\\chi^2_F` equals ``scipy.stats.friedmanchisquare``
    (which applies the same tie correction). Average ranks alone carry no
    information about ties, so from them Demšar's uncorrected formula is used.
    If every data set ties all methods, :math:`C = 0` and there is nothing to
    test: :math:`\\chi^2_F = F_F = 0` with p-values 1.

    References
    ----------
    Demšar, "Statistical comparisons of classifiers over multiple data sets",
    JMLR 7 (2006), 1-30. Section 3.2.2; Iman & Davenport,
    "Approximations of the critical region of the Friedman statistic",
    Communications in Statistics 9 (1980). :doc:`/book/08_comparison` derives it.

    Examples
    --------
    Demšar's worked example: four variants of C4.5 on 14 data sets.

    >>> from calibbook.experiments import friedman_test
    >>> r = friedman_test([3.143, 2.000, 2.893, 1.964], n_datasets=14)
    >>> round(r.chi2, 2), round(r.F, 2)
    (9.28, 3.69)
    """
    from scipy import stats

    arr = np.asarray(table_or_ranks, dtype=np.float64)
    tie_sum = 0.0  # sum over data sets and tie groups of t^3 - t
    if arr.ndim == 2:
        R = average_ranks(table_or_ranks, higher_is_better=higher_is_better, measure=measure).to_numpy()
        N = arr.shape[0]
        for row in arr:
            t = np.unique(row, return_counts=True)[1].astype(np.float64)
            tie_sum += float(np.sum(t**3 - t))
    elif arr.ndim == 1:
        if n_datasets is None:
            raise ValueError("n_datasets is required when average ranks are given")
        R, N = arr, int(n_datasets)
    else:
        raise ValueError("give a 2-D table or 1-D average ranks")
    k = R.size
    if k < 2 or N < 2:
        raise ValueError("need at least 2 methods and 2 data sets")
    correction = 1.0 - tie_sum / (N * k * (k * k - 1.0))
    if correction <= 0.0:  # every data set ties every method: no evidence of any difference
        return FriedmanResult(0.0, 1.0, 0.0, 1.0, int(k), int(N))
    chi2 = 12.0 * N / (k * (k + 1)) * (np.sum(R**2) - k * (k + 1) ** 2 / 4.0) / correction
    chi2_p = float(stats.chi2.sf(chi2, k - 1))
    denom = N * (k - 1) - chi2
    F = (N - 1) * chi2 / denom if denom > 0 else np.inf
    F_p = float(stats.f.sf(F, k - 1, (k - 1) * (N - 1))) if np.isfinite(F) else 0.0
    return FriedmanResult(float(chi2), chi2_p, float(F), F_p, int(k), int(N))


def holm_test(average_ranks, n_datasets, control, alpha=0.05):
    """Holm's step-down comparisons of every method with a control (Demšar 2006, Sec. 3.2.2).

    ``z = (R_i - R_control) / sqrt(k(k+1) / (6N))``, two-sided p-values. The
    p-values are sorted increasingly, ``p_(1) <= ... <= p_(k-1)``; hypotheses are
    rejected while ``p_(i) < alpha / (k - i)``, and from the first that is not,
    none of the rest is.

    Parameters
    ----------
    average_ranks : pandas.Series
        Average rank per method (index: method names).
    n_datasets : int
        N, the number of data sets the ranks were averaged over.
    control : str
        The control method (for example ``"ENIR"``).
    alpha : float
        Family-wise significance level.

    Returns
    -------
    pandas.DataFrame
        One row per non-control method in the order of testing (increasing p),
        columns ``average_rank, z, p_value, threshold, p_adjusted, reject,
        control_better``. ``z > 0`` means the control has the better (lower) rank.

    Raises
    ------
    ValueError
        If ``control`` is not among the methods.

    References
    ----------
    Demšar, "Statistical comparisons of classifiers over multiple data sets",
    JMLR 7 (2006), 1-30. Section 3.2.2; Holm, "A simple
    sequentially rejective multiple test procedure", Scandinavian Journal of
    Statistics 6 (1979). :doc:`/book/08_comparison` derives it.

    Examples
    --------
    >>> import pandas as pd
    >>> from calibbook.experiments import holm_test
    >>> ranks = pd.Series({"C4.5": 3.143, "m": 2.000, "cf": 2.893, "m+cf": 1.964})
    >>> holm_test(ranks, 14, control="m+cf")[["p_value", "reject"]].round(3)
            p_value  reject
    method
    C4.5      0.016    True
    cf        0.057   False
    m         0.941   False
    """
    import pandas as pd
    from scipy import stats

    R = pd.Series(average_ranks, dtype=np.float64)
    if control not in R.index:
        raise ValueError(f"control {control!r} is not among the methods {list(R.index)}")
    k, N = len(R), int(n_datasets)
    se = np.sqrt(k * (k + 1) / (6.0 * N))
    others = R.drop(control)
    z = (others - R[control]) / se
    p = 2.0 * stats.norm.sf(np.abs(z))
    df = pd.DataFrame({"average_rank": others, "z": z, "p_value": p})
    df = df.sort_values("p_value", kind="stable")
    m = len(df)
    df["threshold"] = alpha / (m - np.arange(m))
    df["p_adjusted"] = np.minimum(1.0, np.maximum.accumulate(df["p_value"].to_numpy() * (m - np.arange(m))))
    below = df["p_value"].to_numpy() < df["threshold"].to_numpy()
    df["reject"] = np.logical_and.accumulate(below) if m else below
    df["control_better"] = df["z"] > 0
    df.index.name = "method"
    return df


def nemenyi_critical_difference(k, n_datasets, alpha=0.05):
    """Critical difference of the Nemenyi test: ``q_alpha * sqrt(k(k+1) / (6N))``.

    ``q_alpha`` is the upper-alpha quantile of the studentized range of ``k``
    means with infinite degrees of freedom, divided by sqrt(2) (Demšar 2006,
    Table 5a: 2.569 for k = 4 at alpha = 0.05).

    Parameters
    ----------
    k : int
        Number of methods, at least 2.
    n_datasets : int
        Number of data sets N, at least 1.
    alpha : float, default=0.05
        Significance level.

    Returns
    -------
    float
        Two methods differ significantly when their average ranks differ by at
        least this much.

    Raises
    ------
    ValueError
        If ``k < 2`` or ``n_datasets < 1``.

    References
    ----------
    Demšar, "Statistical comparisons of classifiers over multiple data sets",
    JMLR 7 (2006), 1-30. Section 3.2.2 and Table 5;
    :doc:`/book/08_comparison` draws it in critical-difference diagrams.

    Examples
    --------
    Demšar's example, four methods on 14 data sets:

    >>> from calibbook.experiments import nemenyi_critical_difference
    >>> round(nemenyi_critical_difference(4, 14), 2)
    1.25
    """
    from scipy.stats import studentized_range

    k, N = int(k), int(n_datasets)
    if k < 2 or N < 1:
        raise ValueError("need k >= 2 methods and at least one data set")
    q = studentized_range.ppf(1.0 - alpha, k, np.inf) / np.sqrt(2.0)
    return float(q * np.sqrt(k * (k + 1) / (6.0 * N)))


# ---------------------------------------------------------------------------
# tables
# ---------------------------------------------------------------------------
def rank_table(results, classifier, methods, measures=("AUC", "ACC", "RMSE", "ECE", "MCE"), control="ENIR", alpha=0.05):
    """Average ranks per measure with Friedman / Iman--Davenport + Holm decisions (Tables IV--VI).

    Parameters
    ----------
    results : pandas.DataFrame
        Tidy protocol output.
    classifier : str
        Base classifier whose calibrated versions are compared.
    methods : list of str
        Methods to rank (for example ``["IsoRegC", "BBQ", "ENIR"]``).
    measures : list of str
    control : str
        Control of Holm's procedure.
    alpha : float

    Returns
    -------
    ranks : pandas.DataFrame
        measures x methods average ranks (1 = best).
    marks : pandas.DataFrame of str
        ``"*"`` where the control is significantly better than that method,
        ``"°"`` where it is significantly worse, ``""`` otherwise. Post-hoc tests
        are only run when the Iman--Davenport test rejects at ``alpha``.

    References
    ----------
    Naeini & Cooper, "Binary classifier calibration using an ensemble of near
    isotonic regression models", ICDM 2016, Section IV-C., Tables IV--VI;
    Demšar, "Statistical comparisons of classifiers over multiple data sets",
    JMLR 7 (2006), 1-30.
    :doc:`/book/08_comparison` reproduces the tables.

    Examples
    --------
    >>> import pandas as pd
    >>> rows = [(d, "LR", m, 0, 0, "RMSE", v) for d, vals in
    ...         {"a": (0.30, 0.32, 0.35), "b": (0.20, 0.25, 0.21), "c": (0.40, 0.41, 0.45)}.items()
    ...         for m, v in zip(["ENIR", "BBQ", "raw"], vals)]
    >>> results = pd.DataFrame(rows, columns=["dataset", "classifier", "method", "repeat",
    ...                                       "fold", "measure", "value"])
    >>> from calibbook.experiments import rank_table
    >>> ranks, marks = rank_table(results, "LR", ["ENIR", "BBQ", "raw"], measures=["RMSE"])
    >>> ranks.round(3)
    method  ENIR    BBQ    raw
    RMSE     1.0  2.333  2.667
    """
    import pandas as pd

    ranks, marks = {}, {}
    for meas in measures:
        table = dataset_means(results, classifier, meas, methods)
        avg = average_ranks(table, measure=meas)
        ranks[meas] = avg
        mk = pd.Series("", index=avg.index)
        fr = friedman_test(table, measure=meas)  # from the table, so corrected for ties
        if fr.F_pvalue < alpha and control in avg.index:
            h = holm_test(avg, len(table), control, alpha)
            for name, row in h.iterrows():
                if row["reject"]:
                    mk[name] = "*" if row["control_better"] else "°"
        marks[meas] = mk
    return pd.DataFrame(ranks).T[list(methods)], pd.DataFrame(marks).T[list(methods)]


def format_rank_table(ranks, marks, decimals=3):
    """Strings like ``"1.925*"`` from :func:`rank_table`'s two tables.

    Parameters
    ----------
    ranks, marks : pandas.DataFrame
        The two tables returned by :func:`rank_table`.
    decimals : int, default=3
        Digits after the decimal point (the paper prints three).

    Returns
    -------
    pandas.DataFrame of str
        Each rank followed by its mark.

    References
    ----------
    Naeini & Cooper, "Binary classifier calibration using an ensemble of near
    isotonic regression models", ICDM 2016, Section IV-C., Tables IV--VI (their layout);
    :doc:`/book/08_comparison`.

    Examples
    --------
    >>> import pandas as pd
    >>> from calibbook.experiments import format_rank_table
    >>> ranks = pd.DataFrame({"ENIR": [1.45], "BBQ": [2.625]}, index=["RMSE"])
    >>> marks = pd.DataFrame({"ENIR": [""], "BBQ": ["*"]}, index=["RMSE"])
    >>> format_rank_table(ranks, marks)
           ENIR     BBQ
    RMSE  1.450  2.625*
    """
    return ranks.map(lambda v: f"{v:.{decimals}f}") + marks


def improvement_ci(results, method="ENIR", base="raw", measures=("AUC", "ACC", "RMSE", "ECE", "MCE"), level=0.95):
    """Confidence interval of the mean relative change of ``method`` over ``base`` (Table II).

    For each data set, ``X = (measure_method - measure_base) / measure_base``
    with both measures averaged over repeats and folds; the interval is the
    Student-t interval of the mean of X over data sets. Positive is better for
    AUC and ACC, negative is better for the error measures. Data sets where
    ``measure_base`` is 0 are left out.

    Parameters
    ----------
    results : pandas.DataFrame
        Tidy protocol output.
    method : str, default="ENIR"
        The post-processed method.
    base : str, default="raw"
        The reference, normally the uncalibrated classifier.
    measures : list of str
        Rows of the table.
    level : float, default=0.95
        Confidence level.

    Returns
    -------
    pandas.DataFrame
        Index: measure; columns: one per classifier, each holding ``(low, high)``
        (NaN when fewer than two data sets are usable).

    References
    ----------
    Naeini & Cooper, "Binary classifier calibration using an ensemble of near
    isotonic regression models", ICDM 2016, Section IV-C., Table II;
    :doc:`/book/08_comparison` reproduces it.

    Examples
    --------
    >>> import pandas as pd
    >>> rows = [(d, "LR", m, 0, 0, "RMSE", v) for d, vals in
    ...         {"a": (0.30, 0.32, 0.35), "b": (0.20, 0.25, 0.21), "c": (0.40, 0.41, 0.45)}.items()
    ...         for m, v in zip(["ENIR", "BBQ", "raw"], vals)]
    >>> results = pd.DataFrame(rows, columns=["dataset", "classifier", "method", "repeat",
    ...                                       "fold", "measure", "value"])
    >>> from calibbook.experiments import improvement_ci
    >>> low, high = improvement_ci(results, measures=["RMSE"]).loc["RMSE", "LR"]
    >>> round(low, 3), round(high, 3)
    (-0.221, 0.02)
    """
    import pandas as pd
    from scipy import stats

    out = {}
    for clf in pd.unique(results["classifier"]):
        col = {}
        for meas in measures:
            t = dataset_means(results, clf, meas, [base, method])
            b = t[base].to_numpy()
            ok = b != 0
            x = (t[method].to_numpy()[ok] - b[ok]) / b[ok]
            n = x.size
            if n < 2:
                col[meas] = (np.nan, np.nan)
                continue
            half = stats.t.ppf(0.5 + level / 2, n - 1) * x.std(ddof=1) / np.sqrt(n)
            col[meas] = (float(x.mean() - half), float(x.mean() + half))
        out[clf] = col
    return pd.DataFrame(out).loc[list(measures)]


def fit_time_table(results, statistic="median"):
    """Calibrator fit time (seconds per fit) by method and classifier; a measured Table VII.

    Parameters
    ----------
    results : pandas.DataFrame
        Tidy protocol output (its ``"FitTime"`` rows).
    statistic : str or callable, default="median"
        How the fits of one method and classifier are summarised (any pandas
        aggregation).

    Returns
    -------
    pandas.DataFrame
        Index: method; columns: classifier; values in seconds.

    References
    ----------
    Naeini & Cooper, "Binary classifier calibration using an ensemble of near
    isotonic regression models", ICDM 2016, Section IV-C., Table VII (its asymptotic costs);
    :doc:`/book/08_comparison` measures them against N.

    Examples
    --------
    >>> import pandas as pd
    >>> from calibbook.experiments import fit_time_table
    >>> results = pd.DataFrame({"dataset": "a", "classifier": "LR", "method": ["ENIR", "ENIR", "BBQ"],
    ...                         "repeat": 0, "fold": [0, 1, 0], "measure": "FitTime",
    ...                         "value": [0.010, 0.030, 0.005]})
    >>> fit_time_table(results)
    classifier     LR
    method
    BBQ         0.005
    ENIR        0.020
    """
    r = results[results["measure"] == FIT_TIME]
    return r.pivot_table(index="method", columns="classifier", values="value", aggfunc=statistic)


def fold_summary(results):
    """Mean and standard deviation over the folds of every data set, classifier, method and measure.

    The form in which ``data/comparison_full.csv`` stores the full run of
    :doc:`/book/08_comparison`: fold-level results are large, their means and spreads
    are what the tables use.

    Parameters
    ----------
    results : pandas.DataFrame
        Output of :func:`repeated_cv_protocol` (or :func:`holdout_calibration_protocol`).

    Returns
    -------
    pandas.DataFrame
        Columns ``dataset, classifier, method, measure, value, sd, n_folds``: the mean,
        the standard deviation (ddof=1) and the number of folds. ``FitTime`` rows are
        kept (seconds; they depend on the machine).

    References
    ----------
    Naeini & Cooper, ICDM 2016, Section IV-C (means over 10 x 10 folds);
    :doc:`/book/08_comparison` reads the stored summary.

    Examples
    --------
    >>> import pandas as pd
    >>> from calibbook.experiments import fold_summary
    >>> folds = pd.DataFrame({"dataset": "d", "classifier": "LR", "method": "ENIR", "repeat": 0,
    ...                       "fold": [0, 1, 2], "measure": "ECE", "value": [0.1, 0.2, 0.3]})
    >>> fold_summary(folds)[["value", "sd", "n_folds"]].round(3).values.tolist()
    [[0.2, 0.1, 3.0]]
    """
    keys = ["dataset", "classifier", "method", "measure"]
    grouped = results.groupby(keys, sort=True)["value"]
    return grouped.agg(value="mean", sd="std", n_folds="count").reset_index()

