"""The estimator study's engine: its truths against independent Monte-Carlo and hand-worked
values, its reproducibility by seed, and the shapes of what it returns."""

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate, stats
from scipy.special import expit

from calibbook._utils.params import InvalidParameterError
from calibbook.experiments import estimator_study as es
from calibbook.metrics import calibration_intercept_slope, smooth_ece

MAPS = es.calibration_maps()
DENSITY = es.prediction_density()


@pytest.fixture(scope="module")
def big_sample():
    """Two million predictions from the study's density (the Monte-Carlo oracle's sample)."""
    return DENSITY.rvs(size=2_000_000, random_state=np.random.default_rng(7))


# ---------------------------------------------------------------------------
# the known world
# ---------------------------------------------------------------------------
def test_maps_by_their_formulas():
    p = np.linspace(0.01, 0.99, 99)
    logit = np.log(p / (1 - p))
    np.testing.assert_array_equal(MAPS["calibrated"](p), p)
    np.testing.assert_allclose(MAPS["over-confident"](p), expit(0.7 * logit), rtol=1e-12)
    np.testing.assert_allclose(MAPS["under-confident"](p), expit(1.4 * logit), rtol=1e-12)
    np.testing.assert_allclose(MAPS["non-monotone"](p), p + 0.12 * np.sin(3.5 * np.pi * p))
    wiggle = MAPS["non-monotone"](np.linspace(0, 1, 10_001))
    assert np.any(np.diff(wiggle) < 0), "the non-monotone map must decrease somewhere"
    assert wiggle.min() >= 0 and wiggle.max() <= 1
    # it crosses the diagonal at 2/7, 4/7 and 6/7 only
    np.testing.assert_allclose(es._crossings(MAPS["non-monotone"]), [2 / 7, 4 / 7, 6 / 7])
    # the ends: logistic maps send 0 to 0 and 1 to 1
    np.testing.assert_array_equal(MAPS["over-confident"](np.array([0.0, 1.0])), [0.0, 1.0])


@pytest.mark.parametrize(
    "kwargs",
    [
        {"over_slope": 1.0},
        {"under_slope": 0.9},
        {"under_slope": 1.0},
        {"wiggle": 0.3},
        {"wiggle": 0.0},
        {"over_slope": np.nan},
        {"wiggle": "0.1"},
    ],
)
def test_maps_reject_strengths_out_of_range(kwargs):
    name = next(iter(kwargs))
    with pytest.raises(InvalidParameterError, match=f"^{name} must be None or a finite number"):
        es.calibration_maps(**kwargs)


def test_maps_and_density_take_none_for_the_module_constants():
    p = np.linspace(0.05, 0.95, 19)
    explicit = es.calibration_maps(**es.MAP_PARAMETERS)
    for name, f in es.calibration_maps(over_slope=None, under_slope=None, wiggle=None).items():
        np.testing.assert_array_equal(f(p), explicit[name](p))
    assert es.prediction_density(None, None).args == es.DENSITY_SHAPE
    assert es.prediction_density(b=3).args == (2.0, 3.0)
    for a, b in [(0, 1), (1, -2.0), (np.inf, 1)]:
        with pytest.raises(InvalidParameterError, match="must be None or a finite number > 0"):
            es.prediction_density(a, b)


def test_draw_sample_labels_follow_the_map():
    rng = np.random.default_rng(3)
    p, y = es.draw_sample(MAPS["under-confident"], DENSITY, 400_000, rng)
    assert p.shape == y.shape == (400_000,) and set(np.unique(y)) == {0, 1}
    # E[y] = E[f(p)]: 5 standard errors of a mean of 0/1 labels
    assert abs(y.mean() - MAPS["under-confident"](p).mean()) < 5 * 0.5 / np.sqrt(p.size)
    # the predictions follow the density (Kolmogorov-Smirnov)
    assert stats.kstest(p[:20_000], DENSITY.cdf).pvalue > 1e-3
    for n in (0, 2.5, True):
        with pytest.raises(InvalidParameterError, match="n must be an integer >= 1"):
            es.draw_sample(MAPS["calibrated"], DENSITY, n, rng)
    with pytest.raises(InvalidParameterError, match="rng must be None, a non-negative"):
        es.draw_sample(MAPS["calibrated"], DENSITY, 5, -1)
    # a seed stands for the generator it seeds; a Generator is advanced in place
    p_seed, y_seed = es.draw_sample(MAPS["calibrated"], DENSITY, 50, 8)
    p_gen, y_gen = es.draw_sample(MAPS["calibrated"], DENSITY, 50, np.random.default_rng(8))
    np.testing.assert_array_equal(p_seed, p_gen)
    np.testing.assert_array_equal(y_seed, y_gen)


# ---------------------------------------------------------------------------
# truths against independent Monte-Carlo (a huge sample of predictions)
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("name", list(MAPS))
def test_true_errors_against_monte_carlo(name, big_sample):
    f = MAPS[name]
    gap = f(big_sample) - big_sample
    for value, draws in [
        (es.true_ece(f, DENSITY), np.abs(gap)),
        (es.true_squared_error(f, DENSITY), gap**2),
    ]:
        se = draws.std() / np.sqrt(draws.size)
        assert abs(value - draws.mean()) <= 5 * se + 1e-12


def _monte_carlo_binned(f, p, edges, squared):
    """The binned error of a sample of predictions, with f(p) in place of the labels."""
    k = np.clip(np.searchsorted(edges, p, side="right") - 1, 0, len(edges) - 2)
    share = np.bincount(k, minlength=len(edges) - 1) / p.size
    gap = np.bincount(k, weights=f(p) - p, minlength=len(edges) - 1) / p.size  # P_k times gap_k
    full = share > 0
    return np.sum(gap[full] ** 2 / share[full]) if squared else np.sum(np.abs(gap))


@pytest.mark.parametrize("name", ["over-confident", "non-monotone"])
@pytest.mark.parametrize("n_bins", [5, 20])
def test_binned_error_against_monte_carlo(name, n_bins, big_sample):
    f = MAPS[name]
    uniform = np.linspace(0, 1, n_bins + 1)
    # equal-mass bins from the sample's own quantiles: independent of the density's ppf
    quantile = np.quantile(big_sample, np.linspace(0, 1, n_bins + 1))
    quantile[0], quantile[-1] = 0.0, 1.0
    for strategy, edges in [("uniform", uniform), ("quantile", quantile)]:
        for squared, tol in [(False, 2e-4), (True, 2e-5)]:
            exact = es.binned_error(f, DENSITY, n_bins, strategy, squared=squared)
            mc = _monte_carlo_binned(f, big_sample, edges, squared)
            assert exact == pytest.approx(mc, abs=tol), (strategy, squared)


def test_binned_error_below_the_true_error_and_reaching_it():
    # Jensen: binning can only cancel or shrink gaps
    for name in ["over-confident", "under-confident", "non-monotone"]:
        f = MAPS[name]
        ece, sq = es.true_ece(f, DENSITY), es.true_squared_error(f, DENSITY)
        for k in [1, 3, 7, 30]:
            for strategy in ["uniform", "quantile"]:
                assert es.binned_error(f, DENSITY, k, strategy) <= ece + 1e-12
                assert es.binned_error(f, DENSITY, k, strategy, squared=True) <= sq + 1e-12
        # many bins: within O(1/K^2) of the truth for these smooth maps
        assert es.binned_error(f, DENSITY, 400, "uniform") == pytest.approx(ece, abs=1e-4)
    # one bin: the gap of the means
    f = MAPS["over-confident"]
    whole = integrate.quad(lambda s: (f(s) - s) * DENSITY.pdf(s), 0, 1)[0]
    assert es.binned_error(f, DENSITY, 1) == pytest.approx(abs(whole), abs=1e-10)
    with pytest.raises(InvalidParameterError, match="n_bins must be an integer >= 1"):
        es.binned_error(f, DENSITY, 0)
    with pytest.raises(InvalidParameterError, match="n_bins must be an integer >= 1"):
        es.binned_error(f, DENSITY, 5.0)
    with pytest.raises(InvalidParameterError, match="strategy must be one of 'uniform'"):
        es.binned_error(f, DENSITY, 5, "positional")
    with pytest.raises(InvalidParameterError, match="squared must be a boolean"):
        es.binned_error(f, DENSITY, 5, squared="yes")


def test_a_calibrated_map_has_zero_targets():
    targets = es.population_targets({"calibrated": MAPS["calibrated"]}, DENSITY, bin_counts=(7,))
    row = targets.loc["calibrated"]
    for column in [
        "true ECE",
        "true CE2",
        "ECE uniform K=7",
        "ECE quantile K=7",
        "CE2 quantile K=15",
        "smooth ECE",
        "spiegelhalter_drift",
    ]:
        assert row[column] == 0.0, column
    assert row["slope"] == pytest.approx(1.0, abs=1e-10)
    assert row["intercept"] == pytest.approx(0.0, abs=1e-10)


def _reflected_residual_by_quad(f, t, sigma):
    """r(t) written plainly: the kernel with its two mirror images, integrated by quad."""

    def kernel(p):
        return sum(stats.norm.pdf(t, loc, sigma) for loc in (p, -p, 2 - p))

    return integrate.quad(
        lambda p: (p - f(p)) * DENSITY.pdf(p) * kernel(p), 0, 1, limit=200, points=[t]
    )[0]


def test_smooth_target_residual_against_quad():
    f, sigma = MAPS["non-monotone"], 0.05
    grid = 20_000
    t = (np.arange(grid) + 0.5) / grid
    residual = es._reflected_smooth((t - f(t)) * DENSITY.pdf(t), sigma)
    for i in [10, 3_000, 10_000, 19_990]:
        assert residual[i] == pytest.approx(_reflected_residual_by_quad(f, t[i], sigma), abs=1e-7)


@pytest.mark.parametrize("name", ["over-confident", "non-monotone"])
def test_smooth_target_is_a_fixed_point_and_the_large_sample_limit(name):
    f = MAPS[name]
    value, sigma = es.smooth_ece_target(f, DENSITY)
    assert value == pytest.approx(sigma, rel=1e-8)
    assert value < es.true_ece(f, DENSITY)  # smoothing cancels some of the gaps
    # the package's estimator on a huge labelled sample converges to the target
    p, y = es.draw_sample(f, DENSITY, 2_000_000, np.random.default_rng(11))
    estimate, bandwidth = smooth_ece(y, p, return_bandwidth=True)
    assert estimate == pytest.approx(value, abs=1.5e-3)
    assert bandwidth == pytest.approx(sigma, abs=1.5e-3 + 1 / 1024)


def test_test_targets_recover_cox_model_and_match_a_large_sample():
    over = es.calibration_test_targets(MAPS["over-confident"], DENSITY)
    under = es.calibration_test_targets(MAPS["under-confident"], DENSITY)
    # the logistic maps are Cox's model: the fit recovers b exactly and a = 0
    assert over["slope"] == pytest.approx(0.7, abs=1e-9)
    assert under["slope"] == pytest.approx(1.4, abs=1e-9)
    assert abs(over["intercept"]) < 1e-9 and abs(under["intercept"]) < 1e-9
    # the non-monotone map is not: compare with the package's fit on a million rows
    f = MAPS["non-monotone"]
    targets = es.calibration_test_targets(f, DENSITY)
    p, y = es.draw_sample(f, DENSITY, 1_000_000, np.random.default_rng(5))
    fit = calibration_intercept_slope(y, p)
    assert abs(fit.slope - targets["slope"]) < 5 * fit.slope_se
    assert abs(fit.intercept - targets["intercept_offset"]) < 5 * fit.intercept_se
    # Spiegelhalter's drift and null variance by Monte-Carlo on the predictions
    q = p[:400_000]
    drift = (f(q) - q) * (1 - 2 * q)
    assert abs(targets["spiegelhalter_drift"] - drift.mean()) < 5 * drift.std() / np.sqrt(q.size)
    null = (1 - 2 * q) ** 2 * q * (1 - q)
    assert targets["spiegelhalter_null_variance"] == pytest.approx(null.mean(), rel=5e-3)
    # the calibrated map's null variance by hand: E[(1 - 2p)^2 p (1 - p)] under Beta(2, 4)
    exact = integrate.quad(lambda s: (1 - 2 * s) ** 2 * s * (1 - s) * DENSITY.pdf(s), 0, 1)[0]
    assert targets["spiegelhalter_null_variance"] == pytest.approx(exact, rel=1e-10)


@settings(max_examples=15, deadline=None)
@given(a=st.floats(0.5, 6), b=st.floats(0.5, 6))
def test_fast_beta_density_equals_scipy(a, b):
    density = stats.beta(a, b)
    pdf = es._pdf(density)
    assert pdf != density.pdf  # the fast path, not scipy's own
    for s in [1e-6, 0.1, 0.5, 0.77, 1 - 1e-6]:
        assert pdf(s) == pytest.approx(density.pdf(s), rel=1e-10)


# ---------------------------------------------------------------------------
# the replications: shapes, reproducibility, summaries
# ---------------------------------------------------------------------------
ESTIMATORS_PER_REP = 8 + 2 + 2 + 3 + 4 + 2  # binned, sweep, smooth, squared, tests, bands


@pytest.fixture(scope="module")
def small_study():
    maps = {k: MAPS[k] for k in ["calibrated", "non-monotone"]}
    return es.run_study(maps, [60, 150], n_rep=3, seed=9, n_resamples=200)


def test_run_study_shape_and_columns(small_study):
    df = small_study
    assert list(df.columns) == ["map", "n", "rep", "estimator", "kind", "value", "target", "truth"]
    assert len(df) == 2 * 2 * 3 * ESTIMATORS_PER_REP
    assert df.groupby(["map", "n", "rep"]).size().eq(ESTIMATORS_PER_REP).all()
    assert set(df.kind) == {"ECE", "ECE (l2)", "squared", "p-value", "coverage", "auxiliary"}
    tests = df[df.kind == "p-value"].value
    assert tests.between(0, 1).all()
    coverage = df[df.kind == "coverage"].value
    assert coverage.between(0, 1).all()
    # targets: the calibrated map's are all zero; the truth of the ECEs is the true ECE
    calibrated = df[(df["map"] == "calibrated") & (df.kind == "ECE")]
    assert len(calibrated) == 2 * 3 * 10  # 8 binned ECEs, the sweep and the smooth ECE
    assert (calibrated.target == 0).all() and (calibrated.truth == 0).all()
    wiggle = df[(df["map"] == "non-monotone") & (df.estimator == "ECE uniform K=10")]
    assert len(wiggle) == 2 * 3
    expected = es.binned_error(MAPS["non-monotone"], DENSITY, 10, "uniform")
    assert np.allclose(wiggle.target, expected)
    assert np.allclose(wiggle.truth, es.true_ece(MAPS["non-monotone"], DENSITY))


def test_run_study_is_reproducible_and_sliceable(small_study):
    maps = {"non-monotone": MAPS["non-monotone"]}
    # the same seed gives the same values, and a slice (one map, one size, later
    # replications) gives exactly the rows of the larger study
    piece = es.run_study(maps, [150], n_rep=2, seed=9, n_resamples=200, first_rep=1)
    whole = small_study[
        (small_study["map"] == "non-monotone") & (small_study.n == 150) & (small_study.rep >= 1)
    ]
    pd.testing.assert_frame_equal(piece.reset_index(drop=True), whole.reset_index(drop=True))
    other = es.run_study(maps, [150], n_rep=2, seed=10, n_resamples=200, first_rep=1)
    assert not np.allclose(other.value, piece.value, equal_nan=True)


def test_run_study_values_agree_with_the_metrics():
    # replication 0 of map m at size N uses the generator seeded (seed, crc32(m), N, 0)
    from zlib import crc32

    from calibbook.metrics import ece_sweep, expected_calibration_error

    df = es.run_study(
        {"over-confident": MAPS["over-confident"]}, [300], n_rep=1, seed=4, n_resamples=0
    ).set_index("estimator")
    rng = np.random.default_rng([4, crc32(b"over-confident"), 300, 0])
    p = DENSITY.rvs(size=300, random_state=rng)
    y = (rng.random(300) < MAPS["over-confident"](p)).astype(int)
    assert df.loc["ECE quantile K=15", "value"] == expected_calibration_error(
        y, p, n_bins=15, strategy="quantile"
    )
    value, b = ece_sweep(y, p, return_n_bins=True)
    assert df.loc["ECE sweep", "value"] == value and df.loc["sweep bins", "value"] == b
    assert df.loc["ECE sweep", "target"] == pytest.approx(
        es.binned_error(MAPS["over-confident"], DENSITY, b, "quantile")
    )


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"n_rep": 0}, "n_rep must be an integer >= 1"),
        ({"n_rep": 1.5}, "n_rep must be an integer >= 1"),
        ({"seed": -1}, "seed must be an integer >= 0"),
        ({"debiased_bins": 0}, "debiased_bins must be an integer >= 1"),
        ({"band_bins": 0}, "band_bins must be an integer >= 1"),
        ({"band_confidence": 1.0}, "band_confidence must be a finite number in \\(0.0, 1.0\\)"),
        ({"band_level": 0.0}, "band_confidence must be a finite number in \\(0.0, 1.0\\)"),
        ({"n_resamples": -1}, "n_resamples must be an integer >= 0"),
        ({"first_rep": -2}, "first_rep must be an integer >= 0"),
        ({"maps": [MAPS["calibrated"]]}, "maps must be a dict"),
    ],
)
def test_run_study_rejects_bad_arguments(kwargs, message):
    arguments = {"maps": MAPS, "sizes": [100], "n_rep": 1, **kwargs}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # band_level
        with pytest.raises(InvalidParameterError, match=message):
            es.run_study(**arguments)


def test_run_study_rejects_small_sizes():
    # a sequence's content is checked in the body: a ValueError, not a parameter's
    with pytest.raises(ValueError, match="at least 20"):
        es.run_study(MAPS, [100, 10], n_rep=1)


def test_band_level_is_the_old_name_of_band_confidence():
    maps = {"over-confident": MAPS["over-confident"]}
    new = es.run_study(maps, [80], n_rep=2, seed=3, n_resamples=50, band_confidence=0.8)
    with pytest.warns(FutureWarning, match="'band_level' was renamed 'band_confidence'"):
        old = es.run_study(maps, [80], n_rep=2, seed=3, n_resamples=50, band_level=0.8)
    pd.testing.assert_frame_equal(old, new)
    assert (new.loc[new.estimator == "band coverage", "target"] == 0.8).all()
    # a different confidence gives other bands from the same draws
    other = es.run_study(maps, [80], n_rep=2, seed=3, n_resamples=50, band_confidence=0.5)
    coverage = other.estimator == "band coverage"
    assert not other[coverage].value.equals(new[coverage].value)
    with pytest.raises(TypeError, match="got both 'band_level' and its new name"):
        es.run_study(maps, [80], n_rep=1, band_level=0.8, band_confidence=0.8)


def test_summarise_study_by_hand():
    rows = []
    for rep, (est, pval) in enumerate([(0.1, 0.01), (0.3, 0.2), (0.2, 0.04), (0.4, np.nan)]):
        rows.append(("m", 100, rep, "E", "ECE", est, 0.15, 0.25))
        rows.append(("m", 100, rep, "T", "p-value", pval, np.nan, np.nan))
    df = pd.DataFrame(
        rows, columns=["map", "n", "rep", "estimator", "kind", "value", "target", "truth"]
    )
    out = es.summarise_study(df, alpha=0.05).set_index("estimator")
    e = out.loc["E"]
    assert e.n_rep == 4 and e["mean"] == pytest.approx(0.25)
    assert e.sd == pytest.approx(np.std([0.1, 0.3, 0.2, 0.4], ddof=1))
    assert e.bias == pytest.approx(0.10) and e.bias_truth == pytest.approx(0.0)
    assert e.rmse_truth == pytest.approx(np.sqrt(np.mean(np.square([-0.15, 0.05, -0.05, 0.15]))))
    assert e.se == pytest.approx(e.sd / 2)
    squares = np.square([-0.15, 0.05, -0.05, 0.15])
    assert e.rmse_se == pytest.approx(np.std(squares, ddof=1) / 2 / (2 * e.rmse_truth))
    t = out.loc["T"]  # two of the three valid p-values are below 0.05
    assert t.n_rep == 3 and t["mean"] == pytest.approx(2 / 3)
    for alpha in (0.0, 1.5, "0.05"):
        with pytest.raises(InvalidParameterError, match="alpha must be a finite number in"):
            es.summarise_study(df, alpha=alpha)


def test_smooth_target_grid_must_be_an_integer_of_at_least_1000():
    for grid in (999, 2000.0):
        with pytest.raises(InvalidParameterError, match="grid must be an integer >= 1000"):
            es.smooth_ece_target(MAPS["over-confident"], DENSITY, grid=grid)
