"""HistogramBinning against a brute-force binning written from the definitions."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from calibbook.histogram_binning import HistogramBinning, auto_n_bins

from .contract import check_calibrator_contract


def brute_nearest_fill(est, weight):
    out = est.copy()
    full = [k for k in range(len(est)) if weight[k] > 0]
    for k in range(len(est)):
        if weight[k] > 0:
            continue
        d = min(abs(k - j) for j in full)
        nearest = [est[j] for j in full if abs(k - j) == d]
        out[k] = np.mean(nearest)
    return out


def brute_histogram_binning(s, y, w, n_bins, strategy, prior=0.0):
    """Edges and per-bin estimates straight from the definitions (O(N^2))."""
    keep = w > 0
    s, y, w = s[keep], y[keep], w[keep]
    total = w.sum()
    if strategy == "uniform":
        edges = np.linspace(0, 1, n_bins + 1)[1:-1]
    else:
        edges = []
        for k in range(1, n_bins):
            cand = [v for v in s if w[s < v].sum() >= k * total / n_bins]
            edges.append(min(cand) if cand else np.inf)
        edges = np.array(edges)

    def bin_of(x):
        return sum(e <= x for e in edges)

    weight, pos = np.zeros(n_bins), np.zeros(n_bins)
    for si, yi, wi in zip(s, y, w):
        weight[bin_of(si)] += wi
        pos[bin_of(si)] += wi * yi
    rate = pos.sum() / weight.sum()
    with np.errstate(invalid="ignore", divide="ignore"):
        est = (pos + prior * rate) / (weight + prior)
    est = brute_nearest_fill(est, weight)
    return edges, weight, est, lambda xs: np.array([est[bin_of(x)] for x in xs])


@st.composite
def calibration_data(draw):
    n = draw(st.integers(2, 50))
    if draw(st.booleans()):
        pool = draw(st.lists(st.sampled_from([0.0, 0.05, 0.3, 0.31, 0.5, 0.8, 1.0]), min_size=1, max_size=5))
        s = np.array(draw(st.lists(st.sampled_from(pool), min_size=n, max_size=n)))
    else:
        s = np.array(draw(st.lists(st.floats(0, 1), min_size=n, max_size=n)))
    y = np.array(draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)), dtype=float)
    y[0], y[1] = 0, 1
    w = np.array(draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)), dtype=float)
    w[0] = w[1] = 1
    if draw(st.booleans()):
        w = np.ones(n)
    return s, y, w


@pytest.mark.parametrize("strategy", ["quantile", "uniform"])
@settings(max_examples=150, deadline=None)
@given(data=calibration_data(), n_bins=st.integers(1, 12), prior=st.sampled_from([0.0, 2.0]))
def test_matches_brute_force(strategy, data, n_bins, prior):
    s, y, w = data
    cal = HistogramBinning(n_bins=n_bins, strategy=strategy, prior_strength=prior).fit(s, y, w)
    edges, weight, est, predict = brute_histogram_binning(s, y, w, n_bins, strategy, prior)
    np.testing.assert_array_equal(cal.bin_edges_, edges)
    np.testing.assert_allclose(cal.bin_weights_, weight)
    np.testing.assert_allclose(cal.bin_estimates_, est, atol=1e-12)
    probe = np.concatenate([s, np.linspace(0, 1, 23)])
    np.testing.assert_allclose(cal.predict(probe), predict(probe), atol=1e-12)


@pytest.mark.parametrize("strategy", ["quantile", "uniform"])
@settings(max_examples=80, deadline=None)
@given(data=calibration_data(), n_bins=st.integers(1, 12))
def test_integer_weights_equal_repeated_rows(strategy, data, n_bins):
    s, y, w = data
    reps = w.astype(int)
    a = HistogramBinning(n_bins=n_bins, strategy=strategy).fit(s, y, w)
    b = HistogramBinning(n_bins=n_bins, strategy=strategy).fit(np.repeat(s, reps), np.repeat(y, reps))
    np.testing.assert_array_equal(a.bin_edges_, b.bin_edges_)
    np.testing.assert_allclose(a.bin_estimates_, b.bin_estimates_, atol=1e-12)


@settings(max_examples=80, deadline=None)
@given(data=calibration_data(), n_bins=st.integers(1, 12))
def test_quantile_bins_never_split_ties(data, n_bins):
    s, y, w = data
    cal = HistogramBinning(n_bins=n_bins).fit(s, y)
    ids = np.searchsorted(cal.bin_edges_, s, side="right")
    for v in np.unique(s):
        assert np.unique(ids[s == v]).size == 1


def test_quantile_bins_equal_frequency_on_distinct_scores():
    rng = np.random.default_rng(0)
    s = rng.normal(size=1000)  # any real scores are fine for quantile bins
    cal = HistogramBinning(n_bins=10).fit(s, (s + rng.normal(size=1000) > 0).astype(int))
    assert (cal.bin_weights_ == 100).all()


def test_auto_bins_is_cube_root():
    assert [auto_n_bins(n) for n in (1, 7, 8, 1000, 1_000_000)] == [1, 2, 2, 10, 100]
    rng = np.random.default_rng(1)
    s = rng.uniform(size=1000)
    assert HistogramBinning().fit(s, (s > 0.5).astype(int)).n_bins_ == 10


def test_empty_uniform_bin_predicts_nearest_non_empty_bin():
    # bins of width 0.2; data only in bins 0 and 3
    s = np.array([0.05, 0.1, 0.65, 0.7])
    y = np.array([0, 0, 1, 1])
    cal = HistogramBinning(n_bins=5, strategy="uniform").fit(s, y)
    assert cal.bin_weights_.tolist() == [2, 0, 0, 2, 0]
    # bin 1 is nearer bin 0, bin 2 nearer bin 3, bin 4 nearer bin 3
    assert cal.predict([0.3, 0.5, 0.9]).tolist() == [0.0, 1.0, 1.0]
    halfway = HistogramBinning(n_bins=3, strategy="uniform").fit([0.1, 0.9], [0, 1])
    assert halfway.predict([0.5]).tolist() == [0.5]


def test_hand_worked_example():
    cal = HistogramBinning(n_bins=2).fit([0.1, 0.2, 0.7, 0.9], [0, 1, 1, 1])
    assert cal.bin_edges_.tolist() == [0.7]
    assert cal.predict([0.15, 0.8, -5.0, 5.0]).tolist() == [0.5, 1.0, 0.5, 1.0]


def test_uniform_rejects_scores_outside_unit_interval_with_advice():
    with pytest.raises(ValueError, match=r"\[0, 1\].*sigmoid"):
        HistogramBinning(strategy="uniform").fit([-1.0, 0.5, 2.0], [0, 1, 1])


@pytest.mark.parametrize(
    "params,message",
    [
        (dict(n_bins=0), "n_bins"),
        (dict(n_bins="many"), "n_bins"),
        (dict(n_bins=2.5), "n_bins"),
        (dict(strategy="kmeans"), "strategy"),
        (dict(prior_strength=-1.0), "prior_strength"),
        (dict(prior_strength=np.nan), "prior_strength"),
    ],
)
def test_bad_parameters(params, message):
    with pytest.raises(ValueError, match=message):
        HistogramBinning(**params).fit([0.1, 0.5, 0.9], [0, 1, 1])


@pytest.mark.parametrize("strategy", ["quantile", "uniform"])
def test_contract(strategy):
    rng = np.random.default_rng(2)
    s = rng.uniform(size=200)
    y = (rng.uniform(size=200) < s).astype(int)
    check_calibrator_contract(HistogramBinning(n_bins=7, strategy=strategy), s, y)
