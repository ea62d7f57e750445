"""IsotonicCalibration against scikit-learn's IsotonicRegression and a cvxpy projection."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.isotonic import IsotonicRegression

from calibbook.calibrators.isotonic import IsotonicCalibration
from tests._reference.isotonic_before_the_fused_fit import _old_isotonic_fit, _old_sorted_runs
from tests._support.contract import check_calibrator_contract


def random_case(rng, heavy_ties):
    n = int(rng.integers(2, 80))
    if heavy_ties:
        s = rng.choice(rng.normal(size=int(rng.integers(1, 8))), size=n)
    else:
        s = rng.normal(size=n)
    y = rng.integers(0, 2, size=n).astype(float)
    y[0], y[-1] = 0.0, 1.0
    w = rng.integers(0, 4, size=n).astype(float)
    w[0] = w[-1] = 1.0
    return s, y, w


@pytest.mark.parametrize("seed", range(300))
def test_equals_sklearn_at_training_points_and_between(seed):
    rng = np.random.default_rng(seed)
    s, y, w = random_case(rng, heavy_ties=seed % 2 == 0)
    weights = w if seed % 3 else None
    increasing = seed % 5 != 0
    ref = IsotonicRegression(increasing=increasing, out_of_bounds="clip").fit(
        s, y, sample_weight=weights
    )
    present = s if weights is None else s[weights > 0]
    for interpolation in ("step", "linear"):
        cal = IsotonicCalibration(increasing=increasing, interpolation=interpolation).fit(
            s, y, weights
        )
        np.testing.assert_allclose(cal.predict(present), ref.predict(present), atol=1e-12)
    grid = np.linspace(s.min() - 1, s.max() + 1, 101)
    linear = IsotonicCalibration(increasing=increasing, interpolation="linear").fit(s, y, weights)
    np.testing.assert_allclose(linear.predict(grid), ref.predict(grid), atol=1e-12)


def test_matches_cvxpy_projection():
    cp = pytest.importorskip("cvxpy")
    rng = np.random.default_rng(7)
    s = rng.normal(size=40)
    y = (rng.uniform(size=40) < 1 / (1 + np.exp(-2 * s))).astype(float)
    w = rng.uniform(0.5, 2.0, size=40)
    order = np.argsort(s)
    x = cp.Variable(40)
    cp.Problem(
        cp.Minimize(cp.sum(cp.multiply(w[order], cp.square(x - y[order])))), [cp.diff(x) >= 0]
    ).solve()
    cal = IsotonicCalibration().fit(s, y, w)
    np.testing.assert_allclose(cal.predict(s[order]), x.value, atol=1e-5)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 6), st.integers(0, 1)), min_size=2, max_size=40))
def test_step_map_is_monotone_and_block_values_are_block_means(rows):
    s = np.array([r[0] for r in rows], float)
    y = np.array([r[1] for r in rows], float)
    if y.min() == y.max():
        y[0] = 1 - y[0]
    cal = IsotonicCalibration().fit(s, y)
    assert np.all(np.diff(cal.step_values_) > 0)
    for lo, hi, value, weight in zip(
        cal.block_lower_, cal.block_upper_, cal.step_values_, cal.block_weights_, strict=True
    ):
        inside = (s >= lo) & (s <= hi)
        assert inside.sum() == weight
        assert y[inside].mean() == pytest.approx(value)
    grid = np.linspace(-1, 7, 50)
    assert np.all(np.diff(cal.predict(grid)) >= 0)


def test_step_edges_sit_midway_between_blocks():
    cal = IsotonicCalibration().fit([0.0, 1.0, 2.0, 3.0], [0, 0, 1, 1])
    # blocks {0, 1} and {2, 3}: the edge is 1.5 (a score on it goes right)
    assert cal.predict([0.5, 1.49, 1.5, 2.5, -9, 9]).tolist() == [0, 0, 1, 1, 0, 1]
    dec = IsotonicCalibration(increasing=False).fit([0.0, 1.0, 2.0, 3.0], [1, 1, 0, 0])
    assert dec.predict([0.5, 1.49, 1.5, 2.5]).tolist() == [1, 1, 0, 0]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.integers(-20, 20), min_size=2, max_size=40),
    st.lists(st.booleans(), min_size=40, max_size=40),
    st.booleans(),
)
def test_a_rounding_error_in_a_training_score_keeps_its_value(ints, labels, increasing):
    """No edge lies on a training score, so moving one by an ulp cannot change its step."""
    s = np.array(ints, float) / 7.0
    y = np.array(labels[: s.size], float)
    y[0], y[-1] = 0.0, 1.0
    cal = IsotonicCalibration(increasing=increasing).fit(s, y)
    at = cal.predict(s)
    for nudged in (np.nextafter(s, -np.inf), np.nextafter(s, np.inf)):
        np.testing.assert_array_equal(cal.predict(nudged), at)


def test_out_of_bounds_raise():
    cal = IsotonicCalibration(out_of_bounds="raise").fit([0.0, 1.0], [0, 1])
    with pytest.raises(ValueError, match="outside the training range"):
        cal.predict([2.0])


@pytest.mark.parametrize(
    "params,message",
    [
        (dict(increasing="yes"), "increasing"),
        (dict(out_of_bounds="nan"), "out_of_bounds"),
        (dict(interpolation="cubic"), "interpolation"),
    ],
)
def test_bad_parameters(params, message):
    with pytest.raises(ValueError, match=message):
        IsotonicCalibration(**params).fit([0.0, 1.0], [0, 1])


@pytest.mark.parametrize("interpolation", ["step", "linear"])
def test_contract(interpolation):
    rng = np.random.default_rng(3)
    s = np.round(rng.normal(size=200), 1)  # ties
    y = (rng.uniform(size=200) < 1 / (1 + np.exp(-s))).astype(int)
    check_calibrator_contract(IsotonicCalibration(interpolation=interpolation), s, y)


# --- the fused fit (one sort per class, runs and PAV in one pass) against the old steps ---


def _same_bits(a, b):
    return (
        a.shape == b.shape and np.array_equal(a, b) and np.array_equal(np.signbit(a), np.signbit(b))
    )


def _fused_case(rng, kind, n):
    if kind == "distinct":
        s = rng.uniform(size=n)
    elif kind == "ties":
        s = rng.integers(0, 5, size=n).astype(float)
    elif kind == "signed zeros":
        s = rng.choice([-0.0, 0.0, 1.0, -1.0], size=n)
    else:  # rounded normals: many short runs with both labels
        s = np.round(rng.normal(size=n), 1)
    y = (rng.uniform(size=n) < 0.5).astype(float)
    y[0], y[1] = 0.0, 1.0
    return s, y


@pytest.mark.parametrize("kind", ["distinct", "ties", "signed zeros", "rounded"])
@pytest.mark.parametrize("seed", range(25))
def test_fused_fit_equals_the_old_steps_bit_for_bit(kind, seed):
    from calibbook._utils.binning import sorted_runs

    rng = np.random.default_rng(seed)
    s, y = _fused_case(rng, kind, int(rng.integers(2, 3000)))
    for increasing in (True, False):
        cal = IsotonicCalibration(increasing=increasing).fit(s, y)
        new = (cal.block_lower_, cal.block_upper_, cal.block_weights_, cal.step_values_)
        for a, b in zip(new, _old_isotonic_fit(s, y, increasing), strict=True):
            assert _same_bits(a, b)
    for a, b in zip(sorted_runs(s, y), _old_sorted_runs(s, y), strict=True):
        assert _same_bits(a, b)


def test_fused_fit_with_one_row_per_class_and_sorted_input():
    for s, y in [([0.3, 0.1], [1.0, 0.0]), (np.arange(50.0), np.repeat([0.0, 1.0], 25))]:
        s, y = np.asarray(s, dtype=float), np.asarray(y, dtype=float)
        cal = IsotonicCalibration().fit(s, y)
        new = (cal.block_lower_, cal.block_upper_, cal.block_weights_, cal.step_values_)
        for a, b in zip(new, _old_isotonic_fit(s, y, True), strict=True):
            assert _same_bits(a, b)
