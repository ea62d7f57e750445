"""The decision guide's rules (calibbook.experiments.guide); tests/book/test_guide_page.py checks
its page against the data."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from calibbook import experiments as ex
from calibbook.experiments.guide import auc_changes, leading_group, recommendations

COLUMNS = ["dataset", "classifier", "method", "measure", "value"]


def summary_from(table, measure="RMSE", classifier="LR"):
    """Long-format summary from a data sets x methods table."""
    long = table.stack().rename("value").reset_index()
    long.columns = ["dataset", "method", "value"]
    long["classifier"], long["measure"] = classifier, measure
    return long[COLUMNS]


def test_leading_group_is_nemenyi_against_the_best_by_hand():
    # A best everywhere, B second on 20 of 24 data sets, C third: k = 3, N = 24
    rng = np.random.default_rng(0)
    n = 24
    a = rng.uniform(0.1, 0.2, n)
    b = a + np.where(np.arange(n) < 20, 0.05, -0.05)
    c = a + 0.1
    table = pd.DataFrame({"A": a, "B": b, "C": c}, index=[f"d{i}" for i in range(n)])
    g = leading_group(summary_from(table), "LR", "RMSE", ["A", "B", "C"])
    ranks = stats.rankdata(table.to_numpy(), axis=1).mean(axis=0)
    assert g.best == "A" and g.ranks["A"] == pytest.approx(ranks[0])
    # no ties: the critical difference is q * sqrt(k(k+1) / (6N)), q = 2.343 for k = 3
    cd = 2.343 * np.sqrt(3 * 4 / (6 * n))
    assert g.critical_difference == pytest.approx(cd, abs=1e-3)
    # B ranks 2 on 20 data sets and 1 on 4, A the reverse: B is (44 - 28) / 24 = 0.67 behind,
    # within 0.68; C is 2 behind. The group is A and B (Holm against the observed best, the
    # former rule, separated B: z = 0.67 / sqrt(12 / 144) = 2.31, p = 0.021 < 0.05 / 2)
    assert ranks[1] - ranks[0] == pytest.approx(16 / 24) and ranks[1] - ranks[0] < cd
    assert g.group == ("A", "B")
    assert ex.best_group(table, rule="holm").tolist() == [True, False, False]
    assert g.friedman_p == pytest.approx(ex.friedman_test(table).F_pvalue)
    assert "then Nemenyi's critical difference 0.68 at 0.05" in g.describe()
    assert "not separable from B" in g.describe()


def test_leading_group_corrects_the_critical_difference_for_ties():
    # C ties A on half the data sets: the tie-corrected critical difference is smaller than
    # Demšar's, by the square root of the Friedman tie factor
    n = 30
    a = np.linspace(0.1, 0.2, n)
    table = pd.DataFrame(
        {"A": a, "B": a + 0.1, "C": a + np.where(np.arange(n) % 2 == 0, 0.0, 0.05)},
        index=[f"d{i}" for i in range(n)],
    )
    g = leading_group(summary_from(table), "LR", "RMSE", ["A", "B", "C"])
    C = 1 - (n // 2) * (2**3 - 2) / (n * 3 * 8)
    plain = ex.nemenyi_critical_difference(3, n)
    assert g.critical_difference == pytest.approx(plain * np.sqrt(C), rel=1e-12)
    assert g.critical_difference < plain
    assert g.group == tuple(m for m, v in ex.best_group(table).items() if v)


def test_leading_group_keeps_everyone_when_friedman_does_not_reject():
    rng = np.random.default_rng(1)
    table = pd.DataFrame(
        rng.uniform(size=(10, 4)), columns=list("ABCD"), index=[f"d{i}" for i in range(10)]
    )
    g = leading_group(summary_from(table), "LR", "RMSE", list("ABCD"))
    assert g.friedman_p == pytest.approx(ex.friedman_test(table).F_pvalue) and g.friedman_p >= 0.05
    assert set(g.group) == set("ABCD")
    assert "no significant difference" in g.describe()
    with pytest.raises(ValueError, match="at least 2 data sets"):
        leading_group(summary_from(table), "LR", "RMSE", list("ABCD"), datasets=["d0"])


def test_auc_changes_counts_cells_and_extremes():
    rows = [
        ("d1", "LR", "raw", "AUC", 0.80),
        ("d1", "LR", "A", "AUC", 0.80),
        ("d1", "LR", "B", "AUC", 0.85),
        ("d2", "LR", "raw", "AUC", 0.70),
        ("d2", "LR", "A", "AUC", 0.70 + 1e-12),
        ("d2", "LR", "B", "AUC", 0.60),
    ]
    out = auc_changes(pd.DataFrame(rows, columns=COLUMNS), ["A", "B"])
    assert out.loc["A"].tolist() == [2, 0, pytest.approx(1e-12), 0.0]
    assert out.loc["B", "changed"] == 2
    assert out.loc["B", "largest_gain"] == pytest.approx(0.05) and out.loc[
        "B", "largest_loss"
    ] == pytest.approx(0.1)


def test_recommendations_follow_the_rules():
    # A is best on small sets, B on large ones; C keeps the AUC; D is the fastest;
    # E has the best ECE
    rng = np.random.default_rng(2)
    rows = []
    for i in range(30):
        small = i < 15
        base = rng.uniform(0.2, 0.3)
        rmse = {
            "A": base - (0.05 if small else 0.0),
            "B": base - (0.0 if small else 0.05),
            "C": base + 0.01,
            "D": base + 0.02,
            "E": base + 0.03,
        }
        ece = {"A": 0.05, "B": 0.05, "C": 0.06, "D": 0.07, "E": 0.01}
        for m in rmse:
            rows.append((f"d{i}", "LR", m, "RMSE", rmse[m] + rng.normal(0, 1e-4)))
            rows.append((f"d{i}", "LR", m, "ECE", ece[m] + rng.normal(0, 1e-3)))
            rows.append((f"d{i}", "LR", m, "AUC", 0.8 if m == "C" else 0.8 - 0.01 * (1 + i % 3)))
        rows.append((f"d{i}", "LR", "raw", "AUC", 0.8))
    summary = pd.DataFrame(rows, columns=COLUMNS)
    sizes = {f"d{i}": 300 if i < 15 else 3000 for i in range(30)}
    seconds = {"A": 1.0, "B": 2.0, "C": 0.5, "D": 0.01, "E": 0.2}
    recs = recommendations(
        summary, list("ABCDE"), sizes, seconds, classifiers=["LR"], measure="RMSE"
    )
    got = recs[("LR", "method")]
    assert got["keep the ranking"] == "C"
    assert got["small calibration sets"] == "A"
    assert got["larger calibration sets"] == "B"
    assert got["reliable bins"] == "E"
    # on all 30 data sets A and B tie at the top; the faster of the leading group wins
    assert got["tight time budget"] == "A"
    assert "A" in recs.loc["tight time budget", ("LR", "evidence")]
