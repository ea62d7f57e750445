"""The tables of Naeini & Cooper (ICDM 2016) from a protocol's tidy results.

:func:`rank_table` and :func:`format_rank_table` give their Tables IV--VI (average ranks
with the marks of the Friedman and Holm tests of :mod:`calibbook.experiments.statistics`),
:func:`improvement_ci` their Table II, :func:`fit_time_table` a measured counterpart of
their Table VII, and :func:`fold_summary` the means and spreads over folds that
``data/comparison_full.csv`` stores.
"""

from __future__ import annotations

import numpy as np

from calibbook._utils.deprecation import renamed_parameter
from calibbook._utils.optional import require
from calibbook._utils.params import Integral, Interval, Real, validate_params
from calibbook.experiments import FIT_TIME
from calibbook.experiments.statistics import (
    average_ranks,
    dataset_means,
    friedman_test,
    holm_test,
    rank_difference_se,
)

__all__ = ["fit_time_table", "fold_summary", "format_rank_table", "improvement_ci", "rank_table"]

_PAPER_MEASURES = ("AUC", "ACC", "RMSE", "ECE", "MCE")  # the rows of the paper's tables


@validate_params({"control": [str], "alpha": [Interval(Real, 0.0, 1.0, closed="neither")]})
def rank_table(results, classifier, methods, measures=_PAPER_MEASURES, control="ENIR", alpha=0.05):
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
        Control of Holm's procedure (no marks if it is not among ``methods``).
    alpha : float, default=0.05
        Significance level of the Iman--Davenport and Holm tests, in (0, 1).

    Returns
    -------
    ranks : pandas.DataFrame
        measures x methods average ranks (1 = best).
    marks : pandas.DataFrame of str
        ``"*"`` where the control is significantly better than that method,
        ``"°"`` where it is significantly worse, ``""`` otherwise. Post-hoc tests
        are only run when the Iman--Davenport test rejects at ``alpha``. Holm's ``z``
        uses the tie-corrected standard error (:func:`rank_difference_se`), the same
        correction as the Friedman statistic's, so that tied AUCs do not make it
        conservative.

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
    ...         {"a": (0.30, 0.32, 0.35), "b": (0.20, 0.25, 0.21),
    ...          "c": (0.40, 0.41, 0.45)}.items()
    ...         for m, v in zip(["ENIR", "BBQ", "raw"], vals)]
    >>> results = pd.DataFrame(rows, columns=[
    ...     "dataset", "classifier", "method", "repeat",
    ...     "fold", "measure", "value"])
    >>> from calibbook.experiments import rank_table
    >>> ranks, marks = rank_table(results, "LR", ["ENIR", "BBQ", "raw"],
    ...                           measures=["RMSE"])
    >>> ranks.round(3)
    method  ENIR    BBQ    raw
    RMSE     1.0  2.333  2.667
    """
    pd = require("pandas", "experiments")

    ranks, marks = {}, {}
    for meas in measures:
        table = dataset_means(results, classifier, meas, methods)
        avg = average_ranks(table, measure=meas)
        ranks[meas] = avg
        mk = pd.Series("", index=avg.index)
        fr = friedman_test(table, measure=meas)  # from the table, so corrected for ties
        if fr.F_pvalue < alpha and control in avg.index:
            se = rank_difference_se(table, measure=meas)
            h = holm_test(avg, len(table), control, alpha, se=se)
            for name, row in h.iterrows():
                if row["reject"]:
                    mk[name] = "*" if row["control_better"] else "°"
        marks[meas] = mk
    return pd.DataFrame(ranks).T[list(methods)], pd.DataFrame(marks).T[list(methods)]


@validate_params({"decimals": [Interval(Integral, 0, None)]})
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


@renamed_parameter("level", "confidence")
@validate_params(
    {
        "method": [str],
        "base": [str],
        "confidence": [Interval(Real, 0.0, 1.0, closed="neither")],
    }
)
def improvement_ci(results, method="ENIR", base="raw", measures=_PAPER_MEASURES, confidence=0.95):
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
    confidence : float, default=0.95
        Confidence level of the interval, in (0, 1). (Called ``level`` before
        calibbook 0.2; the old name warns until 0.3.)

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
    ...         {"a": (0.30, 0.32, 0.35), "b": (0.20, 0.25, 0.21),
    ...          "c": (0.40, 0.41, 0.45)}.items()
    ...         for m, v in zip(["ENIR", "BBQ", "raw"], vals)]
    >>> results = pd.DataFrame(rows, columns=[
    ...     "dataset", "classifier", "method", "repeat",
    ...     "fold", "measure", "value"])
    >>> from calibbook.experiments import improvement_ci
    >>> low, high = improvement_ci(results, measures=["RMSE"]).loc["RMSE", "LR"]
    >>> round(low, 3), round(high, 3)
    (-0.221, 0.02)
    """
    pd = require("pandas", "experiments")
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
            half = stats.t.ppf(0.5 + confidence / 2, n - 1) * x.std(ddof=1) / np.sqrt(n)
            col[meas] = (float(x.mean() - half), float(x.mean() + half))
        out[clf] = col
    return pd.DataFrame(out).loc[list(measures)]


@validate_params({"statistic": [str, "callable"]})
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
    >>> results = pd.DataFrame({"dataset": "a", "classifier": "LR",
    ...                         "method": ["ENIR", "ENIR", "BBQ"], "repeat": 0,
    ...                         "fold": [0, 1, 0], "measure": "FitTime",
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
    >>> folds = pd.DataFrame({"dataset": "d", "classifier": "LR", "method": "ENIR",
    ...                       "repeat": 0, "fold": [0, 1, 2], "measure": "ECE",
    ...                       "value": [0.1, 0.2, 0.3]})
    >>> fold_summary(folds)[["value", "sd", "n_folds"]].round(3).values.tolist()
    [[0.2, 0.1, 3.0]]
    """
    keys = ["dataset", "classifier", "method", "measure"]
    grouped = results.groupby(keys, sort=True)["value"]
    return grouped.agg(value="mean", sd="std", n_folds="count").reset_index()
