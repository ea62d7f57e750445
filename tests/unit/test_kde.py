"""KDECalibration against a brute-force evaluation of Eq. 5 of Naeini et al. (2014)."""

import copy
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate
from sklearn.base import clone

from calibbook.calibrators.kde import (
    EQUIVALENT_BANDWIDTH_FACTORS,
    KERNELS,
    KDECalibration,
    _Frame,
    _standardise,
    bandwidth_rule,
)
from tests._reference.kde_before_the_compiled_predict import _old_binned_predict
from tests._support.contract import check_calibrator_contract

KERNEL_FUNCTIONS = {
    "boxcar": lambda u: 0.5 * (np.abs(u) <= 1),
    "epanechnikov": lambda u: 0.75 * (1 - u * u) * (np.abs(u) <= 1),
    "tricube": lambda u: 70 / 81 * (1 - np.abs(u) ** 3) ** 3 * (np.abs(u) <= 1),
    "gaussian": lambda u: np.exp(-0.5 * u * u) / np.sqrt(2 * np.pi),
}


def brute_eq5(s, y, w, q, kernel, h0, h1, reflect=False):
    """pi_1 f_1 / (pi_1 f_1 + pi_0 f_0) straight from the definitions, and its denominator."""
    K = KERNEL_FUNCTIONS[kernel]
    total = w.sum()

    def prior_times_density(label, h):
        xs, ws = s[y == label], w[y == label]
        if reflect:
            xs, ws = np.concatenate([xs, -xs, 2 - xs]), np.tile(ws, 3)
        # the window test is written as the kernel writes it, so boundary ties agree
        inside = (xs[None, :] >= q[:, None] - h) & (xs[None, :] <= q[:, None] + h)
        u = (q[:, None] - xs[None, :]) / h
        k = K(u) if kernel == "gaussian" else np.where(inside, K(np.clip(u, -1, 1)), 0.0)
        return (ws * k).sum(1) / (total * h)

    a, b = prior_times_density(1, h1), prior_times_density(0, h0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return a / (a + b), a + b


def at(q, s, out_of_bounds="clip"):
    """Where the calibrator evaluates Eq. 5 for query q: clipped to the training range or not."""
    return np.clip(q, s.min(), s.max()) if out_of_bounds == "clip" else q


def make_data(n=200, seed=0, scale=1.0):
    rng = np.random.default_rng(seed)
    s = rng.normal(scale=scale, size=n)
    y = (rng.uniform(size=n) < 1 / (1 + np.exp(-2 * s / scale))).astype(float)
    return s, y


@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("bandwidth", [0.03, 0.4, 3.0, "silverman", "silverman_robust", "scott"])
@pytest.mark.parametrize("shared", [True, False])
@pytest.mark.parametrize("out_of_bounds", ["clip", "extrapolate"])
def test_matches_brute_force_eq5(kernel, bandwidth, shared, out_of_bounds):
    s, y = make_data()
    w = np.random.default_rng(1).uniform(0.2, 2.0, size=s.size)
    cal = KDECalibration(
        kernel=kernel,
        bandwidth=bandwidth,
        shared_bandwidth=shared,
        algorithm="exact",
        out_of_bounds=out_of_bounds,
    ).fit(s, y, w)
    h0, h1 = cal.bandwidth_
    q = np.concatenate([s, np.linspace(-4, 4, 401)])
    assert q.min() < s.min() and q.max() > s.max()
    expected, denom = brute_eq5(s, y, w, at(q, s, out_of_bounds), kernel, h0, h1)
    defined = denom > 1e-6 * denom.max()
    p = cal.predict(q)
    np.testing.assert_allclose(p[defined], expected[defined], rtol=0, atol=1e-9)
    assert np.isfinite(p).all() and (p >= 0).all() and (p <= 1).all()


@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("bandwidth", [0.02, 0.15, "silverman"])
@pytest.mark.parametrize("shared", [True, False])
def test_reflection_matches_brute_force(kernel, bandwidth, shared):
    rng = np.random.default_rng(3)
    s = rng.beta(0.7, 2.0, size=150)
    y = (rng.uniform(size=150) < s).astype(float)
    y[:2] = [0, 1]
    cal = KDECalibration(
        kernel=kernel, bandwidth=bandwidth, shared_bandwidth=shared, reflect=True, algorithm="exact"
    ).fit(s, y)
    q = np.concatenate([s, np.linspace(0, 1, 301)])
    expected, denom = brute_eq5(
        s, y, np.ones_like(s), at(q, s), kernel, *cal.bandwidth_, reflect=True
    )
    defined = denom > 1e-6 * denom.max()
    np.testing.assert_allclose(cal.predict(q)[defined], expected[defined], atol=1e-9)


def test_reflection_keeps_densities_normalised_on_unit_interval():
    """With reflection each class density integrates to 1 over [0, 1] (no boundary leak)."""
    rng = np.random.default_rng(4)
    s = rng.uniform(size=80)
    y = np.r_[np.zeros(40), np.ones(40)]
    q = np.linspace(0, 1, 20001)
    for kernel in KERNELS:
        h = 0.1
        _, denom = brute_eq5(s, y, np.ones_like(s), q, kernel, h, h, reflect=True)
        # denom = pi_0 f_0 + pi_1 f_1, a density on [0, 1]
        assert abs(integrate.trapezoid(denom, q) - 1.0) < 1e-3


def test_compact_kernel_accuracy_with_far_offset_and_large_n():
    """Prefix sums of local moments do not cancel: scores near 1e4 with a tiny bandwidth."""
    rng = np.random.default_rng(5)
    s = 1e4 + rng.normal(size=3000)
    y = (rng.uniform(size=3000) < 0.5).astype(float)
    q = 1e4 + rng.normal(size=300)
    for kernel in ("boxcar", "epanechnikov", "tricube"):
        for h in (0.01, 0.2, 2.0):
            cal = KDECalibration(kernel=kernel, bandwidth=h).fit(s, y)
            expected, denom = brute_eq5(s, y, np.ones_like(s), at(q, s), kernel, h, h)
            defined = denom > 1e-6 * denom.max()
            np.testing.assert_allclose(cal.predict(q)[defined], expected[defined], atol=1e-9)


@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("out_of_bounds", ["clip", "extrapolate"])
def test_far_from_data_gives_nearest_estimate_never_nan(kernel, out_of_bounds):
    s, y = make_data()
    cal = KDECalibration(kernel=kernel, bandwidth=0.05, out_of_bounds=out_of_bounds).fit(s, y)
    far = np.array([-1e300, -1e6, -50.0, 50.0, 1e6, 1e300])
    p = cal.predict(far)
    assert np.isfinite(p).all() and (p >= 0).all() and (p <= 1).all()
    if out_of_bounds == "clip" or kernel != "gaussian":  # the estimate at the nearest score
        np.testing.assert_array_equal(p, cal.predict([s.min()] * 3 + [s.max()] * 3))
    else:  # Eq. 5 itself (log-sum-exp): the label of the extreme training score dominates
        assert p[0] == pytest.approx(y[np.argmin(s)], abs=1e-9)
        assert p[-1] == pytest.approx(y[np.argmax(s)], abs=1e-9)


def test_gap_inside_the_data_uses_nearest_training_score():
    s = np.array([0.0, 0.1, 0.2, 5.0, 5.1, 5.2])
    y = np.array([0, 0, 1, 1, 1, 0.0])
    cal = KDECalibration(kernel="epanechnikov", bandwidth=0.5).fit(s, y)
    p = cal.predict([0.2, 2.0, 2.6, 3.5, 5.0])
    assert p[1] == p[0] and p[3] == p[4]
    assert p[2] == pytest.approx(0.5 * (p[0] + p[4]))  # exactly halfway: mean of the two


@pytest.mark.parametrize("kernel", KERNELS)
def test_raw_scores_far_outside_range(kernel):
    s, y = make_data(scale=3.0)
    for shared in (True, False):
        cal = KDECalibration(kernel=kernel, shared_bandwidth=shared).fit(s, y)
        p = cal.predict(np.array([-1e300, -1e6, -1e3, 0.0, 1e3, 1e6, 1e300]))
        assert np.isfinite(p).all() and (p >= 0).all() and (p <= 1).all()


def test_gaussian_binned_within_stated_bound():
    rng = np.random.default_rng(6)
    s = rng.standard_t(4, size=20000)
    y = (rng.uniform(size=s.size) < 1 / (1 + np.exp(-s))).astype(float)
    q = np.concatenate([rng.standard_t(4, size=3000), [-1e6, -200.0, 200.0, 1e6]])
    for shared in (True, False):
        binned = KDECalibration(algorithm="binned", shared_bandwidth=shared, binned_tol=1e-4)
        binned.fit(s, y)
        exact = KDECalibration(algorithm="exact", shared_bandwidth=shared).fit(s, y)
        assert binned.algorithm_ == "binned" and exact.algorithm_ == "exact"
        assert np.abs(binned.predict(q) - exact.predict(q)).max() <= 1e-4


def test_auto_method_choice():
    s, y = make_data(n=500)
    assert KDECalibration().fit(s, y).algorithm_ == "exact"
    s, y = make_data(n=5000)
    assert KDECalibration().fit(s, y).algorithm_ == "binned"
    assert KDECalibration(kernel="tricube", algorithm="binned").fit(s, y).algorithm_ == "exact"


def test_bandwidth_rules():
    rng = np.random.default_rng(7)
    x = np.sort(rng.normal(size=500))
    w = np.ones_like(x)
    sigma = x.std(ddof=1)
    assert bandwidth_rule(x, w, "silverman") == pytest.approx(1.06 * sigma * 500**-0.2)
    assert bandwidth_rule(x, w, "scott") == pytest.approx(sigma * 500**-0.2)
    iqr = np.subtract(*np.percentile(x, [75, 25]))
    robust = 0.9 * min(sigma, iqr / 1.34) * 500**-0.2
    assert bandwidth_rule(x, w, "silverman_robust") == pytest.approx(robust)
    # integer weights equal repeated rows, including the weighted IQR
    wi = rng.integers(0, 4, size=x.size).astype(float)
    for rule in ("silverman", "silverman_robust", "scott"):
        rep = np.repeat(x, wi.astype(int))
        expected = bandwidth_rule(rep, np.ones_like(rep), rule)
        assert bandwidth_rule(x, wi, rule) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("out_of_bounds", ["clip", "extrapolate"])
@pytest.mark.parametrize("shared", [True, False])
def test_constant_scores_give_the_base_rate_exactly(kernel, out_of_bounds, shared):
    cal = KDECalibration(kernel=kernel, out_of_bounds=out_of_bounds, shared_bandwidth=shared)
    y = np.r_[np.ones(21), np.zeros(19)]
    p = cal.fit(np.full(40, 0.3), y).predict([0.3, 0.0, 0.29, 10.0])
    assert (p == 21 / 40).all()
    # weighted; a zero-weight row with another score does not count
    s = np.r_[np.full(40, 0.3), 0.9]
    w = np.r_[np.arange(1.0, 41.0), 0.0]
    p = cal.fit(s, np.r_[y, 1.0], w).predict([0.3, 0.0, 0.9])
    assert (p == w[:21].sum() / w.sum()).all()
    # probabilities that the logit's clip at 1e-12 makes equal
    p = KDECalibration(kernel=kernel, logit_input=True).fit([0.0, 1e-14, 1e-13], [0, 1, 1])
    assert (p.predict([0.0, 0.5, 1.0]) == 2 / 3).all()


def test_unequal_scores_keep_a_bandwidth():
    cal = KDECalibration(shared_bandwidth=False).fit([0.3, 0.3, 0.5, 0.6], [0, 0, 1, 1])
    # in the scores' units: below the smallest double for scores near 5e-324
    assert np.isfinite(cal.bandwidth_).all() and (cal.bandwidth_ >= 0).all()


@pytest.mark.parametrize(
    "params",
    [
        dict(kernel="cosine"),
        dict(bandwidth=0.0),
        dict(bandwidth=-1.0),
        dict(bandwidth=np.nan),
        dict(bandwidth="normal"),
        dict(algorithm="fft"),
        dict(binned_tol=0.0),
        dict(binned_tol=1.0),
        dict(bandwidth=True),
        dict(shared_bandwidth=1),
        dict(reflect="yes"),
        dict(logit_input=None),
        dict(out_of_bounds="nearest"),
        dict(out_of_bounds="raise"),
    ],
)
def test_bad_parameters(params):
    s, y = make_data(n=50)
    (name,) = params
    with pytest.raises(ValueError, match=f"^{name} must be .*; got "):
        KDECalibration(**params).fit(s, y)


def test_constructor_is_keyword_only():
    with pytest.raises(TypeError):
        KDECalibration("boxcar")


def test_reflection_needs_probabilities():
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        KDECalibration(reflect=True).fit([-0.5, 0.2, 0.8], [0, 1, 1])


@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("reflect", [False, True])
@pytest.mark.parametrize("out_of_bounds", ["clip", "extrapolate"])
def test_contract(kernel, reflect, out_of_bounds):
    rng = np.random.default_rng(8)
    s = rng.uniform(size=120)
    y = (rng.uniform(size=120) < s).astype(float)
    cal = KDECalibration(
        kernel=kernel, reflect=reflect, shared_bandwidth=False, out_of_bounds=out_of_bounds
    )
    check_calibrator_contract(cal, s, y)


def test_contract_binned():
    s, y = make_data(n=300)
    check_calibrator_contract(KDECalibration(algorithm="binned"), s, y)


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(2, 40),
    seed=st.integers(0, 10**6),
    kernel=st.sampled_from(KERNELS),
    h=st.sampled_from([0.01, 0.1, 1.0, "silverman", "silverman_robust"]),
    shared=st.booleans(),
    ties=st.booleans(),
)
def test_property_in_unit_interval_and_weights_are_repeats(n, seed, kernel, h, shared, ties):
    rng = np.random.default_rng(seed)
    s = rng.choice([0.0, 0.25, 0.5, 1.0], size=n) if ties else rng.normal(size=n)
    y = rng.integers(0, 2, size=n).astype(float)
    y[0], y[1] = 0, 1
    w = rng.integers(0, 4, size=n)
    w[0] = w[1] = 1
    q = np.concatenate([s, rng.normal(scale=5, size=20), [-1e6, 1e6]])
    cal = KDECalibration(kernel=kernel, bandwidth=h, shared_bandwidth=shared).fit(s, y, w)
    p = cal.predict(q)
    assert np.isfinite(p).all() and (p >= 0).all() and (p <= 1).all()
    rep = clone(cal).fit(np.repeat(s, w), np.repeat(y, w))
    np.testing.assert_allclose(p, rep.predict(q), atol=1e-9)
    # beyond the range of the rows with weight: the prediction at the nearest extreme
    lo, hi = s[w > 0].min(), s[w > 0].max()
    p_lo, p_hi = cal.predict([lo, hi])
    assert (p[q <= lo] == p_lo).all() and (p[q >= hi] == p_hi).all()


@pytest.mark.parametrize("kernel", ["boxcar", "epanechnikov", "tricube"])
def test_huge_score_range_with_tiny_bandwidth(kernel):
    """(max - min) / h = 1e21 would overflow an integer grid index; the greedy cells do not care."""
    s = np.array([-6.5e10, -1.0, -0.5, 0.0, 0.25, 1.0, 2e3, 3e10])
    y = np.array([0, 0, 1, 0, 1, 1, 1, 0.0])
    q = np.concatenate([s, s + 5e-12, [-1e300, 1e300]])
    for h in (1e-10, 0.3, 1e9):
        cal = KDECalibration(kernel=kernel, bandwidth=h).fit(s, y)
        p = cal.predict(q)
        assert np.isfinite(p).all() and (p >= 0).all() and (p <= 1).all()
        expected, denom = brute_eq5(s, y, np.ones_like(s), at(q[:-2], s), kernel, h, h)
        defined = denom > 1e-6 * denom.max()
        np.testing.assert_allclose(p[:-2][defined], expected[defined], atol=1e-9)


@pytest.mark.parametrize("kernel", KERNELS)
def test_logit_input_is_eq5_on_the_logits(kernel):
    # logit_input=True: Eq. 5 evaluated by brute force on log(p / (1 - p)), the bandwidth
    # rule applied to the logits; scores at 0 and 1 are clipped to 1e-12 first
    rng = np.random.default_rng(4)
    p = 1 / (1 + np.exp(-rng.normal(scale=4.0, size=300)))
    p[:3] = [0.0, 1.0, 0.5]
    y = (rng.uniform(size=300) < p).astype(float)
    y[:2] = [0, 1]
    cal = KDECalibration(kernel=kernel, logit_input=True, algorithm="exact").fit(p, y)
    eps = 1e-12
    z = np.log(np.clip(p, eps, 1 - eps)) - np.log1p(-np.clip(p, eps, 1 - eps))
    expected_h = bandwidth_rule(z, np.ones_like(z), "silverman", kernel)
    np.testing.assert_allclose(cal.bandwidth_, expected_h, rtol=1e-12)
    q = np.concatenate([p, np.linspace(0, 1, 201)])
    zq = np.log(np.clip(q, eps, 1 - eps)) - np.log1p(-np.clip(q, eps, 1 - eps))
    expected, denom = brute_eq5(z, y, np.ones_like(z), zq, kernel, *cal.bandwidth_)
    defined = denom > 1e-6 * denom.max()
    np.testing.assert_allclose(cal.predict(q)[defined], expected[defined], atol=1e-9)


def test_logit_input_needs_probabilities_and_excludes_reflect():
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        KDECalibration(logit_input=True).fit([-1.0, 0.5, 2.0], [0, 1, 1])
    with pytest.raises(ValueError, match="reflect=True and logit_input=True"):
        KDECalibration(logit_input=True, reflect=True).fit([0.1, 0.5, 0.9], [0, 1, 1])


@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("variant", [{}, {"logit_input": True}, {"reflect": True}])
def test_clip_predicts_the_nearest_training_extreme(kernel, variant):
    # the clip acts on the scores as passed (probabilities here), before any logit
    rng = np.random.default_rng(12)
    s = rng.uniform(0.2, 0.7, size=150)
    y = (rng.uniform(size=150) < s).astype(float)
    w = rng.uniform(0.5, 2.0, size=s.size)
    w[np.argmin(s)] = w[np.argmax(s)] = 0.0  # zero-weight rows do not count for the range
    lo, hi = s[w > 0].min(), s[w > 0].max()
    cal = KDECalibration(kernel=kernel, **variant).fit(s, y, w)
    np.testing.assert_array_equal(cal.score_range_, [lo, hi])
    p_lo, p_hi = cal.predict([lo, hi])
    assert (cal.predict([0.0, 0.1, s.min(), lo]) == p_lo).all()
    assert (cal.predict([hi, s.max(), 0.9, 1.0]) == p_hi).all()
    # "extrapolate" evaluates Eq. 5 beyond the range instead
    far = clone(cal).set_params(out_of_bounds="extrapolate").fit(s, y, w)
    if kernel == "gaussian":
        assert far.predict([0.0])[0] != p_lo
    q = np.linspace(0.0, 1.0, 101)
    z, zq = s, q
    if variant.get("logit_input"):  # Eq. 5 on the logits, probabilities clipped to 1e-12
        z, zq = (
            np.log(np.clip(v, 1e-12, 1 - 1e-12)) - np.log1p(-np.clip(v, 1e-12, 1 - 1e-12))
            for v in (s, q)
        )
    expected, denom = brute_eq5(
        z[w > 0],
        y[w > 0],
        w[w > 0],
        zq,
        kernel,
        *far.bandwidth_,
        reflect=bool(variant.get("reflect")),
    )
    defined = denom > 1e-6 * denom.max()
    np.testing.assert_allclose(far.predict(q)[defined], expected[defined], atol=1e-9)


@pytest.mark.parametrize("kernel", KERNELS)
def test_integer_weights_are_repeated_rows_outside_the_range(kernel):
    s, y = make_data(n=150, seed=13)
    w = np.random.default_rng(2).integers(0, 4, size=s.size)
    w[[np.argmin(s), np.argmax(s)]] = 0  # the extremes drop out of the weighted fit
    w[np.flatnonzero(y == 1)[0]] = w[np.flatnonzero(y == 0)[0]] = 1
    q = np.r_[-50.0, s.min(), np.linspace(-3, 3, 31), s.max(), 50.0]
    for out_of_bounds in ("clip", "extrapolate"):
        cal = KDECalibration(kernel=kernel, out_of_bounds=out_of_bounds)
        weighted = clone(cal).fit(s, y, w)
        repeated = clone(cal).fit(np.repeat(s, w), np.repeat(y, w))
        np.testing.assert_array_equal(weighted.score_range_, repeated.score_range_)
        np.testing.assert_allclose(weighted.predict(q), repeated.predict(q), atol=1e-12)


def _roughness_and_variance(kernel):
    """R(K) = int K^2 and mu_2(K) = int u^2 K by quadrature, from the test's own kernel formulas."""
    K = KERNEL_FUNCTIONS[kernel]
    lo, hi = (-np.inf, np.inf) if kernel == "gaussian" else (-1.0, 1.0)
    mass = integrate.quad(K, lo, hi)[0]
    roughness = integrate.quad(lambda u: K(u) ** 2, lo, hi)[0]
    mu2 = integrate.quad(lambda u: u * u * K(u), lo, hi)[0]
    return mass, roughness, mu2


@pytest.mark.parametrize("kernel", KERNELS)
def test_equivalent_bandwidth_factor_is_canonical_bandwidth_ratio(kernel):
    # the AMISE-optimal bandwidth is proportional to delta_K = (R(K) / mu_2(K)^2)^(1/5);
    # the factor applied to the Gaussian rule is delta_K / delta_phi
    mass, roughness, mu2 = _roughness_and_variance(kernel)
    assert mass == pytest.approx(1.0, abs=1e-10)
    _, roughness_phi, mu2_phi = _roughness_and_variance("gaussian")
    delta = (roughness / mu2**2) ** 0.2
    delta_phi = (roughness_phi / mu2_phi**2) ** 0.2
    assert EQUIVALENT_BANDWIDTH_FACTORS[kernel] == pytest.approx(delta / delta_phi, rel=1e-9)
    published = {"gaussian": 1.0, "boxcar": 1.740, "epanechnikov": 2.214, "tricube": 2.610}
    assert EQUIVALENT_BANDWIDTH_FACTORS[kernel] == pytest.approx(published[kernel], abs=5e-4)


@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("rule", ["silverman", "silverman_robust", "scott"])
@pytest.mark.parametrize("shared", [True, False])
def test_rule_of_thumb_uses_equivalent_bandwidth(kernel, rule, shared):
    s, y = make_data(n=300)
    factor = EQUIVALENT_BANDWIDTH_FACTORS[kernel]
    xs = np.sort(s)
    assert bandwidth_rule(xs, np.ones_like(xs), rule, kernel) == pytest.approx(
        factor * bandwidth_rule(xs, np.ones_like(xs), rule), rel=1e-12
    )
    cal = KDECalibration(kernel=kernel, bandwidth=rule, shared_bandwidth=shared).fit(s, y)
    gaussian = KDECalibration(bandwidth=rule, shared_bandwidth=shared).fit(s, y)
    np.testing.assert_allclose(cal.bandwidth_, factor * gaussian.bandwidth_, rtol=1e-12)
    # the paper's unscaled bandwidth, given as a number
    unscaled = bandwidth_rule(xs, np.ones_like(xs), rule)
    paper = KDECalibration(kernel=kernel, bandwidth=unscaled).fit(s, y)
    np.testing.assert_allclose(paper.bandwidth_, unscaled)


def test_equivalent_bandwidths_give_similar_maps():
    # with equivalent bandwidths the four kernels smooth alike: their maps are closer to the
    # Gaussian kernel's map than with the Gaussian rule's bandwidth used unscaled
    s, y = make_data(n=2000, seed=11)
    q = np.linspace(-1.5, 1.5, 61)
    gaussian = KDECalibration(algorithm="exact").fit(s, y).predict(q)
    h = bandwidth_rule(np.sort(s), np.ones_like(s), "silverman")
    for kernel in ("boxcar", "epanechnikov", "tricube"):
        scaled = KDECalibration(kernel=kernel).fit(s, y).predict(q)
        unscaled = KDECalibration(kernel=kernel, bandwidth=h).fit(s, y).predict(q)
        assert np.abs(scaled - gaussian).max() < np.abs(unscaled - gaussian).max()


# --- the binned predict in one compiled pass against the old np.interp path (frozen copy) ---


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"out_of_bounds": "extrapolate"},
        {"shared_bandwidth": False},
        {"reflect": True},
        {"logit_input": True},
        {"bandwidth": 0.002, "binned_tol": 1e-7},  # a grid of about 10^6 points, a high floor
        {"bandwidth": "scott", "out_of_bounds": "extrapolate", "binned_tol": 0.5},
    ],
)
@pytest.mark.parametrize("seed", range(3))
def test_compiled_binned_predict_equals_the_old_interp_path(params, seed):
    rng = np.random.default_rng(seed)
    n = 6000
    s = rng.beta(0.6, 0.8, size=n)
    if seed == 2:
        s = np.round(s, 3)  # ties
    y = (rng.uniform(size=n) < s).astype(float)
    w = rng.integers(0, 3, size=n).astype(float) if seed == 1 else None
    cal = KDECalibration(algorithm="binned", **params).fit(s, y, w)
    # the grid lives on the standardised scale z (issue 28): both paths run there
    lo, delta, n_grid = cal._grid[:3]
    grid_end = lo + delta * (n_grid - 1)
    q = np.concatenate([s, rng.uniform(-0.2, 1.2, size=4000)])
    if params.get("reflect") or params.get("logit_input"):
        q = np.clip(q, 0.0, 1.0)
    z = np.concatenate(
        [
            _standardise(cal._features(q), cal._frame),
            lo + delta * rng.integers(0, n_grid, size=500),  # on grid points
            [lo, grid_end, np.nextafter(lo, -np.inf), np.nextafter(grid_end, np.inf), -50.0, 50.0],
        ]
    )
    z_range = _standardise(np.array(cal._x_range), cal._frame)
    shim = SimpleNamespace(
        out_of_bounds=cal.out_of_bounds,
        score_range_=z_range,
        _features=lambda v: v,
        _grid=cal._grid,
        _grid_floor=cal._grid_floor,
        _posterior_gaussian_exact=cal._posterior_gaussian_exact,
    )
    on_z = copy.copy(cal)  # the compiled pass with the identity standardisation
    on_z._frame = _Frame(0.0, False, 1.0, 1.0, 0)
    clip = tuple(z_range) if cal.out_of_bounds == "clip" else (-np.inf, np.inf)
    new = np.clip(on_z._posterior_gaussian_binned(z, clip), 0.0, 1.0)
    np.testing.assert_array_equal(new, _old_binned_predict(shim, z))
    # and predict is that path on the standardised scores
    np.testing.assert_array_equal(cal.predict(q), new[: q.size])


# --- issue 28: any finite scores, any units; rules continuous in the weights' total ---

ISSUE_S = np.random.default_rng(28).uniform(0.02, 0.98, 200)
ISSUE_Y = (np.random.default_rng(29).uniform(size=200) < ISSUE_S).astype(float)
ISSUE_T = np.linspace(0.0, 1.0, 41)
# settings whose map is affine-invariant (``_units == "affine"``): the rules of thumb
AFFINE_SETTINGS = [
    {},
    {"kernel": "boxcar"},
    {"kernel": "tricube", "shared_bandwidth": False},
    {"kernel": "epanechnikov", "bandwidth": "silverman_robust"},
    {"bandwidth": "scott", "out_of_bounds": "extrapolate"},
    {"algorithm": "binned"},
    {"bandwidth": "silverman_robust", "shared_bandwidth": False, "algorithm": "binned"},
]


@pytest.mark.parametrize("factor", [1e155, 1e-300])
def test_issue_28_reproductions_extreme_scales(factor):
    # raised "produced non-finite probabilities" at 1e155 and gave a constant at 1e-300
    reference = KDECalibration().fit(ISSUE_S, ISSUE_Y).predict(ISSUE_T)
    scaled = KDECalibration().fit(ISSUE_S * factor, ISSUE_Y).predict(ISSUE_T * factor)
    assert np.ptp(scaled) > 0.3
    np.testing.assert_allclose(scaled, reference, atol=1e-12)


@pytest.mark.parametrize("params", AFFINE_SETTINGS)
def test_rules_declare_affine_units_and_fixed_bandwidths_do_not(params):
    assert KDECalibration(**params)._units == "affine"
    assert KDECalibration(bandwidth=0.1)._units is None
    assert KDECalibration(reflect=True)._units is None
    assert KDECalibration(logit_input=True)._units is None


@pytest.mark.parametrize("a,shift", [(1e-12, 0.0), (3e-4, -2e5), (7.0, 1e6), (1e12, -1e3)])
@pytest.mark.parametrize("params", AFFINE_SETTINGS)
def test_bandwidth_follows_the_scale(a, shift, params):
    # the predictions follow any change of units (tests/unit/test_units_and_weights.py, with
    # every AFFINE_SETTINGS); the bandwidths are lengths: a times, whatever the shift
    b = shift * a * np.ptp(ISSUE_S)
    h = KDECalibration(**params).fit(ISSUE_S, ISSUE_Y).bandwidth_
    moved = KDECalibration(**params).fit(a * ISSUE_S + b, ISSUE_Y).bandwidth_
    np.testing.assert_allclose(moved, a * h, rtol=1e-6)


@pytest.mark.parametrize("a", [5e-310, 1e-200, 1e-40, 1e40, 1e200, 1e306])
@pytest.mark.parametrize("params", AFFINE_SETTINGS)
def test_extreme_changes_of_units_standardise_and_agree(a, params):
    # beyond 2^100 (or a spread below 2^-100) the fit runs on standardised scores
    reference = KDECalibration(**params).fit(ISSUE_S, ISSUE_Y).predict(ISSUE_T)
    for b in (0.0, -3.0 * a, 1e6 * a):
        if abs(b) > 1e300:
            continue
        moved = KDECalibration(**params).fit(a * ISSUE_S + b, ISSUE_Y)
        np.testing.assert_allclose(moved.predict(a * ISSUE_T + b), reference, atol=1e-6)
    assert moved._frame.exponent != 0  # the standardised path


@pytest.mark.parametrize("kernel", KERNELS)
def test_a_fixed_bandwidth_follows_a_shift(kernel):
    # in the scores' units: a shift moves nothing (a scale would)
    q = ISSUE_T
    ref = KDECalibration(kernel=kernel, bandwidth=0.1).fit(ISSUE_S, ISSUE_Y).predict(q)
    for b in (-1e4, 1e6):
        moved = KDECalibration(kernel=kernel, bandwidth=0.1).fit(ISSUE_S + b, ISSUE_Y)
        np.testing.assert_allclose(moved.predict(q + b), ref, atol=1e-6)


EXTREME = [5e-324, 1e-320, 1e-300, 1e-150, 1e150, 1e300, np.finfo(float).max / 2]
QUERIES = np.array([-np.finfo(float).max, -1e300, -1.0, 0.0, 1e-310, 0.5, 1.0, 1e300])


@pytest.mark.parametrize("magnitude", EXTREME)
@pytest.mark.parametrize(
    "params", [*AFFINE_SETTINGS, {"bandwidth": 0.1}, {"kernel": "boxcar", "bandwidth": 1e-3}]
)
def test_extreme_finite_scores_give_finite_probabilities(magnitude, params):
    s = np.r_[ISSUE_S[:60] * magnitude, -magnitude]
    y = np.r_[ISSUE_Y[:60], 1.0]
    cal = KDECalibration(**params).fit(s, y)
    p = cal.predict(np.concatenate([QUERIES, s]))
    assert np.isfinite(p).all() and (p >= 0).all() and (p <= 1).all()
    # in the scores' units: below the smallest double for scores near 5e-324
    assert np.isfinite(cal.bandwidth_).all() and (cal.bandwidth_ >= 0).all()


@pytest.mark.parametrize(
    "params",
    [
        {"reflect": True},
        {"reflect": True, "kernel": "boxcar", "out_of_bounds": "extrapolate"},
        {"logit_input": True},
        {"logit_input": True, "kernel": "tricube", "shared_bandwidth": False},
    ],
)
@pytest.mark.parametrize("magnitude", [5e-324, 1e-310, 1e-300, 1e-12])
def test_extreme_probabilities_give_finite_probabilities(params, magnitude):
    # subnormal probabilities are valid input in [0, 1]
    s = np.r_[ISSUE_S[:60] * magnitude, 0.0]
    y = np.r_[ISSUE_Y[:60], 1.0]
    q = np.array([0.0, 5e-324, 1e-310, 1e-300, 0.5, 1 - 1e-16, 1.0])
    p = KDECalibration(**params).fit(s, y).predict(np.r_[q, s])
    assert np.isfinite(p).all() and (p >= 0).all() and (p <= 1).all()
    near_one = KDECalibration(**params).fit(1.0 - ISSUE_S[:60] * 1e-15, ISSUE_Y[:60])
    assert np.isfinite(near_one.predict(q)).all()


def test_extreme_probabilities_binned_with_reflection():
    # the mirror images lie ~1e300 spreads away: the grid hits its cap, the sums stay exact
    s = np.r_[ISSUE_S[:60] * 1e-300, 0.0]
    cal = KDECalibration(reflect=True, algorithm="binned").fit(s, np.r_[ISSUE_Y[:60], 1.0])
    p = cal.predict(np.r_[0.0, 5e-324, 1e-300, 0.5, 1.0, s])
    assert np.isfinite(p).all() and (p >= 0).all() and (p <= 1).all()


# weights of any magnitude: tests/unit/test_units_and_weights.py, for every calibrator


def _ulps(k):
    return 1.0 + k * np.finfo(float).eps


@pytest.mark.parametrize("params", [{}, {"kernel": "boxcar", "shared_bandwidth": False}])
def test_weights_summing_to_one_do_not_jump_by_rounding(params):
    # issue 28: the bandwidth was 0.30 at a total of 1 - 4e-16 and 1.4e7 at 1 + 4e-16
    import warnings

    w = np.full(ISSUE_S.size, 1.0 / ISSUE_S.size)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fits = [
            KDECalibration(**params).fit(ISSUE_S, ISSUE_Y, w * _ulps(k)) for k in (-4, -2, 0, 2, 4)
        ]
    totals = [(w * _ulps(k)).sum() for k in (-4, 4)]
    assert totals[0] < 1.0 < totals[1]
    for cal in fits:
        np.testing.assert_allclose(cal.bandwidth_, fits[2].bandwidth_, rtol=1e-12)
        np.testing.assert_allclose(cal.predict(ISSUE_T), fits[2].predict(ISSUE_T), atol=1e-9)


@settings(max_examples=30, deadline=None)
@given(log_c=st.floats(-6, 6), rule=st.sampled_from(["silverman", "silverman_robust"]))
def test_property_weights_scaled_by_c_move_the_fit_continuously(log_c, rule):
    import warnings

    c = 10.0**log_c
    w = np.random.default_rng(5).uniform(0.5, 1.5, ISSUE_S.size)
    w *= c / w.sum()  # total c: crosses 1 and 2 as c does
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = KDECalibration(bandwidth=rule).fit(ISSUE_S, ISSUE_Y, w)
        b = KDECalibration(bandwidth=rule).fit(ISSUE_S, ISSUE_Y, w * _ulps(4))
    np.testing.assert_allclose(a.predict(ISSUE_T), b.predict(ISSUE_T), atol=1e-9)
    np.testing.assert_allclose(a.bandwidth_, b.bandwidth_, rtol=1e-12)


def test_rule_is_the_unbiased_rule_above_two_cases_and_two_cases_below():
    # an independent formula: 1.06 sqrt(SS / (W - 1)) W^(-1/5) for W >= 2, and for W < 2
    # the same with the weights rescaled to total 2
    x = np.sort(ISSUE_S)
    p = np.random.default_rng(6).uniform(0.5, 1.5, x.size)
    p /= p.sum()

    def expected(total):
        w = p * max(total, 2.0)
        mean = np.dot(w, x) / w.sum()
        ss = np.dot(w, (x - mean) ** 2)
        return 1.06 * np.sqrt(ss / (w.sum() - 1)) * w.sum() ** -0.2

    for total in (1e-6, 0.5, 1.0, 1.999, 2.0, 2.5, 17.3, 1e6):
        got = bandwidth_rule(x, p * total, "silverman")
        assert got == pytest.approx(expected(total), rel=1e-12)
    # integer weights: numpy's frequency-weighted covariance (ddof=1)
    f = np.random.default_rng(7).integers(1, 5, x.size)
    sigma = np.sqrt(np.cov(x, fweights=f))
    assert bandwidth_rule(x, f.astype(float), "scott") == pytest.approx(
        sigma * f.sum() ** -0.2, rel=1e-12
    )


def test_unit_weights_match_scipy_gaussian_kde_bandwidth():
    from scipy.stats import gaussian_kde

    x = np.sort(np.random.default_rng(8).normal(3.0, 2.0, 300))
    kde = gaussian_kde(x, bw_method="scott")  # factor n^(-1/5) times the ddof=1 deviation
    assert bandwidth_rule(x, np.ones_like(x), "scott") == pytest.approx(
        float(np.sqrt(kde.covariance[0, 0])), rel=1e-12
    )


@pytest.mark.parametrize(("kernel", "sk_kernel"), [("gaussian", "gaussian"), ("boxcar", "tophat")])
@pytest.mark.parametrize("bandwidth", ["silverman", 0.07])
def test_weighted_posterior_matches_sklearn_kernel_density(kernel, sk_kernel, bandwidth):
    from sklearn.neighbors import KernelDensity

    w = np.random.default_rng(9).uniform(0.01, 0.03, ISSUE_S.size)  # total about 4
    cal = KDECalibration(kernel=kernel, bandwidth=bandwidth, algorithm="exact")
    cal.fit(ISSUE_S, ISSUE_Y, w)
    q = np.linspace(0.05, 0.95, 37)
    joint = []
    for label in (0, 1):
        mask = ISSUE_Y == label
        kd = KernelDensity(kernel=sk_kernel, bandwidth=cal.bandwidth_[label])
        kd.fit(ISSUE_S[mask][:, None], sample_weight=w[mask])
        joint.append(w[mask].sum() * np.exp(kd.score_samples(q[:, None])))
    np.testing.assert_allclose(cal.predict(q), joint[1] / (joint[0] + joint[1]), atol=1e-9)


def test_low_weight_warning_where_documented():
    import warnings

    from calibbook import LowWeightWarning

    w = np.full(ISSUE_S.size, 1.9 / ISSUE_S.size)  # 1.9 cases: fewer than two per bandwidth
    with pytest.warns(
        LowWeightWarning, match="KDECalibration.*total 1.9, fewer than two cases\\."
    ) as caught:
        KDECalibration().fit(ISSUE_S, ISSUE_Y, w)
    assert caught[0].filename == __file__  # points at the caller
    with pytest.warns(LowWeightWarning, match="KDECalibration.*1.9 cases"):
        KDECalibration(bandwidth=0.1).fit(ISSUE_S, ISSUE_Y, w)  # proportions only, but 1.9 cases
    with pytest.warns(LowWeightWarning, match="2 bandwidths"):
        KDECalibration(shared_bandwidth=False).fit(ISSUE_S, ISSUE_Y, w * 2)  # 3.8 < 4
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        KDECalibration().fit(ISSUE_S, ISSUE_Y)  # ordinary data
        KDECalibration().fit(ISSUE_S, ISSUE_Y, w * 1.1)  # 2.09 cases
        KDECalibration(shared_bandwidth=False).fit(ISSUE_S[:3], [0, 1, 1])  # no weights
