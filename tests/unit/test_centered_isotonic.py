"""CenteredIsotonicCalibration against a brute force from scikit-learn's IsotonicRegression and
numpy.interp, and the AUC that isotonic calibration loses and CIR keeps (scikit-learn #16321)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.isotonic import IsotonicRegression
from sklearn.metrics import roc_auc_score

from calibbook import CenteredIsotonicCalibration, IsotonicCalibration, LowWeightWarning


def brute_force(s, y, w, probe):
    """CIR by hand: scikit-learn's isotonic fit gives the blocks (runs of one fitted value in
    score order), each block's weighted mean score its centre, numpy.interp the map."""
    order = np.argsort(s, kind="stable")
    s, y, w = s[order], y[order], w[order]
    fitted = IsotonicRegression().fit(s, y, sample_weight=w).predict(s)
    starts = np.flatnonzero(np.concatenate(([True], fitted[1:] != fitted[:-1])))
    ends = np.append(starts[1:], s.size)
    centres = np.array(
        [np.average(s[a:b], weights=w[a:b]) for a, b in zip(starts, ends, strict=True)]
    )
    return np.interp(probe, centres, fitted[starts]), centres


def data(seed, n=None):
    rng = np.random.default_rng(seed)
    n = n or int(rng.integers(10, 500))
    s = rng.normal(size=n)
    if seed % 3 == 0:
        s = np.round(s, 1)  # tied scores
    y = (rng.uniform(size=n) < 1 / (1 + np.exp(-rng.uniform(0.2, 4) * s))).astype(float)
    y[0], y[1] = 0.0, 1.0
    w = rng.integers(1, 4, size=n).astype(float) if seed % 2 else np.ones(n)
    return s, y, w


@pytest.mark.parametrize("seed", range(30))
def test_equals_brute_force(seed):
    s, y, w = data(seed)
    cal = CenteredIsotonicCalibration().fit(s, y, sample_weight=None if seed % 2 == 0 else w)
    probe = np.concatenate([np.linspace(s.min() - 1, s.max() + 1, 200), s])
    expected, centres = brute_force(s, y, w, probe)
    np.testing.assert_allclose(cal.block_centers_, centres, rtol=0, atol=1e-12)
    np.testing.assert_allclose(cal.predict(probe), expected, rtol=0, atol=1e-12)


@pytest.mark.parametrize("seed", range(6))
def test_decreasing_equals_brute_force_on_the_negated_scores(seed):
    s, y, w = data(seed)
    y = 1.0 - y
    cal = CenteredIsotonicCalibration(increasing=False).fit(s, y, sample_weight=w)
    probe = np.linspace(s.min() - 1, s.max() + 1, 200)
    expected, _ = brute_force(-s, y, w, -probe)
    np.testing.assert_allclose(cal.predict(probe), expected, rtol=0, atol=1e-12)


def test_example_by_hand():
    # blocks {0.1}, {0.2, 0.3}, {0.4} with values 0, 1/2, 1; the middle centre is 0.25
    cal = CenteredIsotonicCalibration().fit([0.1, 0.2, 0.3, 0.4], [0, 1, 0, 1])
    np.testing.assert_allclose(cal.block_centers_, [0.1, 0.25, 0.4], atol=1e-15)
    np.testing.assert_allclose(
        cal.predict([0.0, 0.1, 0.2, 0.25, 0.3, 0.4, 0.5]),
        [0.0, 0.0, 1 / 3, 0.5, 2 / 3, 1.0, 1.0],
        atol=1e-15,
    )
    # weight 3 on 0.3 moves the centre to (0.2 + 3 * 0.3) / 4 and the value to 1/4
    cal = CenteredIsotonicCalibration().fit(
        [0.1, 0.2, 0.3, 0.4], [0, 1, 0, 1], sample_weight=[1, 1, 3, 1]
    )
    np.testing.assert_allclose(cal.block_centers_, [0.1, 0.275, 0.4], atol=1e-15)
    np.testing.assert_allclose(cal.center_values_, [0.0, 0.25, 1.0], atol=1e-15)


@settings(max_examples=50, deadline=None)
@given(st.integers(0, 10_000))
def test_strictly_increasing_between_centres_and_isotonic_at_them(seed):
    s, y, w = data(seed)
    cal = CenteredIsotonicCalibration().fit(s, y, sample_weight=w)
    iso = IsotonicCalibration().fit(s, y, sample_weight=w)
    c = cal.block_centers_
    assert np.all(np.diff(c) > 0)
    assert np.all((cal.block_lower_ <= c) & (c <= cal.block_upper_))
    np.testing.assert_array_equal(cal.block_lower_, iso.block_lower_)
    np.testing.assert_array_equal(cal.center_values_, iso.step_values_)
    # at each centre, the block's isotonic value; between centres, strictly increasing
    np.testing.assert_allclose(cal.predict(c), iso.step_values_, atol=1e-15)
    if c.size > 1:
        grid = np.linspace(c[0], c[-1], 1000)
        assert np.all(np.diff(cal.predict(grid)) > 0)
    # flat beyond the outer centres
    assert cal.predict([s.min() - 5.0])[0] == cal.center_values_[0]
    assert cal.predict([s.max() + 5.0])[0] == cal.center_values_[-1]


def test_keeps_the_auc_that_isotonic_calibration_loses():
    # scikit-learn issue #16321: isotonic calibration ties the test scores of a block, so the
    # AUC of the calibrated scores is below that of the raw scores; CIR keeps their order
    rng = np.random.default_rng(0)

    def sample(n):
        s = rng.normal(size=n)
        return s, (rng.uniform(size=n) < 1 / (1 + np.exp(-2.0 * s))).astype(int)

    s, y = sample(2000)
    t, yt = sample(5000)
    cir = CenteredIsotonicCalibration().fit(s, y)
    iso = IsotonicCalibration().fit(s, y)
    inside = (cir.block_centers_[0] <= t) & (t <= cir.block_centers_[-1])
    t, yt = t[inside], yt[inside]
    raw_auc = roc_auc_score(yt, t)
    p_iso, p_cir = iso.predict(t), cir.predict(t)
    assert np.unique(p_iso).size < t.size / 20  # isotonic: a few values for thousands of scores
    assert np.unique(p_cir).size == np.unique(t).size  # CIR: no new ties
    assert roc_auc_score(yt, p_cir) == raw_auc
    assert roc_auc_score(yt, p_iso) < raw_auc


def test_integer_weights_equal_repeated_rows_and_aggregated_rows():
    s, y, _ = data(3)
    w = np.random.default_rng(0).integers(0, 4, size=s.size).astype(float)
    w[0] = w[1] = 1.0
    weighted = CenteredIsotonicCalibration().fit(s, y, sample_weight=w)
    k = w.astype(int)
    repeated = CenteredIsotonicCalibration().fit(np.repeat(s, k), np.repeat(y, k))
    probe = np.linspace(s.min() - 1, s.max() + 1, 300)
    np.testing.assert_allclose(weighted.predict(probe), repeated.predict(probe), atol=1e-12)
    keys = np.unique(np.column_stack([s, y])[w > 0], axis=0)
    sums = np.array([w[(s == a) & (y == b)].sum() for a, b in keys])
    aggregated = CenteredIsotonicCalibration().fit(keys[:, 0], keys[:, 1], sample_weight=sums)
    np.testing.assert_allclose(aggregated.predict(probe), weighted.predict(probe), atol=1e-12)


def test_scores_near_the_largest_float_and_one_block():
    s = np.array([-1.7e308, -1.6e308, 1.5e308, 1.7e308])
    cal = CenteredIsotonicCalibration().fit(s, [0, 1, 0, 1])
    assert np.isfinite(cal.block_centers_).all()
    np.testing.assert_allclose(cal.block_centers_[1], (1.5e308 / 2 - 1.6e308 / 2), rtol=1e-15)
    weighted = CenteredIsotonicCalibration().fit(s, [0, 1, 0, 1], sample_weight=np.full(4, 2.0))
    np.testing.assert_allclose(weighted.block_centers_, cal.block_centers_, rtol=1e-15)
    cal = CenteredIsotonicCalibration().fit([1.0, 2.0, 3.0], [1, 1, 0])  # one block
    assert cal.block_centers_.tolist() == [2.0]
    np.testing.assert_allclose(cal.predict([0.0, 2.0, 9.0]), 2 / 3)


def test_warnings_and_out_of_bounds():
    s, y, _ = data(5)
    with pytest.warns(LowWeightWarning):
        CenteredIsotonicCalibration().fit(s, y, sample_weight=np.full(s.size, 0.01))
    cal = CenteredIsotonicCalibration(out_of_bounds="raise").fit(s, y)
    with pytest.raises(ValueError, match="training range"):
        cal.predict([s.max() + 1.0])
