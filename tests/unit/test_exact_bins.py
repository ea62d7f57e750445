"""Equal-width bins follow [k/B, (k+1)/B) exactly; equal-frequency bins ignore the weights' scale.

Issue 28: forecasts 0.3, 0.6 and 0.7 fell into the bin below (the edges came from
``np.linspace``, whose 0.30000000000000004 lies above 0.3), and equal-frequency bins moved
when every weight was scaled by the same factor. The references are exact: rational
arithmetic (``fractions.Fraction``, or the integers of ``float.as_integer_ratio``) and sums
worked by hand for one forecast per bin.
"""

import math
import warnings
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from calibbook import (
    HistogramBinning,
    LowWeightWarning,
    brier_decomposition,
    debiased_calibration_error,
    expected_calibration_error,
    maximum_calibration_error,
    reliability_curve,
)
from calibbook._kernels.binned_estimators import _bin_starts
from calibbook._kernels.binning import uniform_bin_sums, uniform_bins
from calibbook._utils.binning import assign_bins, sorted_runs, uniform_edges

ALL_B = range(1, 1001)


def multiples(n_bins):
    """k/B for k = 0..B, each the float nearest to it (one correctly rounded division)."""
    return np.arange(n_bins + 1) / n_bins


def is_nearest_float(x, num, den):
    """Whether the float x is (one of) the floats nearest to num/den, in exact integers."""
    a, b = x.as_integer_ratio()
    err = abs(a * den - num * b)  # |x - num/den| * b * den
    for y in (math.nextafter(x, -math.inf), math.nextafter(x, math.inf)):
        c, d = y.as_integer_ratio()
        # |y - num/den| * d * den compared with err at the common denominator b * d * den
        if abs(c * den - num * d) * b < err * d:
            return False
    return True


def test_the_multiples_are_the_nearest_floats():
    """The premise of the other tests, in exact arithmetic: x_k is the float nearest to k/B."""
    for n_bins in ALL_B:
        x = multiples(n_bins).tolist()
        assert all(is_nearest_float(v, k, n_bins) for k, v in enumerate(x)), n_bins
    # and Fraction agrees where it is cheap enough to run
    for n_bins in (*range(1, 60), 997, 1000):
        x = multiples(n_bins)
        assert x.tolist() == [float(Fraction(k, n_bins)) for k in range(n_bins + 1)]


def test_every_multiple_lands_in_its_bin():
    """k/B is in bin k (1 in bin B - 1); the float just below k/B is in bin k - 1."""
    for n_bins in ALL_B:
        x = multiples(n_bins)
        expected = np.minimum(np.arange(n_bins + 1), n_bins - 1)
        below = np.nextafter(x[1:], 0.0)  # just under each edge k = 1..B
        above = np.nextafter(x[:-1], 1.0)
        for got in (uniform_bins(x, n_bins), assign_bins(x, uniform_edges(n_bins))):
            np.testing.assert_array_equal(got, expected, err_msg=f"B = {n_bins}")
        np.testing.assert_array_equal(uniform_bins(below, n_bins), np.arange(n_bins))
        np.testing.assert_array_equal(uniform_bins(above, n_bins), np.arange(n_bins))
        np.testing.assert_array_equal(uniform_edges(n_bins), x[1:-1])
        # the sweep's equal-width bins: bin k starts at run k (the multiples are the runs)
        starts = _bin_starts(x, n_bins, 1.0, False, x.size)
        np.testing.assert_array_equal(starts, [*range(n_bins), n_bins + 1])


@settings(max_examples=50, deadline=None)
@given(n_bins=st.integers(1, 1000), x=st.lists(st.floats(0, 1), min_size=1, max_size=30))
def test_any_score_gets_the_exact_rational_bin(n_bins, x):
    """#{k >= 1 : k/B <= s} with k/B rounded to the nearest float, by Fraction arithmetic."""
    x = np.array(x)
    edges = [Fraction(float(Fraction(k, n_bins))) for k in range(1, n_bins)]
    for s in (x, np.nextafter(x, 0.0), np.nextafter(x, 1.0)):
        exact = [sum(e <= Fraction(v) for e in edges) for v in s]
        np.testing.assert_array_equal(uniform_bins(s, n_bins), exact)


def one_forecast_per_bin(n_bins):
    """Forecasts k/B, k = 0..B, labels alternating; 1 shares the last bin with (B - 1)/B."""
    p = multiples(n_bins)
    y = np.arange(n_bins + 1) % 2
    return y, p


def hand_gaps(y, p):
    """|o - e| and weight of each bin, worked out for ``one_forecast_per_bin``."""
    gaps = np.abs(y[:-2] - p[:-2])
    last = abs((y[-2] + y[-1]) / 2 - (p[-2] + p[-1]) / 2)
    return np.append(gaps, last), np.append(np.ones(gaps.size), 2.0)


def test_public_metrics_keep_one_forecast_per_bin():
    for n_bins in ALL_B:
        y, p = one_forecast_per_bin(n_bins)
        gap, weight = hand_gaps(y, p)
        ece = expected_calibration_error(y, p, n_bins=n_bins)
        assert ece == pytest.approx(np.sum(weight * gap) / weight.sum(), rel=1e-12, abs=1e-15)
        assert maximum_calibration_error(y, p, n_bins=n_bins) == pytest.approx(
            gap.max(), rel=1e-12, abs=1e-15
        )
        # with every forecast twice (one of each label), each bin but the last holds weight 2
        both = np.concatenate([p, p])
        labels = np.concatenate([np.zeros(p.size), np.ones(p.size)])
        if n_bins > 1:
            p_in, w_in = p[:-2], 2.0
            expected = np.sum(w_in * ((0.5 - p_in) ** 2 - 0.25 / (w_in - 1.0)))
            e_last = (p[-2] + p[-1]) / 2
            expected += 4.0 * ((0.5 - e_last) ** 2 - 0.25 / 3.0)
            got = debiased_calibration_error(labels, both, n_bins=n_bins, strategy="uniform")
            assert got == pytest.approx(expected / both.size, rel=1e-9, abs=1e-15)


@pytest.mark.parametrize("n_bins", [1, 2, 3, 6, 7, 10, 49, 100, 360, 997, 1000])
def test_reliability_curve_one_point_per_forecast(n_bins):
    y, p = one_forecast_per_bin(n_bins)
    curve = reliability_curve(y, p, n_bins=n_bins)
    assert len(curve) == n_bins
    np.testing.assert_array_equal(curve["count"], [1.0] * (n_bins - 1) + [2.0])
    np.testing.assert_array_equal(curve["mean_predicted"][:-1], p[: n_bins - 1])
    np.testing.assert_array_equal(curve["observed"][:-1], y[: n_bins - 1])
    np.testing.assert_array_equal(curve["bin_lower"], p[:n_bins])


def test_histogram_binning_keeps_one_score_per_bin():
    for n_bins in range(1, 1001, 3):
        y, p = one_forecast_per_bin(n_bins)
        cal = HistogramBinning(n_bins=n_bins, strategy="uniform").fit(p, y)
        np.testing.assert_array_equal(cal.bin_weights_, [1.0] * (n_bins - 1) + [2.0])
        expected = np.append(y[: n_bins - 1], (y[-2] + y[-1]) / 2)
        np.testing.assert_array_equal(cal.step_values_, expected)
        # the training scores, and new ones in the middle of each bin
        np.testing.assert_array_equal(
            cal.predict(p), expected[np.minimum(np.arange(p.size), n_bins - 1)]
        )
        middle = (np.arange(n_bins) + 0.5) / n_bins
        np.testing.assert_array_equal(cal.predict(middle), expected)
        weights, *_ = uniform_bin_sums(p, y.astype(float), np.ones(p.size), n_bins)
        np.testing.assert_array_equal(weights, cal.bin_weights_)


def test_forecasts_rounded_to_a_tenth_get_a_point_each():
    """Issue 28: a diagram of forecasts 0.0, 0.1, ..., 1.0 showed 8 points instead of 10."""
    forecasts = np.round(np.arange(11) * 0.1, 1)  # what a weather service issues
    p = np.repeat(forecasts, 30)
    y = (np.random.default_rng(5).uniform(size=p.size) < p).astype(int)
    curve = reliability_curve(y, p, n_bins=10)
    # ten bins: 0.0 .. 0.8 alone, 0.9 with 1.0 (the last bin holds 1)
    assert len(curve) == 10
    np.testing.assert_allclose(curve["mean_predicted"][:9], forecasts[:9], rtol=1e-14)
    np.testing.assert_array_equal(curve["count"], [30.0] * 9 + [60.0])
    # 0.0 .. 0.9 alone in their bins: the binned decomposition is Murphy's exact one
    keep = p < 0.95
    binned = brier_decomposition(y[keep], p[keep], n_bins=10)
    exact = brier_decomposition(y[keep], p[keep])
    # a bin merging two forecasts 0.1 apart would hold a variance of order 1e-3
    assert binned["within_bin_variance"] < 1e-25
    for key in ("reliability", "resolution"):
        assert binned[key] == pytest.approx(exact[key], abs=1e-15)
    cal = HistogramBinning(n_bins=10, strategy="uniform").fit(p, y)
    np.testing.assert_array_equal(cal.bin_weights_, [30.0] * 9 + [60.0])


# ---------------------------------------------------------------- weights' scale
SCALES = [0.1, 1 / 3, 1e-6, 1e6, 0.7, 1e-3 / 7]


def tied_scores(n, levels, seed):
    rng = np.random.default_rng(seed)
    s = rng.integers(0, levels, n) / levels
    y = (rng.uniform(size=n) < 0.2 + 0.6 * s).astype(float)
    y[:2] = [0, 1]
    return s, y


@pytest.mark.filterwarnings("ignore::calibbook._utils.weights.LowWeightWarning")
@settings(max_examples=50, deadline=None)
@given(
    n=st.sampled_from([12, 24, 30, 60, 97, 120]),
    levels=st.sampled_from([5, 13, 1000]),
    n_bins=st.integers(1, 12),
    seed=st.integers(0, 2**16),
    scale=st.sampled_from([*SCALES, "1/n"]),
)
def test_quantile_bins_do_not_move_when_the_weights_are_scaled(n, levels, n_bins, seed, scale):
    """Unit weights times c give exactly the unweighted bins, ties W(below) = k W / K included."""
    s, y = tied_scores(n, levels, seed)
    c = 1.0 / n if scale == "1/n" else scale  # weights that sum to 1, up to rounding
    w = np.full(n, c)
    plain = HistogramBinning(n_bins=n_bins).fit(s, y)
    scaled = HistogramBinning(n_bins=n_bins).fit(s, y, sample_weight=w)
    np.testing.assert_array_equal(scaled.thresholds_, plain.thresholds_)
    np.testing.assert_allclose(scaled.bin_weights_ / c, plain.bin_weights_, rtol=1e-12)
    np.testing.assert_allclose(scaled.step_values_, plain.step_values_, rtol=1e-12)
    kw = dict(n_bins=n_bins, strategy="quantile")
    for metric in (expected_calibration_error, maximum_calibration_error):
        assert metric(y, s, sample_weight=w, **kw) == pytest.approx(metric(y, s, **kw), rel=1e-12)
    curve = reliability_curve(y, s, sample_weight=w, **kw)
    np.testing.assert_array_equal(curve["bin_upper"], reliability_curve(y, s, **kw)["bin_upper"])
    # the sweep's equal-mass bins, for every number of bins it can try
    runs, scaled_runs = sorted_runs(s, y), sorted_runs(s, y, w)
    keys = [np.concatenate(([0.0], np.cumsum(r[1])[:-1])) for r in (runs, scaled_runs)]
    totals = [float(np.cumsum(r[1])[-1]) for r in (runs, scaled_runs)]
    for b in range(1, runs[0].size + 1):
        np.testing.assert_array_equal(
            _bin_starts(keys[1], b, totals[1], True, n), _bin_starts(keys[0], b, totals[0], True, n)
        )


def test_scaled_weights_on_exact_ties_by_hand():
    """60 distinct scores, 6 bins: every edge is an exact tie W(below) = k W / 6 (10 rows each)."""
    s = np.arange(60) / 60
    y = (np.arange(60) % 3 == 0).astype(float)
    for c in (0.1, 1 / 3, 1e-6, 1e6, 1 / 60):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", LowWeightWarning)
            cal = HistogramBinning(n_bins=6).fit(s, y, sample_weight=np.full(60, c))
        np.testing.assert_allclose(cal.bin_weights_, np.full(6, 10 * c), rtol=1e-12)
        # the bins start at rows 10, 20, ...: the edges cut midway below them
        np.testing.assert_array_equal(cal.thresholds_, 0.5 * s[9:59:10] + 0.5 * s[10:60:10])


def test_low_total_weight_warns_once_naming_the_bins():
    s, y = [0.1, 0.4, 0.6, 0.9], [0, 0, 1, 1]
    with pytest.warns(LowWeightWarning, match=r"HistogramBinning.*total 1, .*\(5 bins\)"):
        HistogramBinning(n_bins=5).fit(s, y, sample_weight=[0.25] * 4)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        HistogramBinning(n_bins=5).fit(s, y)  # unweighted: the rows are the cases
        HistogramBinning(n_bins=2).fit(s, y, sample_weight=[1.0] * 4)  # 4 >= 2 per bin
