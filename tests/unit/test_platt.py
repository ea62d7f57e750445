"""PlattScaling against a direct scipy maximum-likelihood fit on Platt's targets."""

import warnings

import numpy as np
import pytest
from scipy.optimize import minimize

from calibbook.calibrators.platt import PlattScaling, platt_targets
from tests._reference.platt_before_issue_18 import old_platt_fit
from tests._support.contract import check_calibrator_contract


def scipy_platt(f, y, w):
    t, _, _ = platt_targets(y, w)

    def nll(ab):
        z = ab[0] * f + ab[1]
        return np.sum(w * (np.logaddexp(0.0, z) - (1.0 - t) * z))

    def grad(ab):
        z = ab[0] * f + ab[1]
        d = w * (t - 1.0 / (1.0 + np.exp(z)))
        return np.array([np.sum(d * f), np.sum(d)])

    res = minimize(
        nll, [0.0, 0.0], jac=grad, method="BFGS", options={"gtol": 1e-11, "maxiter": 10_000}
    )
    return res.x


@pytest.mark.parametrize("seed", range(60))
def test_equals_scipy_maximum_likelihood(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 400))
    f = rng.normal(size=n) * rng.uniform(0.1, 10)
    y = (rng.uniform(size=n) < 1 / (1 + np.exp(-rng.uniform(-3, 3) * f))).astype(float)
    if seed % 6 == 0:
        y = (f > np.median(f)).astype(float)  # separable
    y[0], y[1] = 0.0, 1.0
    w = rng.integers(0, 4, size=n).astype(float) if seed % 2 else np.ones(n)
    w[0] = w[1] = 1.0
    a, b = scipy_platt(f, y, w)
    cal = PlattScaling().fit(f, y, w)
    probe = np.linspace(f.min() - 1, f.max() + 1, 50)
    np.testing.assert_allclose(cal.predict(probe), 1 / (1 + np.exp(a * probe + b)), atol=1e-6)


def test_separable_data_give_finite_sensible_parameters():
    f = np.array([-3.0, -2.0, -1.0, 1.0, 2.0, 3.0])
    cal = PlattScaling().fit(f, [0, 0, 0, 1, 1, 1])
    assert np.isfinite([cal.a_, cal.b_]).all() and cal.a_ < 0
    # targets 1/(3+2)=0.2 and 4/5=0.8 bound how sure the fit may be at the data
    p = cal.predict(f)
    assert 0.0 < p.min() < 0.2 and 0.8 < p.max() < 1.0


def test_logit_input_can_represent_the_identity():
    rng = np.random.default_rng(0)
    p = rng.uniform(0.01, 0.99, size=20_000)
    y = (rng.uniform(size=p.size) < p).astype(int)
    cal = PlattScaling(logit_input=True).fit(p, y)
    assert cal.a_ == pytest.approx(-1.0, abs=0.05) and cal.b_ == pytest.approx(0.0, abs=0.05)
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        PlattScaling(logit_input=True).fit([-1.0, 2.0], [0, 1])


def test_extreme_scores_do_not_overflow():
    f = np.array([-1e6, -1.0, 1.0, 1e6])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cal = PlattScaling().fit(f, [0, 1, 0, 1])
        p = cal.predict(np.array([-1e300, 0.0, 1e300]))
    assert np.isfinite(p).all()


def test_bad_max_iter():
    with pytest.raises(ValueError, match="max_iter"):
        PlattScaling(max_iter=0).fit([0.0, 1.0], [0, 1])


def test_contract():
    rng = np.random.default_rng(1)
    f = rng.normal(size=150)
    y = (rng.uniform(size=150) < 1 / (1 + np.exp(-2 * f))).astype(int)
    check_calibrator_contract(PlattScaling(), f, y)


# --- the blocked evaluation (numpy's exp, a branch-free compiled sum) against the old kernel ---


def _platt_case(seed):
    rng = np.random.default_rng(seed)
    n = [50, 5_000, 100_000, 300_000][seed % 4]  # one block of rows, and several
    f = rng.normal(size=n) * rng.uniform(0.1, 10)
    y = (rng.uniform(size=n) < 1 / (1 + np.exp(-rng.uniform(-3, 3) * f))).astype(float)
    if seed % 5 == 0:
        y = (f > np.median(f)).astype(float)  # separable
    y[0], y[1] = 0.0, 1.0
    w = None
    if seed % 3 == 1:
        w = rng.integers(0, 4, size=n).astype(float)
    elif seed % 3 == 2:
        w = rng.uniform(0.0, 2.0, size=n)
    if w is not None:
        w[0] = w[1] = 1.0
    return f, y, w


@pytest.mark.parametrize("seed", range(24))
def test_blocked_newton_finds_the_old_optimum(seed):
    f, y, w = _platt_case(seed)
    for cal, scores in [
        (PlattScaling(), f),
        (PlattScaling(logit_input=True), 1 / (1 + np.exp(-f))),
    ]:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            cal.fit(scores, y, w)
        a, b, converged = old_platt_fit(cal._features(scores), y, w, cal.max_iter)
        assert converged and not caught
        np.testing.assert_allclose([cal.a_, cal.b_], [a, b], rtol=1e-10, atol=1e-13)


def test_blocked_newton_with_extreme_scores():
    f = np.array([-1e300, -1e6, -1.0, 1.0, 1e6, 1e300])
    y = np.array([0.0, 0.0, 1.0, 0.0, 1.0, 1.0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cal = PlattScaling().fit(f, y)
        a, b, _ = old_platt_fit(cal._features(f), y, None, cal.max_iter)
    np.testing.assert_allclose([cal.a_, cal.b_], [a, b], rtol=1e-10)
