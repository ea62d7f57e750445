"""Metrics against brute-force evaluations of the papers' definitions and scipy/sklearn."""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from sklearn.calibration import calibration_curve
from sklearn.metrics import brier_score_loss, log_loss, roc_auc_score

from calibbook.metrics import (
    REPORT_COLUMNS,
    brier_decomposition,
    calibration_report,
    expected_calibration_error,
    maximum_calibration_error,
    reliability_curve,
)

METRICS = [expected_calibration_error, maximum_calibration_error]


# ---------------------------------------------------------------- brute force
def brute_bins(p, w, n_bins, strategy):
    """Bin of every sample, straight from the definitions, O(N * K) or O(N^2)."""
    n = len(p)
    ids = np.empty(n, dtype=int)
    if strategy == "uniform":  # [k/K, (k+1)/K) in exact arithmetic, k/K the nearest float
        edges = [Fraction(float(Fraction(k, n_bins))) for k in range(n_bins + 1)]
        for i in range(n):
            ids[i] = max(k for k in range(n_bins) if edges[k] <= Fraction(p[i]))
    else:  # exact sums: a tie W(p' < p) = k W / K reaches the share
        wf = [Fraction(v) for v in w]
        total = sum(wf)
        for i in range(n):
            below = sum(wj for wj, pj in zip(wf, p, strict=True) if pj < p[i])
            ids[i] = sum(below * n_bins >= k * total for k in range(1, n_bins))
    return ids


def brute_ece_mce(y, p, w, n_bins, strategy):
    ids = brute_bins(p, w, n_bins, strategy)
    total = w.sum()
    ece, mce = 0.0, 0.0
    for k in range(n_bins):
        m = (ids == k) & (w > 0)
        if not m.any():
            continue
        o = np.sum(w[m] * y[m]) / w[m].sum()
        e = np.sum(w[m] * p[m]) / w[m].sum()
        ece += w[m].sum() / total * abs(o - e)
        mce = max(mce, abs(o - e))
    return ece, mce


@st.composite
def labelled_predictions(draw, weighted=False):
    n = draw(st.integers(1, 60))
    ties = draw(st.booleans())
    if ties:  # few distinct values, many ties (including 0 and 1)
        grid = draw(
            st.lists(st.sampled_from([0.0, 0.1, 0.25, 0.5, 0.7, 0.9, 1.0]), min_size=1, max_size=4)
        )
        p = np.array(draw(st.lists(st.sampled_from(grid), min_size=n, max_size=n)))
    else:
        p = np.array(draw(st.lists(st.floats(0, 1), min_size=n, max_size=n)))
    y = np.array(draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)), dtype=float)
    if weighted:
        w = np.array(draw(st.lists(st.integers(0, 4), min_size=n, max_size=n)), dtype=float)
        if w.sum() == 0:
            w[0] = 1.0
    else:
        w = np.ones(n)
    return y, p, w


@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
@settings(max_examples=150, deadline=None)
@given(data=labelled_predictions(weighted=True), n_bins=st.integers(1, 12))
def test_ece_mce_equal_brute_force(strategy, data, n_bins):
    y, p, w = data
    ece, mce = brute_ece_mce(y, p, w, n_bins, strategy)
    kw = dict(n_bins=n_bins, strategy=strategy, sample_weight=w)
    assert expected_calibration_error(y, p, **kw) == pytest.approx(ece, abs=1e-12)
    assert maximum_calibration_error(y, p, **kw) == pytest.approx(mce, abs=1e-12)


@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
@settings(max_examples=100, deadline=None)
@given(data=labelled_predictions(weighted=True), n_bins=st.integers(1, 12))
def test_integer_weights_equal_repeated_rows(strategy, data, n_bins):
    y, p, w = data
    reps = w.astype(int)
    kw = dict(n_bins=n_bins, strategy=strategy)
    for metric in METRICS:
        assert metric(y, p, sample_weight=w, **kw) == pytest.approx(
            metric(np.repeat(y, reps), np.repeat(p, reps), **kw), abs=1e-12
        )
    weighted = reliability_curve(y, p, sample_weight=w, **kw)
    repeated = reliability_curve(np.repeat(y, reps), np.repeat(p, reps), **kw)
    np.testing.assert_allclose(weighted.to_numpy(), repeated.to_numpy(), atol=1e-12)
    bw = brier_decomposition(y, p, sample_weight=w)
    br = brier_decomposition(np.repeat(y, reps), np.repeat(p, reps))
    assert bw == pytest.approx(br, abs=1e-12)


@settings(max_examples=100, deadline=None)
@given(data=labelled_predictions(), n_bins=st.integers(1, 12))
def test_quantile_bins_never_split_ties(data, n_bins):
    y, p, w = data
    curve = reliability_curve(y, p, n_bins=n_bins, strategy="quantile")
    # every distinct value lies in exactly one bin: bins' value ranges are disjoint
    ranges = []
    for lo, hi in zip(curve["bin_lower"], curve["bin_upper"], strict=True):
        inside = p[(p >= lo) & ((p < hi) | (hi == p.max()))]
        ranges.append(np.unique(inside))
    from calibbook._utils.binning import assign_bins, bin_edges

    ids = assign_bins(p, bin_edges(p, w, n_bins, "quantile"))
    for value in np.unique(p):
        assert np.unique(ids[p == value]).size == 1
    assert curve["count"].sum() == pytest.approx(len(p))


def test_quantile_bins_are_equal_frequency_without_ties():
    rng = np.random.default_rng(1)
    p = rng.uniform(size=1000)
    y = rng.integers(0, 2, size=1000)
    curve = reliability_curve(y, p, n_bins=10, strategy="quantile")
    assert (curve["count"] == 100).all()


def test_hand_worked_example():
    # bins [0, .5) and [.5, 1]: {0.1 (y=0), 0.3 (y=0)} and {0.8 (y=1), 0.9 (y=1)}
    # o = (0, 1), e = (0.2, 0.85), |o - e| = (0.2, 0.15), ECE = 0.5*0.2 + 0.5*0.15
    y, p = [0, 1, 1, 0], [0.1, 0.9, 0.8, 0.3]
    assert expected_calibration_error(y, p, n_bins=2) == pytest.approx(0.175)
    assert maximum_calibration_error(y, p, n_bins=2) == pytest.approx(0.2)


def test_perfect_calibration_has_zero_error_when_bins_hold_one_value():
    p = np.repeat([0.05, 0.5, 0.95], 20)
    y = np.concatenate([[1] + [0] * 19, [1] * 10 + [0] * 10, [1] * 19 + [0]])
    for strategy in ("uniform", "quantile"):
        assert expected_calibration_error(y, p, n_bins=10, strategy=strategy) == pytest.approx(0)
        assert maximum_calibration_error(y, p, n_bins=10, strategy=strategy) == pytest.approx(0)


def test_reliability_curve_matches_sklearn_calibration_curve():
    rng = np.random.default_rng(2)
    p = rng.beta(2, 5, size=5000)
    y = (rng.uniform(size=5000) < p**0.8).astype(int)
    for strategy in ("uniform", "quantile"):
        curve = reliability_curve(y, p, n_bins=10, strategy=strategy)
        prob_true, prob_pred = calibration_curve(y, p, n_bins=10, strategy=strategy)
        np.testing.assert_allclose(curve["observed"], prob_true, atol=1e-12)
        np.testing.assert_allclose(curve["mean_predicted"], prob_pred, atol=1e-12)


@pytest.mark.parametrize("interval,method", [("wilson", "wilson"), ("clopper-pearson", "exact")])
def test_reliability_intervals_match_scipy(interval, method):
    rng = np.random.default_rng(3)
    p = rng.uniform(size=400)
    y = (rng.uniform(size=400) < p).astype(int)
    curve = reliability_curve(y, p, n_bins=8, confidence=0.9, interval=interval)
    for _, row in curve.iterrows():
        k, n = round(row["observed"] * row["count"]), int(row["count"])
        ci = stats.binomtest(k, n).proportion_ci(confidence_level=0.9, method=method)
        assert row["ci_lower"] == pytest.approx(ci.low, abs=1e-9)
        assert row["ci_upper"] == pytest.approx(ci.high, abs=1e-9)


@settings(max_examples=100, deadline=None)
@given(data=labelled_predictions(weighted=True), n_bins=st.one_of(st.none(), st.integers(1, 12)))
def test_brier_decomposition_identity(data, n_bins):
    y, p, w = data
    d = brier_decomposition(y, p, n_bins=n_bins, sample_weight=w)
    brute = np.sum(w * (p - y) ** 2) / w.sum()
    assert d["brier"] == pytest.approx(brute, abs=1e-12)
    rebuilt = d["reliability"] - d["resolution"] + d["uncertainty"]
    rebuilt += d["within_bin_variance"] - d["within_bin_covariance"]
    assert rebuilt == pytest.approx(d["brier"], abs=1e-12)
    if n_bins is None:  # grouping distinct forecasts: Murphy's identity is exact
        assert d["within_bin_variance"] == pytest.approx(0, abs=1e-15)
        assert d["within_bin_covariance"] == pytest.approx(0, abs=1e-15)


def test_brier_decomposition_against_sklearn_and_hand_values():
    rng = np.random.default_rng(4)
    p = rng.choice([0.2, 0.6], size=200)
    y = (rng.uniform(size=200) < 0.5).astype(int)
    d = brier_decomposition(y, p)
    assert d["brier"] == pytest.approx(brier_score_loss(y, p))
    base = y.mean()
    rel = sum((p == v).mean() * (v - y[p == v].mean()) ** 2 for v in (0.2, 0.6))
    res = sum((p == v).mean() * (y[p == v].mean() - base) ** 2 for v in (0.2, 0.6))
    assert d["reliability"] == pytest.approx(rel)
    assert d["resolution"] == pytest.approx(res)
    assert d["uncertainty"] == pytest.approx(base * (1 - base))


def test_calibration_report_values():
    rng = np.random.default_rng(5)
    p = rng.uniform(size=300)
    y = (rng.uniform(size=300) < p).astype(int)
    r = calibration_report(y, p)
    assert r["AUC"] == pytest.approx(roc_auc_score(y, p))
    assert r["ACC"] == pytest.approx(np.mean((p > 0.5) == y))
    assert r["RMSE"] == pytest.approx(np.sqrt(np.mean((p - y) ** 2)))
    assert r["Brier"] == pytest.approx(np.mean((p - y) ** 2))
    assert r["LogLoss"] == pytest.approx(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))
    assert r["LogLoss"] == pytest.approx(log_loss(y, p))
    assert r["ECE"] == pytest.approx(expected_calibration_error(y, p))
    table = calibration_report(y, {"raw": p, "squared": p**2})
    assert list(table.index) == ["raw", "squared"]
    assert table.loc["raw"].to_numpy() == pytest.approx(r.to_numpy())
    assert np.isfinite(calibration_report(y, np.where(y == 1, 0.0, 1.0)).to_numpy()).all()


# ---------------------------------------------------------------- bad input
GOOD_Y, GOOD_P = [0, 1, 1, 0], [0.1, 0.9, 0.8, 0.3]
BAD_INPUTS = [
    (dict(y_prob=[0.1, np.nan, 0.8, 0.3]), "NaN or infinite"),
    (dict(y_prob=[0.1, np.inf, 0.8, 0.3]), "NaN or infinite"),
    (dict(y_prob=[0.1, 1.2, 0.8, 0.3]), r"\[0, 1\]"),
    (dict(y_prob=[-0.1, 0.2, 0.8, 0.3]), r"\[0, 1\]"),
    (dict(y_true=[0, 1, 2, 0]), "binary"),
    (dict(y_true=[0, 1, 1]), "Inconsistent numbers of samples"),
    (dict(y_true=[], y_prob=[]), "empty"),
    (dict(y_prob=[[0.1, 0.9], [0.2, 0.8], [0.3, 0.7], [0.4, 0.6]]), "1-D"),
    (dict(sample_weight=[1, -1, 1, 1]), "non-negative"),
    (dict(sample_weight=[0, 0, 0, 0]), "zero everywhere"),
    (dict(sample_weight=[1, 1, 1]), "sample_weight has 3 entries"),
    (dict(sample_weight=[1, np.nan, 1, 1]), "NaN"),
    (dict(n_bins=0), "n_bins"),
    (dict(n_bins=2.5), "n_bins"),
    (dict(strategy="equal"), "strategy"),
]


@pytest.mark.parametrize("func", [*METRICS, reliability_curve, calibration_report])
@pytest.mark.parametrize("override,message", BAD_INPUTS)
def test_metrics_reject_bad_input(func, override, message):
    kwargs = dict(y_true=GOOD_Y, y_prob=GOOD_P)
    kwargs.update(override)
    y_true, y_prob = kwargs.pop("y_true"), kwargs.pop("y_prob")
    with pytest.raises(ValueError, match=message):
        func(y_true, y_prob, **kwargs)


@pytest.mark.parametrize("override,message", [b for b in BAD_INPUTS if "n_bins" not in b[0]])
def test_brier_decomposition_rejects_bad_input(override, message):
    kwargs = dict(y_true=GOOD_Y, y_prob=GOOD_P, n_bins=4)
    kwargs.update(override)
    y_true, y_prob = kwargs.pop("y_true"), kwargs.pop("y_prob")
    with pytest.raises(ValueError, match=message):
        brier_decomposition(y_true, y_prob, **kwargs)


def test_report_needs_both_classes():
    with pytest.raises(ValueError, match="single class"):
        calibration_report([1, 1, 1], [0.2, 0.5, 0.9])
    with pytest.raises(ValueError, match="empty mapping"):
        calibration_report([0, 1], {})


def test_reliability_curve_rejects_bad_options():
    with pytest.raises(ValueError, match="confidence"):
        reliability_curve(GOOD_Y, GOOD_P, confidence=1.5)
    with pytest.raises(ValueError, match="interval"):
        reliability_curve(GOOD_Y, GOOD_P, interval="agresti")


def test_single_class_is_fine_for_calibration_errors():
    # ECE is defined for one class: predictions of 0.2 for negatives are off by 0.2
    assert expected_calibration_error([0, 0, 0], [0.2, 0.2, 0.2]) == pytest.approx(0.2)


def authors_groups_ece_mce(y, p):
    """getECE.m / getMCE.m of the authors' code, transcribed with MATLAB's 1-based ranges."""
    ordered = sorted(zip(p, y, strict=True))  # sortrows([predictions, labels])
    N = len(ordered)
    rest, up, down = N % 10, -(-N // 10), N // 10
    S, W = [], []
    for i in range(1, min(N, 10) + 1):
        if i <= rest:
            group = ordered[(i - 1) * up : i * up]
        else:
            group = ordered[rest + (i - 1) * down : rest + i * down]
        S.append(abs(np.mean([g[0] for g in group]) - np.mean([g[1] for g in group])))
        W.append(len(group) / N)
    return float(np.dot(S, W)), float(max(S))


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from([0.0, 0.1, 0.25, 0.5, 0.6, 0.6, 0.9, 1.0]), st.integers(0, 1)),
        min_size=1,
        max_size=60,
    ),
)
def test_positional_strategy_matches_the_authors_code(pairs):
    # few distinct predictions: many ties, which the positional groups split by label
    p = np.array([a for a, _ in pairs])
    y = np.array([b for _, b in pairs])
    ece, mce = authors_groups_ece_mce(y, p)
    assert expected_calibration_error(y, p, strategy="positional") == pytest.approx(ece, abs=1e-12)
    assert maximum_calibration_error(y, p, strategy="positional") == pytest.approx(mce, abs=1e-12)


def test_positional_strategy_splits_a_tie_by_label():
    # 20 cases share the prediction 0.5, half positive: one equal-frequency bin with gap 0,
    # but the positional groups (2 of 10 cases each) put the 10 negatives first: gaps 0.5
    p, y = np.full(20, 0.5), np.repeat([0, 1], 10)
    assert expected_calibration_error(y, p, n_bins=2, strategy="quantile") == 0.0
    assert expected_calibration_error(y, p, n_bins=2, strategy="positional") == 0.5
    assert maximum_calibration_error(y, p, n_bins=2, strategy="positional") == 0.5


def test_positional_strategy_rejects_weights():
    with pytest.raises(ValueError, match=r"positional.*sample_weight"):
        expected_calibration_error([0, 1], [0.2, 0.7], strategy="positional", sample_weight=[1, 2])


def test_calibration_report_takes_the_positional_strategy():
    # the report passed a vector of ones as weights, which the positional groups refuse
    rng = np.random.default_rng(3)
    p = rng.uniform(size=200)
    y = (rng.uniform(size=200) < p).astype(int)
    report = calibration_report(y, {"m": p}, strategy="positional")
    assert report.loc["m", "ECE"] == expected_calibration_error(y, p, strategy="positional")
    assert report.loc["m", "MCE"] == maximum_calibration_error(y, p, strategy="positional")
    with pytest.raises(ValueError, match="positional"):
        calibration_report(y, p, strategy="positional", sample_weight=np.ones(200))


def test_calibration_report_extra_columns_equal_the_functions():
    from calibbook.metrics import (
        EXTRA_COLUMNS,
        calibration_intercept_slope,
        debiased_calibration_error,
        ece_sweep,
        hosmer_lemeshow_test,
        smooth_ece,
        spiegelhalter_test,
    )

    rng = np.random.default_rng(7)
    p = rng.beta(2, 3, 600)
    y = (rng.uniform(size=p.size) < p**1.3).astype(int)
    w = rng.integers(0, 4, p.size).astype(float)
    for weight in (None, w):
        report = calibration_report(y, p, sample_weight=weight, extra="all")
        assert list(report.index) == list(REPORT_COLUMNS) + list(EXTRA_COLUMNS)
        fit = calibration_intercept_slope(y, p, sample_weight=weight)
        want = {
            "smECE": smooth_ece(y, p, sample_weight=weight),
            "dCE2": debiased_calibration_error(y, p, sample_weight=weight),
            "ECE_sweep": ece_sweep(y, p, sample_weight=weight),
            "intercept": fit.intercept,
            "slope": fit.slope,
            "Spiegelhalter_p": spiegelhalter_test(y, p, sample_weight=weight).pvalue,
            "HL_p": hosmer_lemeshow_test(y, p, sample_weight=weight).pvalue,
        }
        for name, value in want.items():
            assert report[name] == pytest.approx(value, rel=1e-12, abs=1e-15), name
        # the seven columns do not change when extras are added
        plain = calibration_report(y, p, sample_weight=weight)
        assert report[list(REPORT_COLUMNS)].equals(plain)


def test_calibration_report_extra_columns_for_several_models():
    rng = np.random.default_rng(8)
    p = rng.uniform(size=300)
    y = (rng.uniform(size=p.size) < p).astype(int)
    report = calibration_report(y, {"a": p, "b": p**2}, extra=["slope", "smECE"])
    assert list(report.columns) == [*list(REPORT_COLUMNS), "slope", "smECE"]
    assert report.loc["b", "smECE"] > report.loc["a", "smECE"]  # p**2 is miscalibrated
    with pytest.raises(ValueError, match=r"extra must be.*'smECE'.*got.*'nope'"):
        calibration_report(y, p, extra=["smECE", "nope"])
