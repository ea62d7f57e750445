"""Units of the score and totals of the weights do not change a calibrator's answer (issue 28).

Run over every registered calibrator and the parameter variants of the contract test:

* each calibrator declares in ``_units`` how its map follows a change of the score's units
  ("affine": a s + b for a > 0 and any b; "scale": a s only; None: probabilities, whose units
  are fixed), and the fit on the rescaled scores predicts, at the rescaled probes, what the fit
  on the original scores predicts (the reference is the same calibrator on the unscaled data);
* any finite input either fits and predicts finite probabilities in [0, 1] or raises a
  ValueError, never another exception;
* results move continuously with the weights' total (weights are frequencies): a relative
  change of a few ulps in every weight, across totals from 1e-6 to 1e6 and around 1, moves no
  prediction by more than 1e-9, and a total below two cases warns ``LowWeightWarning``.
"""

import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from calibbook import LowWeightWarning
from calibbook.registry import calibrator_entry
from tests._support.contract import CASES, IDS, scores_for

SETTINGS = settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


def make(name, params):
    return calibrator_entry(name).make(**params)


def quiet_fit(cal, s, y, w=None):
    """Fit with the warnings about small totals and convergence silenced."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return cal.fit(s, y, sample_weight=w)


def probes(s, seed, probabilities=False):
    """The training scores, points between them and points beyond the range."""
    rng = np.random.default_rng(seed)
    lo, hi = s.min(), s.max()
    pad = 0.25 * (hi - lo)
    t = np.concatenate((s, rng.uniform(lo, hi, size=100), rng.uniform(lo - pad, hi + pad, size=50)))
    return np.clip(t, 0.0, 1.0) if probabilities else t


ALL_CASES = [pytest.param(name, params, id=i) for (name, params), i in zip(CASES, IDS, strict=True)]
# More settings for the change of units than the contract's variants: every option of KDE's
# and DPM's that the map's invariance could depend on.
UNITS_VARIANTS = [
    ("kde", {"kernel": "boxcar"}),
    ("kde", {"kernel": "tricube", "shared_bandwidth": False}),
    ("kde", {"kernel": "epanechnikov", "bandwidth": "silverman_robust"}),
    ("kde", {"bandwidth": "scott", "out_of_bounds": "extrapolate"}),
    ("kde", {"bandwidth": "silverman_robust", "shared_bandwidth": False, "algorithm": "binned"}),
    ("dpm", {"out_of_bounds": "extrapolate"}),
    ("dpm", {"n_components": 4, "weight_concentration_prior": 2.0, "mean_precision_prior": 0.5}),
    ("dpm", {"degrees_of_freedom_prior": 3.0, "reg_covar": 1e-2}),
]
UNIT_CASES = [
    pytest.param(name, params, id=i)
    for (name, params), i in zip(CASES, IDS, strict=True)
    if make(name, params)._units is not None
]
PROBABILITY_CASES = [
    pytest.param(name, params, id=i)
    for (name, params), i in zip(CASES, IDS, strict=True)
    if make(name, params)._units is None
]


def test_every_calibrator_declares_its_units():
    for name, params in CASES:
        units = make(name, params)._units
        assert units in ("affine", "scale", None), (name, params, units)
        if make(name, params)._requires_probabilities:
            assert units is None, f"{name}: scores in [0, 1] have no units to change"


@pytest.mark.parametrize(
    "name,params",
    UNIT_CASES
    + [
        pytest.param(n, p, id=n + "".join(f"-{k}={v}" for k, v in p.items()))
        for n, p in UNITS_VARIANTS
    ],
)
@SETTINGS
@given(
    log_a=st.floats(-12.0, 12.0),
    shift=st.floats(-1e6, 1e6),
    seed=st.integers(0, 2**16),
)
def test_a_change_of_units_predicts_the_same(name, params, log_a, shift, seed):
    cal = make(name, params)
    s, y = scores_for(cal, 150, seed)
    a = 10.0**log_a
    b = shift * a * (s.max() - s.min()) if cal._units == "affine" else 0.0
    t = probes(s, seed + 1)
    reference = quiet_fit(make(name, params), s, y).predict(t)
    moved = quiet_fit(make(name, params), a * s + b, y).predict(a * t + b)
    np.testing.assert_allclose(moved, reference, rtol=0, atol=1e-6, err_msg=f"a={a:g}, b={b:g}")


FINITE = st.floats(allow_nan=False, allow_infinity=False, width=64)
UNIT_INTERVAL = st.one_of(
    st.floats(0.0, 1.0, allow_subnormal=True),
    st.sampled_from([0.0, 5e-324, 1e-310, 2.2250738585072014e-308, 1.0 - 2.0**-53, 1.0]),
)


INPUT_NAMES = ("scores", "y", "sample_weight")


def check_any_input(cal, s, y, t, w=None):
    """Fit and predict, or a ValueError that names the input: never another exception, never
    a non-finite probability."""
    try:
        p = quiet_fit(cal, s, y, w).predict(t)
    except ValueError as exc:
        assert any(name in str(exc) for name in INPUT_NAMES), str(exc)
        return
    assert np.isfinite(p).all() and p.min() >= 0.0 and p.max() <= 1.0, p


@pytest.mark.parametrize("name,params", ALL_CASES)
@SETTINGS
@given(data=st.data(), n=st.integers(2, 40))
def test_any_finite_input(name, params, data, n):
    """Any finite scores (any probabilities, subnormals included, where scores must be
    probabilities) for fit and predict."""
    cal = make(name, params)
    elements = UNIT_INTERVAL if cal._units is None else FINITE
    s = data.draw(arrays(np.float64, n, elements=elements))
    t = data.draw(arrays(np.float64, 5, elements=elements))
    check_any_input(cal, s, np.arange(n) % 2, t)


@pytest.mark.parametrize("name,params", PROBABILITY_CASES)
@pytest.mark.parametrize("factor", [1e-310, 1e-300, 1e-200])
def test_tiny_probabilities_fit(name, params, factor):
    """Probabilities scaled into the subnormal range are valid input (issue 28's ENIR case)."""
    cal = make(name, params)
    s, y = scores_for(cal, 150, 0)
    p = quiet_fit(cal, s * factor, y).predict(s * factor)
    assert np.isfinite(p).all() and p.min() >= 0.0 and p.max() <= 1.0


EXTREME_WEIGHTS = {
    "1e-300": np.full(60, 1e-300),
    "1e300": np.full(60, 1e300),
    "5e-324": np.full(60, 5e-324),
    "1e300-and-1e-300": np.r_[np.full(30, 1e300), np.full(30, 1e-300)],
}


@pytest.mark.parametrize("name,params", ALL_CASES)
@pytest.mark.parametrize("weights", EXTREME_WEIGHTS.values(), ids=EXTREME_WEIGHTS.keys())
def test_weights_of_any_magnitude(name, params, weights):
    """Finite weights of any size fit (or raise a ValueError) and predict finite probabilities."""
    cal = make(name, params)
    s, y = scores_for(cal, 60, 4)
    check_any_input(cal, s, y, probes(s, 5, cal._requires_probabilities), weights)


@pytest.mark.parametrize("name,params", ALL_CASES)
@pytest.mark.parametrize("total", [1e-6, 1e-3, 1.0, 30.0, 1e6])
def test_results_move_continuously_with_the_weights_total(name, params, total):
    cal = make(name, params)
    s, y = scores_for(cal, 150, 1)
    w = np.random.default_rng(2).uniform(0.5, 1.5, size=s.size)
    w *= total / w.sum()
    t = probes(s, 3, cal._requires_probabilities)
    at = quiet_fit(make(name, params), s, y, w).predict(t)
    for nudge in (1.0 - 4e-16, 1.0 + 4e-16, 1.0 + 1e-12):  # across a rounding of the total
        moved = quiet_fit(make(name, params), s, y, w * nudge).predict(t)
        np.testing.assert_allclose(moved, at, rtol=0, atol=1e-9, err_msg=f"nudge {nudge!r}")


@pytest.mark.parametrize("name,params", ALL_CASES)
def test_a_small_weights_total_warns(name, params):
    """One case in all warns, whether or not the fit reads the total; 150 cases do not."""
    cal = make(name, params)
    s, y = scores_for(cal, 150, 1)
    with pytest.warns(LowWeightWarning, match="total 1, fewer than two cases"):
        quiet_fit_but(LowWeightWarning, cal, s, y, np.full(s.size, 1.0 / s.size))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        warnings.simplefilter("error", LowWeightWarning)
        make(name, params).fit(s, y, sample_weight=np.ones(s.size))


def quiet_fit_but(category, cal, s, y, w):
    """Fit with every warning but ``category`` silenced."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        warnings.simplefilter("always", category)
        return cal.fit(s, y, sample_weight=w)
