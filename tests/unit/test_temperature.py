"""TemperatureScaling: scikit-learn's CalibratedClassifierCV(method="temperature") is the oracle
for two classes; the one-parameter likelihood is checked by brute force."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.calibration import CalibratedClassifierCV
from sklearn.datasets import make_classification
from sklearn.ensemble import RandomForestClassifier
from sklearn.model_selection import StratifiedKFold
from sklearn.svm import LinearSVC

from calibbook import CalibratedClassifier, TemperatureScaling
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
