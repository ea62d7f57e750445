"""ENIR and BBQ against brute-force versions written from their definitions."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import gammaln

from calibbook.calibrators.bbq import BBQ, bbq_bin_range
from calibbook.calibrators.enir import ENIR, elbow_keep, information_criterion
from calibbook.calibrators.near_isotonic import near_isotonic_path
from tests._reference.enir_before_issue_18 import old_enir
from tests._support.contract import check_calibrator_contract


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
            ll = np.sum(
                np.where(S > 0, S * np.log(fit), 0.0)
                + np.where(W - S > 0, (W - S) * np.log1p(-fit), 0.0)
            )
        starts = np.flatnonzero(np.concatenate(([True], fit[1:] != fit[:-1])))
        ends = np.append(starts[1:], fit.size)
        smooth = np.empty_like(fit)
        for a, b in zip(starts, ends, strict=True):
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
        lows, highs = [0.0, *cuts], [*cuts, 1.0]
        score, est = 0.0, []
        for (_bs, by, bw), lo, hi in zip(bins, lows, highs, strict=True):
            p = min(max((lo + hi) / 2, clip), 1 - clip)
            n, n1 = bw.sum(), np.sum(bw * by)
            a1, a0 = strength * p, strength * (1 - p)
            score += (
                gammaln(strength)
                - gammaln(n + strength)
                + gammaln(n1 + a1)
                - gammaln(a1)
                + gammaln(n - n1 + a0)
                - gammaln(a0)
            )
            est.append((n1 + a1) / (n + strength))
        models.append((np.array(cuts), np.array(est)))
        log_ml.append(score)
    log_ml = np.array(log_ml)
    wts = np.exp(log_ml - log_ml.max())
    wts /= wts.sum()

    def predict(q):
        return sum(
            wt * est[np.searchsorted(cuts, q, side="right")]
            for wt, (cuts, est) in zip(wts, models, strict=True)
        )

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
    s, y, _w = random_case(5, n_max=400)
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
    [
        dict(criterion="bic"),
        dict(criterion="aic"),
        dict(criterion="aicc"),
        dict(prune="elbow"),
        dict(prune="window", prune_alpha=0.01),
    ],
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
    probe = np.concatenate(
        [
            x,
            0.5 * (x[1:] + x[:-1]),
            np.nextafter(x, 2.0),
            np.nextafter(x, -1.0),
            np.linspace(0, 1, 1001),
        ]
    ).clip(0, 1)
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
