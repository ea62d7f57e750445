"""Issue 28 for the maps on [0, 1] (ENIR, BBQ, isotonic) and near-isotonic regression.

Any float in [0, 1] is a valid score, subnormals and neighbours one ulp apart included;
isotonic and near-isotonic fits follow an affine change of the score's units; and no
result jumps when every sample weight is scaled by the same factor, including totals
that round just above or below 1. The references are independent: scikit-learn's
isotonic regression, hand-worked smoothing in exact rational arithmetic, the fit on
the unscaled data, and the reference code's bin range at integer totals.
"""

import warnings
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.isotonic import IsotonicRegression

from calibbook import BBQ, ENIR, IsotonicCalibration, LowWeightWarning, NearIsotonicRegression
from calibbook.calibrators._model_averaging import relative_likelihoods
from calibbook.calibrators.bbq import _model_range, bbq_bin_range

TINY = 5e-324  # the smallest subnormal
EXTREMES = [0.0, TINY, 2 * TINY, 1e-310, 2.2250738585072014e-308, 0.5, 1 - 2**-53, 1.0]

MAPS = {
    "enir": ENIR,
    "enir_step": lambda: ENIR(interpolation="step"),
    "bbq": BBQ,
    "isotonic": IsotonicCalibration,
    "isotonic_linear": lambda: IsotonicCalibration(interpolation="linear"),
    "near_isotonic": NearIsotonicRegression,
    "near_isotonic_step": lambda: NearIsotonicRegression(interpolation="step"),
}


def _labelled(draw, values):
    y = draw(st.lists(st.sampled_from([0.0, 1.0]), min_size=len(values), max_size=len(values)))
    y[0], y[-1] = 0.0, 1.0  # both classes
    return np.array(values), np.array(y)


@st.composite
def unit_interval_data(draw):
    unit = st.floats(0.0, 1.0, allow_subnormal=True) | st.sampled_from(EXTREMES)
    values = draw(st.lists(unit, min_size=2, max_size=40))
    return _labelled(draw, values)


@pytest.mark.parametrize("name", MAPS)
@settings(max_examples=50, deadline=None)
@given(data=unit_interval_data(), probe=st.lists(st.floats(0.0, 1.0), max_size=5))
def test_any_float_in_unit_interval_fits_and_predicts(name, data, probe):
    s, y = data
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no overflow or invalid-value warning either
        cal = MAPS[name]().fit(s, y)
        p = cal.predict(np.concatenate([s, EXTREMES, probe]))
    assert np.isfinite(p).all() and p.min() >= 0.0 and p.max() <= 1.0


@pytest.mark.parametrize("scale", [1.0, 1e-310])
def test_enir_on_subnormal_scores_interpolates_its_run_values(scale):
    """Scores x 1e-310 (the issue's case): knots a few subnormals apart. Linear
    interpolation must pass through each run's value and stay between neighbours."""
    rng = np.random.default_rng(0)
    s = rng.uniform(0.02, 0.98, 200)
    y = (rng.uniform(size=200) < s).astype(float)
    cal = ENIR().fit(s * scale, y)
    x, v = cal.path_.scores, cal.step_values_
    np.testing.assert_array_equal(cal.predict(x), v)
    between = x[:-1] + 0.5 * (x[1:] - x[:-1])
    p = cal.predict(between)
    lo, hi = np.minimum(v[:-1], v[1:]), np.maximum(v[:-1], v[1:])
    assert np.all((p >= lo - 1e-15) & (p <= hi + 1e-15))
    step = ENIR(interpolation="step").fit(s * scale, y)
    np.testing.assert_array_equal(step.predict(between), v[:-1])


@pytest.mark.parametrize("interpolation", ["step", "linear"])
def test_isotonic_on_neighbouring_subnormals_keeps_each_run_its_value(
    interpolation,
):
    """Two scores 5e-324 apart have no float between them: the step map's edge must not
    land on the lower one (their rounded midpoint), which would give it the upper value.
    By hand: the runs 0, 5e-324 and 1 have means 1/3 < 2/3 < 1, already isotonic.
    (scikit-learn is no reference here: it pools scores closer than 1e-15.)"""
    s = np.array([0.0, 0.0, 0.0, TINY, TINY, TINY, 1.0, 1.0])
    y = np.array([0, 0, 1, 0, 1, 1, 1, 1], dtype=float)
    cal = IsotonicCalibration(interpolation=interpolation).fit(s, y)
    expected = [1 / 3] * 3 + [2 / 3] * 3 + [1.0] * 2
    np.testing.assert_allclose(cal.predict(s), expected, rtol=1e-15)
    # where no two scores are that close, scikit-learn agrees
    s[3:6] = 0.5
    expected = IsotonicRegression(out_of_bounds="clip").fit(s, y).predict(s)
    np.testing.assert_allclose(IsotonicCalibration().fit(s, y).predict(s), expected, rtol=1e-15)


def test_isotonic_between_knots_near_the_largest_float():
    """Scores whose difference or sum overflows: the interpolation and the step map's
    edges must not (by hand: two one-score blocks predicting 0 and 1)."""
    linear = IsotonicCalibration(interpolation="linear").fit([-1.7e308, 1.7e308], [0, 1])
    np.testing.assert_allclose(linear.predict([0.0, 0.85e308]), [0.5, 0.75])
    step = IsotonicCalibration().fit([1e308, 1.7e308], [0, 1])  # the edge is 1.35e308
    np.testing.assert_array_equal(step.predict([1e308, 1.3e308, 1.4e308, 1.7e308]), [0, 0, 1, 1])


# ------------------------------------------------------------------ affine invariance
AFFINE = {
    "isotonic": IsotonicCalibration,
    "isotonic_linear": lambda: IsotonicCalibration(interpolation="linear"),
    "isotonic_decreasing": lambda: IsotonicCalibration(increasing=False),
    "near_isotonic": NearIsotonicRegression,
    "near_isotonic_step": lambda: NearIsotonicRegression(interpolation="step"),
    "near_isotonic_lam": lambda: NearIsotonicRegression(lam=0.4),
}


@pytest.mark.parametrize("name", AFFINE)
@settings(max_examples=40, deadline=None)
@given(
    data=st.data(),
    log_a=st.floats(-12.0, 12.0),
    b_over_spread=st.floats(-1e6, 1e6),
)
def test_isotonic_and_near_isotonic_follow_an_affine_change_of_units(
    name, data, log_a, b_over_spread
):
    """fit(a s + b).predict(a t + b) == fit(s).predict(t), scores on an integer grid (so
    that a s + b keeps them apart) and t at the training scores and a quarter of the way
    to the next (away from the step map's midpoint edges)."""
    grid = data.draw(st.lists(st.integers(0, 60), min_size=2, max_size=40, unique=True))
    s, y = _labelled(data.draw, grid)
    s = s.astype(float)
    t = np.concatenate([s, s + 0.25])
    a = 10.0**log_a
    b = b_over_spread * a * np.ptp(s)
    assert len(set((a * s + b).tolist())) == s.size  # the grid stays distinct
    base = AFFINE[name]().fit(s, y).predict(t)
    moved = AFFINE[name]().fit(a * s + b, y).predict(a * t + b)
    np.testing.assert_allclose(moved, base, rtol=0, atol=1e-6)


@pytest.mark.parametrize("make", [IsotonicCalibration, ENIR, BBQ])
def test_units_declaration(make):
    """Isotonic declares itself affine-invariant (the default for any real score); the
    maps that need probabilities have fixed units."""
    assert make()._units == ("affine" if make is IsotonicCalibration else None)


# ------------------------------------------------------------------ AICc on a tiny sample
def _smoothed(W, positives, mean_score):
    """ENIR's smoothing of a block, exactly: (W p + e (1 - |o - e|)) / (W + 1 - |o - e|)."""
    W, positives, e = Fraction(W), Fraction(positives), Fraction(mean_score)
    o = positives / W
    return (positives + e * (1 - abs(o - e))) / (W + 1 - abs(o - e))


def test_enir_aicc_with_no_finite_model_takes_the_isotonic_regression():
    """Three samples: AICc is infinite for every model (n - df - 1 <= 0). ENIR falls
    back to the path's last model, the isotonic regression: blocks {0.1} and {0.5, 0.9}."""
    s, y = [0.1, 0.5, 0.9], [0, 1, 1]
    cal = ENIR(criterion="aicc").fit(s, y)
    low = _smoothed(1, 0, Fraction(0.1))
    high = _smoothed(2, 2, (Fraction(0.5) + Fraction(0.9)) / 2)
    np.testing.assert_allclose(cal.predict(s), [float(low), float(high), float(high)], rtol=1e-15)
    assert cal.model_df_.tolist() == [2] and cal.model_weights_.tolist() == [1.0]
    # and it is the limit of the average as the total weight falls to df + 1 = 3
    with pytest.warns(LowWeightWarning, match=r"total 3, fewer than two cases per block"):
        near = ENIR(criterion="aicc").fit(s, y, sample_weight=np.full(3, 1 + 1e-9))
    np.testing.assert_allclose(near.predict(s), cal.predict(s), atol=1e-8)


def test_relative_likelihoods_of_no_finite_score_is_a_clear_error():
    with pytest.raises(ValueError, match="every model's criterion is infinite"):
        relative_likelihoods([np.inf, np.inf])


# ------------------------------------------------------------------ weights scaled by c
def _weighted_case(seed, n=150, kind="random"):
    rng = np.random.default_rng(seed)
    s = rng.uniform(0.02, 0.98, n)
    y = (rng.uniform(size=n) < s).astype(float)
    w = np.ones(n) if kind == "equal" else rng.uniform(0.2, 2.0, n)
    return s, y, w


SCALED = {"enir": ENIR, "bbq": BBQ, "isotonic": IsotonicCalibration}
PROBE = np.linspace(0.0, 1.0, 101)


def _fit_predict(make, s, y, w):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", LowWeightWarning)
        return make().fit(s, y, sample_weight=w).predict(PROBE)


@pytest.mark.parametrize("kind", ["random", "equal"])
@pytest.mark.parametrize("name", SCALED)
@settings(max_examples=25, deadline=None)
@given(log_c=st.floats(-6.0, 6.0), ulps=st.integers(-4, 4), seed=st.integers(0, 3))
def test_results_are_continuous_when_the_weights_are_scaled(name, kind, log_c, ulps, seed):
    """Weights c w and c w (1 + k eps): the fits differ by rounding only (equal weights put
    the weight below many runs exactly on BBQ's targets, ties that rounding must not break)."""
    s, y, w = _weighted_case(seed, kind=kind)
    w = w * 10.0**log_c
    nudged = w * (1.0 + ulps * np.finfo(float).eps)
    p, q = (_fit_predict(SCALED[name], s, y, v) for v in (w, nudged))
    np.testing.assert_allclose(p, q, rtol=0, atol=1e-9)


@pytest.mark.parametrize("name", SCALED)
@pytest.mark.parametrize("kind", ["random", "equal"])
def test_weights_normalised_to_one_do_not_jump_and_warn(name, kind):
    """Normalised weights whose total rounds to 1 - 4e-16, 1 or 1 + 4e-16."""
    s, y, w = _weighted_case(1, kind=kind)
    w = w / w.sum()
    fits = [_fit_predict(SCALED[name], s, y, w * (1.0 + k * 2.0**-52)) for k in (-2, 0, 2)]
    for other in fits[1:]:
        np.testing.assert_allclose(other, fits[0], rtol=0, atol=1e-12)
    if name != "isotonic":  # PAV shares no weight among a chosen number of groups
        with pytest.warns(LowWeightWarning, match=f"{SCALED[name].__name__}: the sample weights"):
            SCALED[name]().fit(s, y, sample_weight=w)


@pytest.mark.parametrize("total", [5.0, 6.0, 11.0, 126.0, 7529.536, 8000.0, 8001.0])
def test_bbq_range_fades_binnings_in_and_out_continuously(total):
    """Across the totals where the reference code's range gains or loses a binning."""
    s, y, w = _weighted_case(2, n=300)
    w = w / w.sum()
    fits = [_fit_predict(BBQ, s, y, w * t) for t in total + np.array([-1e-9, 0.0, 1e-9])]
    np.testing.assert_allclose(fits[1], fits[0], rtol=0, atol=1e-6)
    np.testing.assert_allclose(fits[2], fits[1], rtol=0, atol=1e-6)


def test_bbq_range_is_the_reference_codes_at_integer_totals():
    for n in [*range(1, 200), 7529, 7530, 7999, 8000, 8001, 10**6]:
        b_min, b_max, log_prior = _model_range(float(n))
        assert (b_min, b_max) == bbq_bin_range(n) and not log_prior.any()
    # between integers every binning of the reference range at W has positive weight
    for total in [5.5, 7529.3, 7529.7, 7999.5, 8000.5]:
        b_min, b_max, log_prior = _model_range(total)
        assert (b_min, b_max) == bbq_bin_range(total) and np.isfinite(log_prior).all()


@pytest.mark.parametrize("make", [ENIR, BBQ])
def test_low_weight_warning_names_the_groups_it_counts(make):
    s, y, w = _weighted_case(4)
    with warnings.catch_warnings():
        warnings.simplefilter("error", LowWeightWarning)
        make().fit(s, y)  # no weights: no warning
        make().fit(s, y, sample_weight=w)  # 150 rows of weight about 1: enough
    small = w / w.sum() * 1.5
    with pytest.warns(LowWeightWarning) as caught:
        cal = make().fit(s, y, sample_weight=small)
    message = str(caught[0].message)
    if make is ENIR:  # the blocks of the model with the largest weight
        blocks = int(cal.model_df_[np.argmax(cal.model_weights_)])
        assert (f"per block ({blocks} blocks)" if blocks > 1 else "two cases.") in message
    else:  # the bins of the largest binning: below a total of 5, one bin (no count)
        assert "fewer than two cases." in message
