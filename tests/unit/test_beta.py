"""BetaCalibration against the authors' betacal package, an unpenalised statsmodels GLM on the
same features, maps worked out by hand, and properties of the maximum-likelihood fit."""

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import expit, logit
from sklearn.exceptions import ConvergenceWarning

from calibbook import BetaCalibration, LowWeightWarning
from calibbook.calibrators.beta import EPS, _midpoint

VARIANTS = ["abm", "am", "ab", "a"]
SETTINGS = settings(max_examples=50, deadline=None)


def draw(seed, n=None, a=None, b=None, c=None):
    """Scores from a Beta law and labels from a beta-calibration map with random a, b, c."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(50, 600)) if n is None else n
    s = rng.beta(rng.uniform(0.5, 3), rng.uniform(0.5, 3), size=n)
    a = rng.uniform(0.2, 3) if a is None else a
    b = rng.uniform(0.2, 3) if b is None else b
    c = rng.uniform(-1, 1) if c is None else c
    t = np.clip(s, EPS, 1 - EPS)
    y = (rng.uniform(size=n) < expit(a * np.log(t) - b * np.log1p(-t) + c)).astype(float)
    y[:2] = [0.0, 1.0]
    w = rng.integers(0, 4, size=n).astype(float) if seed % 2 else None
    if w is not None:
        w[:2] = 1.0
    return s, y, w


def loglik(cal, s, y, w=None):
    """The weighted log-likelihood of the fitted map, from its logit (p may round to 0 or 1)."""
    t = np.clip(s, EPS, 1 - EPS)
    z = cal.a_ * np.log(t) - cal.b_ * np.log1p(-t) + cal.c_
    w = np.ones_like(s) if w is None else w
    return -float(np.sum(w * (np.logaddexp(0.0, z) - y * z)))


# --------------------------------------------------------------------------- betacal
@pytest.fixture
def betacal_tight(monkeypatch):
    """betacal itself, with its LogisticRegression run to a tight tolerance.

    betacal fits scikit-learn's LogisticRegression(C=99999999999) with the default L-BFGS
    tolerance (1e-4), which leaves its coefficients about 1e-3 from the optimum; everything
    else (the clipping, the features, the refit without a negative coefficient, the
    midpoint's search) is betacal's own code.
    """
    betacal = pytest.importorskip("betacal")
    from betacal import beta_calibration
    from sklearn.linear_model import LogisticRegression

    class Tight(LogisticRegression):
        def __init__(self, C=1.0, fit_intercept=True):
            super().__init__(C=C, fit_intercept=fit_intercept, tol=1e-14, max_iter=100_000)

    monkeypatch.setattr(beta_calibration, "LogisticRegression", Tight)
    return betacal


def fit_betacal(betacal, parameters, s, y, w):
    with warnings.catch_warnings():  # betacal switches every warning off, for good
        return betacal.BetaCalibration(parameters=parameters).fit(s, y, sample_weight=w)


@pytest.mark.parametrize("parameters", VARIANTS)
@pytest.mark.parametrize("seed", range(6))
def test_equals_betacal_run_to_its_optimum(betacal_tight, parameters, seed):
    s, y, w = draw(seed)
    ours = BetaCalibration(parameters=parameters).fit(s, y, sample_weight=w)
    ref = fit_betacal(betacal_tight, parameters, s, y, w)
    a, b, m = ref.calibrator_.map_
    np.testing.assert_allclose([ours.a_, ours.b_], [a, b], rtol=1e-6, atol=1e-6)
    # betacal's m: a bounded scalar search with its default tolerance, 1e-5
    np.testing.assert_allclose(ours.m_, m, rtol=0, atol=2e-5)
    t = np.r_[s, np.linspace(0.0, 1.0, 101)]
    np.testing.assert_allclose(ours.predict(t), ref.predict(t), rtol=0, atol=1e-6)


@pytest.mark.parametrize("parameters", VARIANTS)
def test_equals_betacal_as_shipped_to_its_tolerance(parameters):
    """Stock betacal stops L-BFGS at its gradient tolerance, about 1e-2 from the optimum on
    the coefficients and 5e-3 on the probabilities here, on the side of a lower likelihood."""
    betacal = pytest.importorskip("betacal")
    s, y, w = draw(11, n=2000)
    ours = BetaCalibration(parameters=parameters).fit(s, y, sample_weight=w)
    ref = fit_betacal(betacal, parameters, s, y, w)
    np.testing.assert_allclose([ours.a_, ours.b_], ref.calibrator_.map_[:2], rtol=1e-2, atol=1e-2)
    np.testing.assert_allclose(ours.predict(s), ref.predict(s), rtol=0, atol=5e-3)
    p = np.clip(ref.predict(s), 1e-300, 1 - 1e-16)
    theirs = float(np.sum(w * (y * np.log(p) + (1 - y) * np.log1p(-p))))
    assert loglik(ours, s, y, w) >= theirs - 1e-9 * abs(theirs)


@pytest.mark.parametrize("negative", ["a", "b"])
def test_a_negative_coefficient_is_dropped_as_betacal_does(betacal_tight, negative):
    """Scores whose map bends back near 0 (a < 0) or near 1 (b < 0): refit without it."""
    a, b = (-0.8, 1.5) if negative == "a" else (1.5, -0.8)
    s, y, _ = draw(3, n=3000, a=a, b=b, c=0.0)
    ours = BetaCalibration().fit(s, y)
    ref = fit_betacal(betacal_tight, "abm", s, y, None)
    assert (ours.a_ if negative == "a" else ours.b_) == 0.0
    np.testing.assert_allclose([ours.a_, ours.b_], ref.calibrator_.map_[:2], rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(ours.m_, ref.calibrator_.map_[2], rtol=0, atol=2e-5)
    np.testing.assert_allclose(ours.predict(s), ref.predict(s), rtol=0, atol=1e-6)
    # and the unpenalised GLM: the full fit's slope is negative, the refit's is the optimum
    assert glm("abm", s, y, None)[0 if negative == "a" else 1] < 0
    expected = glm("abm", s, y, None, drop=negative)
    np.testing.assert_allclose([ours.a_, ours.b_, ours.c_], expected, rtol=1e-7, atol=1e-8)


# --------------------------------------------------------------------------- statsmodels
def glm(parameters, s, y, w, drop=None):
    """The unpenalised maximum-likelihood (a, b, c) from statsmodels' GLM on the same features
    (for "abm", without ln s if ``drop`` is "a", without -ln(1 - s) if it is "b")."""
    sm = pytest.importorskip("statsmodels.api")
    t = np.clip(s, EPS, 1 - EPS)
    ls, l1 = np.log(t), -np.log(1 - t)
    if parameters == "abm" and drop == "a":
        x, to_abc = np.column_stack((l1, np.ones_like(t))), lambda k: (0.0, k[0], k[1])
    elif parameters == "abm" and drop == "b":
        x, to_abc = np.column_stack((ls, np.ones_like(t))), lambda k: (k[0], 0.0, k[1])
    elif parameters == "abm":
        x, to_abc = np.column_stack((ls, l1, np.ones_like(t))), lambda k: k
    elif parameters == "am":
        x, to_abc = np.column_stack((ls + l1, np.ones_like(t))), lambda k: (k[0], k[0], k[1])
    elif parameters == "ab":
        x = np.column_stack((ls + math.log(2), l1 - math.log(2)))
        to_abc = lambda k: (k[0], k[1], (k[0] - k[1]) * math.log(2))  # noqa: E731
    else:
        x, to_abc = (ls + l1)[:, None], lambda k: (k[0], k[0], 0.0)
    model = sm.GLM(y, x, family=sm.families.Binomial(), freq_weights=w)
    return np.array(to_abc(model.fit(tol=1e-13, maxiter=200).params), dtype=float)


@pytest.mark.parametrize("parameters", VARIANTS)
@pytest.mark.parametrize("seed", range(6, 14))
def test_equals_the_unpenalised_glm(parameters, seed):
    s, y, w = draw(seed)
    ours = BetaCalibration(parameters=parameters).fit(s, y, sample_weight=w)
    drop = "a" if ours.a_ == 0.0 else "b" if ours.b_ == 0.0 else None
    if parameters == "abm" and drop is not None:  # the refit: the full fit's slope is < 0
        assert glm(parameters, s, y, w)[0 if drop == "a" else 1] < 0
    expected = glm(parameters, s, y, w, drop if parameters == "abm" else None)
    np.testing.assert_allclose([ours.a_, ours.b_, ours.c_], expected, rtol=1e-7, atol=1e-8)


# --------------------------------------------------------------------------- by hand
def test_two_scores_am_and_ab_pass_through_their_frequencies():
    """Two distinct scores, two parameters: the fit interpolates the observed rates
    1/4 at s = 0.2 and 3/4 at s = 0.8. By symmetry c = 0 and a = b, and
    a ln 4 = logit(3/4) = ln 3, so a = ln 3 / ln 4 and m = 1/2."""
    s = np.r_[np.full(4, 0.2), np.full(4, 0.8)]
    y = np.array([1, 0, 0, 0, 1, 1, 1, 0], dtype=float)
    for parameters in ("am", "ab"):
        cal = BetaCalibration(parameters=parameters).fit(s, y)
        np.testing.assert_allclose([cal.a_, cal.b_], [math.log(3) / math.log(4)] * 2, rtol=1e-9)
        np.testing.assert_allclose([cal.c_, cal.m_], [0.0, 0.5], atol=1e-9)
        np.testing.assert_allclose(cal.predict([0.2, 0.8]), [0.25, 0.75], rtol=1e-9)


def test_three_scores_abm_interpolates_the_rates():
    """Three distinct scores, three parameters: a ln s - b ln(1 - s) + c = logit(rate) at each."""
    s = np.repeat([0.2, 0.5, 0.8], [4, 4, 5])
    y = np.array([1, 0, 0, 0, 1, 1, 0, 0, 1, 1, 1, 1, 0], dtype=float)
    rates = np.array([0.25, 0.5, 0.8])
    t = np.array([0.2, 0.5, 0.8])
    x = np.column_stack((np.log(t), -np.log(1 - t), np.ones(3)))
    a, b, c = np.linalg.solve(x, logit(rates))
    assert a > 0 and b > 0  # no refit
    cal = BetaCalibration().fit(s, y)
    np.testing.assert_allclose([cal.a_, cal.b_, cal.c_], [a, b, c], rtol=1e-9)
    np.testing.assert_allclose(cal.m_, 0.5, atol=1e-12)  # the middle rate is 1/2
    np.testing.assert_allclose(cal.predict(t), rates, rtol=1e-9)


def test_the_identity_is_a_beta_map():
    """a = b = 1 and c = 0 give p = s: the map of perfectly calibrated, large samples."""
    rng = np.random.default_rng(0)
    s = rng.uniform(size=200_000)
    y = (rng.uniform(size=s.size) < s).astype(float)
    cal = BetaCalibration().fit(s, y)
    np.testing.assert_allclose([cal.a_, cal.b_, cal.c_], [1.0, 1.0, 0.0], atol=0.03)


# --------------------------------------------------------------------------- edges
def test_scores_are_clipped_to_machine_epsilon():
    s, y, _ = draw(1)
    cal = BetaCalibration().fit(np.r_[s, 0.0, 1.0], np.r_[y, 0.0, 1.0])
    p = cal.predict([0.0, EPS, 1e-300, 1.0, 1.0 - EPS])
    assert p[0] == p[1] == p[2] and p[3] == p[4]
    assert p[0] < p[3]


def test_separable_scores_give_a_finite_fit_without_warning():
    s = np.linspace(0.01, 0.99, 100)
    y = (s > 0.5).astype(float)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cal = BetaCalibration().fit(s, y)
    assert np.isfinite([cal.a_, cal.b_, cal.c_]).all()
    p = cal.predict(s)
    assert p[y == 0].max() < 1e-3 and p[y == 1].min() > 1 - 1e-3
    np.testing.assert_allclose(cal.m_, 0.5, atol=0.01)


def test_equal_scores_predict_the_base_rate():
    cal = BetaCalibration().fit(np.full(10, 0.3), [0, 1, 1, 0, 0, 0, 0, 0, 0, 1])
    np.testing.assert_allclose(cal.predict([0.1, 0.3, 0.9]), 0.3, rtol=1e-6)


def test_max_iter_warns():
    s, y, _ = draw(2)
    with pytest.warns(ConvergenceWarning, match="max_iter=1"):
        BetaCalibration(max_iter=1).fit(s, y)


def test_small_weight_total_warns():
    s, y, _ = draw(2)
    with pytest.warns(LowWeightWarning):
        BetaCalibration().fit(s, y, sample_weight=np.full(s.size, 1.0 / s.size))


@pytest.mark.parametrize("parameters", VARIANTS)
def test_the_fit_reads_only_the_weights_proportions(parameters):
    s, y, _ = draw(4)
    w = np.random.default_rng(0).uniform(0.1, 2, size=s.size)
    one = BetaCalibration(parameters=parameters).fit(s, y, sample_weight=w)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", LowWeightWarning)
        tiny = BetaCalibration(parameters=parameters).fit(s, y, sample_weight=w * 1e-200)
    np.testing.assert_allclose([tiny.a_, tiny.b_, tiny.c_], [one.a_, one.b_, one.c_], rtol=1e-9)


def test_bad_parameters_raise():
    with pytest.raises(ValueError, match="parameters"):
        BetaCalibration(parameters="abc").fit([0.2, 0.8], [0, 1])
    with pytest.raises(ValueError, match="scores"):
        BetaCalibration().fit([0.2, 1.8], [0, 1])


def test_fit_on_dask_equals_fit_on_the_rows():
    """The likelihood is a weighted sum: aggregating tied rows changes nothing."""
    da = pytest.importorskip("dask.array")
    from calibbook.distributed import fit_distributed

    rng = np.random.default_rng(5)
    s = rng.choice(np.round(rng.uniform(size=200), 3), size=5000)
    y = (rng.uniform(size=s.size) < s**0.7).astype(float)
    w = rng.integers(0, 4, size=s.size).astype(float)
    w[:2], y[:2] = 1.0, [0.0, 1.0]
    parts = [da.from_array(v, chunks=1000) for v in (s, y, w)]
    cal = fit_distributed(BetaCalibration(), *parts)
    ref = BetaCalibration().fit(s, y, sample_weight=w)
    t = np.linspace(0, 1, 101)
    np.testing.assert_allclose(cal.predict(t), ref.predict(t), rtol=0, atol=1e-12)


# --------------------------------------------------------------------------- properties
@SETTINGS
@given(a=st.floats(1e-3, 50), b=st.floats(1e-3, 50), c=st.floats(-50, 50))
def test_midpoint_solves_its_equation(a, b, c):
    """m brackets the root of a ln m - b ln(1 - m) + c within a few ulps (0 or 1 when the
    root rounds there), up to the rounding of the left side itself."""

    def side(m):
        return a * math.log(m) - b * math.log1p(-m) + c

    m = _midpoint(a, b, c)
    assert 0.0 <= m <= 1.0
    lo, hi = m, m
    for _ in range(8):
        lo, hi = np.nextafter(lo, 0.0), np.nextafter(hi, 1.0)
    tol = 8 * EPS * (a * 745 + b * 37 + abs(c))
    if lo > 0.0:
        assert side(lo) <= tol
    if hi < 1.0:
        assert side(hi) >= -tol


@SETTINGS
@given(seed=st.integers(0, 2**20))
def test_nested_variants_order_their_likelihoods(seed):
    """a is inside am and ab, am inside abm: a larger model fits at least as well."""
    s, y, w = draw(seed)
    fits = {p: BetaCalibration(parameters=p).fit(s, y, sample_weight=w) for p in VARIANTS}
    ll = {p: loglik(cal, s, y, w) for p, cal in fits.items()}
    tol = 1e-7 * (1 + abs(ll["a"]))
    assert ll["am"] >= ll["a"] - tol and ll["ab"] >= ll["a"] - tol
    if fits["abm"].a_ > 0 and fits["abm"].b_ > 0:  # no refit: abm is the full optimum
        assert ll["abm"] >= ll["am"] - tol and ll["abm"] >= ll["ab"] - tol
    else:  # the refit dropped one slope, and only one
        assert (fits["abm"].a_ == 0.0) != (fits["abm"].b_ == 0.0)


@SETTINGS
@given(seed=st.integers(0, 2**20))
def test_abm_map_crosses_one_half_at_m(seed):
    s, y, w = draw(seed)
    cal = BetaCalibration().fit(s, y, sample_weight=w)
    if 1e-6 < cal.m_ < 1 - 1e-6:
        np.testing.assert_allclose(cal.predict([cal.m_]), 0.5, atol=1e-9)
        # and the map increases (a, b >= 0)
        t = np.linspace(0, 1, 201)
        assert np.all(np.diff(cal.predict(t)) >= 0) or min(cal.a_, cal.b_) < 0
