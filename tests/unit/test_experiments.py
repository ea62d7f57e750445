"""Tests of calibbook.experiments: Demšar's statistics, the protocols and the tables."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from sklearn.base import BaseEstimator

from calibbook import experiments as ex
from calibbook import registry
from calibbook._utils.params import InvalidParameterError
from calibbook.calibrators.isotonic import IsotonicCalibration
from calibbook.calibrators.platt import PlattScaling
from calibbook.experiments import _cache, protocols, statistics, tables
from tests._support.data import tiny as _tiny


# ---------------------------------------------------------------------------
# statistics
# ---------------------------------------------------------------------------
def test_average_ranks_direction_and_ties():
    t = pd.DataFrame({"a": [0.1, 0.2, 0.3], "b": [0.2, 0.2, 0.1], "c": [0.3, 0.1, 0.3]})
    r_err, ranks = ex.average_ranks(t, return_ranks=True)
    # row 2: b and c tie for rank 1.5 ... row 1: a=b=0.2 tie for 2.5
    assert ranks.loc[0].tolist() == [1.0, 2.0, 3.0]
    assert ranks.loc[1].tolist() == [2.5, 2.5, 1.0]
    assert ranks.loc[2].tolist() == [2.5, 1.0, 2.5]
    np.testing.assert_allclose(r_err, [2.0, 11 / 6, 6.5 / 3])
    r_auc = ex.average_ranks(t, measure="AUC")  # higher is better: reversed
    np.testing.assert_allclose(r_auc, 4 - r_err)
    np.testing.assert_allclose(ex.average_ranks(t, higher_is_better=True), r_auc)
    # each row's ranks sum to k(k+1)/2
    assert np.allclose(ranks.sum(axis=1), 6)


def test_average_ranks_rejects_nan():
    with pytest.raises(ValueError, match="NaN"):
        ex.average_ranks([[0.1, np.nan], [0.2, 0.3]])


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_friedman_matches_scipy_without_ties(seed):
    rng = np.random.default_rng(seed)
    table = rng.normal(size=(12, 4)) + np.array([0.0, 0.3, 0.6, 0.1])
    res = ex.friedman_test(table)
    ref = stats.friedmanchisquare(*table.T)
    assert res.chi2 == pytest.approx(ref.statistic, rel=1e-12)
    assert res.chi2_pvalue == pytest.approx(ref.pvalue, rel=1e-10)
    # Iman-Davenport from its definition
    N, k = table.shape
    F = (N - 1) * res.chi2 / (N * (k - 1) - res.chi2)
    assert res.F == pytest.approx(F)
    assert res.F_pvalue == pytest.approx(stats.f.sf(F, k - 1, (k - 1) * (N - 1)))
    # direction does not change the statistic's distributional meaning, only the ranks
    assert ex.friedman_test(-table).chi2 == pytest.approx(res.chi2)


@settings(max_examples=200, deadline=None)
@given(
    st.integers(2, 15).flatmap(
        lambda n: st.integers(2, 7).flatmap(
            lambda k: st.lists(
                st.lists(st.integers(0, 3), min_size=k, max_size=k), min_size=n, max_size=n
            )
        )
    )
)
def test_friedman_matches_scipy_with_ties(rows):
    # small integer tables are full of ties; scipy applies the tie correction
    table = np.array(rows, dtype=float)
    if all(len(set(r)) == 1 for r in rows):  # nothing to rank anywhere: scipy divides by 0
        res = ex.friedman_test(table)
        assert (res.chi2, res.chi2_pvalue, res.F_pvalue) == (0.0, 1.0, 1.0)
        return
    ref = stats.friedmanchisquare(*table.T) if table.shape[1] >= 3 else None
    res = ex.friedman_test(table)
    if ref is not None:
        assert res.chi2 == pytest.approx(ref.statistic, rel=1e-10, abs=1e-12)
        assert res.chi2_pvalue == pytest.approx(ref.pvalue, rel=1e-8, abs=1e-14)
    # the corrected statistic from its definition: chi2_uncorrected / C
    N, k = table.shape
    R = ex.average_ranks(table).to_numpy()
    raw = 12 * N / (k * (k + 1)) * (np.sum(R**2) - k * (k + 1) ** 2 / 4)
    ties = sum(np.sum(c**3 - c) for c in (np.unique(r, return_counts=True)[1] for r in table))
    assert res.chi2 == pytest.approx(raw / (1 - ties / (N * k * (k * k - 1))), rel=1e-12, abs=1e-12)


def test_friedman_tie_correction_on_a_tied_auc_column():
    # the situation of the AUC tables: two methods keep the raw AUC exactly, so each row
    # holds a tie; the uncorrected statistic would be smaller by the factor C
    rng = np.random.default_rng(3)
    raw = rng.uniform(0.7, 0.9, size=20)
    table = np.column_stack(
        [raw, raw, raw + rng.normal(0, 0.02, 20), raw + rng.normal(0.01, 0.02, 20)]
    )
    res = ex.friedman_test(table, measure="AUC")
    ref = stats.friedmanchisquare(*table.T)
    assert res.chi2 == pytest.approx(ref.statistic, rel=1e-12)
    uncorrected = ex.friedman_test(ex.average_ranks(table, measure="AUC").to_numpy(), n_datasets=20)
    assert res.chi2 > uncorrected.chi2 * 1.1


def test_demsar_worked_example():
    # Demšar (2006), Sec. 3.2.4: four C4.5 variants on 14 data sets
    R = np.array([3.143, 2.000, 2.893, 1.964])
    res = ex.friedman_test(R, n_datasets=14)
    # chi2_F = 12*14/(4*5) * (sum R^2 - 4*25/4) = 8.4 * 1.1048... = 9.28
    assert round(res.chi2, 2) == 9.28
    # F_F = 13 * 9.28 / (14*3 - 9.28) = 3.69
    assert round(res.F, 2) == 3.69
    # F(3, 39) critical value at 0.05 is 2.85 -> the null is rejected
    assert stats.f.ppf(0.95, 3, 39) == pytest.approx(2.85, abs=0.01)
    assert res.F_pvalue < 0.05
    # Nemenyi: q_0.05 = 2.569 for k=4, CD = 2.569 * sqrt(4*5/(6*14)) = 1.25
    assert ex.nemenyi_critical_difference(4, 14) == pytest.approx(1.25, abs=0.005)
    q = ex.nemenyi_critical_difference(4, 14) / np.sqrt(20 / 84)
    assert q == pytest.approx(2.569, abs=5e-4)
    # Demšar's Table 5a, more k
    for k, q in [(2, 1.960), (3, 2.343), (5, 2.728), (10, 3.164)]:
        cd = ex.nemenyi_critical_difference(k, 6, 0.05)
        assert cd / np.sqrt(k * (k + 1) / 36) == pytest.approx(q, abs=1e-3)


def test_friedman_needs_n_for_ranks():
    with pytest.raises(ValueError, match="n_datasets"):
        ex.friedman_test([1.5, 1.5])


def test_holm_hand_example():
    # k = 4, N = 14 -> SE = sqrt(20/84) = 0.48795
    R = pd.Series({"ctrl": 1.0, "a": 2.5, "b": 2.0, "c": 1.2})
    h = ex.holm_test(R, 14, "ctrl", alpha=0.05)
    se = np.sqrt(20 / 84)
    z = {"a": 1.5 / se, "b": 1.0 / se, "c": 0.2 / se}
    p = {m: 2 * stats.norm.sf(v) for m, v in z.items()}
    assert list(h.index) == ["a", "b", "c"]  # increasing p
    np.testing.assert_allclose(h["z"], [z["a"], z["b"], z["c"]])
    np.testing.assert_allclose(h["p_value"], [p["a"], p["b"], p["c"]])
    np.testing.assert_allclose(h["threshold"], [0.05 / 3, 0.05 / 2, 0.05])
    # p_a = 0.0021 < 0.0167 reject; p_b = 0.0404 >= 0.025 stop; c not rejected
    assert h["reject"].tolist() == [True, False, False]
    adjusted = np.maximum.accumulate([3 * p["a"], 2 * p["b"], p["c"]])
    np.testing.assert_allclose(h["p_adjusted"], adjusted)
    assert h["control_better"].all()


def test_holm_step_down_stops_at_first_acceptance():
    # the third p-value alone would pass its own threshold (0.05), but Holm stops at the second
    # SE = sqrt(20/60); p_a ~ 0.001, p_b ~ 0.030 (>= 0.05/2), p_c ~ 0.038 (< 0.05/1)
    R = pd.Series({"ctrl": 2.0, "a": 3.9, "b": 3.25, "c": 0.8})
    h = ex.holm_test(R, 10, "ctrl", alpha=0.05)
    assert list(h.index) == ["a", "b", "c"]
    assert h.loc["c", "p_value"] < 0.05 <= 2 * h.loc["b", "p_value"]
    assert h["reject"].tolist() == [True, False, False]
    assert h.loc["c", "control_better"] == False  # noqa: E712


def test_holm_takes_a_tie_corrected_standard_error():
    # the default is the no-ties sqrt(k(k+1)/(6N)); a given se replaces it in every z
    R = pd.Series({"ctrl": 1.0, "a": 2.5, "b": 2.0, "c": 1.2})
    plain = ex.holm_test(R, 14, "ctrl")
    se = np.sqrt(20 / 84) * np.sqrt(0.8)  # as with a Friedman tie factor C = 0.8
    tied = ex.holm_test(R, 14, "ctrl", se=se)
    np.testing.assert_allclose(tied["z"], plain["z"] / np.sqrt(0.8))
    assert (tied["p_value"] < plain["p_value"]).all()
    assert ex.holm_test(R, 14, "ctrl", se=np.sqrt(20 / 84)).equals(plain)


def test_holm_unknown_control():
    # a control absent from the ranks is a mismatch with the data, checked in the body
    with pytest.raises(ValueError, match="control 'zzz' is not among the methods"):
        ex.holm_test(pd.Series({"a": 1.0, "b": 2.0}), 5, "zzz")


RANKS = pd.Series({"a": 1.0, "b": 2.0})


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: ex.holm_test(RANKS, 5, "a", alpha=0.0), "alpha must be a finite number in"),
        (lambda: ex.holm_test(RANKS, 5, "a", alpha=1.0), "alpha must be a finite number in"),
        (lambda: ex.holm_test(RANKS, 0, "a"), "n_datasets must be an integer >= 1"),
        (lambda: ex.holm_test(RANKS, 5.0, "a"), "n_datasets must be an integer >= 1"),
        (lambda: ex.holm_test(RANKS, 5, None), "control must be a str"),
        (lambda: ex.friedman_test([1.5, 1.5], n_datasets=1), "n_datasets must be None or an"),
        (lambda: ex.nemenyi_critical_difference(1, 14), "k must be an integer >= 2"),
        (lambda: ex.nemenyi_critical_difference(4, 0), "n_datasets must be an integer >= 1"),
        (lambda: ex.nemenyi_critical_difference(4, 14, 1.5), "alpha must be a finite number"),
        (lambda: ex.nemenyi_critical_difference(4, 14, np.nan), "alpha must be a finite number"),
        (lambda: ex.nemenyi_critical_difference(4, 14, se=-0.1), "se must be None or a finite"),
        (lambda: ex.holm_test(RANKS, 5, "a", se=0.0), "se must be None or a finite number > 0"),
        (lambda: ex.best_group([[1, 2], [2, 1]], alpha=0.0), "alpha must be a finite number in"),
        (lambda: ex.best_group([[1, 2], [2, 1]], rule="hsu"), "rule must be one of"),
        (lambda: ex.group_exclusion_rate(n_datasets=1), "n_datasets must be an integer >= 2"),
        (lambda: ex.group_exclusion_rate(ties=1), "ties must be a boolean"),
        (lambda: ex.group_exclusion_rate(shift=-1.0), "shift must be a finite number >= 0"),
    ],
)
def test_statistics_reject_bad_parameters(call, message):
    with pytest.raises(InvalidParameterError, match=message):
        call()


# ---------------------------------------------------------------------------
# protocols
# ---------------------------------------------------------------------------
SEEN = []


class Spy(BaseEstimator):
    """A calibrator that records the size of every fit and predict."""

    def __init__(self, tag="spy"):
        self.tag = tag

    def fit(self, scores, y, sample_weight=None):
        SEEN.append(("fit", self.tag, len(scores)))
        self.mean_ = float(np.mean(y))
        return self

    def predict(self, scores):
        SEEN.append(("predict", self.tag, len(scores)))
        return np.clip(np.asarray(scores, dtype=float), 0, 1)


def test_protocol_shapes_and_training_fold_fit(tmp_path):
    SEEN.clear()
    X, y = _tiny(60)
    res = ex.repeated_cv_protocol(
        {"tiny": (X, y)},
        ["LR", "NB"],
        {"spy": Spy(), "iso": IsotonicCalibration()},
        n_splits=2,
        n_repeats=1,
        cache_dir=tmp_path,
        disable=True,
    )
    columns = ["dataset", "classifier", "method", "repeat", "fold", "measure", "value"]
    assert list(res.columns) == columns
    q = res[res.measure != "FitTime"]
    # 2 classifiers x 2 folds x 3 methods x 7 measures
    assert len(q) == 2 * 2 * 3 * len(ex.MEASURES)
    assert set(q.method) == {"raw", "spy", "iso"}
    assert len(res[res.measure == "FitTime"]) == 2 * 2 * 2
    assert set(res.fold) == {0, 1} and set(res.repeat) == {0}
    fits = [n for kind, _, n in SEEN if kind == "fit"]
    preds = [n for kind, _, n in SEEN if kind == "predict"]
    assert fits == [30] * 4  # training folds only: half of 60
    assert preds == [30] * 4  # evaluated on the test fold
    # the spy passes scores through, so its numbers equal the raw ones
    a = q[q.method == "spy"].value.to_numpy()
    b = q[q.method == "raw"].value.to_numpy()
    np.testing.assert_allclose(a, b)


def test_holdout_protocol_uses_separate_calibration_split(tmp_path):
    SEEN.clear()
    X, y = _tiny(80)
    res = ex.holdout_calibration_protocol(
        {"tiny": (X, y)},
        ["LR"],
        {"spy": Spy()},
        calib_size=0.25,
        n_splits=2,
        n_repeats=1,
        cache_dir=tmp_path,
        disable=True,
    )
    fits = [n for kind, _, n in SEEN if kind == "fit"]
    assert fits == [10, 10]  # 25% of the 40 training rows
    assert set(res.method) == {"raw", "spy"}


def test_protocol_cache_and_determinism(tmp_path):
    X, y = _tiny(60, seed=3)
    kw = dict(n_splits=2, n_repeats=2, cache_dir=tmp_path, disable=True)
    SEEN.clear()
    first = ex.repeated_cv_protocol({"tiny": (X, y)}, ["LR"], {"spy": Spy()}, **kw)
    n_calls = len(SEEN)
    assert n_calls == 8  # 4 splits x (fit + predict)
    second = ex.repeated_cv_protocol({"tiny": (X, y)}, ["LR"], {"spy": Spy()}, **kw)
    assert len(SEEN) == n_calls  # nothing recomputed
    pd.testing.assert_frame_equal(first, second)
    # a different configuration is a different cache entry
    ex.repeated_cv_protocol({"tiny": (X, y)}, ["LR"], {"spy": Spy(tag="other")}, **kw)
    assert len(SEEN) == 2 * n_calls
    # without the cache the numbers are reproduced exactly
    kw["cache_dir"] = tmp_path / "b"
    fresh = ex.repeated_cv_protocol({"tiny": (X, y)}, ["LR"], {"spy": Spy()}, **kw)
    q = lambda d: d[d.measure != "FitTime"].reset_index(drop=True)  # noqa: E731
    pd.testing.assert_frame_equal(q(first), q(fresh))


def test_cache_is_keyed_by_library_versions(tmp_path, monkeypatch):
    X, y = _tiny(60, seed=3)
    kw = dict(n_splits=2, n_repeats=1, cache_dir=tmp_path, disable=True)
    SEEN.clear()
    ex.repeated_cv_protocol({"tiny": (X, y)}, ["LR"], {"spy": Spy()}, **kw)
    n_calls = len(SEEN)
    assert n_calls > 0
    versions = _cache.software_versions()
    assert {"calibbook", "numpy", "scipy", "sklearn", "numba"} <= set(versions)
    # another scikit-learn must not be answered from the old cache
    monkeypatch.setattr(_cache, "software_versions", lambda: {**versions, "sklearn": "0.0.0"})
    ex.repeated_cv_protocol({"tiny": (X, y)}, ["LR"], {"spy": Spy()}, **kw)
    assert len(SEEN) == 2 * n_calls


def test_protocol_on_benchmark_and_tables(tmp_path):
    res = ex.repeated_cv_protocol(
        ["iris", "wine", "breast_cancer"],
        ["SVM"],
        {
            "IsoRegC": IsotonicCalibration(),
            "Platt": PlattScaling(),
            "ENIR": ex.paper_calibrators()["ENIR"],
        },
        n_splits=2,
        n_repeats=1,
        cache_dir=tmp_path,
        disable=True,
    )
    assert set(res.dataset) == {"iris", "wine", "breast_cancer"}
    assert res.value.notna().all()
    ranks, marks = ex.rank_table(res, "SVM", ["IsoRegC", "Platt", "ENIR"])
    assert ranks.shape == (5, 3) and marks.shape == (5, 3)
    np.testing.assert_allclose(ranks.sum(axis=1), 6)
    assert set(np.unique(marks.to_numpy())) <= {"", "*", "°"}
    txt = ex.format_rank_table(ranks, marks)
    assert txt.iloc[0, 0].startswith(f"{ranks.iloc[0, 0]:.3f}")
    ci = ex.improvement_ci(res, "ENIR", "raw")
    assert list(ci.index) == ["AUC", "ACC", "RMSE", "ECE", "MCE"]
    lo, hi = ci.loc["RMSE", "SVM"]
    assert lo <= hi
    ft = ex.fit_time_table(res)
    assert set(ft.index) == {"IsoRegC", "Platt", "ENIR"} and (ft.to_numpy() >= 0).all()


def _three_datasets():
    rows = [
        (d, clf, m, 0, 0, "RMSE", v * (1.1 if clf == "NB" else 1.0))
        for clf in ("LR", "NB")
        for d, vals in {"a": (0.30, 0.35), "b": (0.20, 0.21), "c": (0.40, 0.45)}.items()
        for m, v in zip(["ENIR", "raw"], vals, strict=True)
    ]
    columns = ["dataset", "classifier", "method", "repeat", "fold", "measure", "value"]
    return pd.DataFrame(rows, columns=columns)


def test_improvement_ci_level_is_the_old_name_of_confidence():
    results = _three_datasets()
    new = ex.improvement_ci(results, measures=["RMSE"], confidence=0.8)
    with pytest.warns(FutureWarning, match="'level' was renamed 'confidence'"):
        old = ex.improvement_ci(results, measures=["RMSE"], level=0.8)
    pd.testing.assert_frame_equal(old, new)
    # the Student-t interval by hand, and a narrower one at a lower confidence
    x = np.array([0.30 / 0.35, 0.20 / 0.21, 0.40 / 0.45]) - 1.0
    half = stats.t.ppf(0.9, 2) * x.std(ddof=1) / np.sqrt(3)
    np.testing.assert_allclose(new.loc["RMSE", "LR"], (x.mean() - half, x.mean() + half))
    wide = ex.improvement_ci(results, measures=["RMSE"])  # 0.95
    assert wide.loc["RMSE", "LR"][0] < new.loc["RMSE", "LR"][0]
    with pytest.raises(TypeError, match="got both 'level' and its new name 'confidence'"):
        ex.improvement_ci(results, level=0.8, confidence=0.8)


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda r: ex.improvement_ci(r, confidence=1.0), "confidence must be a finite number in"),
        (lambda r: ex.improvement_ci(r, confidence=0), "confidence must be a finite number in"),
        (lambda r: ex.improvement_ci(r, method=1), "method must be a str"),
        (lambda r: ex.improvement_ci(r, base=None), "base must be a str"),
        (lambda r: ex.rank_table(r, "LR", ["ENIR", "raw"], alpha=1.5), "alpha must be a finite"),
        (lambda r: ex.rank_table(r, "LR", ["ENIR", "raw"], control=0), "control must be a str"),
        (lambda r: ex.fit_time_table(r, statistic=3), "statistic must be a str or a callable"),
    ],
)
def test_tables_reject_bad_parameters(call, message):
    with pytest.raises(InvalidParameterError, match=message):
        call(_three_datasets())


def test_format_rank_table_decimals():
    ranks = pd.DataFrame({"ENIR": [1.45]}, index=["RMSE"])
    marks = pd.DataFrame({"ENIR": ["*"]}, index=["RMSE"])
    assert ex.format_rank_table(ranks, marks, decimals=0).iloc[0, 0] == "1*"
    for decimals in (-1, 1.5):
        with pytest.raises(InvalidParameterError, match="decimals must be an integer >= 0"):
            ex.format_rank_table(ranks, marks, decimals=decimals)


def test_classifier_scores_sigmoid_for_svm():
    X, y = _tiny(50)
    svm = ex.base_classifiers(["SVM"])["SVM"].fit(X, y)
    s = ex.classifier_scores(svm, X)
    np.testing.assert_allclose(s, 1 / (1 + np.exp(-svm.decision_function(X))))
    assert ((s >= 0) & (s <= 1)).all()
    with pytest.raises(ValueError, match=r"names must be a name or a list of names among .LR."):
        ex.base_classifiers(["XYZ"])


def test_critical_difference_diagram_draws():
    import matplotlib

    matplotlib.use("Agg", force=False)
    from calibbook.plotting import critical_difference_diagram

    ax = critical_difference_diagram({"a": 1.2, "b": 2.1, "c": 2.9, "d": 3.8}, 14)
    texts = [t.get_text() for t in ax.texts]
    assert any(t.startswith("CD = 1.25") for t in texts)
    assert any(t.startswith("a (1.20)") for t in texts)


def test_classifier_scores_do_not_overflow():
    class Decisions:
        def decision_function(self, X):
            return np.asarray(X, dtype=float)[:, 0]

    with np.errstate(all="raise"):
        s = ex.classifier_scores(Decisions(), [[-1000.0], [0.0], [1000.0]])
    np.testing.assert_array_equal(s, [0.0, 0.5, 1.0])


# ---------------------------------------------------------------------------
# the calibrators compared, from the registry
# ---------------------------------------------------------------------------
# The column order of chapter 8's tables and of its stored results (data/comparison_full.csv)
TABLE_ORDER = [
    *["IsoRegC", "BBQ", "ENIR", "Hist", "Platt", "KDE", "DPM"],
    *["Beta", "Quad", "Spline", "CIR", "ScBin", "VA"],
]


def _same_calibrator(cal, entry, **params):
    """``cal`` is ``entry``'s class with the class defaults updated by ``params``."""
    return type(cal) is entry.cls and cal.get_params() == entry.cls(**params).get_params()


def test_all_calibrators_are_the_registry_compared_entries():
    cals = ex.all_calibrators()
    assert list(cals) == TABLE_ORDER
    compared = {e.label: e for e in registry.registered() if e.compared}
    assert set(cals) == set(compared)  # temperature scaling is registered but not compared
    assert "Temp" not in cals
    for label, cal in cals.items():
        assert _same_calibrator(cal, compared[label]), label
    # the paper's three come first
    paper = ex.paper_calibrators()
    assert list(paper) == TABLE_ORDER[:3]
    for label, cal in paper.items():
        assert _same_calibrator(cal, registry.calibrator_entry(label))
    # new objects at every call: a caller may change one without touching the next call's
    again = ex.all_calibrators()
    assert all(cals[label] is not again[label] for label in cals)


def test_a_newly_registered_calibrator_joins_the_comparison(monkeypatch):
    extra = registry.CalibratorEntry("newcal", "New", "calibrators.platt:PlattScaling")
    hidden = registry.CalibratorEntry(
        "hidden", "Hid", "calibrators.platt:PlattScaling", compared=False
    )
    monkeypatch.setattr(registry, "_REGISTRY", (extra, *registry._REGISTRY, hidden))
    assert list(ex.all_calibrators()) == [*TABLE_ORDER, "New"]  # after the book's, never lost
    assert list(ex.paper_calibrators()) == TABLE_ORDER[:3]


def test_variants_and_recommended_calibrators():
    variants = ex.variant_calibrators()
    assert list(variants) == [
        *["Platt-logit", "KDE-logit", "DPM-logit", "BBQ-elbow", "ENIR-elbow"],
        *["Temp-logit", "Quad-logit", "ScBin-logit"],
    ]
    for label in ("Platt", "KDE", "DPM", "Temp", "Quad", "ScBin"):
        entry = registry.calibrator_entry(label)
        assert _same_calibrator(variants[f"{label}-logit"], entry, logit_input=True)
    for label in ("BBQ", "ENIR"):
        entry = registry.calibrator_entry(label)
        assert _same_calibrator(variants[f"{label}-elbow"], entry, prune="elbow")
    # one per compared method, the logit variant where there is one
    rec = ex.recommended_calibrators()
    assert list(rec) == [
        *["IsoRegC", "BBQ", "ENIR", "Hist", "Platt-logit", "KDE-logit", "DPM-logit"],
        *["Beta", "Quad-logit", "Spline", "CIR", "ScBin-logit", "VA"],
    ]
    assert [type(c) for c in rec.values()] == [type(c) for c in ex.all_calibrators().values()]


# ---------------------------------------------------------------------------
# the package: three layers, one namespace
# ---------------------------------------------------------------------------
def test_every_layer_name_is_exported_from_the_package():
    layers = (protocols, statistics, tables)
    exported = {name for layer in layers for name in layer.__all__}
    assert set(ex.__all__) == exported | {"MEASURES", "HIGHER_IS_BETTER"}
    assert len(ex.__all__) == len(set(ex.__all__))
    for layer in layers:
        for name in layer.__all__:
            assert getattr(ex, name) is getattr(layer, name), name


def test_importing_the_experiments_is_light():
    # as before the split: the layers load scikit-learn, pandas, scipy... on first use only
    import subprocess
    import sys

    code = (
        "import sys; import calibbook.experiments; "
        "print(sorted({m.split('.')[0] for m in sys.modules} "
        "& {'sklearn', 'scipy', 'pandas', 'matplotlib', 'numba', 'tqdm'}))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# ---------------------------------------------------------------------------
# the estimators that binning does not bias: smooth ECE and the debiased squared error
# ---------------------------------------------------------------------------
def _fold_predictions(X, y, n_splits, fold_index, random_state=0):
    """The test fold's labels and predictions (raw LR, isotonic) rebuilt by hand."""
    from sklearn.model_selection import RepeatedStratifiedKFold

    cv = RepeatedStratifiedKFold(n_splits=n_splits, n_repeats=1, random_state=random_state)
    train, test = list(cv.split(X, y))[fold_index]
    model = ex.base_classifiers(["LR"], random_state=random_state)["LR"].fit(X[train], y[train])
    s_train, s_test = ex.classifier_scores(model, X[train]), ex.classifier_scores(model, X[test])
    iso = IsotonicCalibration().fit(s_train, y[train]).predict(s_test)
    return y[test], {"raw": s_test, "iso": iso}


@pytest.mark.parametrize("n, n_splits", [(120, 2), (40, 4)])
def test_smooth_and_debiased_columns_equal_direct_calls(tmp_path, n, n_splits):
    from calibbook.metrics import debiased_calibration_error, smooth_ece

    assert ex.MEASURES[-2:] == ("smECE", "dCE2")
    X, y = _tiny(n, seed=5)
    res = ex.repeated_cv_protocol(
        {"tiny": (X, y)},
        ["LR"],
        {"iso": IsotonicCalibration()},
        n_splits=n_splits,
        n_repeats=1,
        n_bins=10,
        cache_dir=tmp_path,
        disable=True,
    )
    for fold in range(n_splits):
        y_test, preds = _fold_predictions(X, y, n_splits, fold)
        # as many equal-mass bins as the ECE's ten, at most half the test rows
        bins = min(10, len(y_test) // 2)
        for method, p in preds.items():
            got = res[(res.fold == fold) & (res.method == method)].set_index("measure").value
            assert got["smECE"] == pytest.approx(smooth_ece(y_test, p), rel=1e-13, abs=1e-16)
            direct = debiased_calibration_error(y_test, p, n_bins=bins, strategy="quantile")
            assert got["dCE2"] == pytest.approx(direct, rel=1e-13, abs=1e-16)
    if n == 40:  # 10-row test folds: ten bins of one row each could not be debiased at all
        y_test, preds = _fold_predictions(X, y, n_splits, 0)
        with pytest.raises(ValueError, match="weight at most 1"):
            debiased_calibration_error(y_test, preds["raw"], n_bins=10)


def test_debiased_column_is_signed_and_averages_unclipped(tmp_path):
    # calibrated predictions: the debiased squared error is negative on some folds, and
    # the stored mean over folds is the plain mean of the signed values
    rng = np.random.default_rng(11)
    X = rng.normal(size=(400, 2))
    y = (rng.uniform(size=400) < 1 / (1 + np.exp(-X[:, 0]))).astype(int)
    res = ex.repeated_cv_protocol(
        {"cal": (X, y)},
        ["LR"],
        {"spy": Spy()},
        n_splits=5,
        n_repeats=2,
        cache_dir=tmp_path,
        disable=True,
    )
    d = res[(res.measure == "dCE2") & (res.method == "raw")].value
    assert (d < 0).any() and (d > 0).any()
    summary = ex.fold_summary(res).set_index(["method", "measure"])
    assert summary.loc[("raw", "dCE2"), "value"] == pytest.approx(d.mean(), rel=1e-12)
    assert summary.loc[("raw", "dCE2"), "n_folds"] == 10
    # smooth ECE is an error in [0, 1]; both new measures rank lower-is-better
    s = res[res.measure == "smECE"].value
    assert ((s >= 0) & (s <= 1)).all()
    assert not {"smECE", "dCE2"} & ex.HIGHER_IS_BETTER


@settings(max_examples=50, deadline=None)
@given(st.integers(2, 60), st.integers(1, 30), st.integers(0, 2**32 - 1))
def test_debiased_bins_always_leave_a_bin_that_can_be_debiased(n_rows, n_bins, seed):
    from calibbook.metrics import debiased_calibration_error

    bins = protocols._debiased_bins(n_bins, n_rows)
    assert bins == max(1, min(n_bins, n_rows // 2))
    rng = np.random.default_rng(seed)
    p = rng.permutation(n_rows) / n_rows  # distinct predictions: no ties to merge bins
    y = (rng.uniform(size=n_rows) < p).astype(int)
    # some bin holds two rows or more, so the estimate exists (it would raise otherwise)
    assert np.isfinite(debiased_calibration_error(y, p, n_bins=bins, strategy="quantile"))


def test_rank_table_takes_the_new_measures(tmp_path):
    data = {f"d{i}": _tiny(90, seed=i) for i in range(4)}
    res = ex.repeated_cv_protocol(
        data,
        ["NB"],
        {"iso": IsotonicCalibration(), "Platt": PlattScaling()},
        n_splits=2,
        n_repeats=1,
        cache_dir=tmp_path,
        disable=True,
    )
    ranks, _ = ex.rank_table(
        res, "NB", ["iso", "Platt", "raw"], measures=["smECE", "dCE2"], control="iso"
    )
    # lower is better: the ranks follow the data-set means of the signed values
    for meas in ("smECE", "dCE2"):
        means = ex.dataset_means(res, "NB", meas, ["iso", "Platt", "raw"])
        expected = means.rank(axis=1, method="average").mean()
        np.testing.assert_allclose(ranks.loc[meas], expected[ranks.columns])


def test_declared_defaults_satisfy_their_own_constraints():
    # validate_params checks only the arguments given: a default must be valid by itself
    import inspect

    from calibbook._utils.params import check_parameter
    from calibbook.experiments import estimator_study

    checked = 0
    for module in (estimator_study, statistics, tables):
        for name in module.__all__:
            func = getattr(module, name)
            constraints = getattr(func, "_parameter_constraints", None)
            if constraints is None:
                continue
            parameters = inspect.signature(func).parameters
            for param, accepted in constraints.items():
                default = parameters[param].default
                if default is not inspect.Parameter.empty:
                    check_parameter(default, param, accepted)
                    checked += 1
    assert checked >= 20
