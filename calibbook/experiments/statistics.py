"""Statistics for comparing methods over many data sets (Demšar, JMLR 2006).

:func:`dataset_means` reduces a protocol's tidy results to one value per data set and
method; :func:`average_ranks` ranks the methods on each data set; :func:`friedman_test`
(Friedman's chi-square with the tie correction, and Iman--Davenport's F) asks whether they
differ at all; :func:`holm_test` compares each with a control fixed in advance and
:func:`nemenyi_critical_difference` gives the critical difference of all pairs, with the
standard error of :func:`rank_difference_se` where the table has ties. :func:`best_group`
keeps the methods that no test separates from the best-ranked one, and
:func:`group_exclusion_rate` measures by simulation how often it drops a method tied with the
best. Each takes plain tables, so it applies to any comparison, not only to this package's
protocols.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from calibbook._utils.optional import require
from calibbook._utils.params import (
    Choices,
    Integral,
    Interval,
    Options,
    Real,
    check_random_state,
    validate_params,
)
from calibbook.experiments import HIGHER_IS_BETTER

__all__ = [
    "FriedmanResult",
    "average_ranks",
    "best_group",
    "dataset_means",
    "friedman_test",
    "group_exclusion_rate",
    "holm_test",
    "nemenyi_critical_difference",
    "rank_difference_se",
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
    ...         {"a": (0.30, 0.32, 0.35), "b": (0.20, 0.25, 0.21),
    ...          "c": (0.40, 0.41, 0.45)}.items()
    ...         for m, v in zip(["ENIR", "BBQ", "raw"], vals)]
    >>> results = pd.DataFrame(rows, columns=[
    ...     "dataset", "classifier", "method", "repeat",
    ...     "fold", "measure", "value"])
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


def _midrank_variances(ranks):
    """Variance of each data set's mid-ranks, ``(..., N, k) -> (..., N)``.

    The mid-ranks of ``k`` values always average ``(k + 1) / 2``; they are multiples of 1/2,
    so the sum of squares is exact and a data set that ties every method gives exactly 0.
    """
    k = ranks.shape[-1]
    return np.sum((ranks - (k + 1) / 2.0) ** 2, axis=-1) / k


def _rank_se(ranks):
    """Tie-corrected standard error of a difference of two average ranks, ``(..., N, k)``."""
    n, k = ranks.shape[-2:]
    total = np.sum(_midrank_variances(ranks), axis=-1)
    return np.sqrt(2.0 * k / (k - 1.0) * total) / n


def _ranks_of(table, higher_is_better, measure):
    """Per-data-set ranks of a table, as an array, after the checks every test needs."""
    ranks = average_ranks(
        table, higher_is_better=higher_is_better, measure=measure, return_ranks=True
    )[1]
    if ranks.shape[0] < 2 or ranks.shape[1] < 2:
        raise ValueError("need at least 2 methods and 2 data sets")
    return ranks


def rank_difference_se(table, *, higher_is_better=None, measure=None):
    """Standard error of the difference of two methods' average ranks, corrected for ties.

    Under the null hypothesis that the methods are exchangeable on every data set, the
    ``k`` (mid-)ranks of data set ``i`` are a random permutation of themselves. A random
    permutation of ``k`` numbers with variance :math:`s_i^2` gives two of its entries the
    covariance :math:`-s_i^2/(k-1)`, so the difference of two methods' ranks has variance
    :math:`2 s_i^2 + 2 s_i^2/(k-1) = \\tfrac{2k}{k-1} s_i^2`. Data sets are independent and
    the average ranks divide by N:

    .. math::
        \\operatorname{se}(R_a - R_b) = \\frac{1}{N}
        \\sqrt{\\frac{2k}{k-1} \\sum_{i=1}^N s_i^2}.

    Without ties :math:`s_i^2 = (k^2 - 1)/12` and this is Demšar's
    :math:`\\sqrt{k(k+1)/(6N)}`. A tie group of size ``t`` lowers :math:`s_i^2` by
    :math:`(t^3 - t)/(12k)`, so the result is Demšar's value times :math:`\\sqrt{C}`, with
    ``C`` the tie correction of :func:`friedman_test`: the same correction, and
    :math:`\\chi^2_F = \\sum_j (R_j - \\tfrac{k+1}{2})^2 / (\\operatorname{se}^2/2)`.

    Parameters
    ----------
    table : pandas.DataFrame or array-like of shape (n_datasets, n_methods)
        One row per data set, one column per method (the values, ranked here).
    higher_is_better, measure
        Direction, as in :func:`average_ranks`.

    Returns
    -------
    float
        The standard error; 0 when every data set ties every method.

    Raises
    ------
    ValueError
        If the table holds NaN or has fewer than 2 methods or 2 data sets.

    References
    ----------
    Demšar, "Statistical comparisons of classifiers over multiple data sets",
    JMLR 7 (2006), 1-30. Section 3.2.2 (the standard error without ties);
    :doc:`/book/08_comparison` uses it.

    Examples
    --------
    Without ties it is :math:`\\sqrt{k(k+1)/(6N)}`; ties make it smaller:

    >>> from calibbook.experiments import rank_difference_se
    >>> rank_difference_se([[0.1, 0.2, 0.3], [0.3, 0.1, 0.2]])
    1.0
    >>> round(rank_difference_se([[0.1, 0.2, 0.3], [0.1, 0.1, 0.2]]), 4)
    0.9354
    """
    ranks = _ranks_of(table, higher_is_better, measure)
    return float(_rank_se(ranks.to_numpy()))


@validate_params(
    {
        "n_datasets": [Interval(Integral, 1, None)],
        "control": [str],
        "alpha": _ALPHA,
        "se": [None, Interval(Real, 0.0, None, closed="neither")],
    }
)
def holm_test(average_ranks, n_datasets, control, alpha=0.05, *, se=None):
    """Holm's step-down comparisons of every method with a control (Demšar 2006, Sec. 3.2.2).

    ``z = (R_i - R_control) / se`` with ``se = sqrt(k(k+1) / (6N))`` unless given,
    two-sided p-values. The p-values are sorted increasingly, ``p_(1) <= ... <= p_(k-1)``;
    hypotheses are rejected while ``p_(i) < alpha / (k - i)``, and from the first that is
    not, none of the rest is.

    The family-wise level holds only for a control **chosen before seeing the data** (the
    method a study proposes, such as ENIR in Naeini & Cooper's tables). With the
    best-ranked method as the control, the hypotheses are chosen by the data: the smallest
    of ``k`` average ranks is biased downwards, every ``z`` is measured from it, and a
    method tied with the best is declared worse more often than ``alpha``
    (:func:`group_exclusion_rate`: six methods tied and one worse, 40 data sets without
    ties, 20,000 runs: a tied method is declared worse in 8.8% of them, standard error
    0.2%, instead of 5%). :func:`best_group` is the rule for the best-ranked method.

    Ties: the default standard error assumes none. Ties in a data set make its ranks vary
    less, so the true standard error is smaller by the factor :math:`\\sqrt{C}` of
    :func:`friedman_test` (:func:`rank_difference_se`): with the default, every ``|z|`` is
    too small by that factor and the test is conservative (``C = 0.85`` shrinks ``|z|`` by
    a factor 0.92). Pass ``se=rank_difference_se(table)`` to correct it, consistently with the
    tie-corrected Friedman statistic.

    Parameters
    ----------
    average_ranks : pandas.Series
        Average rank per method (index: method names).
    n_datasets : int
        N, the number of data sets the ranks were averaged over, at least 1.
    control : str
        The control method (for example ``"ENIR"``), fixed before looking at the results.
    alpha : float, default=0.05
        Family-wise significance level, in (0, 1).
    se : float, optional
        Standard error of a difference of two average ranks, positive; default the one
        without ties, ``sqrt(k(k+1) / (6N))``. :func:`rank_difference_se` gives the
        tie-corrected one.

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
    if se is None:
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


def _range_quantile(k, alpha):
    """Upper-alpha quantile of the studentized range of ``k`` means (infinite df) / sqrt(2)."""
    from scipy.stats import studentized_range

    return float(studentized_range.ppf(1.0 - alpha, k, np.inf) / np.sqrt(2.0))


@validate_params(
    {
        "k": [Interval(Integral, 2, None)],
        "n_datasets": [Interval(Integral, 1, None)],
        "alpha": _ALPHA,
        "se": [None, Interval(Real, 0.0, None)],
    }
)
def nemenyi_critical_difference(k, n_datasets, alpha=0.05, *, se=None):
    """Critical difference of the Nemenyi test: ``q_alpha * sqrt(k(k+1) / (6N))``.

    ``q_alpha`` is the upper-alpha quantile of the studentized range of ``k``
    means with infinite degrees of freedom, divided by sqrt(2) (Demšar 2006,
    Table 5a: 2.569 for k = 4 at alpha = 0.05). ``sqrt(k(k+1) / (6N))`` is the
    standard error of a difference of two average ranks without ties; with ties,
    pass ``se=rank_difference_se(table)``, which is smaller by the factor
    :math:`\\sqrt{C}` of :func:`friedman_test` (without it the test is conservative).

    Parameters
    ----------
    k : int
        Number of methods, at least 2.
    n_datasets : int
        Number of data sets N, at least 1.
    alpha : float, default=0.05
        Significance level, in (0, 1).
    se : float, optional
        Standard error of a difference of two average ranks, at least 0; default the one
        without ties.

    Returns
    -------
    float
        Two methods differ significantly when their average ranks differ by at
        least this much.

    Raises
    ------
    ValueError
        If ``k < 2``, ``n_datasets < 1``, ``alpha`` is not in (0, 1) or ``se < 0``.

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
    k, N = int(k), int(n_datasets)
    if se is None:
        se = np.sqrt(k * (k + 1) / (6.0 * N))
    return float(_range_quantile(k, alpha) * se)


#: The rules of :func:`best_group`: ``"nemenyi"`` is the one it recommends; the two Holm
#: rules (against the observed best) are kept to measure their error.
_GROUP_RULES = ("nemenyi", "holm", "holm-ties")


def _iman_davenport_p(ranks):
    """Iman--Davenport p-value of the tie-corrected Friedman test, ``(..., N, k) -> (...)``.

    The vectorised form of :func:`friedman_test` on a table (its tie factor ``C`` is the
    data sets' mid-rank variances over their no-ties value).
    """
    from scipy import stats

    n, k = ranks.shape[-2:]
    R = ranks.mean(axis=-2)
    C = np.sum(_midrank_variances(ranks), axis=-1) / (n * (k * k - 1.0) / 12.0)
    spread = np.sum(R**2, axis=-1) - k * (k + 1) ** 2 / 4.0
    chi2 = 12.0 * n / (k * (k + 1)) * spread / np.where(C > 0.0, C, 1.0)
    denom = n * (k - 1) - chi2
    with np.errstate(divide="ignore", invalid="ignore"):
        F = np.where(denom > 0.0, chi2 * (n - 1) / denom, np.inf)
    p = stats.f.sf(F, k - 1, (k - 1) * (n - 1))  # 0 where F is infinite
    return np.where(C > 0.0, p, 1.0)


def _holm_against_best(gap, se, alpha):
    """Holm's step-down against the best-ranked method: which methods it rejects.

    ``gap`` (..., k) is each average rank minus the smallest, ``se`` (...) the standard error.
    The best (the first smallest, as after a stable sort) is the control and is not tested.
    """
    from scipy import stats

    k = gap.shape[-1]
    with np.errstate(divide="ignore", invalid="ignore"):
        z = gap / se[..., None]
    p = np.where(np.isnan(z), 1.0, 2.0 * stats.norm.sf(z))
    best = np.argmin(gap, axis=-1)[..., None]
    np.put_along_axis(p, best, np.inf, axis=-1)  # the control sorts last and is dropped
    order = np.argsort(p, axis=-1, kind="stable")[..., : k - 1]
    thresholds = alpha / (k - 1 - np.arange(k - 1))
    below = np.take_along_axis(p, order, axis=-1) < thresholds
    reject = np.zeros(gap.shape, dtype=bool)
    np.put_along_axis(reject, order, np.logical_and.accumulate(below, axis=-1), axis=-1)
    return reject


def _group_members(ranks, alpha, rule, friedman_p=None):
    """Members of the leading group, ``(..., N, k) -> (..., k)`` booleans."""
    n, k = ranks.shape[-2:]
    R = ranks.mean(axis=-2)
    gap = R - R.min(axis=-1, keepdims=True)
    if friedman_p is None:
        friedman_p = _iman_davenport_p(ranks)
    if rule == "holm":  # the former rule: no tie correction
        se = np.full(R.shape[:-1], np.sqrt(k * (k + 1) / (6.0 * n)))
    else:
        se = _rank_se(ranks)
    if rule == "nemenyi":
        out = gap < _range_quantile(k, alpha) * se[..., None]
    else:
        out = ~_holm_against_best(gap, se, alpha)
    return out | (np.asarray(friedman_p) >= alpha)[..., None]


@validate_params({"alpha": _ALPHA, "rule": [Options(*_GROUP_RULES)]})
def best_group(table, alpha=0.05, *, rule="nemenyi", higher_is_better=None, measure=None):
    """The best-ranked method and every method that no test separates from it.

    If the tie-corrected Friedman test (Iman--Davenport form, :func:`friedman_test`) does
    not reject at ``alpha``, every method is in the group. Otherwise the group is every
    method whose average rank is less than one critical difference above the best's,
    ``nemenyi_critical_difference(k, N, alpha, se=rank_difference_se(table))``: the
    all-pairs Nemenyi test of the critical-difference diagrams, with the tie-corrected
    standard error.

    Why this rule holds its level. Let :math:`\\mu_j` be the expected average rank of
    method ``j``. Nemenyi's test bounds by ``alpha`` the chance that *some* pair of
    average ranks strays from its expectation by a critical difference or more:
    :math:`P(|(R_a - R_b) - (\\mu_a - \\mu_b)| \\ge \\mathrm{CD}` for some pair
    :math:`) \\le \\alpha` (in the large-N normal approximation, with the null
    covariance of the ranks). On the complementary event, a method ``j`` tied with the
    best (:math:`\\mu_j \\le \\mu_m` for every ``m``) has
    :math:`R_j - R_m < \\mathrm{CD} + \\mu_j - \\mu_m \\le \\mathrm{CD}` against every
    method ``m``, in particular against the observed best: so the chance that one or
    more methods tied with the best leave the group is at most ``alpha``, whichever
    method the data put first. The Friedman gate only adds methods. Holm's procedure
    against the observed best has no such event behind it: its control is the smallest
    of ``k`` average ranks, chosen by the data, and each ``z`` is measured from that
    downward-biased minimum as though it were a control fixed in advance
    (:func:`group_exclusion_rate` measures both: with six methods tied and one worse on
    40 data sets without ties, 20,000 runs, Holm's rule drops a tied method in 8.8% of
    them and this one in 2.9%, standard errors 0.2% and 0.1%).

    Hsu's multiple comparisons with the best guarantee less here: their intervals cover
    with probability ``1 - alpha`` on the one-sided Dunnett event against *one* true
    best, which keeps that method in the subset; with several methods tied for the best,
    each of the others may still be dropped. Their critical value is smaller (one-sided,
    ``k - 1`` comparisons), so they would drop more methods than this rule does; the
    price of Nemenyi's joint guarantee is a larger group.

    Caveat: ranks are computed jointly, so the spread of two methods' ranks depends on
    the other methods (Benavoli et al. 2016). The critical difference uses the spread
    under the complete null; when the worse methods sit behind the tied ones, the tied
    methods' ranks spread less than that and the rule is conservative (the simulation's
    case).

    Parameters
    ----------
    table : pandas.DataFrame or array-like of shape (n_datasets, n_methods)
        One row per data set, one column per method (the values, ranked here).
    alpha : float, default=0.05
        Level of the Friedman test and of the critical difference, in (0, 1).
    rule : {"nemenyi", "holm", "holm-ties"}, default="nemenyi"
        ``"nemenyi"``: the rule above. ``"holm"``: the former rule, Holm's step-down
        (:func:`holm_test`) with the observed best as control and the standard error
        without ties. ``"holm-ties"``: the same with the tie-corrected standard error.
        The two Holm rules do not hold their level; they are here to measure that.
    higher_is_better, measure
        Direction, as in :func:`average_ranks`.

    Returns
    -------
    pandas.Series
        One boolean per method (index: the table's columns): True for the group.

    Raises
    ------
    ValueError
        If the table holds NaN or has fewer than 2 methods or 2 data sets.

    References
    ----------
    Demšar, "Statistical comparisons of classifiers over multiple data sets",
    JMLR 7 (2006), 1-30. Section 3.2.2 (Friedman, Nemenyi); Hsu, "Constrained
    simultaneous confidence intervals for multiple comparisons with the best",
    Annals of Statistics 12 (1984); Benavoli, Corani & Mangili, "Should we really use
    post-hoc tests based on mean-ranks?", JMLR 17 (2016). :doc:`/book/08_comparison`
    and :doc:`/book/which_calibrator` use it.

    Examples
    --------
    A is best on every data set, B second on all but two, C third: with k = 3 and
    N = 12 the critical difference is 0.96, B is 0.67 behind A and C 1.83 behind.

    >>> from calibbook.experiments import best_group
    >>> rows = [[0.1, 0.2, 0.3]] * 10 + [[0.1, 0.05, 0.3]] * 2
    >>> best_group(rows).tolist()
    [True, True, False]
    """
    pd = require("pandas", "experiments")

    ranks = _ranks_of(table, higher_is_better, measure)
    p = friedman_test(ranks.to_numpy(), higher_is_better=False).F_pvalue
    members = _group_members(ranks.to_numpy(), alpha, rule, friedman_p=p)
    return pd.Series(members, index=ranks.columns, name="in_group")


def _simulated_ranks(rng, runs, n_datasets, n_methods, n_tied, shift, ties):
    """Ranks of ``runs`` simulated tables: N(0, 1) values, the untied methods ``shift`` worse."""
    from scipy.stats import rankdata

    values = rng.standard_normal((runs, n_datasets, n_methods))
    values[..., n_tied:] += shift
    if ties:
        values = np.round(values)
    return rankdata(values, axis=-1)


@validate_params(
    {
        "rule": [Choices(*_GROUP_RULES)],
        "n_datasets": [Interval(Integral, 2, None)],
        "ties": ["boolean"],
        "n_methods": [Interval(Integral, 2, None)],
        "n_tied": [Interval(Integral, 1, None)],
        "shift": [Interval(Real, 0.0, None)],
        "n_runs": [Interval(Integral, 1, None)],
        "alpha": _ALPHA,
        "random_state": ["random_state"],
    }
)
def group_exclusion_rate(
    rule=_GROUP_RULES,
    *,
    n_datasets=40,
    ties=False,
    n_methods=7,
    n_tied=6,
    shift=1.0,
    n_runs=4000,
    alpha=0.05,
    random_state=0,
):
    """How often a method tied with the best leaves the leading group: a simulation.

    Each run draws a table of ``n_datasets`` data sets by ``n_methods`` methods (lower is
    better): the first ``n_tied`` methods' values are independent N(0, 1), tied for the
    best; the others' are N(``shift``, 1), worse. With ``ties``, every value is rounded to
    a whole number, so most data sets tie some methods (the tie factor ``C`` of
    :func:`friedman_test` averages about 0.86 with the defaults). Each rule of
    :func:`best_group` is applied to the same runs (the Friedman gate included), and a run
    counts as an exclusion when one or more of the tied methods is outside the group. A
    rule holds its level when the rate is at most ``alpha``.

    Parameters
    ----------
    rule : str or list of str, default=("nemenyi", "holm", "holm-ties")
        Rules of :func:`best_group` to compare.
    n_datasets : int, default=40
        Data sets per table, at least 2.
    ties : bool, default=False
        Round the values to whole numbers (ties within data sets).
    n_methods : int, default=7
        Methods per table, at least 2.
    n_tied : int, default=6
        How many are tied for the best, at least 1 and at most ``n_methods``.
    shift : float, default=1.0
        How much worse the other methods are (in standard deviations of the values), >= 0.
    n_runs : int, default=4000
        Simulated tables, at least 1.
    alpha : float, default=0.05
        Level of the rules, in (0, 1).
    random_state : int, numpy Generator or None, default=0
        Seed of the simulation.

    Returns
    -------
    pandas.DataFrame
        One row per rule, columns ``rule, n_datasets, ties, runs``, ``friedman_rejects``
        (share of runs where the Friedman test rejects), ``rate`` (share of runs where a tied
        method left the group), ``se`` (its binomial standard error) and ``worse_kept``
        (share of runs where a worse method stayed in the group: the price of the level).

    Raises
    ------
    ValueError
        If ``n_tied > n_methods`` or a parameter is outside its range.

    References
    ----------
    Demšar, "Statistical comparisons of classifiers over multiple data sets",
    JMLR 7 (2006), 1-30. Section 3.2.2; :doc:`/book/08_comparison` shows the simulation.

    Examples
    --------
    >>> from calibbook.experiments import group_exclusion_rate
    >>> out = group_exclusion_rate(["nemenyi", "holm"], n_datasets=40, n_runs=2000)
    >>> out[["rule", "rate", "se"]].round(3)
          rule   rate     se
    0  nemenyi  0.027  0.004
    1     holm  0.086  0.006
    """
    pd = require("pandas", "experiments")

    if n_tied > n_methods:
        raise ValueError(f"n_tied ({n_tied}) cannot exceed n_methods ({n_methods})")
    rules = [rule] if isinstance(rule, str) else list(rule)
    rng = check_random_state(random_state)
    chunk = 2000  # runs per batch: bounds the memory, not the result
    counts = {r: np.zeros(3) for r in rules}  # Friedman rejections, exclusions, worse kept
    for start in range(0, n_runs, chunk):
        runs = min(chunk, n_runs - start)
        ranks = _simulated_ranks(rng, runs, n_datasets, n_methods, n_tied, shift, ties)
        p = _iman_davenport_p(ranks)
        for r in rules:
            members = _group_members(ranks, alpha, r, friedman_p=p)
            counts[r] += [
                np.sum(p < alpha),
                np.sum(~members[:, :n_tied].all(axis=-1)),
                np.sum(members[:, n_tied:].any(axis=-1)),
            ]
    rows = []
    for r in rules:
        rejects, excluded, kept = counts[r] / n_runs
        se = np.sqrt(excluded * (1.0 - excluded) / n_runs)
        rows.append((r, int(n_datasets), bool(ties), int(n_runs), rejects, excluded, se, kept))
    columns = ["rule", "n_datasets", "ties", "runs", "friedman_rejects", "rate", "se"]
    return pd.DataFrame(rows, columns=[*columns, "worse_kept"])
