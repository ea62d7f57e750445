"""TemperatureScaling: scikit-learn's CalibratedClassifierCV(method="temperature") is the oracle
for two classes; the one-parameter likelihood is checked by brute force."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import expit
from sklearn.calibration import CalibratedClassifierCV
from sklearn.datasets import make_classification
from sklearn.ensemble import RandomForestClassifier
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import StratifiedKFold
from sklearn.svm import LinearSVC

from calibbook import CalibratedClassifier, TemperatureScaling
from calibbook.calibrators.platt import fit_inverse_temperature
from tests._support.contract import check_calibrator_contract
from tests._support.sklearn_features import SKLEARN_HAS_TEMPERATURE


def _loss(inverse_temperature, z, y, w):
    a = inverse_temperature * z
    return np.sum(w * (np.logaddexp(0, a) - y * a))


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000))
def test_the_fit_minimises_the_weighted_log_loss_over_a_grid(seed):
    rng = np.random.default_rng(seed)
    z = rng.normal(0, 3, 60)
    y = (rng.uniform(size=60) < 1 / (1 + np.exp(-z / 2.5))).astype(float)
    w = rng.integers(1, 4, 60).astype(float)
    if y.min() == y.max():
        y[0] = 1 - y[0]
    cal = TemperatureScaling().fit(z, y, sample_weight=w)
    grid = np.exp(np.linspace(-6, 6, 4001))
    best_on_grid = min(_loss(b, z, y, w) for b in grid)
    assert _loss(1 / cal.temperature_, z, y, w) <= best_on_grid + 1e-9


@pytest.mark.skipif(
    not SKLEARN_HAS_TEMPERATURE, reason="scikit-learn < 1.8 has no method='temperature'"
)
@pytest.mark.parametrize("ensemble", [True, False])
@pytest.mark.parametrize(
    "estimator",
    [LinearSVC(), RandomForestClassifier(n_estimators=20, random_state=0)],
    ids=["decision_function", "predict_proba"],
)
def test_matches_scikit_learns_temperature_method(estimator, ensemble):
    X, y = make_classification(n_samples=300, n_features=6, random_state=3)
    cv = StratifiedKFold(3, shuffle=True, random_state=0)
    ours = CalibratedClassifier(estimator, method="temperature", cv=cv, ensemble=ensemble).fit(X, y)
    ref = CalibratedClassifierCV(estimator, method="temperature", cv=cv, ensemble=ensemble).fit(
        X, y
    )
    np.testing.assert_allclose(ours.predict_proba(X), ref.predict_proba(X), atol=1e-6)


def test_contract_and_the_fixed_midpoint():
    rng = np.random.default_rng(0)
    s = rng.normal(size=200)
    y = (rng.uniform(size=200) < 1 / (1 + np.exp(-3 * s))).astype(int)
    check_calibrator_contract(TemperatureScaling(), s, y)
    cal = TemperatureScaling().fit(s, y)
    assert cal.predict([0.0])[0] == 0.5  # no intercept: the 0.5 point stays
    p = rng.uniform(size=200)
    check_calibrator_contract(
        TemperatureScaling(logit_input=True), p, (rng.uniform(size=200) < p).astype(int)
    )


def test_probabilities_are_required_with_logit_input():
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        TemperatureScaling(logit_input=True).fit([-1.0, 2.0], [0, 1])


# --- issue 28: speed (benchmarks/bench_temperature.py), units, bounds, probabilities ---


def _fit_quietly(scores, y, sample_weight=None, **params):
    """A fit that fails the test on any warning (ConvergenceWarning included)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return TemperatureScaling(**params).fit(scores, y, sample_weight)


def _sklearn_temperature(z, y, sample_weight=None):
    """scikit-learn's fit on binary decision values: softmax(beta [-z, z]) = expit(2 beta z)."""
    from sklearn.calibration import _TemperatureScaling

    return 1.0 / (2.0 * float(_TemperatureScaling().fit(z, y, sample_weight).beta_))


@pytest.mark.skipif(not SKLEARN_HAS_TEMPERATURE, reason="scikit-learn < 1.8")
@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000), st.floats(-8.0, 8.0), st.booleans())
def test_the_temperature_is_scikit_learns(seed, log_scale, weighted):
    """To scikit-learn's tolerance (its Brent search stops at about 1e-8 relative), for
    decision values of any scale that scikit-learn's range [e^-10, e^10] still covers."""
    rng = np.random.default_rng(seed)
    z = rng.normal(0, 2, 300)
    y = (rng.uniform(size=300) < expit(z / rng.uniform(0.3, 3.0))).astype(float)
    y[:2] = [0.0, 1.0]
    w = rng.uniform(0.0, 3.0, size=300) if weighted else None
    c = np.exp(log_scale)
    cal = _fit_quietly(c * z, y, w)
    np.testing.assert_allclose(cal.temperature_, _sklearn_temperature(c * z, y, w), rtol=1e-6)


@settings(max_examples=50, deadline=None)
@given(st.floats(-12.0, 12.0), st.integers(0, 1000), st.booleans())
def test_predictions_do_not_depend_on_the_scale_of_the_score(log_a, seed, weighted):
    """fit(a z).predict(a t) == fit(z).predict(t) for a in [1e-12, 1e12], with no warning, and
    temperature_ follows a; a shift moves the map (no intercept): _units is "scale"."""
    rng = np.random.default_rng(seed)
    z = rng.normal(0, 2, 200)
    y = (rng.uniform(size=200) < expit(z / rng.uniform(0.3, 3.0))).astype(float)
    y[:2] = [0.0, 1.0]
    w = rng.uniform(0.0, 3.0, size=200) if weighted else None
    a = 10.0**log_a
    ref, cal = _fit_quietly(z, y, w), _fit_quietly(a * z, y, w)
    probe = np.linspace(-10.0, 10.0, 41)
    np.testing.assert_allclose(cal.predict(a * probe), ref.predict(probe), atol=1e-9)
    np.testing.assert_allclose(cal.temperature_, a * ref.temperature_, rtol=1e-9)
    assert TemperatureScaling()._units == "scale"
    assert TemperatureScaling(logit_input=True)._units is None


def test_large_decision_values_do_not_saturate():
    """The issue: decision values x 1e6 sat at the bound e^-12 of the slope (off by 0.33-0.38).
    The range is now relative to the logits' scale; scikit-learn's fit on the unscaled values
    (inside its range) is the reference."""
    rng = np.random.default_rng(5)
    z = rng.normal(0, 3, 500)
    y = (rng.uniform(size=500) < expit(z / 2.0)).astype(float)
    # scikit-learn < 1.8 (make lowest) has no temperature fit: the unscaled fit stands in
    ref = _sklearn_temperature(z, y) if SKLEARN_HAS_TEMPERATURE else _fit_quietly(z, y).temperature_
    for c in (1e6, 1e155, 1e-155):
        cal = _fit_quietly(c * z, y)
        np.testing.assert_allclose(cal.temperature_ / c, ref, rtol=1e-6)


def test_the_bounds_warn():
    """Separable scores: the likelihood improves as T -> 0, so T sits at its lower bound; scores
    that rank the labels backwards: the best slope is <= 0, T sits at its upper bound. Both say
    so with a ConvergenceWarning pointing at the caller's line, and predict as the bound does."""
    z = np.array([-3.0, -2.0, -1.0, 1.0, 2.0, 3.0])
    with pytest.warns(ConvergenceWarning, match="lower bound.*separate") as caught:
        cal = TemperatureScaling().fit(z, [0, 0, 0, 1, 1, 1])
    assert caught[0].filename == __file__
    np.testing.assert_allclose(cal.predict([-1.0, 1.0]), [0.0, 1.0], atol=1e-12)
    with pytest.warns(ConvergenceWarning, match="upper bound.*no information"):
        cal = TemperatureScaling().fit(z, [1, 1, 1, 0, 0, 0])
    np.testing.assert_allclose(cal.predict(z), 0.5, atol=1e-4)  # slope e^-12 x the scale


@settings(max_examples=50, deadline=None)
@given(st.integers(0, 10_000), st.integers(3, 60), st.floats(0.0, 3.0), st.booleans())
def test_the_newton_search_always_ends_at_the_minimum(seed, n, noise, backwards):
    """Small, nearly separable, uninformative or backwards samples: the search never runs out
    of iterations, and its answer is at least as good as the best of a fine grid of slopes (the
    brute-force reference), to rounding; where it stops at a bound, the grid's best lies beyond
    that bound (the loss is monotone up to it)."""
    rng = np.random.default_rng(seed)
    z = rng.normal(0, 1, n)
    y = ((z + noise * rng.normal(size=n) > 0) != backwards).astype(float)
    y[:2] = [0.0, 1.0]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        cal = TemperatureScaling().fit(z, y)
    messages = [str(w.message) for w in caught]
    assert not [m for m in messages if "iterations" in m] and cal.n_iter_ <= 40
    beta = 1.0 / cal.temperature_
    grid = np.exp(np.linspace(-16.0, 16.0, 4001)) / np.median(np.abs(z))
    a = grid[:, None] * z
    losses = np.sum(np.logaddexp(0, a) - y * a, axis=1)
    if any("lower bound" in m for m in messages):  # T at its lowest: the slope at its highest
        losses = losses[grid <= beta]
    elif any("upper bound" in m for m in messages):
        losses = losses[grid >= beta]
    ours = _loss(beta, z, y, np.ones(n))
    assert ours <= losses.min() + 1e-9 * max(1.0, losses.min())


def test_probabilities_without_logit_input_warn():
    """Scores that all lie in [0, 1] look like probabilities: without logit_input the map can
    only predict >= 0.5, so it warns (and does not switch on its own)."""
    rng = np.random.default_rng(2)
    p = rng.uniform(size=200)
    y = (rng.uniform(size=200) < p).astype(float)
    with pytest.warns(UserWarning, match="look like probabilities.*logit_input=True") as caught:
        cal = TemperatureScaling().fit(p, y)
    assert caught[0].filename == __file__
    assert cal.predict(p).min() >= 0.5 and cal.logit_input is False
    _fit_quietly(p, y, logit_input=True)  # no warning when asked for


@pytest.mark.skipif(not SKLEARN_HAS_TEMPERATURE, reason="scikit-learn < 1.8")
@pytest.mark.parametrize("seed", range(4))
def test_softmax_temperature_with_k_columns_is_scikit_learns(seed):
    """fit_inverse_temperature with one column per class (CalibratedClassifier's multi-class
    path) equals scikit-learn's beta on the same logits, with weights."""
    from sklearn.calibration import _TemperatureScaling

    rng = np.random.default_rng(seed)
    logits = rng.normal(0, 2, (400, 4)) * 10.0 ** rng.uniform(-3, 3)
    labels = np.array([rng.choice(4, p=row) for row in _softmax_rows(logits / 1.7)])
    w = rng.uniform(0.5, 2.0, 400)
    ours = fit_inverse_temperature(logits, labels, w)
    ref = float(_TemperatureScaling().fit(logits, labels, w).beta_)
    np.testing.assert_allclose(ours, ref, rtol=1e-6)


def _softmax_rows(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)
