"""QuadraticScaling against statsmodels' binomial GLM on (1, z, z^2), against PlattScaling where
the quadratic term is dropped, and hand-worked saturated fits."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import expit, logit
from sklearn.exceptions import ConvergenceWarning

from calibbook import LowWeightWarning, PlattScaling, QuadraticScaling
from calibbook.calibrators.platt import platt_targets
from calibbook.calibrators.quadratic import fit_logistic_polynomial


def data(seed, n=None, separable=False):
    rng = np.random.default_rng(seed)
    n = n or int(rng.integers(20, 400))
    z = rng.normal(size=n) * rng.uniform(0.3, 3.0)
    c = rng.uniform(-1.0, 1.0, size=3) * [1.0, 3.0, 1.0]
    y = (rng.uniform(size=n) < expit(c[0] + c[1] * z + c[2] * z**2)).astype(float)
    if separable:
        y = (z > np.median(z)).astype(float)
    y[0], y[1] = 0.0, 1.0
    w = rng.integers(0, 4, size=n).astype(float) if seed % 2 else np.ones(n)
    w[0] = w[1] = 1.0
    return z, y, w


def glm_probabilities(z, y, w, probe):
    """statsmodels' binomial GLM on (1, z, z^2), fitted to Platt's targets with freq_weights."""
    sm = pytest.importorskip("statsmodels.api")
    t, _, _ = platt_targets(y, w)
    design = np.column_stack([np.ones_like(z), z, z**2])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # non-integer binomial responses: they are targets
        res = sm.GLM(t, design, family=sm.families.Binomial(), freq_weights=w).fit(
            tol=1e-13, maxiter=200
        )
    return res.predict(np.column_stack([np.ones_like(probe), probe, probe**2]))


@pytest.mark.parametrize("seed", range(24))
def test_equals_statsmodels_glm(seed):
    z, y, w = data(seed, separable=seed % 6 == 0)
    cal = QuadraticScaling().fit(z, y, sample_weight=w)
    seen = z[w > 0]  # the map is flat beyond the rows it was fitted on
    probe = np.linspace(seen.min(), seen.max(), 60)
    np.testing.assert_allclose(cal.predict(probe), glm_probabilities(z, y, w, probe), atol=1e-6)


def test_a_large_fit_started_from_its_subsample_equals_statsmodels_glm():
    z, y, w = data(1, n=100_000)  # above the size where Newton starts from a strided sample
    cal = QuadraticScaling().fit(z, y, sample_weight=w)
    seen = z[w > 0]
    probe = np.linspace(seen.min(), seen.max(), 60)
    np.testing.assert_allclose(cal.predict(probe), glm_probabilities(z, y, w, probe), atol=1e-6)


@pytest.mark.parametrize("seed", range(6))
def test_logit_input_equals_statsmodels_glm_on_the_logit(seed):
    z, y, w = data(seed)
    p = expit(z)
    cal = QuadraticScaling(logit_input=True).fit(p, y, sample_weight=w)
    probe = np.linspace(p[w > 0].min(), p[w > 0].max(), 40)
    expected = glm_probabilities(logit(p), y, w, logit(probe))
    np.testing.assert_allclose(cal.predict(probe), expected, atol=1e-6)


@pytest.mark.parametrize("seed", range(12))
def test_without_the_quadratic_term_it_is_platt_on_the_logit(seed):
    z, y, w = data(seed, separable=seed % 4 == 0)
    p = expit(z)
    platt = PlattScaling(logit_input=True).fit(p, y, sample_weight=w)
    units, coef, _, converged, _ = fit_logistic_polynomial(logit(p), y, w, degree=1)
    assert converged and coef.shape == (2,)
    probe = np.linspace(0.001, 0.999, 50)
    mine = expit(coef[0] + coef[1] * units.transform(logit(probe)))
    np.testing.assert_allclose(mine, platt.predict(probe), atol=1e-9)


def test_on_a_logistic_truth_the_quadratic_term_vanishes_and_it_matches_platt():
    rng = np.random.default_rng(3)
    p = rng.uniform(0.02, 0.98, size=20_000)
    y = (rng.uniform(size=p.size) < expit(1.5 * logit(p) - 0.3)).astype(float)
    quad = QuadraticScaling(logit_input=True).fit(p, y)
    platt = PlattScaling(logit_input=True).fit(p, y)
    assert abs(quad.coef_[1]) < 0.03  # about two standard errors of c2 at this size
    np.testing.assert_allclose(quad.predict(p), platt.predict(p), atol=0.01)


def test_user_unit_coefficients_give_the_predictions():
    z, y, w = data(7)
    z = 40.0 * z + 300.0  # far from the standard units
    cal = QuadraticScaling().fit(z, y, sample_weight=w)
    z = z[w > 0]
    eta = cal.intercept_ + cal.coef_[0] * z + cal.coef_[1] * z**2
    np.testing.assert_allclose(expit(eta), cal.predict(z), atol=1e-8)
    if cal.vertex_ is not None:
        assert cal.vertex_ == pytest.approx(-cal.coef_[0] / (2 * cal.coef_[1]), rel=1e-9)


def test_saturated_fits_by_hand():
    # three distinct scores, three coefficients: the fit reproduces each score's mean target
    z = np.array([-1.0, -1.0, 0.0, 0.0, 0.0, 2.0, 2.0])
    y = np.array([0.0, 1.0, 0.0, 0.0, 1.0, 1.0, 1.0])
    t_pos, t_neg = (4 + 1) / (4 + 2), 1 / (3 + 2)
    cal = QuadraticScaling().fit(z, y)
    expected = [(t_neg + t_pos) / 2, (2 * t_neg + t_pos) / 3, t_pos]
    np.testing.assert_allclose(cal.predict([-1.0, 0.0, 2.0]), expected, atol=1e-10)
    # two distinct scores: the same, through Platt's line
    cal = QuadraticScaling().fit(z[:5], y[:5])
    t_pos, t_neg = (2 + 1) / (2 + 2), 1 / (3 + 2)
    np.testing.assert_allclose(
        cal.predict([-1.0, 0.0]), [(t_neg + t_pos) / 2, (2 * t_neg + t_pos) / 3], atol=1e-10
    )
    # constant scores: the mean target
    cal = QuadraticScaling().fit(np.zeros(5), y[:5])
    np.testing.assert_allclose(cal.predict([-3.0, 0.0, 5.0]), (3 * t_neg + 2 * t_pos) / 5)


def test_the_map_can_turn_inside_the_range():
    # a U-shaped truth: the fitted map falls, then rises, and says where it turns
    rng = np.random.default_rng(0)
    z = rng.uniform(-3, 3, size=5000)
    y = (rng.uniform(size=z.size) < expit(z**2 - 2.0)).astype(float)
    cal = QuadraticScaling().fit(z, y)
    assert z.min() < cal.vertex_ < z.max()
    low = cal.predict([cal.vertex_])[0]
    assert cal.predict([z.min()])[0] > low and cal.predict([z.max()])[0] > low


@settings(max_examples=50, deadline=None)
@given(st.integers(0, 10_000))
def test_monotone_on_each_side_of_the_vertex(seed):
    z, y, w = data(seed)
    cal = QuadraticScaling().fit(z, y, sample_weight=w)
    if cal.vertex_ is None:
        sides = [np.linspace(z.min() - 1, z.max() + 1, 200)]
    else:
        sides = [np.linspace(cal.vertex_ - 10, cal.vertex_, 200)]
        sides.append(np.linspace(cal.vertex_, cal.vertex_ + 10, 200))
    for grid in sides:
        d = np.diff(cal.predict(grid))
        assert (d >= -1e-15).all() or (d <= 1e-15).all()
    # a vertex outside the range: monotone over all of it
    if cal.vertex_ is None or not z.min() < cal.vertex_ < z.max():
        d = np.diff(cal.predict(np.linspace(z.min(), z.max(), 200)))
        assert (d >= -1e-15).all() or (d <= 1e-15).all()


def test_integer_weights_equal_repeated_rows_and_aggregated_rows():
    z, y, _ = data(4)
    z = np.round(z, 1)  # ties, so that aggregation pools rows
    rng = np.random.default_rng(1)
    w = rng.integers(1, 4, size=z.size).astype(float)
    weighted = QuadraticScaling().fit(z, y, sample_weight=w)
    repeated = QuadraticScaling().fit(np.repeat(z, w.astype(int)), np.repeat(y, w.astype(int)))
    probe = np.linspace(z.min(), z.max(), 30)
    np.testing.assert_allclose(weighted.predict(probe), repeated.predict(probe), atol=1e-12)
    keys = np.unique(np.column_stack([z, y]), axis=0)
    sums = np.array([w[(z == s) & (y == t)].sum() for s, t in keys])
    aggregated = QuadraticScaling().fit(keys[:, 0], keys[:, 1], sample_weight=sums)
    np.testing.assert_allclose(aggregated.predict(probe), weighted.predict(probe), atol=1e-12)


def test_flat_beyond_the_training_scores():
    rng = np.random.default_rng(0)
    z = rng.uniform(-3, 3, size=2000)
    y = (rng.uniform(size=z.size) < expit(z**2 - 2.0)).astype(float)
    cal = QuadraticScaling().fit(z, y)
    assert cal.coef_[1] > 0  # unclipped, the map would rise again below the data
    np.testing.assert_array_equal(cal.predict([-1e9, -10.0]), cal.predict([z.min()] * 2))
    np.testing.assert_array_equal(cal.predict([10.0, 1e9]), cal.predict([z.max()] * 2))


def test_separable_data_give_a_finite_fit():
    z = np.array([-3.0, -2.0, -1.0, 1.0, 2.0, 3.0])
    cal = QuadraticScaling().fit(z, [0, 0, 0, 1, 1, 1])
    p = cal.predict(z)
    assert np.isfinite(cal.coef_).all() and 0.0 < p.min() < 0.5 < p.max() < 1.0
    assert np.all(np.diff(p) > 0)


def test_warnings():
    z, y, _ = data(2)
    with pytest.warns(ConvergenceWarning, match="max_iter=1"):
        QuadraticScaling(max_iter=1).fit(z, y)
    with pytest.warns(LowWeightWarning):
        QuadraticScaling().fit(z, y, sample_weight=np.full(z.size, 1.0 / z.size))
