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
  hash of everything that determines the numbers.
* **Statistics** (Demšar, JMLR 2006) -- :func:`average_ranks`,
  :func:`friedman_test` (Friedman chi-square and Iman--Davenport F),
  :func:`holm_test` (step-down comparisons with a control) and
  :func:`nemenyi_critical_difference`.
* **Tables** -- :func:`rank_table` (Tables IV--VI of Naeini & Cooper, ICDM 2016,
  with significance marks), :func:`improvement_ci` (their Table II) and
  :func:`fit_time_table` (measured counterpart of their Table VII).
"""

from __future__ import annotations

import hashlib
import json
import os
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
]

#: Measures computed on every test fold (see :func:`calibbook.metrics.calibration_report`).
MEASURES = ("AUC", "ACC", "RMSE", "ECE", "MCE", "Brier", "LogLoss")
#: Measures for which a larger value is better; all the others are errors.
HIGHER_IS_BETTER = frozenset({"AUC", "ACC"})
#: Extra measure: seconds spent in the calibrator's ``fit`` (not a quality measure).
FIT_TIME = "FitTime"

_COLUMNS = ["dataset", "classifier", "method", "repeat", "fold", "measure", "value"]
_DEFAULT_CACHE = Path(__file__).resolve().parent.parent / "data" / "cache" / "experiments"


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
    """The three calibrators of Tables IV--VI: ``IsoRegC``, ``BBQ`` and ``ENIR``."""
    from .bbq import BBQ
    from .enir import ENIR
    from .isotonic import IsotonicCalibration

    return {"IsoRegC": IsotonicCalibration(), "BBQ": BBQ(), "ENIR": ENIR()}


def all_calibrators():
    """Every calibbook calibrator with its default parameters (paper's three first)."""
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


def classifier_scores(estimator, X):
    """Scores in [0, 1] of a fitted classifier for the positive class.

    ``predict_proba[:, 1]`` when the classifier has it, otherwise the logistic
    sigmoid of ``decision_function`` (so ENIR, BBQ and equal-width histogram
    binning, which need probabilities, can be applied to an SVM).
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

    from .metrics import calibration_report

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
    cache_dir = Path(cache_dir) if cache_dir is not None else Path(os.environ.get("CALIBBOOK_CACHE", _DEFAULT_CACHE))
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
        Where results are cached (one CSV per data set and classifier, named by a
        hash of the configuration). Default: ``$CALIBBOOK_CACHE`` or
        ``data/cache/experiments``.
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

    References
    ----------
    Naeini & Cooper, "Binary classifier calibration using an ensemble of near
    isotonic regression models", ICDM 2016.
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
    """Friedman test on average ranks (Demšar 2006, Sec. 3.2.2)."""

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
    degrees of freedom.

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

    Notes
    -----
    This is Demšar's formula, without a correction for ties; on tie-free data it
    equals :func:`scipy.stats.friedmanchisquare`.
    """
    from scipy import stats

    arr = np.asarray(table_or_ranks, dtype=np.float64)
    if arr.ndim == 2:
        R = average_ranks(table_or_ranks, higher_is_better=higher_is_better, measure=measure).to_numpy()
        N = arr.shape[0]
    elif arr.ndim == 1:
        if n_datasets is None:
            raise ValueError("n_datasets is required when average ranks are given")
        R, N = arr, int(n_datasets)
    else:
        raise ValueError("give a 2-D table or 1-D average ranks")
    k = R.size
    if k < 2 or N < 2:
        raise ValueError("need at least 2 methods and 2 data sets")
    chi2 = 12.0 * N / (k * (k + 1)) * (np.sum(R**2) - k * (k + 1) ** 2 / 4.0)
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
    """
    import pandas as pd

    ranks, marks = {}, {}
    for meas in measures:
        table = dataset_means(results, classifier, meas, methods)
        avg = average_ranks(table, measure=meas)
        ranks[meas] = avg
        mk = pd.Series("", index=avg.index)
        fr = friedman_test(avg.to_numpy(), len(table))
        if fr.F_pvalue < alpha and control in avg.index:
            h = holm_test(avg, len(table), control, alpha)
            for name, row in h.iterrows():
                if row["reject"]:
                    mk[name] = "*" if row["control_better"] else "°"
        marks[meas] = mk
    return pd.DataFrame(ranks).T[list(methods)], pd.DataFrame(marks).T[list(methods)]


def format_rank_table(ranks, marks, decimals=3):
    """Strings like ``"1.925*"`` from :func:`rank_table`'s two tables."""
    return ranks.map(lambda v: f"{v:.{decimals}f}") + marks


def improvement_ci(results, method="ENIR", base="raw", measures=("AUC", "ACC", "RMSE", "ECE", "MCE"), level=0.95):
    """Confidence interval of the mean relative change of ``method`` over ``base`` (Table II).

    For each data set, ``X = (measure_method - measure_base) / measure_base``
    with both measures averaged over repeats and folds; the interval is the
    Student-t interval of the mean of X over data sets. Positive is better for
    AUC and ACC, negative is better for the error measures. Data sets where
    ``measure_base`` is 0 are left out.

    Returns
    -------
    pandas.DataFrame
        Index: measure; columns: one per classifier, each holding ``(low, high)``.
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
    """Calibrator fit time (seconds per fit) by method and classifier; a measured Table VII."""
    r = results[results["measure"] == FIT_TIME]
    return r.pivot_table(index="method", columns="classifier", values="value", aggfunc=statistic)
