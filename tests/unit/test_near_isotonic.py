"""The near-isotonic path against a convex solver, hand-built merge patterns and PAV."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.isotonic import IsotonicRegression

from calibbook.calibrators.near_isotonic import (
    NearIsotonicPath,
    NearIsotonicRegression,
    near_isotonic_path,
)
from tests._reference.enir_before_issue_18 import (
    _old_fit_at,
    _old_group_events,
    _old_near_isotonic_path,
    _old_path_models,
)


def solve_eq3(y, w, lam):
    """Weighted Eq. 3 of the ENIR paper by OSQP with solution polishing (exact active set)."""
    cp = pytest.importorskip("cvxpy")  # only the tests that call this need it
    n = len(y)
    if n == 1:
        return np.array(y, dtype=float)
    x, t = cp.Variable(n), cp.Variable(n - 1)
    objective = 0.5 * cp.sum(cp.multiply(w, cp.square(x - y))) + lam * cp.sum(t)
    cp.Problem(cp.Minimize(objective), [t >= x[:-1] - x[1:], t >= 0]).solve(
        solver=cp.OSQP, eps_abs=1e-10, eps_rel=1e-10, polishing=True, max_iter=200_000
    )
    return x.value


@pytest.mark.parametrize("seed", range(120))
def test_matches_convex_solver(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 30))
    kind = seed % 3
    y = [
        rng.integers(0, 2, size=n).astype(float),
        rng.normal(size=n),
        rng.choice([0.0, 0.5, 1.0], size=n),
    ][kind]
    w = rng.integers(1, 4, size=n).astype(float) if seed % 2 else np.ones(n)
    path = near_isotonic_path(np.arange(n), y, w)
    lams = [0.03, 0.2, 0.7, 2.0, 10.0]
    for lam in lams:
        np.testing.assert_allclose(path.fitted(lam), solve_eq3(y, w, lam), atol=1e-6)


def test_three_blocks_merging_at_once():
    # the outer values close in on the middle one at the same speed: one triple merge at lam = 0.5
    path = near_isotonic_path([0, 1, 2], [1.0, 0.5, 0.0])
    assert path.breakpoints.tolist() == [0.0, 0.5]
    assert path.n_blocks(0.49) == 3 and path.n_blocks(0.5) == 1
    np.testing.assert_allclose(path.fitted(0.25), [0.75, 0.5, 0.25])
    np.testing.assert_allclose(path.fitted(0.7), [0.5, 0.5, 0.5])


def test_simultaneous_merges_and_chains_keep_every_sample():
    # alternating pattern: every violating pair meets at the same lam, then chains form
    y = np.array([1.0, 0.0] * 6 + [1.0, 1.0, 0.0, 0.0, 0.0, 1.0])
    w = np.arange(1.0, y.size + 1) % 3 + 1
    path = near_isotonic_path(np.arange(y.size), y, w)
    for lam in np.concatenate([path.breakpoints, path.breakpoints + 1e-3, [50.0]]):
        fit = path.fitted(lam)
        # weighted mean is kept at every lam (telescoping KKT sum): a dropped sample breaks it
        assert np.sum(w * fit) == pytest.approx(np.sum(w * y), abs=1e-9)
        np.testing.assert_allclose(fit, solve_eq3(y, w, lam), atol=1e-6)


def test_endpoints_are_pooled_data_and_pav():
    rng = np.random.default_rng(0)
    s = rng.integers(0, 15, size=80).astype(float)  # ties
    y = rng.integers(0, 2, size=80).astype(float)
    w = rng.integers(1, 4, size=80).astype(float)
    path = near_isotonic_path(s, y, w)
    pooled = np.array([np.sum(w[s == v] * y[s == v]) / np.sum(w[s == v]) for v in path.scores])
    np.testing.assert_allclose(path.fitted(0.0), pooled)
    iso = IsotonicRegression().fit(s, y, sample_weight=w).predict(path.scores)
    np.testing.assert_allclose(path.fitted(path.breakpoints[-1] + 1.0), iso, atol=1e-12)
    np.testing.assert_allclose(path.fitted(1e9), iso, atol=1e-12)


def test_integer_weights_equal_repeated_rows_and_earlier_models_stay_intact():
    rng = np.random.default_rng(1)
    s = rng.normal(size=40)
    y = rng.integers(0, 2, size=40).astype(float)
    w = rng.integers(0, 4, size=40)
    a = near_isotonic_path(s, y, w)
    b = near_isotonic_path(np.repeat(s, w), np.repeat(y, w))
    np.testing.assert_allclose(a.breakpoints, b.breakpoints, rtol=1e-12)
    first = a.fitted(a.breakpoints[1])
    for lam in a.breakpoints:
        np.testing.assert_allclose(a.fitted(lam), b.fitted(lam), atol=1e-12)
    np.testing.assert_array_equal(a.fitted(a.breakpoints[1]), first)  # nothing overwritten


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.tuples(st.floats(-5, 5), st.integers(1, 3)), min_size=1, max_size=25),
    st.floats(0, 20),
)
def test_properties(rows, lam):
    y = np.array([r[0] for r in rows])
    w = np.array([r[1] for r in rows], dtype=float)
    path = near_isotonic_path(np.arange(y.size), y, w)
    fit = path.fitted(lam)
    assert np.sum(w * fit) == pytest.approx(np.sum(w * y), abs=1e-8)
    assert fit.min() >= y.min() - 1e-9 and fit.max() <= y.max() + 1e-9
    blocks = 1 + np.count_nonzero(np.diff(fit) != 0)
    assert blocks == path.n_blocks(lam)
    assert np.all(np.diff(path.breakpoints) > 0)


def test_estimator_interpolates_the_path():
    reg = NearIsotonicRegression(lam=0.25).fit([1, 2, 3, 4], [0.0, 1.0, 0.0, 1.0])
    np.testing.assert_allclose(reg.step_values_, [0.0, 0.75, 0.25, 1.0])
    np.testing.assert_allclose(reg.predict([1.5, 0.0, 9.0]), [0.375, 0.0, 1.0])
    step = NearIsotonicRegression(lam=0.25, interpolation="step")
    step.fit([1, 2, 3, 4], [0.0, 1.0, 0.0, 1.0])
    np.testing.assert_allclose(step.predict([1.5, 2.5]), [0.0, 0.75])


@pytest.mark.parametrize(
    "kwargs,message",
    [
        (dict(scores=[0.0, np.nan], y=[0.0, 1.0]), "NaN"),
        (dict(scores=[0.0, 1.0], y=[0.0, np.inf]), "NaN or infinite"),
        (dict(scores=[0.0, 1.0], y=[0.0]), "Inconsistent"),
        (dict(scores=[0.0, 1.0], y=[0.0, 1.0], sample_weight=[1, -1]), "non-negative"),
        (dict(scores=[], y=[]), "empty"),
    ],
)
def test_bad_input(kwargs, message):
    with pytest.raises(ValueError, match=message):
        near_isotonic_path(**kwargs)


@pytest.mark.parametrize("lam", [-1.0, np.nan, "big", "aic", None, True])
def test_bad_lambda(lam):
    with pytest.raises(ValueError, match="lam must be"):
        NearIsotonicRegression(lam=lam).fit([0.0, 1.0], [0.0, 1.0])


def test_bad_interpolation_and_keyword_only():
    with pytest.raises(ValueError, match="interpolation must be"):
        NearIsotonicRegression(interpolation="cubic").fit([0.0, 1.0], [0.0, 1.0])
    with pytest.raises(TypeError):
        NearIsotonicRegression(0.5)


# ------------------------------------------------------------------ lam="bic"
def brute_bic(path, s, y, w, lam):
    """BIC of the path's fit at ``lam``, from the rows (expanded by their integer weights):
    Bernoulli log-likelihood for 0/1 responses, else Gaussian with Rice's variance."""
    s, y = np.repeat(s, w.astype(int)), np.repeat(y, w.astype(int))
    n = s.size
    fit = path.fitted(lam)
    p = fit[np.searchsorted(path.scores, s)]
    if set(np.unique(y)) <= {0.0, 1.0}:
        p = np.clip(p, 0.0, 1.0)
        with np.errstate(divide="ignore", invalid="ignore"):
            terms = np.where(y == 1, np.log(p), np.log1p(-p))
        loglik = terms.sum()
    else:
        variance = np.sum(np.diff(y[np.argsort(s, kind="stable")]) ** 2) / (2 * (n - 1))
        loglik = -np.sum((y - p) ** 2) / (2 * variance) - n / 2 * np.log(2 * np.pi * variance)
    df = 1 + np.count_nonzero(np.diff(fit))
    return -2 * loglik + df * (np.log(n) + np.log(2 * np.pi))


@pytest.mark.parametrize("seed", range(40))
def test_bic_picks_the_best_model_of_the_path(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 60))
    s = rng.integers(0, n, size=n) / n if seed % 3 == 0 else rng.uniform(size=n)  # ties or not
    truth = 0.5 + 0.4 * np.sin(3 * np.pi * s)
    if seed % 2:
        y = (rng.uniform(size=n) < truth).astype(float)
    else:
        y = truth + 0.3 * rng.normal(size=n)
    w = rng.integers(0, 4, size=n).astype(float) if seed % 4 == 1 else np.ones(n)
    w[:2] = 1.0
    reg = NearIsotonicRegression().fit(s, y, sample_weight=w)
    path = near_isotonic_path(s, y, w)
    candidates = path.breakpoints[1:] if path.breakpoints.size > 1 else path.breakpoints
    scores = np.array([brute_bic(path, s, y, w, lam) for lam in candidates])
    assert reg.lam_ in candidates
    chosen = brute_bic(path, s, y, w, reg.lam_)
    assert chosen <= scores.min() + 1e-9 * max(1.0, abs(scores.min()))
    np.testing.assert_allclose(reg.step_values_, path.fitted(reg.lam_))


def test_bic_by_hand():
    # y = 0, 1, 0, 1: one breakpoint (0.5), where the middle pair fuses at 0.5; lam = 0,
    # the data themselves, is left out, as in ENIR
    reg = NearIsotonicRegression().fit([1, 2, 3, 4], [0.0, 1.0, 0.0, 1.0])
    assert reg.lam_ == 0.5
    np.testing.assert_allclose(reg.step_values_, [0.0, 0.5, 0.5, 1.0])
    # already isotonic: the path has one model, the data
    assert NearIsotonicRegression().fit([1, 2, 3], [0.0, 0.5, 2.0]).lam_ == 0.0
    # a constant response: every model is the same
    assert NearIsotonicRegression().fit([1, 2, 3], [0.3, 0.3, 0.3]).step_values_.tolist() == [
        0.3,
        0.3,
        0.3,
    ]


def test_a_number_is_used_as_given():
    reg = NearIsotonicRegression(lam=0.25).fit([1, 2, 3, 4], [0.0, 1.0, 0.0, 1.0])
    assert reg.lam_ == 0.25


@pytest.mark.parametrize("binary", [True, False])
def test_default_regularises_at_large_n(binary):
    # issue 17, item 12: lam = 1 barely regularises many rows; BIC lands near the
    # isotonic fit on monotone data
    rng = np.random.default_rng(0)
    n = 50_000
    s = rng.uniform(size=n)
    y = (rng.uniform(size=n) < s).astype(float) if binary else s + rng.normal(size=n)
    grid = np.linspace(0.02, 0.98, 200)
    iso = IsotonicRegression(out_of_bounds="clip").fit(s, y).predict(grid)
    err = {
        lam: np.abs(NearIsotonicRegression(lam=lam).fit(s, y).predict(grid) - grid).mean()
        for lam in ("bic", 1.0)
    }
    iso_err = np.abs(iso - grid).mean()
    assert err["bic"] < 1.5 * iso_err < err[1.0]


def test_bic_follows_a_non_monotone_truth():
    rng = np.random.default_rng(0)
    s = rng.uniform(size=4000)
    truth = 0.5 + 0.4 * np.sin(3 * np.pi * s)
    y = (rng.uniform(size=s.size) < truth).astype(float)
    grid = np.linspace(0.05, 0.95, 50)
    true_grid = 0.5 + 0.4 * np.sin(3 * np.pi * grid)
    nir = np.abs(NearIsotonicRegression().fit(s, y).predict(grid) - true_grid).mean()
    iso = np.abs(IsotonicRegression().fit(s, y).predict(grid) - true_grid).mean()
    assert nir < 0.06 < iso


# ------------------------------------------------------ issue 18: the fast path agrees with the old
def assert_same_path(y, w):
    """The path of scored_path (segments, radix heap) against the single heap before issue 18
    (frozen in tests/_reference): the same lambdas and fits, models, blocks and binned fits."""
    from calibbook._kernels.neariso.path import scored_path

    sums = w * y
    binary = bool(np.all((y == 0) | (y == 1)))
    old = _old_near_isotonic_path(w, sums)
    new = scored_path(w, sums, np.empty(0), 1 if binary else 2)
    path = NearIsotonicPath(np.arange(y.size, dtype=float), w, sums, *new[:5])
    np.testing.assert_allclose(np.sort(old[0]), path.event_lam, rtol=1e-13, atol=0)
    np.testing.assert_array_equal(old[4], path.initial_coef)
    event_model, model_lam = _old_group_events(old[0], 1e-12)
    np.testing.assert_allclose(new[6], model_lam, rtol=1e-13, atol=0)
    np.testing.assert_allclose(path.breakpoints, model_lam, rtol=1e-13, atol=0)
    starts = np.searchsorted(event_model, np.arange(model_lam.size + 1))  # of all merges
    np.testing.assert_array_equal(path._n_fused + new[5][1:], starts[1:])
    blocks, binned, _ = _old_path_models(
        w, sums, *old[1:], event_model, model_lam, np.zeros(model_lam.size, np.bool_), not binary
    )
    np.testing.assert_array_equal(new[7], blocks)
    np.testing.assert_allclose(new[8], binned, rtol=1e-12, atol=1e-9)
    api = near_isotonic_path(np.arange(y.size), y, w)  # the same path, through the API
    lams = np.concatenate([model_lam, 0.5 * (model_lam[1:] + model_lam[:-1]), [1e9]])
    if lams.size > 60:  # large paths: the first and last models and a sample between
        lams = np.concatenate([lams[:20], lams[-20:], lams[:: lams.size // 20]])
    for lam in lams:
        expected = _old_fit_at(w, sums, old, lam)
        np.testing.assert_allclose(path.fitted(lam), expected, rtol=0, atol=1e-12)
        np.testing.assert_array_equal(api.fitted(lam), path.fitted(lam))
        assert api.n_blocks(lam) == 1 + np.count_nonzero(np.diff(expected))


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from([0.0, 1.0, 0.5, 0.25]), st.integers(1, 3)),
        min_size=1,
        max_size=60,
    ),
    st.booleans(),
)
def test_path_agrees_with_the_path_before_issue_18(rows, real):
    y = np.array([r[0] for r in rows])
    w = np.array([r[1] for r in rows], dtype=float)
    if real:  # real responses, weights over six orders of magnitude: lambdas of every size
        rng = np.random.default_rng(len(rows))
        y = rng.normal(size=y.size) * 10.0 ** rng.integers(-3, 3, size=y.size)
        w = w * 10.0 ** rng.integers(-3, 3, size=y.size)
    assert_same_path(y, w)


@pytest.mark.parametrize("seed", range(8))
def test_path_agrees_with_the_path_before_issue_18_at_scale(seed):
    rng = np.random.default_rng(seed)
    n = 20_000
    s = rng.uniform(size=n)
    truth = [s, 0.5 + 0.4 * np.sin(3 * np.pi * s), np.full(n, 0.5), 1 - s][seed % 4]
    y = (rng.uniform(size=n) < truth).astype(float)
    w = rng.integers(1, 5, size=n).astype(float) if seed % 2 else np.ones(n)
    assert_same_path(y, w)


def test_segments_split_at_the_isotonic_blocks_only():
    # the path is solved per block of the isotonic fit; blocks whose means are closer than
    # 1e-9 stay in one segment, and no merge crosses a segment boundary
    from calibbook._kernels.isotonic import pav_runs
    from calibbook._kernels.neariso.path import scored_path

    rng = np.random.default_rng(5)
    y = (rng.uniform(size=3000) < np.linspace(0.1, 0.9, 3000)).astype(float)
    w = np.ones_like(y)
    ends, _, _ = pav_runs(w, y)
    out = scored_path(w, y, np.empty(0), 1)
    np.testing.assert_array_equal(np.sort(out[9]), np.concatenate(([0], ends[:-1])))
    # a merge never takes in a run that starts an isotonic block
    assert not np.isin(out[2], ends[:-1]).any()
    assert_same_path(y, w)
    # two isotonic blocks with means 1e-12 apart: one segment, still the same path
    y2 = np.array([0.0, 1.0, 0.5, 0.5 + 1e-12, 0.2, 1.0])
    assert_same_path(y2, np.ones_like(y2))


def test_radix_heap_bucket_of_a_key():
    from calibbook._kernels.neariso.heap import _bucket

    keys = np.array([0.0, 1e-300, 0.5, 0.5 + 2**-53, 1.0, 3.0, 1e300, np.inf])
    bits = keys.view(np.int64)
    for a in bits:
        for b in bits:
            if a == b:
                assert _bucket(a, b) == 0
            else:  # 1 + the highest bit in which the patterns differ
                assert _bucket(a, b) == int(a ^ b).bit_length()
