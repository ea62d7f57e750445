"""PlattScaling against a direct scipy maximum-likelihood fit on Platt's targets, scikit-learn's
sigmoid, and its own fit in other units of the score (issue 28)."""

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize
from scipy.special import expit
from sklearn.calibration import _sigmoid_calibration
from sklearn.exceptions import ConvergenceWarning

from calibbook import LowWeightWarning
from calibbook.calibrators.platt import PlattScaling, platt_targets
from tests._reference.platt_before_issue_18 import old_platt_fit
from tests._support.contract import check_calibrator_contract


def scipy_platt(f, y, w):
    t, _, _ = platt_targets(y, w)
    v = w / w.sum()  # the loss per unit weight: BFGS's gradient tolerance is absolute

    def nll(ab):
        z = ab[0] * f + ab[1]
        return np.sum(v * (np.logaddexp(0.0, z) - (1.0 - t) * z))

    def grad(ab):
        z = ab[0] * f + ab[1]
        d = v * (t - 1.0 / (1.0 + np.exp(z)))
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


def _stationarity(f, y, w, a, b):
    """The largest component of the gradient of Platt's loss at (a, b), summed exactly
    (math.fsum) and divided by the total weight: 0 at the optimum, to rounding."""
    w = np.ones_like(f) if w is None else w
    t, _, _ = platt_targets(y, w)
    d = w * (t - expit(-(a * f + b)))
    return max(abs(math.fsum(d * f)), abs(math.fsum(d))) / w.sum()


@pytest.mark.parametrize("seed", range(24))
def test_blocked_newton_finds_the_old_optimum(seed):
    """The same optimum as the frozen kernel, and at least as stationary: the old kernel
    stopped once the gradient fell below 1e-10 of the total weight, which leaves an error of
    up to 1e-5 where the Hessian is small (separable data); the fit now stops on the Newton
    step, in standard units, and its exact gradient is at rounding level."""
    f, y, w = _platt_case(seed)
    for cal, scores in [
        (PlattScaling(), f),
        (PlattScaling(logit_input=True), 1 / (1 + np.exp(-f))),
    ]:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            cal.fit(scores, y, w)
        x = cal._features(scores)
        a, b, converged = old_platt_fit(x, y, w, cal.max_iter)
        assert converged and not caught
        np.testing.assert_allclose([cal.a_, cal.b_], [a, b], rtol=1e-5, atol=1e-9)
        assert _stationarity(x, y, w, cal.a_, cal.b_) <= max(_stationarity(x, y, w, a, b), 1e-15)


def test_extreme_scores_give_the_optimum_of_their_targets():
    """Scores at +-1e300 next to scores near 1: the smoothed targets (4/5 and 1/5 here) make
    saturating the two outliers infinitely costly, so the optimum sets their probabilities
    to their targets and leaves the others at 1/2 (their scores are 1e-294 of the outliers').
    The kernel before issue 28 returned an intercept of NaN here."""
    f = np.array([-1e300, -1e6, -1.0, 1.0, 1e6, 1e300])
    y = np.array([0.0, 0.0, 1.0, 0.0, 1.0, 1.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cal = PlattScaling().fit(f, y)
    np.testing.assert_allclose(cal.predict(f), [0.2, 0.5, 0.5, 0.5, 0.5, 0.8], atol=1e-9)
    assert np.isfinite([cal.a_, cal.b_]).all() and cal.a_ < 0


# --- issue 28: the units of the score ---

_RNG = np.random.default_rng(0)  # the issue's reproduction
_S = _RNG.uniform(0.02, 0.98, 200)
_Y = _RNG.uniform(size=200) < _S
_PROBE = np.linspace(-0.5, 1.5, 41)


def _fit_quietly(scores, y, sample_weight=None, **params):
    """A fit that fails the test on any warning (ConvergenceWarning included)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return PlattScaling(**params).fit(scores, y, sample_weight)


@pytest.mark.parametrize(
    "a,b,sklearn_applies",
    [(1e-6, 0.0, True), (1e-7, 0.0, True), (1e-10, 0.0, False), (1e155, 0.0, True),
     (1.0, 1e6, True), (1e300, 0.0, False), (1.79e308, 0.0, False),
     (1.7e308, -0.85e308, False)],
)  # fmt: skip
def test_the_issues_reproduction(a, b, sklearn_applies):
    """fit(a S + b) predicts at a t + b what fit(S) predicts at t, to 1e-9, and that is
    scipy's maximum-likelihood fit on S. scikit-learn's own sigmoid on the changed scores is
    compared where it is right itself (to 2e-5, its L-BFGS tolerance): it rescales large
    scores, but neither small ones nor shifted ones (x 1e-10 gives it the base rate)."""
    A, B = scipy_platt(_S, _Y.astype(float), np.ones(_S.size))
    ref = _fit_quietly(_S, _Y)
    np.testing.assert_allclose(ref.predict(_PROBE), expit(-(A * _PROBE + B)), atol=1e-7)
    cal = _fit_quietly(a * _S + b, _Y)
    with np.errstate(over="ignore"):
        probe = a * _PROBE + b
    finite = np.isfinite(probe)  # 1.79e308 x 1.5 is not
    np.testing.assert_allclose(cal.predict(probe[finite]), ref.predict(_PROBE)[finite], atol=1e-9)
    if sklearn_applies:
        A, B = _sigmoid_calibration(a * _S + b, _Y)
        np.testing.assert_allclose(expit(-(A * probe + B)), cal.predict(probe), atol=2e-5)


@settings(max_examples=50, deadline=None)
@given(
    st.floats(-12.0, 12.0),
    st.floats(-1e6, 1e6),
    st.booleans(),
    st.integers(0, 1000),
)
def test_predictions_do_not_depend_on_the_units_of_the_score(log_a, b, weighted, seed):
    """fit(a s + b).predict(a t + b) == fit(s).predict(t) for a in [1e-12, 1e12] and
    |b| <= 1e6 x the spread, with no warning: BaseCalibrator._units is "affine"."""
    rng = np.random.default_rng(seed)
    s = rng.normal(size=100) * rng.uniform(0.5, 2.0)
    y = rng.uniform(size=100) < expit(rng.uniform(-3, 3) * s)
    y[:2] = [False, True]
    w = rng.uniform(0.0, 3.0, size=100) if weighted else None
    a, spread = 10.0**log_a, s.max() - s.min()
    ref = _fit_quietly(s, y, w)
    cal = _fit_quietly(a * s + b * a * spread, y, w)
    probe = np.linspace(s.min() - 1.0, s.max() + 1.0, 25)
    np.testing.assert_allclose(
        cal.predict(a * probe + b * a * spread), ref.predict(probe), atol=1e-6
    )
    assert PlattScaling()._units == "affine" and PlattScaling(logit_input=True)._units is None


@pytest.mark.parametrize("value", [0.0, 7.0, -1e300, 5e-324])
def test_constant_scores_give_the_mean_of_the_targets(value):
    """Spread 0: the best constant probability against Platt's targets is their weighted
    mean, (N+ t+ + N- t-) / W; the slope is 0."""
    y = np.array([0, 1, 1, 0, 1, 1, 1])
    w = np.array([1.0, 2.0, 0.5, 3.0, 1.0, 1.0, 0.25])
    cal = _fit_quietly(np.full(7, value), y, w)
    t, _, _ = platt_targets(y, w)
    assert cal.a_ == 0.0
    np.testing.assert_allclose(cal.predict([value, 0.0, 1e300]), np.dot(w, t) / w.sum(), rtol=1e-12)


# --- issue 28: weights, convergence ---


@settings(max_examples=30, deadline=None)
@given(st.floats(-6.0, 6.0), st.integers(0, 1000))
def test_results_are_continuous_in_the_weights_scale(log_c, seed):
    """Weights scaled by c in [1e-6, 1e6], then nudged by 4 ulps either way: predictions move
    by no more than the nudge itself could move them (~1e-12), and agree with scipy's
    maximum-likelihood fit with those weights (the smoothed targets use the weighted counts)."""
    rng = np.random.default_rng(seed)
    s = rng.normal(size=60)
    y = rng.uniform(size=60) < expit(2 * s)
    y[:2] = [False, True]
    w = rng.uniform(0.1, 2.0, size=60)
    w *= 10.0**log_c / w.sum()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", LowWeightWarning)
        fits = [PlattScaling().fit(s, y, w * (1 + k * np.finfo(float).eps)) for k in (-4, 0, 4)]
    p = [cal.predict(s) for cal in fits]
    assert max(np.abs(p[0] - p[1]).max(), np.abs(p[2] - p[1]).max()) <= 1e-12
    a, b = scipy_platt(s, y.astype(float), w)
    np.testing.assert_allclose(p[1], expit(-(a * s + b)), atol=1e-6)


def test_weights_summing_to_one_around_one_warn_and_do_not_jump():
    """The issue's case: weights normalised to sum to 1 (a sum that rounds just above or just
    below 1). A total below two cases (Platt's prior adds one per class) warns LowWeightWarning."""
    s, y = _S, _Y
    w = np.random.default_rng(1).uniform(size=200)
    w /= w.sum()
    p = []
    for nudge in (1 - 2 * np.finfo(float).eps, 1.0, 1 + 2 * np.finfo(float).eps):
        with pytest.warns(LowWeightWarning, match="PlattScaling.*fewer than two cases") as caught:
            p.append(PlattScaling().fit(s, y, w * nudge).predict(_PROBE))
        assert caught[0].filename == __file__
    assert np.abs(p[0] - p[1]).max() <= 1e-12 and np.abs(p[2] - p[1]).max() <= 1e-12
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        PlattScaling().fit(s, y, np.full(200, 2.5 / 200))  # two and a half cases: no warning


def test_non_convergence_is_a_convergence_warning_at_the_callers_line():
    with pytest.warns(ConvergenceWarning, match="PlattScaling did not converge.*max_iter=1") as w:
        PlattScaling(max_iter=1).fit(_S, _Y)
    assert w[0].filename == __file__
