"""Spline calibration against statsmodels' GLM and Lucena's splinecalib, and its properties."""

import itertools
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import expit, logit
from sklearn.exceptions import ConvergenceWarning

from calibbook import SplineCalibration
from calibbook._kernels.spline import bspline_rows, linear_predictor
from calibbook.calibrators.spline import fold_weights, natural_spline_design

SETTINGS = settings(max_examples=50, deadline=None)


def data(n, seed, probabilities=False):
    """Over-confident scores: the truth is expit(logit(p) / 2 + 0.3 sin(logit(p)))."""
    rng = np.random.default_rng(seed)
    x = rng.normal(0.0, 2.0, size=n)
    y = (rng.uniform(size=n) < expit(0.5 * x + 0.3 * np.sin(x))).astype(float)
    return (expit(x) if probabilities else 3.0 * x + 7.0), y


def esl_basis(x, knots):
    """The natural cubic spline basis of Hastie, Tibshirani & Friedman (2009), eq. 5.4-5.5."""
    k = knots.size

    def d(j):
        return (np.maximum(x - knots[j], 0) ** 3 - np.maximum(x - knots[-1], 0) ** 3) / (
            knots[-1] - knots[j]
        )

    return np.column_stack([np.ones_like(x), x] + [d(j) - d(k - 2) for j in range(k - 2)])


def esl_roughness(knots):
    """int f''(x)^2 dx over [knot_1, knot_K] of the ESL basis: its second derivatives are
    piecewise linear, so two Gauss-Legendre points per interval are exact."""
    g = np.array([-1.0, 1.0]) / np.sqrt(3.0)
    mid, half = (knots[1:] + knots[:-1]) / 2, (knots[1:] - knots[:-1]) / 2
    x = (mid[:, None] + half[:, None] * g).ravel()
    k = knots.size

    def d2(j):
        return 6.0 * np.maximum(x - knots[j], 0) / (knots[-1] - knots[j])  # x <= last knot

    second = np.array(
        [np.zeros_like(x), np.zeros_like(x)] + [d2(j) - d2(k - 2) for j in range(k - 2)]
    )
    return (second * np.repeat(half, 2)) @ second.T


# --- oracle (a): statsmodels' GLM on the same space -------------------------------------


def test_unpenalised_fit_equals_statsmodels_glm():
    sm = pytest.importorskip("statsmodels.api")
    s, y = data(3000, 0)
    w = np.random.default_rng(1).integers(1, 4, size=s.size).astype(float)
    cal = SplineCalibration(logit_input=False, penalty=0.0, n_knots=7).fit(s, y, sample_weight=w)
    probe = np.linspace(s.min(), s.max(), 200)
    design = esl_basis(s, cal.knots_)
    glm = sm.GLM(y, design, family=sm.families.Binomial(), freq_weights=w).fit(tol=1e-14)
    np.testing.assert_allclose(
        cal.predict(probe), glm.predict(esl_basis(probe, cal.knots_)), rtol=0, atol=1e-6
    )


def test_penalised_fit_equals_statsmodels_ridge_on_the_rotated_basis():
    """The penalty lambda int_0^1 f''(u)^2 du in u = (x - k_1) / R is lambda R^3 int f''(x)^2 dx:
    rotate the ESL basis to diagonalise its roughness and give statsmodels a ridge per column."""
    sm = pytest.importorskip("statsmodels.api")
    s, y = data(2000, 2)
    lam = 3.0
    cal = SplineCalibration(logit_input=False, penalty=lam, n_knots=6).fit(s, y)
    knots = cal.knots_
    r = knots[-1] - knots[0]
    omega = esl_roughness(knots) * r**3 * lam
    vals, vecs = np.linalg.eigh(omega[2:, 2:])
    rotation = np.eye(knots.size)
    rotation[2:, 2:] = vecs
    design = esl_basis(s, knots) @ rotation
    alpha = np.concatenate(([0.0, 0.0], 2.0 * vals / s.size))
    model = sm.GLM(y, design, family=sm.families.Binomial())
    start = model.fit(tol=1e-12).params  # the unpenalised fit: a start, not our answer
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = model.fit_regularized(alpha=alpha, L1_wt=0.0, start_params=start, opt_method="bfgs")
    probe = np.linspace(s.min(), s.max(), 200)
    oracle = expit(esl_basis(probe, knots) @ rotation @ fit.params)
    # BFGS from the unpenalised start: measured agreement 3.5e-9
    np.testing.assert_allclose(cal.predict(probe), oracle, rtol=0, atol=1e-6)


def test_a_huge_penalty_is_logistic_regression_on_the_logit():
    sm = pytest.importorskip("statsmodels.api")
    p, y = data(2000, 3, probabilities=True)
    cal = SplineCalibration(penalty=1e12).fit(p, y)
    z = logit(p)
    glm = sm.GLM(y, np.column_stack([np.ones_like(z), z]), family=sm.families.Binomial()).fit(
        tol=1e-14
    )
    probe = np.linspace(0.05, 0.95, 50)
    want = glm.predict(np.column_stack([np.ones(50), logit(probe)]))
    np.testing.assert_allclose(cal.predict(probe), want, rtol=0, atol=1e-6)


# --- oracle (b): Lucena's splinecalib -----------------------------------------------------


def test_agrees_with_lucenas_splinecalib_on_the_same_knots():
    """splinecalib (no unity prior, our knots, a negligible ridge) fits its final model on the
    training part of its first fold; we give those rows weight 1, the others 0.

    Its ridge lam |beta|^2 / p on the mean loss is not our penalty; at lam = 1e-10 both
    are the unpenalised maximum likelihood. With its L-BFGS-B tolerance at 1e-9 (the default
    1e-4 moves a probability by about 1e-4) the measured agreement is 5e-9."""
    # Not in the test extra: splinecalib ships only as an sdist with a C extension (a compiler
    # and Cython at install time), so this second oracle runs where it is installed; the
    # statsmodels oracles above always run.
    try:
        import splinecalib as sc
    except ImportError:
        pytest.skip("splinecalib is not installed (an optional oracle, not in the test extra)")
    from splinecalib.calib_utils import get_stratified_foldnums

    p, y = data(3000, 4, probabilities=True)
    p = np.clip(p, 0.01, 0.99)
    train = get_stratified_foldnums(y, 5, random_state=42) != 0
    cal = SplineCalibration(penalty=0.0, n_knots=6).fit(p, y, sample_weight=train.astype(float))
    theirs = sc.SplineCalib(
        knot_sample_size=0,
        add_knots=expit(cal.knots_),
        reg_param_vec=[1e-10],
        unity_prior=False,
        logodds_eps=1e-3,
        max_iter=5000,
        tol=1e-9,
    )
    theirs.fit(p, y)
    probe = np.linspace(0.02, 0.98, 97)
    np.testing.assert_allclose(cal.predict(probe), theirs.calibrate(probe), rtol=0, atol=1e-6)


# --- the basis, the penalty, the folds ------------------------------------------------------


def test_basis_rows_equal_scipy_bsplines_and_extend_linearly():
    from scipy.interpolate import BSpline

    t = np.array([0.0, 0.1, 0.35, 0.4, 0.8, 1.0])
    tau = np.concatenate(([0.0] * 3, t, [1.0] * 3))
    a = np.random.default_rng(0).normal(size=t.size + 2)
    u = np.concatenate((np.linspace(0, 1, 101), [-0.5, -0.01, 1.01, 2.0]))
    start, val = np.empty(u.size, dtype=np.int64), np.empty((u.size, 4))
    bspline_rows(u, t, start, val)
    f = BSpline(tau, a, 3)
    inside = slice(0, 101)
    np.testing.assert_allclose(linear_predictor(start, val, a)[inside], f(u[inside]), atol=1e-12)
    df = f.derivative()
    tails = np.array([f(0) + df(0) * -0.5, f(0) + df(0) * -0.01, f(1) + df(1) * 0.01, f(1) + df(1)])
    np.testing.assert_allclose(linear_predictor(start, val, a)[101:], tails, atol=1e-12)


def test_design_spans_natural_splines_and_its_penalty_is_the_roughness():
    from scipy.integrate import quad
    from scipy.interpolate import BSpline

    t = np.array([0.0, 0.2, 0.5, 0.6, 1.0])
    tau = np.concatenate(([0.0] * 3, t, [1.0] * 3))
    c, omega = natural_spline_design(t)
    b = np.random.default_rng(1).normal(size=t.size)
    f2 = BSpline(tau, c @ b, 3).derivative(2)
    assert abs(f2(0.0)) < 1e-10 and abs(f2(1.0)) < 1e-10  # natural: linear beyond the ends
    brute = sum(quad(lambda u: f2(u) ** 2, lo, hi)[0] for lo, hi in itertools.pairwise(t))
    np.testing.assert_allclose(np.sum(omega * b**2), brute, rtol=1e-10)
    assert omega[0] == omega[1] == 0.0  # the linear part is not penalised


@SETTINGS
@given(
    counts=st.lists(st.integers(0, 4), min_size=1, max_size=30),
    n_folds=st.integers(2, 6),
    phase=st.floats(0.0, 5.999),
)
def test_folds_deal_a_weighted_row_as_its_repeats(counts, n_folds, phase):
    w = np.array(counts, dtype=float)
    folds = fold_weights(w, n_folds, phase % n_folds)
    np.testing.assert_allclose(folds.sum(axis=0), w, atol=1e-12)
    repeated = fold_weights(np.ones(int(w.sum())), n_folds, phase % n_folds)
    edges = np.cumsum(np.r_[0, w]).astype(int)
    per_row = np.array([repeated[:, a:b].sum(axis=1) for a, b in itertools.pairwise(edges)]).T
    np.testing.assert_allclose(folds, per_row.reshape(folds.shape), atol=1e-12)


# --- properties and hand-worked cases ---------------------------------------------------------


def test_two_distinct_scores_give_their_rates():
    """Two values: the natural spline is a line through two points, which fits both rates."""
    s = np.array([0.2] * 4 + [0.7] * 5)
    y = np.array([0, 0, 0, 1, 1, 1, 1, 0, 1])
    cal = SplineCalibration(penalty=0.0).fit(s, y)
    np.testing.assert_allclose(cal.predict([0.2, 0.7]), [0.25, 0.8], atol=1e-10)


def test_constant_scores_give_the_base_rate():
    cal = SplineCalibration().fit([0.3] * 5, [0, 1, 1, 0, 1])
    np.testing.assert_allclose(cal.predict([0.1, 0.9]), 0.6, atol=1e-12)


def test_cross_validation_picks_from_the_grid_and_a_fixed_penalty_skips_it():
    p, y = data(1500, 5, probabilities=True)
    cal = SplineCalibration(penalty_grid=[0.01, 1.0, 100.0]).fit(p, y)
    assert cal.penalty_ in (0.01, 1.0, 100.0)
    assert cal.cv_losses_.shape == (3,) and np.isfinite(cal.cv_losses_).all()
    assert cal.penalty_ == cal.penalty_grid_[np.argmin(cal.cv_losses_)]
    fixed = SplineCalibration(penalty=cal.penalty_).fit(p, y)
    assert fixed.cv_losses_ is None
    np.testing.assert_allclose(fixed.predict(p), cal.predict(p), atol=1e-12)


def test_the_seed_moves_the_folds_reproducibly():
    p, y = data(800, 6, probabilities=True)
    a = SplineCalibration(random_state=3).fit(p, y).cv_losses_
    b = SplineCalibration(random_state=3).fit(p, y).cv_losses_
    c = SplineCalibration(random_state=4).fit(p, y).cv_losses_
    assert np.array_equal(a, b) and not np.array_equal(a, c)


def test_extrapolation_is_linear_on_the_logit_and_clipping_is_flat():
    s, y = data(1000, 7)
    ext = SplineCalibration(logit_input=False, penalty=1.0, out_of_bounds="extrapolate").fit(s, y)
    far = s.max() + np.array([1.0, 2.0, 3.0])
    z = logit(ext.predict(far))
    assert abs((z[2] - z[1]) - (z[1] - z[0])) < 1e-9
    clip = SplineCalibration(logit_input=False, penalty=1.0).fit(s, y)
    np.testing.assert_allclose(clip.predict(far), clip.predict([s.max()])[0], atol=1e-15)


def test_recovers_a_known_calibration_map():
    p, y = data(20000, 8, probabilities=True)
    cal = SplineCalibration().fit(p, y)
    probe = expit(np.linspace(-3, 3, 13))
    truth = expit(0.5 * logit(probe) + 0.3 * np.sin(logit(probe)))
    np.testing.assert_allclose(cal.predict(probe), truth, atol=0.03)


def test_scores_outside_0_1_need_logit_input_false():
    with pytest.raises(ValueError, match="probabilit"):
        SplineCalibration().fit([-1.0, 0.5, 2.0], [0, 1, 1])


def test_stopping_early_warns():
    p, y = data(500, 9, probabilities=True)
    with pytest.warns(ConvergenceWarning, match="max_iter=1"):
        SplineCalibration(penalty=0.0, max_iter=1).fit(p, y)


def test_bad_grid_is_a_value_error():
    with pytest.raises(ValueError, match="penalty_grid"):
        SplineCalibration(penalty_grid=[-1.0]).fit([0.1, 0.5, 0.9], [0, 1, 1])


def test_aggregated_rows_fit_as_the_raw_rows():
    """What calibbook.distributed relies on: merging equal (score, label) rows into one row
    of their total weight changes neither the knots, the folds nor the fit."""
    rng = np.random.default_rng(10)
    p = np.round(rng.uniform(0.02, 0.98, size=3000), 2)  # ties
    y = (rng.uniform(size=p.size) < p).astype(float)
    rows, counts = np.unique(np.column_stack([p, y]), axis=0, return_counts=True)
    raw = SplineCalibration().fit(p, y)
    merged = SplineCalibration().fit(rows[:, 0], rows[:, 1], sample_weight=counts)
    assert raw.penalty_ == merged.penalty_
    probe = np.linspace(0.0, 1.0, 101)
    np.testing.assert_allclose(merged.predict(probe), raw.predict(probe), rtol=0, atol=1e-12)


def test_separated_classes_stop_early_and_warn():
    """No maximum of the likelihood exists: the fit stops once the map is a step to 1e-12."""
    s = np.array([0.1, 0.2, 0.3, 0.6, 0.7, 0.8])
    with pytest.warns(ConvergenceWarning, match="separate the classes"):
        cal = SplineCalibration(penalty=1.0).fit(s, [0, 0, 0, 1, 1, 1])
    assert cal.n_iter_ < 100
    np.testing.assert_allclose(cal.predict(s), [0, 0, 0, 1, 1, 1], atol=1e-9)
