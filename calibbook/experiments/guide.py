"""The decision guide's recommendations, computed from a comparison's results.

:doc:`/book/which_calibrator` draws its flowchart from :func:`recommendations` applied to
``data/comparison_full.csv`` (the 40-data-set comparison of :doc:`/book/08_comparison`),
so the guide cannot drift from the data. The same functions apply to a comparison run on
other data sets with :func:`calibbook.experiments.repeated_cv_protocol`.

Every recommendation rests on average ranks over data sets (rank 1 is best), the
tie-corrected Friedman test and the all-pairs Nemenyi test (Demšar 2006): the *leading
group* is the best-ranked method and every method whose average rank is less than one
tie-corrected critical difference above the best's (:func:`calibbook.experiments.best_group`).
The chance that a method tied with the best is left out of the group is at most ``alpha``;
Holm's procedure against the observed best, used before, does not hold that level
(:func:`calibbook.experiments.group_exclusion_rate`).
"""

from __future__ import annotations

from dataclasses import dataclass

from calibbook._utils.optional import require
from calibbook.experiments import (
    average_ranks,
    best_group,
    dataset_means,
    friedman_test,
    nemenyi_critical_difference,
    rank_difference_se,
)

__all__ = [
    "FAMILIES",
    "LeadingGroup",
    "auc_changes",
    "book_recommendations",
    "constructor",
    "leading_group",
    "recommendations",
]

#: The base classifiers of the comparison and the family each stands for in the guide.
FAMILIES = {
    "LR": "linear models",
    "SVM": "SVMs",
    "NB": "naive Bayes",
    "Boost": "boosted trees",
    "RF": "forests",
    "MLP": "neural networks",
}

# the parameters that a comparison label's suffix stands for (calibbook.experiments)
_SUFFIX_PARAMS = {"logit": "logit_input=True", "elbow": 'prune="elbow"'}


@dataclass(frozen=True)
class LeadingGroup:
    """The best-ranked method on one measure and the methods not significantly worse.

    Parameters
    ----------
    measure, classifier : str
        What was ranked.
    ranks : pandas.Series
        Average rank of every method (1 is best), sorted.
    best : str
        The best-ranked method.
    group : tuple of str
        ``best`` and the methods whose average rank is less than ``critical_difference``
        above the best's, in rank order (all methods when the Friedman test does not
        reject).
    friedman_p : float
        p-value of the Iman--Davenport form of the tie-corrected Friedman test.
    n_datasets : int
        Number of data sets ranked.
    alpha : float
        The level of the tests.
    critical_difference : float
        The all-pairs Nemenyi critical difference at ``alpha``, with the tie-corrected
        standard error (:func:`calibbook.experiments.rank_difference_se`).

    References
    ----------
    Demšar, "Statistical comparisons of classifiers over multiple data sets", JMLR 7
    (2006); :doc:`/book/which_calibrator`.

    Examples
    --------
    >>> from calibbook.experiments.guide import LeadingGroup
    >>> LeadingGroup.__name__
    'LeadingGroup'
    """

    measure: str
    classifier: str
    ranks: object
    best: str
    group: tuple
    friedman_p: float
    n_datasets: int
    alpha: float = 0.05
    critical_difference: float = float("nan")

    def describe(self):
        """One line of evidence: the best method's rank, the group, the test."""
        rank = (
            f"{self.best}: {self.measure} rank {self.ranks[self.best]:.2f} of {self.ranks.size} "
            f"on {self.n_datasets} data sets"
        )
        if self.friedman_p >= self.alpha:
            return (
                f"{rank}; the Friedman test finds no significant difference among the methods "
                f"(p = {self.friedman_p:.2g})"
            )
        others = [m for m in self.group if m != self.best]
        tied = f"not separable from {', '.join(others)}" if others else "ahead of all others"
        return (
            f"{rank}; {tied} (Friedman p = {self.friedman_p:.2g}, then Nemenyi's critical "
            f"difference {self.critical_difference:.2f} at {self.alpha:g})"
        )


def constructor(method):
    """The calibbook expression that builds a method of the comparison, by its label.

    Parameters
    ----------
    method : str
        A label of :func:`calibbook.experiments.all_calibrators` or
        :func:`calibbook.experiments.variant_calibrators` (``"Beta"``,
        ``"Platt-logit"``, ``"ENIR-elbow"``, ...), or ``"none"``.

    Returns
    -------
    str
        For example ``"calibbook.PlattScaling(logit_input=True)"``; for ``"none"``,
        ``"no calibrator (the raw scores)"``.

    Raises
    ------
    ValueError
        If the label or its suffix is unknown.

    References
    ----------
    :doc:`/book/which_calibrator` names the class in each of its boxes.

    Examples
    --------
    >>> from calibbook.experiments.guide import constructor
    >>> constructor("Beta"), constructor("Quad-logit")
    ('calibbook.BetaCalibration()', 'calibbook.QuadraticScaling(logit_input=True)')
    """
    from calibbook.registry import calibrator_entry

    if method == "none":
        return "no calibrator (the raw scores)"
    label, _, suffix = method.partition("-")
    # a label with an unknown suffix is an unknown name: the registry's lookup says so
    entry = calibrator_entry(label if suffix in ("", *_SUFFIX_PARAMS) else method)
    return f"calibbook.{entry.cls.__name__}({_SUFFIX_PARAMS.get(suffix, '')})"


def leading_group(summary, classifier, measure, methods, *, datasets=None, alpha=0.05):
    """Rank ``methods`` on one measure and find the group that leads.

    Parameters
    ----------
    summary : pandas.DataFrame
        Fold results or their :func:`~calibbook.experiments.fold_summary` (columns
        ``dataset, classifier, method, measure, value``).
    classifier, measure : str
        Which results to rank.
    methods : list of str
        The methods to rank.
    datasets : collection of str, optional
        Restrict the ranking to these data sets.
    alpha : float, default=0.05
        Level of the Friedman test and of the critical difference.

    Returns
    -------
    LeadingGroup

    Raises
    ------
    ValueError
        If fewer than two data sets remain.

    Notes
    -----
    The group is :func:`calibbook.experiments.best_group`: after the Friedman gate, the
    methods less than one all-pairs Nemenyi critical difference behind the best. Nemenyi's
    test bounds the chance that any pair of average ranks strays from its expectation by
    a critical difference, so a method tied with the best leaves the group with
    probability at most ``alpha`` (in the normal approximation), whichever method the data
    rank first. Holm's procedure with the observed best as control, the former rule, does
    not: its control is picked by the data (a tied method dropped in 8.8% of 20,000 runs
    instead of 5%, :func:`calibbook.experiments.group_exclusion_rate` on 40 data sets
    without ties). The
    standard error is corrected for ties, as the Friedman statistic is.

    References
    ----------
    Demšar, JMLR 7 (2006), Section 3.2.2 (Friedman, Nemenyi);
    :doc:`/book/08_comparison` derives both tests.

    Examples
    --------
    >>> import pandas as pd
    >>> from calibbook.experiments.guide import leading_group
    >>> rows = [(f"d{i}", "LR", m, "RMSE", v + 0.01 * i) for i in range(12)
    ...         for m, v in [("A", 0.1), ("B", 0.2), ("C", 0.3)]]
    >>> summary = pd.DataFrame(
    ...     rows, columns=["dataset", "classifier", "method", "measure", "value"]
    ... )
    >>> g = leading_group(summary, "LR", "RMSE", ["A", "B", "C"])
    >>> g.best, g.group, round(float(g.ranks["A"]), 2)
    ('A', ('A',), 1.0)
    """
    table = dataset_means(summary, classifier, measure, methods)
    if datasets is not None:
        table = table[table.index.isin(list(datasets))]
    if len(table) < 2:
        raise ValueError(
            f"need at least 2 data sets to rank {measure} for {classifier}; got {len(table)}"
        )
    ranks = average_ranks(table, measure=measure).sort_values(kind="stable")
    best = str(ranks.index[0])
    test = friedman_test(table, measure=measure)
    members = best_group(table, alpha, measure=measure)
    group = tuple(m for m in ranks.index if members[m])
    se = rank_difference_se(table, measure=measure)
    cd = nemenyi_critical_difference(ranks.size, len(table), alpha, se=se)
    return LeadingGroup(
        measure, classifier, ranks, best, group, float(test.F_pvalue), len(table), alpha, cd
    )


def auc_changes(summary, methods, *, tol=1e-9):
    """How often each method's AUC differs from the raw scores' AUC.

    A strictly increasing map keeps the AUC of every test fold, so its mean AUC equals
    the raw one in every data set and classifier; a map that merges scores into ties or
    is not monotone (a ratio of densities) changes it.

    Parameters
    ----------
    summary : pandas.DataFrame
        Fold results or their summary, with a ``raw`` method.
    methods : list of str
    tol : float, default=1e-9
        Differences up to this are rounding.

    Returns
    -------
    pandas.DataFrame
        Index: methods; columns ``cells`` (data set x classifier cells compared),
        ``changed`` (cells where the AUC moved), ``largest_gain`` and ``largest_loss``.

    Notes
    -----
    :doc:`/book/08_comparison`, section on ranking.

    Examples
    --------
    >>> import pandas as pd
    >>> from calibbook.experiments.guide import auc_changes
    >>> rows = [("d", "LR", "raw", "AUC", 0.8), ("d", "LR", "A", "AUC", 0.8),
    ...         ("d", "LR", "B", "AUC", 0.75)]
    >>> summary = pd.DataFrame(
    ...     rows, columns=["dataset", "classifier", "method", "measure", "value"]
    ... )
    >>> auc_changes(summary, ["A", "B"])["changed"].tolist()
    [0, 1]
    """
    pd = require("pandas", "experiments")

    auc = summary[summary["measure"] == "AUC"]
    table = auc.pivot_table(
        index=["dataset", "classifier"], columns="method", values="value", aggfunc="mean"
    )
    diff = table[list(methods)].sub(table["raw"], axis=0)
    return pd.DataFrame(
        {
            "cells": diff.notna().sum(),
            "changed": (diff.abs() > tol).sum(),
            "largest_gain": diff.max().clip(lower=0.0),
            "largest_loss": (-diff.min()).clip(lower=0.0),
        }
    )


def _ranking_keeper(summary, clf, measure, methods, everyone, alpha, auc_tol):
    """(method, evidence) of the "keep the ranking" situation for one classifier."""
    moved = auc_changes(summary[summary["classifier"] == clf], everyone)
    moved["largest_move"] = moved[["largest_gain", "largest_loss"]].max(axis=1)
    keepers = [m for m in everyone if moved.loc[m, "largest_move"] <= auc_tol]
    if not keepers:
        least = moved["largest_move"].min()
        return "none", f"every method moved the mean AUC by {least:.2g} or more somewhere"
    ranked_with = list(methods) + [m for m in keepers if m not in methods]
    ranks = leading_group(summary, clf, measure, ranked_with, alpha=alpha).ranks
    best = min(keepers, key=lambda m: ranks[m])
    return best, (
        f"{best}: {measure} rank {ranks[best]:.2f} of {ranks.size}; mean AUC within "
        f"{moved.loc[best, 'largest_move'] + 0.0:.2g} of the raw scores' on all "
        f"{int(moved.loc[best, 'cells'])} data sets"
    )


def recommendations(
    summary,
    methods,
    calibration_sizes,
    fit_seconds,
    *,
    classifiers=("LR", "SVM", "NB"),
    measure="LogLoss",
    small=1000,
    alpha=0.05,
    auc_tol=0.005,
):
    """The guide's recommendation for each situation and base classifier, with its evidence.

    Every situation but the last ranks the methods on ``measure``, a proper score (the
    log-loss by default; the Brier score, or the RMSE of the ENIR paper, also work).
    Situations (rows of the result):

    * ``keep the ranking``: among *all* the methods of ``summary`` (not only
      ``methods``: a variant may keep the ranking where the recommended form does not),
      those whose mean AUC never moved by more than ``auc_tol`` on any data set for this
      classifier (:func:`auc_changes`), the best ranked when ranked together with
      ``methods``; "none" if no method qualifies.
    * ``small calibration sets``: the leading group on data sets whose calibration set
      has fewer than ``small`` cases.
    * ``larger calibration sets``: the same on the other data sets.
    * ``tight time budget``: the fastest fit (``fit_seconds``) within the leading group
      on all data sets.
    * ``reliable bins``: the ECE leading group (equal-width bins) on all data sets.

    Parameters
    ----------
    summary : pandas.DataFrame
        Fold results or their summary, including the ``raw`` method's AUC.
    methods : list of str
        The methods to choose from.
    calibration_sizes : mapping
        Data set -> number of cases the calibrators were fitted on; or base classifier
        -> such a mapping, where the classifiers were calibrated on sets of different
        sizes (a held-out split for some of them).
    fit_seconds : mapping
        Method -> a fit time (for example at a million scores), to break ties on speed.
    classifiers : sequence of str
    measure : str, default="LogLoss"
        The measure that ranks the methods.
    small : int, default=1000
    alpha : float, default=0.05
    auc_tol : float, default=0.005
        How far a method's mean AUC may move in a cell and still count as keeping the
        ranking (a sigmoid that saturates to 1.0 in floating point merges a few scores).

    Returns
    -------
    pandas.DataFrame
        Index: situations; columns: a ``(classifier, "method")`` and a
        ``(classifier, "evidence")`` column per classifier.

    Notes
    -----
    :doc:`/book/which_calibrator` displays the result on the 40 data sets.

    Examples
    --------
    >>> import pandas as pd
    >>> from calibbook.experiments.guide import recommendations
    >>> rows = [(f"d{i}", "LR", m, meas, v + 0.01 * i) for i in range(12)
    ...         for m, v in [("A", 0.1), ("B", 0.2), ("raw", 0.3)]
    ...         for meas in ("LogLoss", "ECE", "AUC")]
    >>> summary = pd.DataFrame(
    ...     rows, columns=["dataset", "classifier", "method", "measure", "value"]
    ... )
    >>> sizes = {f"d{i}": 500 if i < 6 else 5000 for i in range(12)}
    >>> times = {"A": 2.0, "B": 0.1}
    >>> recs = recommendations(summary, ["A", "B"], sizes, times,
    ...                        classifiers=["LR"])
    >>> recs[("LR", "method")].tolist()
    ['none', 'A', 'A', 'A', 'A']
    """
    pd = require("pandas", "experiments")

    everyone = [m for m in summary["method"].unique() if m != "raw"]
    out = {}
    for clf in classifiers:
        sizes = calibration_sizes.get(clf, calibration_sizes)
        small_sets = [d for d, n in sizes.items() if n < small]
        large_sets = [d for d, n in sizes.items() if n >= small]
        overall = leading_group(summary, clf, measure, methods, alpha=alpha)
        cells = {
            "keep the ranking": _ranking_keeper(
                summary, clf, measure, methods, everyone, alpha, auc_tol
            )
        }
        for label, sets, bound in (
            ("small calibration sets", small_sets, f"fewer than {small}"),
            ("larger calibration sets", large_sets, f"at least {small}"),
        ):
            g = leading_group(summary, clf, measure, methods, datasets=sets, alpha=alpha)
            cells[label] = (g.best, f"{g.describe()}; calibration sets of {bound} cases")
        fastest = min(overall.group, key=lambda m: fit_seconds[m])
        cells["tight time budget"] = (
            fastest,
            f"fastest fit ({fit_seconds[fastest]:.3g} s at 1e6 scores) in the {measure} "
            f"leading group {', '.join(overall.group)}",
        )
        ece = leading_group(summary, clf, "ECE", methods, alpha=alpha)
        cells["reliable bins"] = (ece.best, ece.describe())
        out[(clf, "method")] = {k: v[0] for k, v in cells.items()}
        out[(clf, "evidence")] = {k: v[1] for k, v in cells.items()}
    frame = pd.DataFrame(out)
    frame.columns = pd.MultiIndex.from_tuples(frame.columns)
    return frame


def book_recommendations(comparison_csv, speed_csv, *, measure="LogLoss", small=1000, alpha=0.05):
    """:func:`recommendations` for the book's files: the full comparison and the speed table.

    The candidates are :func:`calibbook.experiments.recommended_calibrators`; the base
    classifiers are those of ``comparison_csv``, in the order of :data:`FAMILIES`. A
    classifier calibrated on its training folds had nine tenths of each data set's rows
    (:func:`calibbook.datasets.benchmark_table`) to calibrate on; one calibrated on a
    held-out split had that split of the nine tenths, as the provenance file beside the
    CSV (``<csv>.json``, key ``protocol``) records. A method's fit time is that of
    ``speed_csv`` at a million scores: its own where the file times it
    (``Platt-logit``), else its base method's (a ``-logit`` variant without a row takes
    the time of the method it wraps; the logit costs little beside the fits).

    Parameters
    ----------
    comparison_csv, speed_csv : path-like
        ``data/comparison_full.csv`` and ``data/speed_scaling.csv`` (or files of the same form).
    measure, small, alpha
        As in :func:`recommendations`.

    Returns
    -------
    pandas.DataFrame
        As :func:`recommendations`.

    Notes
    -----
    :doc:`/book/which_calibrator` displays it; ``tests/book/test_guide_page.py`` checks that
    the page shows what the files imply.

    Examples
    --------
    >>> from pathlib import Path
    >>> import calibbook
    >>> from calibbook.experiments.guide import book_recommendations
    >>> data = Path(calibbook.__file__).resolve().parents[1] / "data"
    >>> recs = book_recommendations(  # doctest: +SKIP
    ...     data / "comparison_full.csv", data / "speed_scaling.csv"
    ... )
    >>> list(recs.index)  # doctest: +SKIP, +NORMALIZE_WHITESPACE
    ['keep the ranking', 'small calibration sets', 'larger calibration sets',
     'tight time budget', 'reliable bins']
    """
    import json
    from pathlib import Path

    pd = require("pandas", "experiments")

    from calibbook.datasets import benchmark_table
    from calibbook.experiments import recommended_calibrators

    full = pd.read_csv(comparison_csv)
    speed = pd.read_csv(speed_csv).set_index(["method", "n"])
    provenance = Path(comparison_csv).with_suffix(".json")
    protocols = (
        json.loads(provenance.read_text()).get("protocol", {}) if provenance.exists() else {}
    )
    methods = list(recommended_calibrators())
    classifiers = [c for c in FAMILIES if c in set(full["classifier"])]
    rows = {row.name: 0.9 * row.n_samples for row in benchmark_table().itertuples()}
    sizes = {}
    for clf in classifiers:
        # "holdout_calibration (calib_size=0.3333)": that share of the training folds
        share = protocols.get(clf, "").partition("calib_size=")[2].rstrip(")")
        sizes[clf] = {d: int(n * float(share or 1.0)) for d, n in rows.items()}
    suffix = "-logit"
    fit_seconds = {
        m: float(
            speed.loc[(m if (m, 10**6) in speed.index else m.removesuffix(suffix), 10**6), "fit_s"]
        )
        for m in methods
    }
    return recommendations(
        full,
        methods,
        sizes,
        fit_seconds,
        classifiers=classifiers,
        measure=measure,
        small=small,
        alpha=alpha,
    )
