"""DPMCalibration: the variational DP mixture against scikit-learn, densities, the contract."""

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate, special
from sklearn.base import clone
from sklearn.mixture import BayesianGaussianMixture

from calibbook._kernels.dpm import digamma
from calibbook.calibrators.dpm import DPGaussianMixture1D, DPMCalibration, quantile_responsibilities
from tests._reference.dpm_before_issue_18 import frozen_dense_fit
from tests._support.contract import check_calibrator_contract


def two_bumps(seed=0, n=(300, 200)):
    rng = np.random.default_rng(seed)
    return np.concatenate([rng.normal(-2, 0.5, n[0]), rng.normal(1, 1, n[1])])


def sklearn_with_responsibilities(resp, **params):
    """BayesianGaussianMixture started from given responsibilities instead of k-means."""

    class Started(BayesianGaussianMixture):
        def _initialize_parameters(self, X, random_state, xp=None):
            self._initialize(X, resp)

    return Started(
        weight_concentration_prior_type="dirichlet_process", covariance_type="full", **params
    )


def test_digamma_matches_scipy():
    x = np.concatenate([np.logspace(-3, 3, 200), [0.5, 1.0, 9.999, 10.0, 1e6]])
    np.testing.assert_allclose([digamma(v) for v in x], special.digamma(x), rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize("max_iter", [1, 3, 40])
@pytest.mark.parametrize(
    "priors",
    [
        {},
        dict(
            weight_concentration_prior=2.0,
            mean_prior=0.5,
            mean_precision_prior=0.1,
            degrees_of_freedom_prior=3.0,
            covariance_prior=0.7,
        ),
    ],
)
def test_matches_sklearn_bayesian_gaussian_mixture(max_iter, priors):
    x = two_bumps()
    K = 6
    resp = quantile_responsibilities(x, np.ones_like(x), K)
    sk = sklearn_with_responsibilities(resp, n_components=K, max_iter=max_iter, tol=0.0, **priors)
    as_array = {"mean_prior": np.atleast_1d, "covariance_prior": np.atleast_2d}
    sk.set_params(**{k: as_array.get(k, lambda v: v)(v) for k, v in priors.items()})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sk.fit(x[:, None])
    ours = DPGaussianMixture1D(n_components=K, max_iter=max_iter, tol=0.0, **priors)
    ours.fit(x, np.ones_like(x), resp)
    assert ours.n_iter_ == max_iter
    assert ours.lower_bound_ == pytest.approx(sk.lower_bound_, rel=1e-10)
    np.testing.assert_allclose(ours.weights_, sk.weights_, atol=1e-10)
    np.testing.assert_allclose(ours.means_, sk.means_[:, 0], atol=1e-9)
    np.testing.assert_allclose(ours.covariances_, sk.covariances_.ravel(), rtol=1e-9)
    np.testing.assert_allclose(ours.degrees_of_freedom_, sk.degrees_of_freedom_, rtol=1e-12)
    np.testing.assert_allclose(ours.mean_precision_, sk.mean_precision_, rtol=1e-12)
    # the fitted plug-in Gaussian-mixture densities agree too
    g = np.linspace(-5, 5, 101)

    def plug(m):
        var = m.covariances_.ravel()
        z2 = (g[:, None] - m.means_.ravel()) ** 2 / var
        return (m.weights_ * np.exp(-0.5 * z2) / np.sqrt(2 * np.pi * var)).sum(1)

    np.testing.assert_allclose(plug(ours), plug(sk), atol=1e-9)


def test_converges_like_sklearn_with_default_tolerance():
    x = two_bumps(seed=2)
    resp = quantile_responsibilities(x, np.ones_like(x), 8)
    sk = sklearn_with_responsibilities(resp, n_components=8, max_iter=1000, tol=1e-3)
    sk.fit(x[:, None])
    ours = DPGaussianMixture1D(n_components=8, max_iter=1000, tol=1e-3)
    ours.fit(x, np.ones_like(x), resp)
    assert ours.n_iter_ == sk.n_iter_ and ours.converged_
    assert ours.lower_bound_ == pytest.approx(sk.lower_bound_, rel=1e-9)


def test_integer_weights_equal_repeated_rows_in_the_mixture():
    x = two_bumps(seed=3, n=(60, 40))
    w = np.random.default_rng(0).integers(0, 4, size=x.size).astype(float)
    a = DPGaussianMixture1D(n_components=5).fit(x[w > 0], w[w > 0])
    rep = np.repeat(x, w.astype(int))
    b = DPGaussianMixture1D(n_components=5).fit(rep, np.ones_like(rep))
    assert a.n_iter_ == b.n_iter_
    assert a.lower_bound_ == pytest.approx(b.lower_bound_, rel=1e-10)
    g = np.linspace(-6, 6, 50)
    np.testing.assert_allclose(a.log_density(g), b.log_density(g), atol=1e-9)


@pytest.mark.parametrize("seed", [0, 1])
def test_class_densities_integrate_to_one(seed):
    x = two_bumps(seed=seed)
    y = (x > -0.5).astype(float)
    cal = DPMCalibration().fit(x, y)
    for mixture in cal.mixtures_:

        def density(t, mixture=mixture):
            return np.exp(mixture.log_density(np.array([t])))[0]

        total, _ = integrate.quad(density, -np.inf, np.inf, limit=500)
        assert total == pytest.approx(1.0, abs=1e-6)


def test_logit_densities_integrate_to_one_and_bayes_rule_is_invariant():
    rng = np.random.default_rng(5)
    p = rng.beta(2, 5, size=400)
    y = (rng.uniform(size=400) < p).astype(float)
    cal = DPMCalibration(logit_input=True).fit(p, y)
    for mixture in cal.mixtures_:

        def density(t, mixture=mixture):
            return np.exp(mixture.log_density(np.array([t])))[0]

        total, _ = integrate.quad(density, -np.inf, np.inf, limit=500)
        assert total == pytest.approx(1.0, abs=1e-6)
    # fitting on logits by hand and calibrating raw logits gives the same map
    z = np.log(p) - np.log1p(-p)
    q = np.linspace(0.01, 0.99, 50)
    by_hand = DPMCalibration().fit(z, y).predict(np.log(q) - np.log1p(-q))
    np.testing.assert_allclose(cal.predict(q), by_hand, atol=1e-12)
    assert np.isfinite(cal.predict([0.0, 1.0])).all()


@pytest.mark.parametrize("out_of_bounds", ["clip", "extrapolate"])
def test_posterior_is_bayes_rule_of_the_class_densities(out_of_bounds):
    # "extrapolate" is Bayes' rule at the score itself (the behaviour before out_of_bounds);
    # "clip" is Bayes' rule at the score clipped to [min, max] of the training scores
    x = two_bumps(seed=4)
    y = (x > -0.5).astype(float)
    y[:20] = 1 - y[:20]
    cal = DPMCalibration(n_components=5, out_of_bounds=out_of_bounds).fit(x, y)
    q = np.linspace(-8, 8, 65)
    assert q[0] < x.min() and q[-1] > x.max()
    at = np.clip(q, x.min(), x.max()) if out_of_bounds == "clip" else q
    joint = cal.class_prior_ * np.exp(cal.log_class_densities(at))
    np.testing.assert_allclose(cal.predict(q), joint[:, 1] / joint.sum(1), atol=1e-12)


@pytest.mark.parametrize("out_of_bounds", ["clip", "extrapolate"])
def test_far_outside_training_range_never_nan(out_of_bounds):
    x = two_bumps() * 10
    y = (x > -5).astype(float)
    cal = DPMCalibration(out_of_bounds=out_of_bounds).fit(x, y)
    p = cal.predict([-1e6, -1e3, 0.0, 1e3, 1e6, -1e300, 1e300])
    assert np.isfinite(p).all() and (p >= 0).all() and (p <= 1).all()


def test_deterministic():
    x = two_bumps()
    y = (x > -0.5).astype(float)
    q = np.linspace(-3, 3, 20)
    first, second = DPMCalibration().fit(x, y), DPMCalibration().fit(x, y)
    np.testing.assert_array_equal(first.predict(q), second.predict(q))


BAD_PARAMETERS = [
    dict(n_components=0),
    dict(n_components=2.5),
    dict(n_components=True),
    dict(max_iter=0),
    dict(weight_concentration_prior=0.0),
    dict(mean_prior=np.inf),
    dict(mean_precision_prior=-1.0),
    dict(degrees_of_freedom_prior=0.0),
    dict(covariance_prior=np.nan),
    dict(reg_covar=-1e-3),
    dict(tol=-1.0),
]


@pytest.mark.parametrize(
    "params", [*BAD_PARAMETERS, dict(logit_input=1), dict(out_of_bounds="nearest")]
)
def test_bad_parameters(params):
    x = two_bumps(n=(20, 20))
    (name,) = params
    with pytest.raises(ValueError, match=f"^{name} must be .*; got "):
        DPMCalibration(**params).fit(x, (x > -0.5).astype(float))


@pytest.mark.parametrize("params", BAD_PARAMETERS)
def test_mixture_checks_its_parameters(params):
    x = two_bumps(n=(20, 20))
    (name,) = params
    with pytest.raises(ValueError, match=f"^{name} must be "):
        DPGaussianMixture1D(**params).fit(x, np.ones_like(x))


def test_constructors_are_keyword_only():
    with pytest.raises(TypeError):
        DPMCalibration(5)
    with pytest.raises(TypeError):
        DPGaussianMixture1D(5)


def test_logit_input_needs_probabilities():
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        DPMCalibration(logit_input=True).fit([-1.0, 0.5, 0.7], [0, 1, 1])


@pytest.mark.parametrize("logit_input", [False, True])
@pytest.mark.parametrize("out_of_bounds", ["clip", "extrapolate"])
def test_contract(logit_input, out_of_bounds):
    rng = np.random.default_rng(9)
    s = rng.uniform(size=120)
    y = (rng.uniform(size=120) < s).astype(float)
    cal = DPMCalibration(n_components=5, logit_input=logit_input, out_of_bounds=out_of_bounds)
    check_calibrator_contract(cal, s, y)


# ----------------------------------------------------------------- outside the training range
def uniform_probabilities(n=400, seed=0):
    """Scores uniform on [0, 1] with P(y = 1 | s) = s: the true map is the identity."""
    rng = np.random.default_rng(seed)
    s = rng.uniform(size=n)
    return s, (rng.uniform(size=n) < s).astype(float)


@pytest.mark.parametrize("logit_input", [False, True])
def test_clip_predicts_the_nearest_training_extreme(logit_input):
    s, y = uniform_probabilities(n=200, seed=3)
    s = 0.1 + 0.8 * s  # training range inside [0, 1], so logit_input has room outside it
    w = np.random.default_rng(1).uniform(0.5, 2.0, size=s.size)
    w[np.argmin(s)] = w[np.argmax(s)] = 0.0  # zero-weight rows do not count for the range
    kept = s[w > 0]
    lo, hi = kept.min(), kept.max()
    cal = DPMCalibration(n_components=5, logit_input=logit_input).fit(s, y, w)
    np.testing.assert_array_equal(cal.score_range_, [lo, hi])
    below, above = np.array([0.0, 0.05, s.min(), lo]), np.array([hi, s.max(), 0.95, 1.0])
    assert (cal.predict(below) == cal.predict([lo])[0]).all()
    assert (cal.predict(above) == cal.predict([hi])[0]).all()
    # inside the range nothing is clipped: Bayes' rule of the densities at the score itself
    q = np.linspace(lo, hi, 30)
    joint = cal.class_prior_ * np.exp(cal.log_class_densities(q))
    np.testing.assert_allclose(cal.predict(q), joint[:, 1] / joint.sum(1), atol=1e-12)


def test_issue_reproductions_no_longer_extrapolate_wildly():
    # scores in [0, 1] whose true map is the identity: P(y = 1 | s) is about 0 at s = 0
    s, y = uniform_probabilities()
    old = DPMCalibration(out_of_bounds="extrapolate").fit(s, y)
    new = DPMCalibration().fit(s, y)
    assert old.predict([-0.5])[0] > 0.9  # the issue's 0.964: a heavier tail, not the data
    assert new.predict([-0.5])[0] == new.predict([s.min()])[0] < 0.1
    # the same cases as decision values: -50 is far more negative than -2
    d = np.log(s) - np.log1p(-s)
    old = DPMCalibration(out_of_bounds="extrapolate").fit(d, y)
    new = DPMCalibration().fit(d, y)
    assert old.predict([-50.0])[0] > 2 * old.predict([-2.0])[0]  # the issue's 0.46 against 0.18
    p_far, p_near = new.predict([-50.0, -2.0])
    assert p_far == new.predict([d.min()])[0] and p_far < p_near < 0.2


@pytest.mark.parametrize("out_of_bounds", ["clip", "extrapolate"])
@pytest.mark.parametrize("logit_input", [False, True])
def test_constant_scores_give_the_base_rate_exactly(out_of_bounds, logit_input):
    # 21 positives among 40 rows: the issue's base rate 0.525
    cal = DPMCalibration(out_of_bounds=out_of_bounds, logit_input=logit_input)
    y = np.r_[np.ones(21), np.zeros(19)]
    p = cal.fit(np.full(40, 0.3), y).predict([0.3, 0.0, 0.29, 1.0])
    assert (p == 21 / 40).all()
    # weighted; a zero-weight row with another score does not count
    s = np.r_[np.full(40, 0.3), 0.9]
    w = np.r_[np.arange(1.0, 41.0), 0.0]
    p = cal.fit(s, np.r_[y, 1.0], w).predict([0.3, 0.0, 0.9])
    assert (p == w[:21].sum() / w.sum()).all()


def test_integer_weights_are_repeated_rows_outside_the_range():
    s, y = uniform_probabilities(n=120, seed=5)
    w = np.random.default_rng(2).integers(0, 4, size=s.size)
    w[[np.argmin(s), np.argmax(s)]] = 0  # the extremes drop out of the weighted fit
    w[np.flatnonzero(y == 1)[0]] = w[np.flatnonzero(y == 0)[0]] = 1
    q = np.r_[-1.0, s.min(), np.linspace(0, 1, 21), s.max(), 2.0]
    for out_of_bounds in ("clip", "extrapolate"):
        cal = DPMCalibration(n_components=5, out_of_bounds=out_of_bounds)
        weighted = clone(cal).fit(s, y, w)
        repeated = clone(cal).fit(np.repeat(s, w), np.repeat(y, w))
        np.testing.assert_array_equal(weighted.score_range_, repeated.score_range_)
        np.testing.assert_allclose(weighted.predict(q), repeated.predict(q), atol=1e-12)


@settings(max_examples=30, deadline=None)
@given(n=st.integers(2, 30), seed=st.integers(0, 10**6), ties=st.booleans(), k=st.integers(1, 6))
def test_property_outputs_in_unit_interval(n, seed, ties, k):
    rng = np.random.default_rng(seed)
    s = rng.choice([0.0, 0.5, 1.0], size=n) if ties else rng.normal(size=n)
    y = rng.integers(0, 2, size=n).astype(float)
    y[0], y[1] = 0, 1
    cal = DPMCalibration(n_components=k).fit(s, y)
    p = cal.predict(np.concatenate([s, [-1e6, 1e6]]))
    assert np.isfinite(p).all() and (p >= 0).all() and (p <= 1).all()
    # beyond the range: the prediction at the nearest training extreme
    assert p[-2] == cal.predict([s.min()])[0] and p[-1] == cal.predict([s.max()])[0]


# ------------------------------------------- the fused E/M pass against the old implementation
def old_fit_cases():
    rng = np.random.default_rng(11)
    p = np.clip(rng.beta(0.3, 0.3, size=400), 0, 1)
    logits = np.log(np.clip(p, 1e-12, 1 - 1e-12)) - np.log1p(-np.clip(p, 1e-12, 1 - 1e-12))
    return {
        "two bumps": (two_bumps(seed=7), None),
        "weighted with ties": (np.round(two_bumps(seed=8), 1), rng.uniform(0.2, 3.0, size=500)),
        "clipped logits": (logits, None),  # heavy ties at +-27.6 and a huge range
        "one distinct value among many": (np.r_[np.full(300, 0.25), rng.uniform(size=20)], None),
    }


@pytest.mark.parametrize("case", list(old_fit_cases()))
@pytest.mark.parametrize("max_iter, tol", [(1, 0.0), (25, 0.0), (500, 1e-6)])
def test_fused_pass_agrees_with_the_old_dense_fit(case, max_iter, tol):
    x, w = old_fit_cases()[case]
    w = np.ones_like(x) if w is None else w
    K = 10
    ours = DPGaussianMixture1D(n_components=K, max_iter=max_iter, tol=tol).fit(x, w)
    resp = quantile_responsibilities(x, w, K)
    (a, b, beta, mean, nu, cov), bound, n_iter = frozen_dense_fit(
        x, w, resp, ours.priors(x, w), 1e-6, max_iter, tol
    )
    assert ours.n_iter_ == n_iter
    assert ours.lower_bound_ == pytest.approx(bound, rel=1e-10)
    np.testing.assert_allclose(ours.weight_concentration_[0], a, rtol=1e-10)
    np.testing.assert_allclose(ours.weight_concentration_[1], b, rtol=1e-10)
    np.testing.assert_allclose(ours.means_, mean, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(ours.covariances_, cov, rtol=1e-9)
    np.testing.assert_allclose(ours.degrees_of_freedom_, nu, rtol=1e-10)
    np.testing.assert_allclose(ours.mean_precision_, beta, rtol=1e-10)


def test_vectorised_exponential_is_within_an_ulp_of_math_exp():
    from numba import njit

    from calibbook._kernels.dpm import _exp_nonpositive

    def apply(u):
        return np.array([_exp_nonpositive(v) for v in u])

    u = -np.r_[0.0, 1e-300, np.logspace(-12, np.log10(700.0), 20000), 707.9]
    far = np.array([-708.5, -745.0, -1e300, -np.inf])
    # the reference is libm's exp (math.exp); NumPy's own exp may differ from it by an ulp
    # (NumPy 1.24's SIMD exp does), so comparing with np.exp could need two
    reference = np.array([math.exp(v) for v in u])
    for flags in (set(), {"contract"}):  # the E step compiles it with fused multiply-adds
        compiled = njit(fastmath=flags)(apply)
        np.testing.assert_allclose(compiled(u), reference, rtol=2.5e-16, atol=0)
        assert (compiled(far) == 0).all()


# ------------------------------------------------------------ large samples: the summary first
def summary_cases(n=3000):
    rng = np.random.default_rng(21)
    s = rng.beta(0.7, 0.7, size=n)
    return {
        "beta scores": s,
        "their logits": np.log(s) - np.log1p(-s),
        "two bumps": two_bumps(seed=21, n=(n // 2, n // 2)),
        "cauchy": rng.standard_cauchy(size=n),
    }


@pytest.mark.parametrize("case", list(summary_cases()))
def test_summary_reaches_at_least_the_lower_bound_of_the_plain_fit(case):
    # summary_size=64: 3000 distinct scores are above 16 * 64, so the summary is used
    x = summary_cases()[case]
    w = np.ones_like(x)
    plain = DPGaussianMixture1D(summary_size=None).fit(x, w)
    summarised = DPGaussianMixture1D(summary_size=64).fit(x, w)
    assert plain.n_iter_summary_ == 0 and summarised.n_iter_summary_ > 0
    assert summarised.n_iter_ <= (500 if summarised.n_iter_summary_ < 500 else 20)
    assert summarised.lower_bound_ >= plain.lower_bound_ - 1e-8 * abs(plain.lower_bound_)


def test_summary_is_not_used_below_its_threshold():
    x = summary_cases(n=1024)["their logits"]
    w = np.ones_like(x)
    a = DPGaussianMixture1D(summary_size=64).fit(x, w)
    b = DPGaussianMixture1D(summary_size=None).fit(x, w)
    assert a.n_iter_summary_ == 0 and a.n_iter_ == b.n_iter_
    assert a.lower_bound_ == b.lower_bound_
    np.testing.assert_array_equal(a.means_, b.means_)


@pytest.mark.parametrize("case", list(summary_cases()))
def test_summary_groups_partition_the_sorted_scores(case):
    from calibbook.calibrators.dpm import _merge_ties, _summary

    x = summary_cases()[case]
    w = np.random.default_rng(2).uniform(0.5, 2.0, size=x.size)
    xu, wu = _merge_ties(x, w)
    means, totals = _summary(xu, wu, 64)
    assert totals.sum() == pytest.approx(w.sum(), rel=1e-12)
    assert (np.diff(means) > 0).all() and means[0] >= xu[0] and means[-1] <= xu[-1]
    # at most 64 equal-weight slots plus the asinh slots that the range spans
    assert means.size <= 64 + 16 * 2 * (np.arcsinh(np.abs(xu).max() * 1e3) + 1)
    # each group's mean lies between the scores it holds: between two consecutive starts
    starts = np.searchsorted(np.cumsum(wu), np.cumsum(totals) - 1e-9 * w.sum())
    assert (means[1:] > xu[starts[:-1]]).all()


def test_integer_weights_equal_repeated_rows_with_a_summary():
    x = summary_cases(n=1500)["their logits"]
    w = np.random.default_rng(4).integers(1, 4, size=x.size).astype(float)
    rep = np.repeat(x, w.astype(int))
    a = DPGaussianMixture1D(summary_size=32).fit(x, w)
    b = DPGaussianMixture1D(summary_size=32).fit(rep, np.ones_like(rep))
    assert a.n_iter_summary_ == b.n_iter_summary_ > 0 and a.n_iter_ == b.n_iter_
    assert a.lower_bound_ == pytest.approx(b.lower_bound_, rel=1e-10)
    g = np.linspace(-6, 6, 50)
    np.testing.assert_allclose(a.log_density(g), b.log_density(g), atol=1e-9)


@pytest.mark.parametrize(
    "params", [dict(summary_size=0), dict(summary_size=2.5), dict(refine_iter=0)]
)
def test_bad_summary_parameters(params):
    x = two_bumps(n=(20, 20))
    (name,) = params
    with pytest.raises(ValueError, match=f"^{name} must be "):
        DPMCalibration(**params).fit(x, (x > -0.5).astype(float))


# --- issue 28: any finite scores, any units; priors continuous in the weights' total ---

ISSUE_S = np.random.default_rng(28).uniform(0.02, 0.98, 200)
ISSUE_Y = (np.random.default_rng(29).uniform(size=200) < ISSUE_S).astype(float)
ISSUE_T = np.linspace(0.0, 1.0, 41)
AFFINE_SETTINGS = [
    {},
    {"out_of_bounds": "extrapolate"},
    {"n_components": 4, "weight_concentration_prior": 2.0, "mean_precision_prior": 0.5},
    {"degrees_of_freedom_prior": 3.0, "reg_covar": 1e-2},
]


def quiet_fit(cal, s, y, w=None):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ConvergenceWarning, LowWeightWarning: tested below
        return cal.fit(s, y, w)


@pytest.mark.parametrize("factor", [1e155, 1e-300, 1e-3, 1e-4, 1e-8])
def test_issue_28_reproductions_extreme_and_small_scales(factor):
    # ZeroDivisionError in the kernel near 1e155; the base rate once the scores spanned 1e-3
    reference = DPMCalibration().fit(ISSUE_S, ISSUE_Y).predict(ISSUE_T)
    scaled = DPMCalibration().fit(ISSUE_S * factor, ISSUE_Y).predict(ISSUE_T * factor)
    assert np.ptp(scaled) > 0.3
    np.testing.assert_allclose(scaled, reference, atol=1e-9)


def test_units_are_affine_only_with_relative_priors():
    for params in AFFINE_SETTINGS:
        assert DPMCalibration(**params)._units == "affine"
    for params in ({"mean_prior": 0.0}, {"covariance_prior": 1.0}, {"logit_input": True}):
        assert DPMCalibration(**params)._units is None


# fit(a s + b).predict(a t + b) == fit(s).predict(t) for every AFFINE_SETTINGS:
# tests/unit/test_units_and_weights.py (UNITS_VARIANTS), with every other calibrator


@pytest.mark.parametrize("a", [5e-310, 1e-200, 1e-40, 1e40, 1e200, 1e306])
@pytest.mark.parametrize("params", AFFINE_SETTINGS[:2])
def test_extreme_changes_of_units_standardise_and_agree(a, params):
    # beyond 2^100 (or a spread below 2^-100) the fit runs on standardised scores
    reference = quiet_fit(DPMCalibration(**params), ISSUE_S, ISSUE_Y).predict(ISSUE_T)
    for b in (0.0, -3.0 * a, 1e6 * a):
        if abs(b) > 1e300:
            continue
        moved = quiet_fit(DPMCalibration(**params), a * ISSUE_S + b, ISSUE_Y)
        np.testing.assert_allclose(moved.predict(a * ISSUE_T + b), reference, atol=1e-6)
        assert moved.score_scale_ != 1.0  # the standardised path


@pytest.mark.parametrize("factor", [1.0, 1e-200])
def test_mixtures_are_scikit_learns_on_the_standardised_scores(factor):
    # independent reference: scikit-learn's BayesianGaussianMixture fitted to
    # (s - score_centre_) / score_scale_, with reg_covar relative to their variance
    # (always a standardisation: DPM's sums of squares would lose the offset's digits)
    s = factor * (1e-4 * two_bumps(seed=4, n=(150, 100)) + 3.0)  # absolute 1e-6 would swamp it
    y = np.r_[np.zeros(150), np.ones(100)]
    cal = DPMCalibration(n_components=6, max_iter=60, tol=0.0)
    quiet_fit(cal, s, y)
    z = (s - cal.score_centre_) / cal.score_scale_
    for label, ours in enumerate(cal.mixtures_):
        zc = z[y == label]
        resp = quantile_responsibilities(zc, np.ones_like(zc), 6)
        sk = sklearn_with_responsibilities(
            resp, n_components=6, max_iter=60, tol=0.0, reg_covar=1e-6 * z.var()
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            sk.fit(zc[:, None])
        np.testing.assert_allclose(ours.weights_, sk.weights_, atol=1e-8)
        np.testing.assert_allclose(ours.means_, sk.means_[:, 0], atol=1e-8)
    assert 0.5 <= np.std(z) < 2.0 and abs(np.median(z)) < 0.5  # a power of two near the spread
    # and the densities are those of the scores: the Jacobian 1 / score_scale_
    q = np.linspace(s.min(), s.max(), 50)
    log_f = cal.log_class_densities(q)
    zq = (q - cal.score_centre_) / cal.score_scale_
    expected = cal.mixtures_[1].log_density(zq) - np.log(cal.score_scale_)
    np.testing.assert_allclose(log_f[:, 1], expected, atol=1e-9)


EXTREME = [5e-324, 1e-320, 1e-300, 1e-150, 1e150, 1e300, np.finfo(float).max / 2]
QUERIES = np.array([-np.finfo(float).max, -1e300, -1.0, 0.0, 1e-310, 0.5, 1.0, 1e300])


@pytest.mark.parametrize("magnitude", EXTREME)
@pytest.mark.parametrize(
    "params", [{}, {"out_of_bounds": "extrapolate"}, {"mean_prior": 0.0, "covariance_prior": 1.0}]
)
def test_extreme_finite_scores_give_finite_probabilities(magnitude, params):
    s = np.r_[ISSUE_S[:60] * magnitude, -magnitude]
    y = np.r_[ISSUE_Y[:60], 1.0]
    cal = quiet_fit(DPMCalibration(max_iter=100, **params), s, y)
    p = cal.predict(np.concatenate([QUERIES, s]))
    assert np.isfinite(p).all() and (p >= 0).all() and (p <= 1).all()
    assert np.isfinite(cal.log_class_densities(s)).all()


@pytest.mark.parametrize("magnitude", [5e-324, 1e-310, 1e-300])
def test_extreme_probabilities_give_finite_probabilities(magnitude):
    s = np.r_[ISSUE_S[:60] * magnitude, 0.0, 1.0]
    y = np.r_[ISSUE_Y[:60], 1.0, 0.0]
    q = np.array([0.0, 5e-324, 1e-310, 1e-300, 0.5, 1 - 1e-16, 1.0])
    p = quiet_fit(DPMCalibration(logit_input=True, max_iter=100), s, y).predict(np.r_[q, s])
    assert np.isfinite(p).all() and (p >= 0).all() and (p <= 1).all()


# weights of any magnitude: tests/unit/test_units_and_weights.py, for every calibrator


def _ulps(k):
    return 1.0 + k * np.finfo(float).eps


def test_covariance_prior_is_continuous_in_the_total_weight():
    # issue 28: 0.053 at a total of 1 - 4e-16, 1.2e14 at 1 + 4e-16 (division by W - 1)
    x = ISSUE_S[ISSUE_Y == 1]
    w = np.full(x.size, 1.0 / x.size)
    cov0 = [DPGaussianMixture1D().priors(x, w * _ulps(k))[4] for k in (-4, 0, 4)]
    assert (w * _ulps(-4)).sum() < 1.0 < (w * _ulps(4)).sum()
    np.testing.assert_allclose(cov0, cov0[1], rtol=1e-12)
    # an independent formula: SS / (W - 1) for W >= 2, the weights read as two cases below
    for total in (0.01, 1.0, 1.99, 2.0, 2.01, 7.5, 1e4):
        wt = np.full(x.size, total / x.size)
        scale = max(total, 2.0) / total
        ss = np.dot(wt * scale, (x - x.mean()) ** 2)
        expected = ss / (wt.sum() * scale - 1.0)
        assert DPGaussianMixture1D().priors(x, wt)[4] == pytest.approx(expected, rel=1e-12)
    # integer weights: numpy's frequency-weighted variance
    f = np.random.default_rng(3).integers(1, 4, x.size)
    cov = DPGaussianMixture1D().priors(x, f.astype(float))[4]
    assert cov == pytest.approx(float(np.cov(x, fweights=f)), rel=1e-12)


def test_weights_summing_to_one_do_not_jump_by_rounding():
    w = np.full(ISSUE_S.size, 1.0 / ISSUE_S.size)
    fits = [quiet_fit(DPMCalibration(), ISSUE_S, ISSUE_Y, w * _ulps(k)) for k in (-4, 0, 4)]
    for cal in fits:
        np.testing.assert_allclose(cal.predict(ISSUE_T), fits[1].predict(ISSUE_T), atol=1e-9)


def test_initial_groups_do_not_depend_on_the_rounding_of_the_weights():
    x = np.sort(ISSUE_S)  # 200 scores, 10 groups: cumulative weights hit the cuts exactly
    exact = quantile_responsibilities(x, np.ones_like(x), 10)
    for w in (np.full(x.size, 0.1), np.full(x.size, 1.0 / x.size) * _ulps(3)):
        np.testing.assert_array_equal(quantile_responsibilities(x, w, 10), exact)


@settings(max_examples=30, deadline=None)
@given(log_c=st.floats(-6, 6))
def test_property_weights_scaled_by_c_move_the_fit_continuously(log_c):
    w = np.random.default_rng(5).uniform(0.5, 1.5, ISSUE_S.size)
    w *= 10.0**log_c / w.sum()  # total c: crosses 1 and 2 as c does
    a = quiet_fit(DPMCalibration(max_iter=200), ISSUE_S, ISSUE_Y, w)
    b = quiet_fit(DPMCalibration(max_iter=200), ISSUE_S, ISSUE_Y, w * _ulps(4))
    np.testing.assert_allclose(a.predict(ISSUE_T), b.predict(ISSUE_T), atol=1e-9)


def test_convergence_warning_where_documented():
    from sklearn.exceptions import ConvergenceWarning

    with pytest.warns(ConvergenceWarning, match=r"DPMCalibration.*max_iter=3.*tol=1e-06") as rec:
        DPMCalibration(max_iter=3).fit(ISSUE_S, ISSUE_Y)
    assert rec[0].filename == __file__  # points at the caller
    with pytest.warns(ConvergenceWarning, match=r"DPGaussianMixture1D.*max_iter=2"):
        DPGaussianMixture1D(max_iter=2).fit(ISSUE_S, np.ones_like(ISSUE_S))
    # a summary that uses up max_iter leaves refine_iter iterations on the scores
    x = two_bumps(seed=6, n=(1200, 800))
    with pytest.warns(ConvergenceWarning, match=r"refine_iter=2 iterations.*after 5 on a summary"):
        DPGaussianMixture1D(summary_size=64, max_iter=5, refine_iter=2).fit(x, np.ones_like(x))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # ordinary data on which the ascent converges
        cal = DPMCalibration().fit(ISSUE_S, ISSUE_Y)
        assert all(m.converged_ for m in cal.mixtures_)


def test_low_weight_warning_where_documented():
    from calibbook import LowWeightWarning

    w = np.full(ISSUE_S.size, 3.9 / ISSUE_S.size)  # fewer than two cases per class mixture
    with pytest.warns(LowWeightWarning, match=r"DPMCalibration.*2 class mixtures") as rec:
        DPMCalibration().fit(ISSUE_S, ISSUE_Y, w)
    low = [r for r in rec if issubclass(r.category, LowWeightWarning)]
    assert len(low) == 1 and low[0].filename == __file__
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        DPMCalibration().fit(ISSUE_S, ISSUE_Y, w * 1.03)  # 4.02 cases
        DPMCalibration().fit(ISSUE_S, ISSUE_Y)  # unweighted
