"""ENIR and BBQ against brute-force versions written from their definitions."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numba import njit
from scipy.special import gammaln

from calibbook.calibrators.bbq import BBQ, bbq_bin_range
from calibbook.calibrators.enir import ENIR, elbow_keep, information_criterion
from calibbook.calibrators.near_isotonic import near_isotonic_path

from .contract import check_calibrator_contract


def brute_enir(s, y, w, criterion="bic"):
    """Score every breakpoint model exactly, smooth its bins, average, interpolate linearly."""
    path = near_isotonic_path(s, y, w)
    x, W, S = path.scores, path.weights, path.sums
    lams = []  # breakpoints; merges within rounding of each other are one breakpoint
    for lam in path.breakpoints[1:]:
        if lams and lam <= lams[-1] * (1 + 1e-12) + 1e-12:
            lams[-1] = lam
        else:
            lams.append(lam)
    lams = lams or [0.0]
    values, scores = [], []
    for lam in lams:
        fit = np.clip(path.fitted(lam), 0.0, 1.0)
        with np.errstate(divide="ignore", invalid="ignore"):
            ll = np.sum(np.where(S > 0, S * np.log(fit), 0.0)
                        + np.where(W - S > 0, (W - S) * np.log1p(-fit), 0.0))
        starts = np.flatnonzero(np.concatenate(([True], fit[1:] != fit[:-1])))
        ends = np.append(starts[1:], fit.size)
        smooth = np.empty_like(fit)
        for a, b in zip(starts, ends):
            cnt = W[a:b].sum()
            o, e = S[a:b].sum() / cnt, np.sum(W[a:b] * x[a:b]) / cnt
            strength = 1 - abs(o - e)
            smooth[a:b] = (cnt * fit[a] + e * strength) / (cnt + strength)
        values.append(smooth)
        scores.append(information_criterion(ll, starts.size, W.sum(), criterion))
    scores = np.array(scores)
    finite = np.isfinite(scores)
    rel = np.where(finite, np.exp(-(scores - scores[finite].min()) / 2), 0.0)
    rel /= rel.sum()
    run_values = np.sum(rel[:, None] * np.array(values), axis=0)
    return lambda q: np.interp(q, x, run_values)


def brute_bbq(s, y, w, strength=2.0, clip=0.005):
    order = np.argsort(s)
    s, y, w = s[order], y[order], w[order]
    keep = w > 0
    s, y, w = s[keep], y[keep], w[keep]
    total = w.sum()
    b_min, b_max = bbq_bin_range(total)
    models, log_ml = [], []
    for b in range(b_min, b_max + 1):
        below = np.array([w[s < v].sum() for v in s])
        ids = np.array([sum(bl >= k * total / b for k in range(1, b)) for bl in below])
        used = np.unique(ids)
        bins = [(s[ids == k], y[ids == k], w[ids == k]) for k in used]
        cuts = [0.5 * (bins[j][0].max() + bins[j + 1][0].min()) for j in range(len(bins) - 1)]
        lows, highs = [0.0] + cuts, cuts + [1.0]
        score, est = 0.0, []
        for (bs, by, bw), lo, hi in zip(bins, lows, highs):
            p = min(max((lo + hi) / 2, clip), 1 - clip)
            n, n1 = bw.sum(), np.sum(bw * by)
            a1, a0 = strength * p, strength * (1 - p)
            score += (gammaln(strength) - gammaln(n + strength) + gammaln(n1 + a1) - gammaln(a1)
                      + gammaln(n - n1 + a0) - gammaln(a0))
            est.append((n1 + a1) / (n + strength))
        models.append((np.array(cuts), np.array(est)))
        log_ml.append(score)
    log_ml = np.array(log_ml)
    wts = np.exp(log_ml - log_ml.max())
    wts /= wts.sum()

    def predict(q):
        return sum(wt * est[np.searchsorted(cuts, q, side="right")]
                   for wt, (cuts, est) in zip(wts, models))

    return predict, wts, np.arange(b_min, b_max + 1)


def random_case(seed, n_max=120):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(10, n_max))
    s = rng.uniform(size=n)
    if seed % 3 == 0:
        s = np.round(s, 1)  # heavy ties
    truth = 0.5 + 0.4 * np.sin(3 * np.pi * s) if seed % 2 else s
    y = (rng.uniform(size=n) < truth).astype(float)
    y[0], y[1] = 0.0, 1.0
    w = rng.integers(0, 4, size=n).astype(float) if seed % 4 == 1 else np.ones(n)
    w[0] = w[1] = 1.0
    return s, y, w


@pytest.mark.parametrize("criterion", ["bic", "aic", "aicc"])
@pytest.mark.parametrize("seed", range(40))
def test_enir_equals_brute_force(seed, criterion):
    s, y, w = random_case(seed)
    cal = ENIR(criterion=criterion).fit(s, y, sample_weight=w)
    probe = np.concatenate([s, np.linspace(-0.1, 1.1, 41).clip(0, 1)])
    np.testing.assert_allclose(cal.predict(probe), brute_enir(s, y, w, criterion)(probe), atol=1e-9)
    assert cal.model_weights_.sum() == pytest.approx(1.0)


@pytest.mark.parametrize("seed", range(30))
def test_bbq_equals_brute_force(seed):
    s, y, w = random_case(seed, n_max=80)
    cal = BBQ().fit(s, y, sample_weight=w)
    predict, weights, n_bins = brute_bbq(s, y, w)
    probe = np.concatenate([s, np.linspace(0, 1, 41)])
    np.testing.assert_allclose(cal.predict(probe), predict(probe), atol=1e-9)
    assert cal.model_weights_.sum() == pytest.approx(1.0)
    np.testing.assert_allclose(cal.model_weights_, weights[weights > 0], atol=1e-12)
    np.testing.assert_array_equal(cal.model_n_bins_, n_bins[weights > 0])
    # the averaged map is one step function over the union of the models' cuts
    ids = np.searchsorted(cal.thresholds_, probe, side="right")
    np.testing.assert_array_equal(cal.predict(probe), cal.step_values_[ids])


def test_enir_recovers_a_non_monotone_map_where_isotonic_cannot():
    from calibbook.calibrators.isotonic import IsotonicCalibration

    rng = np.random.default_rng(0)
    s = rng.uniform(size=4000)
    truth = 0.5 + 0.4 * np.sin(3 * np.pi * s)
    y = (rng.uniform(size=s.size) < truth).astype(int)
    grid = np.linspace(0.05, 0.95, 50)
    true_grid = 0.5 + 0.4 * np.sin(3 * np.pi * grid)
    enir_err = np.abs(ENIR().fit(s, y).predict(grid) - true_grid).mean()
    iso_err = np.abs(IsotonicCalibration().fit(s, y).predict(grid) - true_grid).mean()
    assert enir_err < 0.06 < iso_err


def test_enir_single_model_smoothing_by_hand():
    # already isotonic data: no breakpoint beyond 0, so ENIR keeps that one model.
    # bins {0.1, 0.2} (o = 0, e = 0.15) and {0.3, 0.4} (o = 1, e = 0.35), each smoothed
    # to (W p + e (1 - |o - e|)) / (W + 1 - |o - e|)
    cal = ENIR().fit([0.1, 0.2, 0.3, 0.4], [0, 0, 1, 1])
    assert cal.model_weights_.tolist() == [1.0]
    low = (2 * 0 + 0.15 * 0.85) / (2 + 0.85)
    high = (2 * 1 + 0.35 * 0.35) / (2 + 0.35)
    np.testing.assert_allclose(cal.predict([0.1, 0.2, 0.3, 0.4]), [low, low, high, high])
    np.testing.assert_allclose(cal.predict([0.25]), [(low + high) / 2])  # linear between runs


@pytest.mark.parametrize("make", [ENIR, BBQ])
def test_outputs_in_unit_interval_weights_sum_to_one_and_pruning(make):
    s, y, w = random_case(5, n_max=400)
    full = make().fit(s, y)
    pruned = make(prune="window", prune_alpha=0.01).fit(s, y)
    elbow = make(prune="elbow").fit(s, y)
    assert pruned.model_weights_.size <= full.model_weights_.size
    assert elbow.model_weights_.size <= full.model_weights_.size
    for cal in (full, pruned, elbow):
        p = cal.predict(np.linspace(0, 1, 101))
        assert p.min() >= 0 and p.max() <= 1
        assert cal.model_weights_.sum() == pytest.approx(1.0)


@pytest.mark.parametrize("make", [ENIR, BBQ])
def test_contract(make):
    s, y, _ = random_case(7, n_max=300)
    check_calibrator_contract(make(), s, y)


@pytest.mark.parametrize("make", [ENIR, BBQ])
def test_probabilities_required(make):
    with pytest.raises(ValueError, match=r"\[0, 1\].*sigmoid"):
        make().fit([-1.0, 0.5, 2.0], [0, 1, 1])


@pytest.mark.parametrize(
    "make,params,message",
    [
        (ENIR, dict(criterion="mdl"), "criterion"),
        (ENIR, dict(interpolation="cubic"), "interpolation"),
        (ENIR, dict(prune="window", prune_alpha=2.0), "prune_alpha"),
        (ENIR, dict(prune_alpha=0.01), "prune_alpha"),
        (ENIR, dict(prune="window"), "prune_alpha"),
        (ENIR, dict(prune="occam"), "prune"),
        (ENIR, dict(prune="window", prune_alpha=1.0), "prune_alpha"),
        (BBQ, dict(prune="Elbow"), "prune"),
        (BBQ, dict(prior_strength=0.0), "prior_strength"),
        (BBQ, dict(prune=None, prune_alpha=0.1), "prune_alpha"),
        (BBQ, dict(prune="elbow", prune_alpha=-0.5), "prune_alpha"),
        (BBQ, dict(prior_clip=0.7), "prior_clip"),
    ],
)
def test_bad_parameters(make, params, message):
    with pytest.raises(ValueError, match=message):
        make(**params).fit([0.1, 0.5, 0.9], [0, 1, 1])


def test_bbq_bin_range_follows_the_paper():
    assert bbq_bin_range(1000) == (1, 100)
    assert bbq_bin_range(100) == (1, 20)
    assert bbq_bin_range(1_000_000) == (10, 1000)


def reference_elbow(scores, alpha):
    """elbow.m of the authors' code, transcribed line by line with MATLAB's 1-based indices."""
    b = len(scores)
    sigma2 = np.var(scores)  # var(scores, 1): divide by b
    idxs = np.argsort(-np.asarray(scores), kind="stable") + 1  # sort(scores, 'descend')
    R = np.asarray(scores)[idxs - 1]
    k = 1
    while R[k - 1] == R[k]:
        k += 1
    while k < b and (R[k - 1] - R[k]) / sigma2 > alpha:
        k += 1
    kept = idxs[: k - 1] if k > 1 else idxs[:1]
    return set((kept - 1).tolist())


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.floats(0.0, 1.0), min_size=2, max_size=40),
    st.sampled_from([0.0, 1e-3, 5e-3, 0.05, 0.5]),
    st.integers(0, 3),
)
def test_elbow_keep_matches_the_reference_rule(values, alpha, n_ties):
    rel = np.array(values + [1.0] * (1 + n_ties))  # relative likelihoods: the best is 1
    rel = rel / rel.max()
    keep = elbow_keep(rel, alpha)
    if np.var(rel) == 0 or np.all(rel == rel.max()):
        assert keep.all()  # the reference code fails here; we keep every model
        return
    assert set(np.flatnonzero(keep).tolist()) == reference_elbow(rel, alpha)


def test_elbow_by_hand():
    # R = 1, .5, .01, .009, 0: variance 0.1577; the drops 0.5, 0.49 and 0.001 scaled by it
    # are 3.17, 3.11 and 0.0063: with alpha = 0.01 the third drop stops the rule at R = .01,
    # which is left out with everything after it
    rel = np.array([0.5, 0.0, 1.0, 0.009, 0.01])
    v = rel.var()
    assert 0.49 / v > 0.01 > 0.001 / v > 0.005
    assert elbow_keep(rel, 0.01).tolist() == [True, False, True, False, False]
    assert elbow_keep(rel, 0.005).tolist() == [True, False, True, True, True]  # next drop 0.009 / v
    # ties at the top are stepped over first: with a small next drop only one of them is kept
    assert elbow_keep(np.array([1.0, 1.0, 0.9999, 0.0]), 0.005).sum() == 1


@pytest.mark.parametrize("make, alpha", [(ENIR, 0.005), (BBQ, 0.001)])
def test_elbow_default_alpha_is_the_reference_one(make, alpha):
    s, y, _ = random_case(11, n_max=400)
    a = make(prune="elbow").fit(s, y)
    b = make(prune="elbow", prune_alpha=alpha).fit(s, y)
    np.testing.assert_array_equal(a.model_weights_, b.model_weights_)
    np.testing.assert_array_equal(a.predict(s), b.predict(s))


@settings(max_examples=150, deadline=None)
@given(
    n=st.integers(2, 60),
    steps=st.sampled_from([4, 10, 1000]),
    data=st.data(),
)
def test_bbq_rounding_never_changes_a_training_prediction(n, steps, data):
    # scores from a grid: ties are common and distinct scores lie far apart
    k = np.array(data.draw(st.lists(st.integers(0, steps), min_size=n, max_size=n)))
    s = k / steps
    y = np.array(data.draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)), dtype=float)
    y[0], y[1] = 0, 1
    cal = BBQ().fit(s, y)
    assert not np.isin(cal.thresholds_, s).any()  # no edge of the averaged map on a score
    at_scores = cal.predict(s)
    for factor in (1 - 4e-16, 1 + 4e-16):
        np.testing.assert_array_equal(cal.predict(np.clip(s * factor, 0, 1)), at_scores)


def test_ensembles_share_one_model_averaging_module():
    from calibbook.calibrators import _model_averaging, bbq, enir

    for name in ("relative_likelihoods", "pruning_alpha", "check_pruning"):
        assert getattr(bbq, name) is getattr(_model_averaging, name)
        assert getattr(enir, name) is getattr(_model_averaging, name)
    # the public names stay where the API reference documents them
    for name in ("relative_likelihoods", "information_criterion", "elbow_keep"):
        assert name in enir.__all__ and getattr(enir, name) is getattr(_model_averaging, name)


@pytest.mark.parametrize("make", [ENIR, BBQ])
def test_constructor_is_keyword_only(make):
    with pytest.raises(TypeError):
        make("bic" if make is ENIR else 2.0)


# ------------------------------------------------- issue 18: the fast fit agrees with the old one
def scaling_case(n, seed, ties=False, weighted=False):
    """Chapter 8's synthetic scores (benchmarks/bench_scaling.py): over-confident scores in
    [0, 1], labels drawn from a flatter truth; optionally rounded (ties) and weighted."""
    rng = np.random.default_rng(seed)
    s = rng.beta(0.7, 0.7, size=n)
    p = 1.0 / (1.0 + np.exp(-0.6 * np.log(s / (1.0 - s) + 1e-300)))
    y = (rng.uniform(size=n) < p).astype(float)
    if ties:
        s = np.round(s, 3)
    w = rng.integers(0, 4, size=n).astype(float) if weighted else None
    return s, y, w


def assert_same_fit(cal, s, y, w, **params):
    """``cal`` (fitted) agrees with the fit before issue 18: the models, their scores and
    weights, the averaged values and both interpolations, to 1e-12."""
    predict, lam, df, scores, weights, run_values = old_enir(s, y, w, **params)
    np.testing.assert_array_equal(cal.model_df_, df)
    np.testing.assert_allclose(cal.model_lambdas_, lam, rtol=1e-12, atol=0)
    np.testing.assert_allclose(cal.model_scores_, scores, rtol=1e-12, atol=0)
    np.testing.assert_allclose(cal.model_weights_, weights, rtol=0, atol=1e-12)
    np.testing.assert_allclose(cal.step_values_, run_values, rtol=0, atol=1e-12)
    probe = np.concatenate([s, 0.5 * (s[1:] + s[:-1]), np.linspace(-0.1, 1.1, 241).clip(0, 1)])
    np.testing.assert_allclose(cal.predict(probe), predict(probe), rtol=0, atol=1e-12)
    step = ENIR(interpolation="step", **params).fit(s, y, sample_weight=w)
    np.testing.assert_allclose(step.predict(probe), predict(probe, "step"), rtol=0, atol=1e-12)


@pytest.mark.parametrize(
    "params",
    [dict(criterion="bic"), dict(criterion="aic"), dict(criterion="aicc"), dict(prune="elbow"),
     dict(prune="window", prune_alpha=0.01)],
)
@pytest.mark.parametrize("seed", range(25))
def test_fit_agrees_with_the_fit_before_issue_18(seed, params):
    s, y, w = random_case(seed, n_max=400)
    assert_same_fit(ENIR(**params).fit(s, y, sample_weight=w), s, y, w, **params)


@pytest.mark.parametrize("criterion", ["bic", "aic"])
@pytest.mark.parametrize("ties, weighted", [(False, False), (True, False), (False, True)])
def test_fit_agrees_with_the_fit_before_issue_18_at_scale(criterion, ties, weighted):
    # 30 000 rows: thousands of models, segments of hundreds of blocks, massive ties in lam
    s, y, w = scaling_case(30_000, seed=3, ties=ties, weighted=weighted)
    cal = ENIR(criterion=criterion).fit(s, y, sample_weight=w)
    assert_same_fit(cal, s, y, w, criterion=criterion)


@pytest.mark.parametrize("interpolation", ["linear", "step"])
@pytest.mark.parametrize("seed", range(6))
def test_predict_is_the_interpolation_through_every_run(seed, interpolation):
    # predict looks up one knot per end of each stretch of equal averaged values, with
    # the slope of each interval precomputed; that is the map through every run score
    # with its averaged value (the step map bit for bit; the linear one to rounding)
    from calibbook.calibrators.near_isotonic import interpolate_runs

    s, y, w = random_case(seed, n_max=400) if seed % 2 else scaling_case(5000, seed)[:3]
    cal = ENIR(interpolation=interpolation).fit(s, y, sample_weight=w)
    x = cal.path_.scores
    probe = np.concatenate([x, 0.5 * (x[1:] + x[:-1]), np.nextafter(x, 2.0),
                            np.nextafter(x, -1.0), np.linspace(0, 1, 1001)]).clip(0, 1)
    expected = interpolate_runs(x, cal.step_values_, probe, interpolation)
    if interpolation == "step":
        np.testing.assert_array_equal(cal.predict(probe), expected)
    else:
        np.testing.assert_allclose(cal.predict(probe), expected, rtol=0, atol=1e-15)
        np.testing.assert_array_equal(cal.predict(x), cal.step_values_)  # at the knots: exact
    assert cal._knots[0].size <= 2 * np.unique(cal.step_values_).size + 2 * x.size


def test_degenerate_paths():
    # one score, a single violation, already isotonic, strictly decreasing, alternating
    cases = [
        ([0.5, 0.5, 0.5], [0, 1, 1]),
        ([0.1, 0.4, 0.9], [1, 0, 1]),
        ([0.1, 0.2, 0.3, 0.4], [0, 0, 1, 1]),
        ([0.1, 0.2, 0.3, 0.4], [1, 1, 0, 0]),
        (np.linspace(0.05, 0.95, 40), np.arange(40) % 2),
    ]
    for s, y in cases:
        s, y = np.asarray(s, float), np.asarray(y, float)
        cal = ENIR().fit(s, y)
        assert_same_fit(cal, s, y, None)
        assert cal.model_weights_.sum() == pytest.approx(1.0)


# ---------------------------------------------------------------- frozen reference
# The ENIR fit and predict as they were before issue 18 (commit 85531eb): a heap with
# stale entries, three scoring passes over every merge, the average over the whole merge
# tree, and linear interpolation through every run. The fast fit must agree with it.


@njit(cache=True)
def _old_heap_push(keys, heads, vers, size, key, head, ver):
    i = size
    keys[i], heads[i], vers[i] = key, head, ver
    while i > 0:
        parent = (i - 1) >> 1
        if keys[parent] <= keys[i]:
            break
        keys[parent], keys[i] = keys[i], keys[parent]
        heads[parent], heads[i] = heads[i], heads[parent]
        vers[parent], vers[i] = vers[i], vers[parent]
        i = parent
    return size + 1


@njit(cache=True)
def _old_heap_pop(keys, heads, vers, size):
    key, head, ver = keys[0], heads[0], vers[0]
    size -= 1
    keys[0], heads[0], vers[0] = keys[size], heads[size], vers[size]
    i = 0
    while True:
        left = 2 * i + 1
        if left >= size:
            break
        child = left
        if left + 1 < size and keys[left + 1] < keys[left]:
            child = left + 1
        if keys[i] <= keys[child]:
            break
        keys[child], keys[i] = keys[i], keys[child]
        heads[child], heads[i] = heads[i], heads[child]
        vers[child], vers[i] = vers[i], vers[child]
        i = child
    return key, head, ver, size


@njit(cache=True)
def _old_slope_coef(h, W, viol, prv):
    """c_B = (nu_right - nu_left) / W_B for the block with head h."""
    left = viol[prv[h]] if prv[h] >= 0 else 0.0
    return (viol[h] - left) / W[h]


@njit(cache=True)
def _old_merge_time(h, lam, W, S, viol, prv, nxt, tol):
    """When the block at h meets its right neighbour, or +inf if never (from lam on)."""
    g = nxt[h]
    ch = _old_slope_coef(h, W, viol, prv)
    cg = _old_slope_coef(g, W, viol, prv)
    gap = (S[h] / W[h] - lam * ch) - (S[g] / W[g] - lam * cg)  # p_h - p_g now
    if abs(gap) <= tol:
        return lam  # equal adjacent blocks are fused at once
    closing = cg - ch  # d(gap)/dlam = -(ch - cg)
    if gap * closing >= 0.0:
        return np.inf  # the gap does not shrink
    return lam - gap / closing


@njit(cache=True)
def _old_near_isotonic_path(weights, sums, tol=1e-12):
    """Merge events of the near-isotonic path over sorted runs.

    Parameters
    ----------
    weights, sums : float64 arrays (R,)
        Run weights (> 0) and weighted sums of the responses, sorted by score.
    tol : float
        Two adjacent block values closer than ``tol`` (times the response scale)
        count as equal and are fused.

    Returns
    -------
    event_lam : float64 (E,)
        Non-decreasing merge lambdas (0 for runs fused at the start).
    event_left, event_right : int64 (E,)
        Head runs of the left and right blocks that merge; the merged block keeps
        the left head.
    event_coef : float64 (E,)
        c of the merged block, constant over its life: its value at any lam until
        its next merge is S / W - lam * c.
    initial_coef : float64 (R,)
        c of each run as a block of its own at lam = 0.
    """
    n = weights.shape[0]
    W = weights.copy()
    S = sums.copy()
    prv = np.arange(-1, n - 1)
    nxt = np.arange(1, n + 1)
    nxt[n - 1] = -1
    viol = np.zeros(n, np.float64)
    ver = np.zeros(n, np.int64)
    alive = np.ones(n, np.bool_)
    scale = 0.0
    for i in range(n):
        scale = max(scale, abs(S[i] / W[i]))
    tol = tol * (1.0 + scale)
    for i in range(n - 1):
        if S[i] / W[i] > S[i + 1] / W[i + 1] + tol:
            viol[i] = 1.0

    cap = 4 * n + 4  # each merge pushes at most two events, plus the initial n
    keys = np.empty(cap, np.float64)
    heads = np.empty(cap, np.int64)
    vers = np.empty(cap, np.int64)
    size = 0
    for i in range(n - 1):
        t = _old_merge_time(i, 0.0, W, S, viol, prv, nxt, tol)
        if t < np.inf:
            size = _old_heap_push(keys, heads, vers, size, t, i, ver[i])

    event_lam = np.empty(max(n - 1, 0), np.float64)
    event_left = np.empty(max(n - 1, 0), np.int64)
    event_right = np.empty(max(n - 1, 0), np.int64)
    event_coef = np.empty(max(n - 1, 0), np.float64)
    initial_coef = np.empty(n, np.float64)
    for i in range(n):
        initial_coef[i] = _old_slope_coef(i, W, viol, prv)
    n_events = 0
    lam = 0.0
    while size > 0:
        t, h, v, size = _old_heap_pop(keys, heads, vers, size)
        if not alive[h] or ver[h] != v or nxt[h] < 0:
            continue  # stale: the pair changed since this time was computed
        lam = max(lam, t)
        g = nxt[h]
        event_lam[n_events] = lam
        event_left[n_events] = h
        event_right[n_events] = g
        n_events += 1
        # h absorbs g; the pair to the right keeps g's order (values are equal now)
        W[h] += W[g]
        S[h] += S[g]
        viol[h] = viol[g]
        nxt[h] = nxt[g]
        if nxt[h] >= 0:
            prv[nxt[h]] = h
        alive[g] = False
        ver[h] += 1
        event_coef[n_events - 1] = _old_slope_coef(h, W, viol, prv)
        if nxt[h] >= 0:
            t_new = _old_merge_time(h, lam, W, S, viol, prv, nxt, tol)
            if t_new < np.inf:
                size = _old_heap_push(keys, heads, vers, size, t_new, h, ver[h])
        p = prv[h]
        if p >= 0:
            ver[p] += 1  # h's slope changed, so the pair (p, h) needs a new time
            t_new = _old_merge_time(p, lam, W, S, viol, prv, nxt, tol)
            if t_new < np.inf:
                size = _old_heap_push(keys, heads, vers, size, t_new, p, ver[p])
    return (event_lam[:n_events], event_left[:n_events], event_right[:n_events],
            event_coef[:n_events], initial_coef)


@njit(cache=True)
def _old_block_loglik(pos, neg, v):
    """Bernoulli log-likelihood of a block predicting v (clipped to [0, 1]); 0 log 0 = 0."""
    v = min(max(v, 0.0), 1.0)
    out = 0.0
    if pos > 0.0:
        out += pos * np.log(v) if v > 0.0 else -np.inf
    if neg > 0.0:
        out += neg * np.log1p(-v) if v < 1.0 else -np.inf
    return out


@njit(cache=True)
def _old_block_term(S, W, v, gaussian):
    """A block's share of the fit's quality when it predicts v, larger is better.

    Bernoulli: its log-likelihood. Gaussian: v (2 S - W v), which is minus its
    squared error sum_i w_i (y_i - v)^2 up to sum_i w_i y_i^2, a constant of the data.
    Either way S / W, the block's mean, maximises it.
    """
    if gaussian:
        return v * (2.0 * S - W * v)
    return _old_block_loglik(S, W - S, v)


@njit(cache=True)
def _old_group_events(event_lam, rel_tol):
    """Model index of each merge event, and the lambda of each model.

    Model t (t = 0, 1, ..., T) is the fit at the t-th distinct merge lambda, after
    all merges at that lambda (model 0: lam = 0, the pooled responses). Lambdas
    closer than ``rel_tol`` (relative) count as one breakpoint, so that rounding
    cannot split one breakpoint into near-duplicate models.
    """
    n_events = event_lam.shape[0]
    event_model = np.empty(n_events, np.int64)
    t = 0
    last = 0.0
    for k in range(n_events):
        if event_lam[k] > last * (1.0 + rel_tol) + rel_tol:
            t += 1
            last = event_lam[k]
        event_model[k] = t
    model_lam = np.zeros(t + 1, np.float64)
    for k in range(n_events):
        model_lam[event_model[k]] = event_lam[k]  # the last (largest) lambda of the group
    return event_model, model_lam


@njit(cache=True)
def _old_add_block(h, W, S, coef, moving, where, n_moving, static, binned, gaussian):
    """Count block h in the running sums: the moving list if its value moves, else `static`."""
    own = _old_block_term(S[h], W[h], S[h] / W[h], gaussian)
    if coef[h] != 0.0:
        moving[n_moving] = h
        where[h] = n_moving
        n_moving += 1
    else:
        static += own
    return n_moving, static, binned + own


@njit(cache=True)
def _old_path_models(weights, sums, event_left, event_right, event_coef, initial_coef,
                event_model, model_lam, evaluate, gaussian=False):
    """Number of blocks and goodness of fit of every model of the path.

    The goodness of fit is the sum of ``_block_term`` over the blocks: the Bernoulli
    log-likelihood (y in [0, 1]), or with ``gaussian`` minus the squared error up to
    the constant sum_i w_i y_i^2.

    Returns
    -------
    model_blocks : (T + 1,) number of blocks (df) of each model.
    binned_loglik : (T + 1,) goodness of fit with each block at its own mean
        (fraction of positives): the maximum over the model's binning, an upper
        bound on the next one. Kept up to date in O(1) per merge.
    fitted_loglik : (T + 1,) goodness of fit of the near-isotonic values themselves,
        for the models with ``evaluate[t]`` (NaN for the others). Blocks whose value
        moves with lam are re-scored at each evaluated model; the others keep their
        value S / W and sit in a running sum.
    """
    n = weights.shape[0]
    n_events = event_left.shape[0]
    n_models = model_lam.shape[0]
    W = weights.copy()
    S = sums.copy()
    coef = initial_coef.copy()
    moving = np.empty(n, np.int64)
    where = -np.ones(n, np.int64)
    n_moving = 0
    static = 0.0  # fitted log-likelihood of the blocks that do not move
    binned = 0.0  # binned log-likelihood of all blocks
    for h in range(n):
        n_moving, static, binned = _old_add_block(h, W, S, coef, moving, where, n_moving, static,
                                              binned, gaussian)
    model_blocks = np.empty(n_models, np.int64)
    binned_loglik = np.empty(n_models, np.float64)
    fitted_loglik = np.full(n_models, np.nan)
    blocks = n
    k = 0
    for t in range(n_models):
        while k < n_events and event_model[k] == t:
            h, g = event_left[k], event_right[k]
            for b in (h, g):  # take both old blocks out of the sums
                own = _old_block_term(S[b], W[b], S[b] / W[b], gaussian)
                binned -= own
                if where[b] >= 0:
                    last_b = moving[n_moving - 1]
                    moving[where[b]] = last_b
                    where[last_b] = where[b]
                    where[b] = -1
                    n_moving -= 1
                else:
                    static -= own
            W[h] += W[g]
            S[h] += S[g]
            coef[h] = event_coef[k]
            n_moving, static, binned = _old_add_block(h, W, S, coef, moving, where, n_moving,
                                                  static, binned, gaussian)
            blocks -= 1
            k += 1
        model_blocks[t] = blocks
        binned_loglik[t] = binned
        if evaluate[t]:
            total = static
            lam = model_lam[t]
            for i in range(n_moving):
                b = moving[i]
                total += _old_block_term(S[b], W[b], S[b] / W[b] - lam * coef[b], gaussian)
            fitted_loglik[t] = total
    return model_blocks, binned_loglik, fitted_loglik


@njit(cache=True)
def _old_model_average(weights, sums, score_sums, event_left, event_right, event_coef, initial_coef,
                  event_model, model_lam, model_weight):
    """Per-run value of the weighted average of the path's smoothed models.

    Each block's smoothed value (W p + e (1 - |o - e|)) / (W + 1 - |o - e|), with p
    its near-isotonic value, o = S / W its fraction of positives and e its mean
    score (the prior of the authors' code), is linear in lam over the block's life.
    So its weighted sum over the models it lives in needs only prefix sums of the
    model weights w_t and of w_t lam_t; a pass down the merge tree then adds up,
    for every run, the contributions of the blocks that contained it. O(R + T).
    """
    n = weights.shape[0]
    n_events = event_left.shape[0]
    n_models = model_lam.shape[0]
    cum_w = np.zeros(n_models + 1, np.float64)
    cum_wl = np.zeros(n_models + 1, np.float64)
    for t in range(n_models):
        cum_w[t + 1] = cum_w[t] + model_weight[t]
        cum_wl[t + 1] = cum_wl[t] + model_weight[t] * model_lam[t]
    n_nodes = n + n_events
    W = np.empty(n_nodes, np.float64)
    S = np.empty(n_nodes, np.float64)
    X = np.empty(n_nodes, np.float64)
    coef = np.empty(n_nodes, np.float64)
    birth = np.zeros(n_nodes, np.int64)
    death = np.full(n_nodes, n_models, np.int64)
    parent = -np.ones(n_nodes, np.int64)
    node_of = np.arange(n)  # current node of each block head
    for r in range(n):
        W[r], S[r], X[r], coef[r] = weights[r], sums[r], score_sums[r], initial_coef[r]
    for k in range(n_events):
        a, b = node_of[event_left[k]], node_of[event_right[k]]
        node = n + k
        W[node], S[node], X[node] = W[a] + W[b], S[a] + S[b], X[a] + X[b]
        coef[node] = event_coef[k]
        birth[node] = event_model[k]
        death[a] = death[b] = event_model[k]
        parent[a] = parent[b] = node
        node_of[event_left[k]] = node
    acc = np.zeros(n_nodes, np.float64)
    for node in range(n_nodes - 1, -1, -1):  # parents have larger ids than children
        m = S[node] / W[node]
        e = X[node] / W[node]
        strength = 1.0 - abs(m - e)
        denom = W[node] + strength
        alpha = (W[node] * m + e * strength) / denom
        beta = -W[node] * coef[node] / denom
        lo, hi = birth[node], death[node]
        contrib = alpha * (cum_w[hi] - cum_w[lo]) + beta * (cum_wl[hi] - cum_wl[lo])
        acc[node] = contrib + (acc[parent[node]] if parent[node] >= 0 else 0.0)
    return acc[:n]


def _old_score_path_models(weights, sums, events, event_model, model_lam, criterion, margin=75.0):
    n_models, n = model_lam.size, weights.sum()

    def run(evaluate):
        return _old_path_models(weights, sums, *events[1:], event_model, model_lam, evaluate)

    df, binned, _ = run(np.zeros(n_models, np.bool_))
    bound = information_criterion(binned, df, n, criterion)
    if n_models > 1:
        bound[0] = np.inf
    first = np.zeros(n_models, np.bool_)
    first[np.argmin(bound)] = True
    _, _, fitted = run(first)
    best = information_criterion(fitted[first], df[first], n, criterion)[0]
    candidates = bound <= best + margin
    _, _, fitted = run(candidates)
    out = np.full(n_models, np.inf)
    out[candidates] = information_criterion(fitted[candidates], df[candidates], n, criterion)
    out[np.isnan(out)] = np.inf
    return df, out


def old_enir(s, y, w=None, criterion="bic", prune=None, prune_alpha=None):
    """Today's fit before issue 18: (predict function, lambdas, df, scores, weights, run values)."""
    from calibbook._utils.binning import sorted_runs
    from calibbook.calibrators._model_averaging import pruning_alpha, relative_likelihoods

    values, weights, positives = sorted_runs(s, y, w)
    events = _old_near_isotonic_path(weights, positives)
    event_model, lam = _old_group_events(events[0], 1e-12)
    df, scores_ic = _old_score_path_models(weights, positives, events, event_model, lam,
                                           criterion)
    alpha = pruning_alpha(prune, prune_alpha, ENIR._ELBOW_ALPHA)
    model_weight = relative_likelihoods(scores_ic, prune, alpha)
    averaged = _old_model_average(weights, positives, weights * values, *events[1:],
                                  event_model, lam, model_weight)
    run_values = np.clip(averaged, 0.0, 1.0)
    keep = model_weight > 0

    def predict(q, interpolation="linear"):
        q = np.asarray(q, dtype=float)
        if interpolation == "linear":
            return np.interp(q, values, run_values)
        i = np.searchsorted(values, q, side="right") - 1
        return run_values[np.maximum(i, 0)]

    return (predict, lam[keep], df[keep], scores_ic[keep], model_weight[keep], run_values)
