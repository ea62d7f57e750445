"""Calibration tests (Cox intercept/slope, Spiegelhalter, Hosmer-Lemeshow) against oracles.

The intercept and slope are checked against statsmodels' GLM (Binomial family, offset
for the intercept, freq_weights for weights); Spiegelhalter's z and the
Hosmer-Lemeshow statistic against the formulas written out plainly below, with
groups formed by a rule of their own; weights against repeated rows; the tests'
size and power by simulation.
"""

import warnings

import numpy as np
import pytest
import statsmodels.api as sm
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import optimize, stats

from calibbook.metrics._calibration_tests import (
    calibration_intercept_slope,
    hosmer_lemeshow_test,
    spiegelhalter_test,
)

EPS = 1e-12  # the documented clipping of p before the logit


def logit_clipped(p):
    q = np.clip(p, EPS, 1.0 - EPS)
    return np.log(q / (1.0 - q))


def beta_data(seed, n, a=2.0, b=5.0, distortion=1.0, shift=0.0):
    """Outcomes y ~ Bernoulli(p), p ~ Beta(a, b), and predictions expit(d logit p + shift)."""
    rng = np.random.default_rng(seed)
    p = rng.beta(a, b, n)
    y = (rng.random(n) < p).astype(float)
    q = 1.0 / (1.0 + np.exp(-(distortion * np.log(p / (1.0 - p)) + shift)))
    return y, q


# ------------------------------------------------------------- statsmodels oracle
def statsmodels_fits(y, p, w, level):
    """(intercept, se, ci, pvalue, slope, se, ci, pvalue) from statsmodels' GLM."""
    x = logit_clipped(p)
    kw = {} if w is None else {"freq_weights": w}
    family = sm.families.Binomial()
    offset_fit = sm.GLM(y, np.ones((y.size, 1)), family=family, offset=x, **kw).fit(
        tol=1e-14, maxiter=500
    )
    full_fit = sm.GLM(y, sm.add_constant(x), family=family, **kw).fit(tol=1e-14, maxiter=500)
    alpha = 1.0 - level
    slope_test = full_fit.t_test((np.array([[0.0, 1.0]]), np.array([1.0])))
    return (
        offset_fit.params[0],
        offset_fit.bse[0],
        tuple(offset_fit.conf_int(alpha)[0]),
        offset_fit.pvalues[0],
        full_fit.params[1],
        full_fit.bse[1],
        tuple(full_fit.conf_int(alpha)[1]),
        float(np.squeeze(slope_test.pvalue)),
    )


def assert_matches_oracle(res, oracle):
    names = [
        "intercept", "intercept_se", "intercept_ci", "intercept_pvalue",
        "slope", "slope_se", "slope_ci", "slope_pvalue",
    ]  # fmt: skip
    for name, got, want in zip(names, res, oracle, strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-8, atol=1e-8, err_msg=name)


ORACLE_CASES = {
    "calibrated": dict(seed=1, n=400),
    "over-confident": dict(seed=2, n=300, distortion=1.8),
    "under-confident, too high": dict(seed=3, n=500, distortion=0.5, shift=0.7),
    "small": dict(seed=4, n=25, a=1.0, b=1.0),
    "rare events": dict(seed=5, n=2000, a=0.5, b=20.0),
}


@pytest.mark.parametrize("level", [0.95, 0.8])
@pytest.mark.parametrize("case", ORACLE_CASES)
def test_intercept_slope_equal_statsmodels(case, level):
    y, p = beta_data(**ORACLE_CASES[case])
    res = calibration_intercept_slope(y, p, confidence=level)
    assert_matches_oracle(res, statsmodels_fits(y, p, None, level))


@pytest.mark.parametrize("case", ORACLE_CASES)
def test_weighted_intercept_slope_equal_statsmodels_freq_weights(case):
    y, p = beta_data(**ORACLE_CASES[case])
    w = np.random.default_rng(7).integers(0, 5, y.size).astype(float)  # zeros included
    w[np.argmax(y)] = w[np.argmin(y)] = 1.0  # keep both classes
    res = calibration_intercept_slope(y, p, sample_weight=w)
    assert_matches_oracle(res, statsmodels_fits(y, p, w, 0.95))
    # real-valued weights act as frequencies too
    w = np.random.default_rng(8).gamma(2.0, 1.0, y.size)
    res = calibration_intercept_slope(y, p, sample_weight=w)
    assert_matches_oracle(res, statsmodels_fits(y, p, w, 0.95))


def test_predictions_of_zero_and_one_are_clipped_as_documented():
    y, p = beta_data(seed=9, n=300)
    p[:3] = 0.0  # wrong or right: labels are whatever they are
    p[3:6] = 1.0
    res = calibration_intercept_slope(y, p)
    assert_matches_oracle(res, statsmodels_fits(y, p, None, 0.95))
    clipped = calibration_intercept_slope(y, np.clip(p, EPS, 1.0 - EPS))
    assert_same(res, clipped, rtol=1e-10)


def test_recovers_a_known_recalibration():
    # predictions q with logit p = a + b logit q: the fits must find a and b
    rng = np.random.default_rng(10)
    q = rng.beta(2.0, 3.0, 200_000)
    y = (rng.random(q.size) < 1.0 / (1.0 + np.exp(-(0.3 + 0.6 * np.log(q / (1 - q)))))).astype(
        float
    )
    res = calibration_intercept_slope(y, q)
    assert res.slope == pytest.approx(0.6, abs=4 * res.slope_se)
    assert res.slope_ci[0] < 0.6 < res.slope_ci[1]
    assert res.slope_pvalue < 1e-10


# --------------------------------------------------------------- Spiegelhalter
def brute_spiegelhalter(y, p, w):
    num = var = 0.0
    for yi, pi, wi in zip(y, p, w, strict=True):
        num += wi * (yi - pi) * (1.0 - 2.0 * pi)
        var += wi * (1.0 - 2.0 * pi) ** 2 * pi * (1.0 - pi)
    z = num / np.sqrt(var)
    return z, 2.0 * stats.norm.sf(abs(z))


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_spiegelhalter_equals_formula(seed, weighted):
    y, p = beta_data(seed=seed, n=300, distortion=[1.0, 1.5, 0.7][seed])
    w = np.random.default_rng(seed).gamma(1.0, 1.0, y.size) if weighted else np.ones(y.size)
    res = spiegelhalter_test(y, p, sample_weight=w if weighted else None)
    z, pvalue = brute_spiegelhalter(y, p, w)
    assert res.statistic == pytest.approx(z, rel=1e-12)
    assert res.pvalue == pytest.approx(pvalue, rel=1e-10, abs=1e-300)
    assert res._fields == ("statistic", "pvalue")


def test_spiegelhalter_hand_example():
    # numerator -0.12 - 0.08 - 0.12 - 0.08, variance 0.0576 + 0.0576 + 0.0336 + 0.0096
    res = spiegelhalter_test([0, 1, 0, 1], [0.2, 0.9, 0.3, 0.6])
    assert res.statistic == pytest.approx(-0.4 / np.sqrt(0.1584), rel=1e-12)


# ------------------------------------------------------------- Hosmer-Lemeshow
def brute_groups_without_ties(p, n_groups):
    """Group of each row by rank: the r-th smallest of N goes to floor(r K / N)."""
    groups = np.empty(p.size, dtype=int)
    for rank, i in enumerate(np.argsort(p)):
        groups[i] = rank * n_groups // p.size
    return groups


def brute_groups_weighted(p, w, n_groups):
    """Equal-weight groups that keep ties together: #{k : W(p' < p) >= k W / K}."""
    total = w[w > 0].sum()
    groups = np.empty(p.size, dtype=int)
    for i in range(p.size):
        below = w[(p < p[i]) & (w > 0)].sum()
        groups[i] = sum(below >= k * total / n_groups for k in range(1, n_groups))
    return groups


def brute_hosmer_lemeshow(y, p, w, groups, n_groups, ddof):
    statistic, counted = 0.0, 0
    for g in range(n_groups):
        rows = [i for i in range(y.size) if groups[i] == g and w[i] > 0]
        if not rows:
            continue
        n_g = sum(w[i] for i in rows)
        o_g = sum(w[i] * y[i] for i in rows)
        e_g = sum(w[i] * p[i] for i in rows)
        variance = e_g * (1.0 - e_g / n_g)
        if variance == 0.0:  # every prediction 0, or every one 1
            if o_g != e_g:
                return np.inf, 0.0, counted + 1 - ddof
            continue
        statistic += (o_g - e_g) ** 2 / variance
        counted += 1
    dof = counted - ddof
    return statistic, stats.chi2.sf(statistic, dof), dof


@pytest.mark.parametrize("n_groups", [3, 10, 7])
@pytest.mark.parametrize("seed", [0, 1])
def test_hosmer_lemeshow_equals_formula_without_ties(seed, n_groups):
    y, p = beta_data(seed=seed, n=[500, 333][seed], distortion=[1.0, 1.4][seed])
    assert np.unique(p).size == p.size
    groups = brute_groups_without_ties(p, n_groups)
    for ddof in (2, 0):
        want = brute_hosmer_lemeshow(y, p, np.ones(y.size), groups, n_groups, ddof)
        res = hosmer_lemeshow_test(y, p, n_groups=n_groups, ddof=ddof)
        assert res.dof == want[2] == n_groups - ddof
        assert res.statistic == pytest.approx(want[0], rel=1e-12)
        assert res.pvalue == pytest.approx(want[1], rel=1e-10)
    assert hosmer_lemeshow_test(y, p, n_groups=n_groups).dof == n_groups  # the default, 0


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_hosmer_lemeshow_weighted_with_ties_equals_formula(seed):
    rng = np.random.default_rng(seed)
    p = rng.choice(np.round(rng.beta(2.0, 4.0, 15), 3), size=200)  # heavy ties
    y = (rng.random(p.size) < p).astype(float)
    w = rng.integers(0, 4, p.size).astype(float)
    groups = brute_groups_weighted(p, w, 10)
    want = brute_hosmer_lemeshow(y, p, w, groups, 10, 0)
    res = hosmer_lemeshow_test(y, p, sample_weight=w)
    assert res.dof == want[2]
    assert res.statistic == pytest.approx(want[0], rel=1e-12)
    assert res.pvalue == pytest.approx(want[1], rel=1e-10)
    # unit weights take the weighted path: the same groups and sums
    plain = hosmer_lemeshow_test(y, p)
    ones = hosmer_lemeshow_test(y, p, sample_weight=np.ones(p.size))
    assert plain.dof == ones.dof
    assert plain.statistic == pytest.approx(ones.statistic, rel=1e-12)


def test_hosmer_lemeshow_never_splits_ties_and_counts_only_filled_groups():
    # three distinct predictions: at most three groups, whatever n_groups says
    p = np.repeat([0.2, 0.5, 0.7], [40, 30, 30])
    y = np.zeros(100)
    y[:9], y[40:56], y[70:90] = 1.0, 1.0, 1.0
    res = hosmer_lemeshow_test(y, p, n_groups=10, ddof=0)
    assert res.dof == 3
    want = sum((o - n * q) ** 2 / (n * q * (1 - q)) for o, n, q in [(9, 40, .2), (16, 30, .5),
                                                                     (20, 30, .7)])  # fmt: skip
    assert res.statistic == pytest.approx(want, rel=1e-12)
    assert hosmer_lemeshow_test(y, p, n_groups=10, ddof=2).dof == 1  # 3 groups - 2
    with pytest.raises(ValueError, match="degrees of freedom"):
        hosmer_lemeshow_test(y[:70], p[:70], n_groups=10, ddof=2)  # 2 groups - 2


def test_hosmer_lemeshow_degenerate_groups():
    y, p = beta_data(seed=11, n=200)
    zeros_p, zeros_y = np.zeros(50), np.zeros(50)
    # a group of certain, correct predictions carries no information: left out
    res = hosmer_lemeshow_test(np.r_[zeros_y, y], np.r_[zeros_p, p], n_groups=5)
    groups = brute_groups_weighted(np.r_[zeros_p, p], np.ones(250), 5)
    want = brute_hosmer_lemeshow(np.r_[zeros_y, y], np.r_[zeros_p, p], np.ones(250), groups, 5, 0)
    assert (res.statistic, res.dof) == (pytest.approx(want[0], rel=1e-12), want[2])
    assert res.dof == 5 - 1  # the zeros fill one group, which does not count
    # the same group with one event: a certain prediction failed
    zeros_y[7] = 1.0
    res = hosmer_lemeshow_test(np.r_[zeros_y, y], np.r_[zeros_p, p], n_groups=5)
    assert res.statistic == np.inf and res.pvalue == 0.0
    # 50 predictions of 1 above 200 others fill the top group alone (200 = 4/5 of 250)
    y1, p1 = np.r_[y, np.ones(50)], np.r_[p, np.ones(50)]
    res = hosmer_lemeshow_test(y1, p1, n_groups=5)
    want = brute_hosmer_lemeshow(y1, p1, np.ones(250), brute_groups_weighted(p1, np.ones(250), 5),
                                 5, 0)  # fmt: skip
    assert (res.statistic, res.dof) == (pytest.approx(want[0], rel=1e-12), want[2])
    assert res.dof == 5 - 1
    y1[-1] = 0.0
    assert hosmer_lemeshow_test(y1, p1, n_groups=5).statistic == np.inf
    # weighted: the same groups through the runs
    res_w = hosmer_lemeshow_test(y1, p1, n_groups=5, sample_weight=np.full(250, 2.0))
    assert res_w.statistic == np.inf and res_w.pvalue == 0.0


# ------------------------------------------------------------ weights = repeats
@st.composite
def weighted_rows(draw):
    n = draw(st.integers(3, 40))
    if draw(st.booleans()):  # ties, with 0 and 1 among the values
        grid = draw(st.lists(st.sampled_from([0.0, 0.05, 0.2, 0.5, 0.6, 0.9, 1.0]), min_size=2))
        p = np.array(draw(st.lists(st.sampled_from(grid), min_size=n, max_size=n)))
    else:
        # distinct values at least 1e-3 apart: no near-ties that rounding could merge
        p = np.array(draw(st.lists(st.integers(1, 999), min_size=n, max_size=n))) / 1000.0
    y = np.array(draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)), dtype=float)
    w = np.array(draw(st.lists(st.integers(0, 4), min_size=n, max_size=n)), dtype=float)
    if w.sum() == 0:
        w[0] = 1.0
    return y, p, w


def outcome(fn, *args, **kwargs):
    """The result, or the ValueError's type: both sides must fail alike."""
    try:
        return fn(*args, **kwargs)
    except ValueError:
        return ValueError


def assert_same(a, b, rtol):
    if a is ValueError or b is ValueError:
        assert a is b
        return
    for u, v in zip(a, b, strict=True):
        np.testing.assert_allclose(u, v, rtol=rtol, atol=1e-9)


@settings(max_examples=50, deadline=None)
@given(data=weighted_rows(), n_groups=st.integers(1, 8), ddof=st.integers(0, 2))
def test_integer_weights_equal_repeated_rows(data, n_groups, ddof):
    y, p, w = data
    reps = w.astype(int)
    yr, pr = np.repeat(y, reps), np.repeat(p, reps)
    assert_same(
        outcome(calibration_intercept_slope, y, p, sample_weight=w),
        outcome(calibration_intercept_slope, yr, pr),
        rtol=1e-7,
    )
    assert_same(
        outcome(spiegelhalter_test, y, p, sample_weight=w), outcome(spiegelhalter_test, yr, pr),
        rtol=1e-10,
    )  # fmt: skip
    hl_w = outcome(hosmer_lemeshow_test, y, p, n_groups=n_groups, ddof=ddof, sample_weight=w)
    hl_r = outcome(hosmer_lemeshow_test, yr, pr, n_groups=n_groups, ddof=ddof)
    assert_same(hl_w, hl_r, rtol=1e-10)
    if hl_w is not ValueError:
        assert hl_w.dof == hl_r.dof  # the same groups


def expit(z):
    return 0.5 * (1.0 + np.tanh(0.5 * z))  # exact enough, and no overflow


def score_at(y, x, w, a, b):
    """The score (gradient of the log-likelihood) of logit P(y = 1) = a + b x."""
    r = w * (y - expit(a + b * x))
    return r.sum(), (r * x).sum()


@settings(max_examples=50, deadline=None)
@given(data=weighted_rows())
def test_intercept_slope_solve_the_score_equations_on_awkward_data(data):
    # ties, predictions of 0 and 1, few rows: fits that start far from the optimum
    y, p, w = data
    got = outcome(calibration_intercept_slope, y, p, sample_weight=w)
    keep = w > 0
    x, pos = logit_clipped(p[keep]), y[keep] == 1
    separated = pos.all() or not pos.any() or x[pos].min() >= x[~pos].max()
    separated = separated or x[~pos].min() >= x[pos].max()
    assert (got is ValueError) == separated  # no finite maximum exactly then
    if separated:
        return
    y, w = y[keep], w[keep]
    total, scale = w.sum(), (w * np.abs(x)).sum()
    # the intercept zeroes the score of the model with offset x
    assert abs(score_at(y, x, w, got.intercept, 1.0)[0]) <= 1e-9 * total
    # the slope zeroes the profile score: a(b) solves the intercept's equation at b
    a_b = optimize.brentq(lambda a: score_at(y, x, w, a, got.slope)[0], -200, 200, xtol=1e-15)
    assert abs(score_at(y, x, w, a_b, got.slope)[1]) <= 1e-8 * scale
    # standard errors: the inverse information, written out
    pq = w * expit(got.intercept + x) * expit(-got.intercept - x)
    # The score check pins the intercept to about 1e-9 * total / pq.sum(); where the fitted
    # probabilities saturate (pq.sum() tiny) that leaves the standard error loose, so compare
    # it to what the intercept's own precision allows.
    se_rel = max(1e-6, 1e-9 * total / pq.sum())
    assert got.intercept_se == pytest.approx(1.0 / np.sqrt(pq.sum()), rel=se_rel)
    pq = w * expit(a_b + got.slope * x) * expit(-a_b - got.slope * x)
    info = np.array([[pq.sum(), (pq * x).sum()], [(pq * x).sum(), (pq * x * x).sum()]])
    assert got.slope_se == pytest.approx(np.sqrt(np.linalg.inv(info)[1, 1]), rel=1e-6)
    # and statsmodels agrees wherever its own fit solves the score equations
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # statsmodels' warnings on tiny or awkward samples
        want = statsmodels_fits(y, p[keep], w, 0.95)
        full = sm.GLM(y, sm.add_constant(x), family=sm.families.Binomial(), freq_weights=w)
        a_sm, b_sm = full.fit(tol=1e-14, maxiter=500).params
    if abs(score_at(y, x, w, want[0], 1.0)[0]) <= 1e-9 * total:
        for i in range(4):
            np.testing.assert_allclose(got[i], want[i], rtol=1e-6, atol=1e-6)
    if np.max(np.abs(score_at(y, x, w, a_sm, b_sm))) <= 1e-9 * scale:
        for i in range(4, 8):  # IRLS takes its errors from the last-but-one weights
            np.testing.assert_allclose(got[i], want[i], rtol=1e-6, atol=1e-6)


def test_rows_of_weight_zero_are_absent():
    y, p = beta_data(seed=12, n=300)
    w = np.ones(y.size)
    w[::3] = 0.0
    keep = w > 0
    for fn in (calibration_intercept_slope, spiegelhalter_test, hosmer_lemeshow_test):
        got, want = fn(y, p, sample_weight=w), fn(y[keep], p[keep])
        assert_same(got, want, rtol=1e-9)


# ----------------------------------------------------------------- bad input
def test_bad_input_raises_value_error():
    y, p = beta_data(seed=13, n=100)
    with pytest.raises(ValueError, match="single class"):
        calibration_intercept_slope(np.zeros(100), p)
    w = np.where(y == 1, 0.0, 1.0)
    with pytest.raises(ValueError, match="single class"):
        calibration_intercept_slope(y, p, sample_weight=w)
    order = np.argsort(p)
    separated = np.zeros(100)
    separated[order[60:]] = 1.0
    with pytest.raises(ValueError, match="separate the classes"):
        calibration_intercept_slope(separated, p)
    with pytest.raises(ValueError, match="separate the classes"):
        calibration_intercept_slope(1.0 - separated, p)
    quasi = separated.copy()
    p_quasi = p.copy()
    p_quasi[order[59]] = p_quasi[order[60]]  # a tie at the boundary, of both classes
    with pytest.raises(ValueError, match="separate the classes"):
        calibration_intercept_slope(quasi, p_quasi)
    with pytest.raises(ValueError, match="same"):
        calibration_intercept_slope(y, np.full(100, 0.3))
    for level in (0.0, 1.0, 1.5, np.nan):
        with pytest.raises(ValueError, match="confidence"):
            calibration_intercept_slope(y, p, confidence=level)
    with pytest.raises(ValueError, match="variance"):
        spiegelhalter_test(y, np.where(p > 0.5, 1.0, 0.5))
    with pytest.raises(ValueError, match="n_groups"):
        hosmer_lemeshow_test(y, p, n_groups=0)
    with pytest.raises(ValueError, match="ddof"):
        hosmer_lemeshow_test(y, p, ddof=-1)
    with pytest.raises(ValueError, match="degrees of freedom"):
        hosmer_lemeshow_test(y, p, n_groups=2, ddof=2)
    for fn in (calibration_intercept_slope, spiegelhalter_test, hosmer_lemeshow_test):
        with pytest.raises(ValueError, match="y_prob"):
            fn(y, np.r_[p[:-1], np.nan])
        with pytest.raises(ValueError, match=r"\[0, 1\]"):
            fn(y, p + 0.5)
        with pytest.raises(ValueError, match="binary"):
            fn(y * 2, p)
        with pytest.raises(ValueError, match="Inconsistent"):
            fn(y[:-1], p)
        with pytest.raises(ValueError, match="negative"):
            fn(y, p, sample_weight=-np.ones(100))
        with pytest.raises(ValueError, match="empty"):
            fn([], [])


# ------------------------------------------------------- size and power
def simulate(y, p):
    """Rejections at the 5% level of the four tests, one row per replication."""
    out = np.empty((y.shape[0], 4), dtype=bool)
    for r in range(y.shape[0]):
        res = calibration_intercept_slope(y[r], p[r])
        out[r] = [
            res.intercept_pvalue < 0.05,
            res.slope_pvalue < 0.05,
            spiegelhalter_test(y[r], p[r]).pvalue < 0.05,
            hosmer_lemeshow_test(y[r], p[r]).pvalue < 0.05,
        ]
    return out


def test_size_under_calibration():
    # y ~ Bernoulli(p) exactly: every test should reject about 5% of the replications
    rng = np.random.default_rng(2024)
    n_rep, n = 2000, 1000
    p = rng.beta(2.0, 5.0, (n_rep, n))
    y = (rng.random((n_rep, n)) < p).astype(float)
    rate = simulate(y, p).mean(axis=0)  # the defaults, ddof=0 for Hosmer-Lemeshow
    np.testing.assert_allclose(rate, 0.05, atol=0.02)
    # HL with G - 2 degrees of freedom is meant for a model fitted on the same rows;
    # on fixed predictions it rejects about twice as often (as its docstring says)
    hl_fitted = [hosmer_lemeshow_test(y[r], p[r], ddof=2).pvalue < 0.05 for r in range(500)]
    assert np.mean(hl_fitted) > 0.075


def test_power_against_over_confident_predictions():
    # predictions expit(2 logit p): too extreme, slope 1/2
    rng = np.random.default_rng(2025)
    n_rep, n = 300, 300
    p = rng.beta(2.0, 5.0, (n_rep, n))
    y = (rng.random((n_rep, n)) < p).astype(float)
    q = 1.0 / (1.0 + np.exp(-2.0 * np.log(p / (1.0 - p))))
    power = simulate(y, q).mean(axis=0)
    assert np.all(power > 0.8), power
    slopes = [calibration_intercept_slope(y[r], q[r]).slope for r in range(50)]
    assert np.mean(slopes) == pytest.approx(0.5, abs=0.05)


@pytest.mark.parametrize("scale", [0.1, 1 / 3, 0.7, 1e-6, 1e6, 1 / 1100])
def test_hosmer_lemeshow_groups_do_not_depend_on_the_weights_scale(scale):
    """Frequency weights c * 1: the groups are the unweighted ones, the statistic is c times.

    Ten forecasts, 110 rows each: every group boundary sits exactly on a share k W / 10 of
    the total, which the float sums of c * 1 may miss by a rounding (issue 28).
    """
    p = np.repeat(np.arange(1, 11) / 11, 110)
    y = (np.random.default_rng(5).uniform(size=p.size) < p).astype(float)
    want = hosmer_lemeshow_test(y, p)
    got = hosmer_lemeshow_test(y, p, sample_weight=np.full(p.size, scale))
    np.testing.assert_allclose(got.statistic / scale, want.statistic, rtol=1e-9)
