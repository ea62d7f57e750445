"""Statistics for comparing methods over many data sets (Demšar, JMLR 2006).

:func:`dataset_means` reduces a protocol's tidy results to one value per data set and
method; :func:`average_ranks` ranks the methods on each data set; :func:`friedman_test`
(Friedman's chi-square with the tie correction, and Iman--Davenport's F) asks whether they
differ at all; :func:`holm_test` compares each with a control and
:func:`nemenyi_critical_difference` gives the critical difference of all pairs. Each takes
plain tables, so it applies to any comparison, not only to this package's protocols.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from calibbook._utils.optional import require
from calibbook._utils.params import Integral, Interval, Real, validate_params
from calibbook.experiments import HIGHER_IS_BETTER

__all__ = [
    "FriedmanResult",
    "average_ranks",
    "dataset_means",
    "friedman_test",
    "holm_test",
    "nemenyi_critical_difference",
]


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
    pd = require("pandas", "experiments")
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
    """Friedman test on average ranks (Demšar 2006, Sec. 3.2.2): :func:`friedman_test`'s result.

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


@validate_params({"n_datasets": [None, Interval(Integral, 2, None)]})
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
    n_datasets : int, optional
        Needed (only) when average ranks are given; at least 2.
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
        R = average_ranks(
            table_or_ranks, higher_is_better=higher_is_better, measure=measure
        ).to_numpy()
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
    if k < 2 or N < 2:  # the table's shape (n_datasets was checked when given)
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


#: ``alpha`` of the tests: a significance level.
_ALPHA = [Interval(Real, 0.0, 1.0, closed="neither")]


@validate_params({"n_datasets": [Interval(Integral, 1, None)], "control": [str], "alpha": _ALPHA})
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
        N, the number of data sets the ranks were averaged over, at least 1.
    control : str
        The control method (for example ``"ENIR"``).
    alpha : float, default=0.05
        Family-wise significance level, in (0, 1).

    Returns
    -------
    pandas.DataFrame
        One row per non-control method in the order of testing (increasing p),
        columns ``average_rank, z, p_value, threshold, p_adjusted, reject,
        control_better``. ``z > 0`` means the control has the better (lower) rank.

    Raises
    ------
    ValueError
        If ``control`` is not among the methods, or a parameter is outside its range.

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
    pd = require("pandas", "experiments")
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
    scaled = df["p_value"].to_numpy() * (m - np.arange(m))
    df["p_adjusted"] = np.minimum(1.0, np.maximum.accumulate(scaled))
    below = df["p_value"].to_numpy() < df["threshold"].to_numpy()
    df["reject"] = np.logical_and.accumulate(below) if m else below
    df["control_better"] = df["z"] > 0
    df.index.name = "method"
    return df


@validate_params(
    {
        "k": [Interval(Integral, 2, None)],
        "n_datasets": [Interval(Integral, 1, None)],
        "alpha": _ALPHA,
    }
)
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
        Significance level, in (0, 1).

    Returns
    -------
    float
        Two methods differ significantly when their average ranks differ by at
        least this much.

    Raises
    ------
    ValueError
        If ``k < 2``, ``n_datasets < 1`` or ``alpha`` is not in (0, 1).

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
    q = studentized_range.ppf(1.0 - alpha, k, np.inf) / np.sqrt(2.0)
    return float(q * np.sqrt(k * (k + 1) / (6.0 * N)))
