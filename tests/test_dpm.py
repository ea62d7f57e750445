"""DPMCalibration: the variational DP mixture against scikit-learn, densities, the contract."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate, special
from sklearn.mixture import BayesianGaussianMixture

from calibbook._kernels.dpm import digamma
from calibbook.dpm import DPGaussianMixture1D, DPMCalibration, quantile_responsibilities

from .contract import check_calibrator_contract


def two_bumps(seed=0, n=(300, 200)):
    rng = np.random.default_rng(seed)
    return np.concatenate([rng.normal(-2, 0.5, n[0]), rng.normal(1, 1, n[1])])


def sklearn_with_responsibilities(resp, **params):
    """BayesianGaussianMixture started from given responsibilities instead of k-means."""

    class Started(BayesianGaussianMixture):
        def _initialize_parameters(self, X, random_state, xp=None):
            self._initialize(X, resp)

    return Started(weight_concentration_prior_type="dirichlet_process", covariance_type="full", **params)


def test_digamma_matches_scipy():
    x = np.concatenate([np.logspace(-3, 3, 200), [0.5, 1.0, 9.999, 10.0, 1e6]])
    np.testing.assert_allclose([digamma(v) for v in x], special.digamma(x), rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize("max_iter", [1, 3, 40])
@pytest.mark.parametrize(
    "priors",
    [
        {},
        dict(weight_concentration_prior=2.0, mean_prior=0.5, mean_precision_prior=0.1,
             degrees_of_freedom_prior=3.0, covariance_prior=0.7),
    ],
)
def test_matches_sklearn_bayesian_gaussian_mixture(max_iter, priors):
    x = two_bumps()
    K = 6
    resp = quantile_responsibilities(x, np.ones_like(x), K)
    sk = sklearn_with_responsibilities(resp, n_components=K, max_iter=max_iter, tol=0.0, **priors)
    sk_priors = {k: (np.atleast_1d(v) if k == "mean_prior" else np.atleast_2d(v) if k == "covariance_prior" else v)
                 for k, v in priors.items()}
    sk.set_params(**sk_priors)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sk.fit(x[:, None])
    ours = DPGaussianMixture1D(n_components=K, max_iter=max_iter, tol=0.0, **priors).fit(x, np.ones_like(x), resp)
    assert ours.n_iter_ == max_iter
    assert ours.lower_bound_ == pytest.approx(sk.lower_bound_, rel=1e-10)
    np.testing.assert_allclose(ours.weights_, sk.weights_, atol=1e-10)
    np.testing.assert_allclose(ours.means_, sk.means_[:, 0], atol=1e-9)
    np.testing.assert_allclose(ours.covariances_, sk.covariances_.ravel(), rtol=1e-9)
    np.testing.assert_allclose(ours.degrees_of_freedom_, sk.degrees_of_freedom_, rtol=1e-12)
    np.testing.assert_allclose(ours.mean_precision_, sk.mean_precision_, rtol=1e-12)
    # the fitted plug-in Gaussian-mixture densities agree too
    g = np.linspace(-5, 5, 101)
    plug = lambda m: (m.weights_ * np.exp(-0.5 * (g[:, None] - m.means_.ravel()) ** 2 / m.covariances_.ravel())
                      / np.sqrt(2 * np.pi * m.covariances_.ravel())).sum(1)
    np.testing.assert_allclose(plug(ours), plug(sk), atol=1e-9)


def test_converges_like_sklearn_with_default_tolerance():
    x = two_bumps(seed=2)
    resp = quantile_responsibilities(x, np.ones_like(x), 8)
    sk = sklearn_with_responsibilities(resp, n_components=8, max_iter=1000, tol=1e-3).fit(x[:, None])
    ours = DPGaussianMixture1D(n_components=8, max_iter=1000, tol=1e-3).fit(x, np.ones_like(x), resp)
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
        total, _ = integrate.quad(lambda t: np.exp(mixture.log_density(np.array([t])))[0], -np.inf, np.inf,
                                  limit=500, points=None)
        assert total == pytest.approx(1.0, abs=1e-6)


def test_logit_densities_integrate_to_one_and_bayes_rule_is_invariant():
    rng = np.random.default_rng(5)
    p = rng.beta(2, 5, size=400)
    y = (rng.uniform(size=400) < p).astype(float)
    cal = DPMCalibration(logit=True).fit(p, y)
    for mixture in cal.mixtures_:
        total, _ = integrate.quad(lambda t: np.exp(mixture.log_density(np.array([t])))[0], -np.inf, np.inf, limit=500)
        assert total == pytest.approx(1.0, abs=1e-6)
    # fitting on logits by hand and calibrating raw logits gives the same map
    z = np.log(p) - np.log1p(-p)
    q = np.linspace(0.01, 0.99, 50)
    by_hand = DPMCalibration().fit(z, y).predict(np.log(q) - np.log1p(-q))
    np.testing.assert_allclose(cal.predict(q), by_hand, atol=1e-12)
    assert np.isfinite(cal.predict([0.0, 1.0])).all()


def test_posterior_is_bayes_rule_of_the_class_densities():
    x = two_bumps(seed=4)
    y = (x > -0.5).astype(float)
    y[:20] = 1 - y[:20]
    cal = DPMCalibration(n_components=5).fit(x, y)
    q = np.linspace(-4, 4, 33)
    log_f = cal.log_class_densities(q)
    joint = cal.class_prior_ * np.exp(log_f)
    np.testing.assert_allclose(cal.predict(q), joint[:, 1] / joint.sum(1), atol=1e-12)


def test_far_outside_training_range_never_nan():
    x = two_bumps() * 10
    y = (x > -5).astype(float)
    p = DPMCalibration().fit(x, y).predict([-1e6, -1e3, 0.0, 1e3, 1e6, -1e300, 1e300])
    assert np.isfinite(p).all() and (p >= 0).all() and (p <= 1).all()


def test_deterministic():
    x = two_bumps()
    y = (x > -0.5).astype(float)
    q = np.linspace(-3, 3, 20)
    np.testing.assert_array_equal(DPMCalibration().fit(x, y).predict(q), DPMCalibration().fit(x, y).predict(q))


@pytest.mark.parametrize("params", [
    dict(n_components=0), dict(n_components=2.5), dict(max_iter=0), dict(weight_concentration_prior=0.0),
    dict(mean_precision_prior=-1.0), dict(degrees_of_freedom_prior=0.0), dict(covariance_prior=np.nan),
    dict(reg_covar=-1e-3), dict(tol=-1.0),
])
def test_bad_parameters(params):
    x = two_bumps(n=(20, 20))
    with pytest.raises(ValueError):
        DPMCalibration(**params).fit(x, (x > -0.5).astype(float))


def test_logit_needs_probabilities():
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        DPMCalibration(logit=True).fit([-1.0, 0.5, 0.7], [0, 1, 1])


@pytest.mark.parametrize("logit", [False, True])
def test_contract(logit):
    rng = np.random.default_rng(9)
    s = rng.uniform(size=120)
    y = (rng.uniform(size=120) < s).astype(float)
    check_calibrator_contract(DPMCalibration(n_components=5, logit=logit), s, y)


@settings(max_examples=30, deadline=None)
@given(n=st.integers(2, 30), seed=st.integers(0, 10**6), ties=st.booleans(), k=st.integers(1, 6))
def test_property_outputs_in_unit_interval(n, seed, ties, k):
    rng = np.random.default_rng(seed)
    s = rng.choice([0.0, 0.5, 1.0], size=n) if ties else rng.normal(size=n)
    y = rng.integers(0, 2, size=n).astype(float)
    y[0], y[1] = 0, 1
    p = DPMCalibration(n_components=k).fit(s, y).predict(np.concatenate([s, [-1e6, 1e6]]))
    assert np.isfinite(p).all() and (p >= 0).all() and (p <= 1).all()
