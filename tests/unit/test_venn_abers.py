"""Venn-ABERS: the fast algorithm against per-test-point isotonic refits and the venn-abers package,
and its validity by simulation with a known truth."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.isotonic import IsotonicRegression

from calibbook import LowWeightWarning, VennAbers
from calibbook.calibrators.venn_abers import venn_abers_runs


def refit(s, y, w, t, label):
    """The reference: isotonic regression refitted with (t, label) of weight 1, read at t."""
    fit = IsotonicRegression(out_of_bounds="clip", y_min=0.0, y_max=1.0)
    fit.fit(np.append(s, t), np.append(y, label), sample_weight=np.append(w, 1.0))
    return fit.predict([t])[0]


def reference_pairs(s, y, w, tests):
    p0 = np.array([refit(s, y, w, t, 0.0) for t in tests])
    p1 = np.array([refit(s, y, w, t, 1.0) for t in tests])
    return p0, p1


def sample(rng, n, *, ties=False, weights=None):
    s = rng.integers(0, max(n // 3, 2), n).astype(float) if ties else rng.normal(size=n)
    y = (rng.uniform(size=n) < 1.0 / (1.0 + np.exp(-s / 2))).astype(float)
    y[:2] = [0.0, 1.0]
    if weights == "integer":
        w = rng.integers(1, 4, n).astype(float)
    elif weights == "real":
        w = rng.uniform(0.2, 3.0, n)
    else:
        w = np.ones(n)
    return s, y, w


# ---------------------------------------------------------------- the fast algorithm, exactly


@settings(max_examples=50, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(2, 25),
    ties=st.booleans(),
    weights=st.sampled_from([None, "integer", "real"]),
)
def test_runs_equal_isotonic_refit_at_each_run(seed, n, ties, weights):
    rng = np.random.default_rng(seed)
    s, y, w = sample(rng, n, ties=ties, weights=weights)
    knots, inverse = np.unique(s, return_inverse=True)
    p0, p1 = venn_abers_runs(np.bincount(inverse, w), np.bincount(inverse, w * y))
    r0, r1 = reference_pairs(s, y, w, knots)
    np.testing.assert_allclose(p0, r0, rtol=0, atol=1e-12)
    np.testing.assert_allclose(p1, r1, rtol=0, atol=1e-12)


@pytest.mark.filterwarnings("ignore::calibbook.LowWeightWarning")  # a few rows, many blocks
@settings(max_examples=50, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 20), ties=st.booleans())
def test_interval_equals_refit_between_at_and_beyond_training_scores(seed, n, ties):
    rng = np.random.default_rng(seed)
    s, y, w = sample(rng, n, ties=ties, weights="integer")
    knots = np.unique(s)
    mids = 0.5 * (knots[1:] + knots[:-1])
    tests = np.concatenate([knots, mids, [knots[0] - 1.0, knots[-1] + 1.0]])
    p0, p1 = VennAbers().fit(s, y, sample_weight=w).predict_interval(tests)
    r0, r1 = reference_pairs(s, y, w, tests)
    np.testing.assert_allclose(p0, r0, rtol=0, atol=1e-12)
    np.testing.assert_allclose(p1, r1, rtol=0, atol=1e-12)
    assert np.all(p0 <= p1)


def test_hand_worked_case():
    # runs 0, 1, 0, 1. A positive at 0.25 pools with the 0 above it and the 1 before:
    # (1 + 0 + 1) / 3; a negative pools with the 1 below it and the 0 after: (1 + 0 + 0) / 3.
    cal = VennAbers().fit([0.1, 0.2, 0.3, 0.4], [0, 1, 0, 1])
    p0, p1 = cal.predict_interval([0.25, 0.0, 0.5])
    np.testing.assert_allclose(p0, [1 / 3, 0.0, 0.5], atol=1e-15)
    np.testing.assert_allclose(p1, [2 / 3, 0.5, 1.0], atol=1e-15)
    # merged p1 / (1 - p0 + p1): (2/3) / (4/3) = 1/2
    assert cal.predict([0.25])[0] == pytest.approx(0.5, abs=1e-15)
    # Brier merge p1 + (p0^2 - p1^2) / 2 = 2/3 + (1/9 - 4/9) / 2 = 1/2
    assert VennAbers(loss="brier").fit([0.1, 0.2, 0.3, 0.4], [0, 1, 0, 1]).predict([0.25])[
        0
    ] == pytest.approx(0.5, abs=1e-15)


@pytest.mark.parametrize("loss", ["log", "brier"])
def test_merged_probability_lies_in_the_pair(loss):
    s, y, _ = sample(np.random.default_rng(3), 200)
    cal = VennAbers(loss=loss).fit(s, y)
    t = np.linspace(-4, 4, 101)
    p0, p1 = cal.predict_interval(t)
    p = cal.predict(t)
    assert np.all(p0 <= p + 1e-15) and np.all(p <= p1 + 1e-15)


def test_only_the_order_of_the_scores_matters():
    s, y, _ = sample(np.random.default_rng(4), 300, ties=True)
    t = np.linspace(-2, 120, 57)
    a = VennAbers().fit(s, y)
    b = VennAbers().fit(np.exp(s / 10) * 1e6, y)  # increasing, far from affine
    np.testing.assert_array_equal(
        np.column_stack(a.predict_interval(t)),
        np.column_stack(b.predict_interval(np.exp(t / 10) * 1e6)),
    )


def test_a_rounding_error_does_not_move_a_score_off_its_tie():
    s, y, _ = sample(np.random.default_rng(9), 100, ties=True)
    cal = VennAbers().fit(s, y)
    knots = np.unique(s)
    for moved in (np.nextafter(knots, -np.inf), np.nextafter(knots, np.inf)):
        np.testing.assert_array_equal(
            np.column_stack(cal.predict_interval(moved)),
            np.column_stack(cal.predict_interval(knots)),
        )
    # copies of one score an ulp apart are one run
    jittered = VennAbers().fit(np.nextafter(s, np.where(np.arange(100) % 2, np.inf, -np.inf)), y)
    np.testing.assert_array_equal(
        np.column_stack(jittered.predict_interval(knots)),
        np.column_stack(cal.predict_interval(knots)),
    )


def test_weights_total_matters_as_frequencies():
    # the test case has weight 1: doubling every weight doubles the calibration data
    s, y, _ = sample(np.random.default_rng(5), 50)
    one = VennAbers().fit(s, y).predict_interval([0.0])
    two = VennAbers().fit(s, y, sample_weight=np.full(50, 2.0)).predict_interval([0.0])
    rep = VennAbers().fit(np.repeat(s, 2), np.repeat(y, 2)).predict_interval([0.0])
    np.testing.assert_allclose(np.ravel(two), np.ravel(rep), atol=1e-12)
    assert two[1][0] - two[0][0] < one[1][0] - one[0][0]


def test_tiny_weight_total_warns():
    s, y, _ = sample(np.random.default_rng(6), 20)
    with pytest.warns(LowWeightWarning, match="VennAbers"):
        VennAbers().fit(s, y, sample_weight=np.full(20, 0.01))
    with warnings.catch_warnings():
        warnings.simplefilter("error", LowWeightWarning)
        VennAbers().fit(s, y, sample_weight=np.full(20, 10.0))


def test_bad_input_to_the_runs_helper_raises():
    with pytest.raises(ValueError, match="weight must be > 0"):
        venn_abers_runs([1.0, 0.0], [0.0, 0.0])
    with pytest.raises(ValueError, match="positive weight must lie"):
        venn_abers_runs([1.0, 1.0], [0.0, 2.0])


def test_more_folds_than_rows_raises():
    with pytest.raises(ValueError, match="cv=5 folds"):
        VennAbers(cv=5).fit([0.1, 0.5, 0.9], [0, 1, 1])


# ---------------------------------------------------------------- the oracle: venn-abers


@pytest.mark.parametrize("ties", [False, True])
def test_equals_the_venn_abers_package(ties):
    venn_abers = pytest.importorskip("venn_abers")
    rng = np.random.default_rng(7)
    p = rng.beta(2, 2, 500)
    if ties:
        p = np.round(p, 2)
    y = (rng.uniform(size=500) < p).astype(int)
    t = np.concatenate([rng.uniform(size=300), p[:50], [0.0, 1.0]])
    oracle = venn_abers.VennAbers().fit(np.column_stack([1 - p, p]), y)
    merged, pair = oracle.predict_proba(np.column_stack([1 - t, t]))
    cal = VennAbers().fit(p, y)
    p0, p1 = cal.predict_interval(t)
    np.testing.assert_allclose(p0, pair[:, 0], atol=1e-6)
    np.testing.assert_allclose(p1, pair[:, 1], atol=1e-6)
    np.testing.assert_allclose(cal.predict(t), merged[:, 1], atol=1e-6)


@pytest.mark.parametrize("loss", ["log", "brier"])
def test_cross_venn_abers_merges_fold_ivaps_as_the_package(loss):
    venn_abers = pytest.importorskip("venn_abers")
    rng = np.random.default_rng(8)
    p = rng.beta(2, 2, 400)
    y = (rng.uniform(size=400) < p).astype(float)
    t = rng.uniform(size=100)
    cal = VennAbers(cv=4, loss=loss, random_state=0).fit(p, y)
    folds = VennAbers(cv=4, random_state=0)._folds(p, y, None)
    assert sorted(np.concatenate([f[0] for f in folds])) == sorted(p)
    pairs = []
    for s_k, y_k, _ in folds:
        va = venn_abers.VennAbers().fit(np.column_stack([1 - s_k, s_k]), y_k.astype(int))
        pairs.append(va.predict_proba(np.column_stack([1 - t, t]))[1])
    q0 = np.column_stack([q[:, 0] for q in pairs])
    q1 = np.column_stack([q[:, 1] for q in pairs])
    p0, p1 = cal.predict_interval(t)
    np.testing.assert_allclose(p0, q0, atol=1e-6)
    np.testing.assert_allclose(p1, q1, atol=1e-6)
    # the package's CVAP merge (VennAbersCV.predict_proba), written out
    if loss == "log":
        g1 = np.prod(q1, axis=1) ** 0.25
        expected = g1 / (np.prod(1 - q0, axis=1) ** 0.25 + g1)
    else:
        expected = np.mean(q1 + 0.5 * q0**2 - 0.5 * q1**2, axis=1)
    np.testing.assert_allclose(cal.predict(t), expected, atol=1e-6)


# ---------------------------------------------------------------- validity (acceptance 2)


def _simulate(n_reps=4000, n_cal=200, seed=11):
    """Independent replicas: a calibration set and one test case, truth P(y=1|s) = sigmoid(s)."""
    rng = np.random.default_rng(seed)
    merged, p_true_label, p0s, p1s, labels = [], [], [], [], []
    for _ in range(n_reps):
        s = rng.normal(0.0, 2.0, n_cal + 1)
        y = (rng.uniform(size=n_cal + 1) < 1.0 / (1.0 + np.exp(-s))).astype(float)
        cal = VennAbers().fit(s[:-1], y[:-1])
        p0, p1 = cal.predict_interval(s[-1:])
        merged.append(cal.predict(s[-1:])[0])
        p0s.append(p0[0])
        p1s.append(p1[0])
        p_true_label.append(p1[0] if y[-1] == 1 else p0[0])
        labels.append(y[-1])
    return tuple(map(np.asarray, (merged, p_true_label, p0s, p1s, labels)))


@pytest.fixture(scope="module")
def simulation():
    return _simulate()


def _within_binomial_bands(forecast, labels, z=3.29):
    """Ten bins of the forecast: the frequency of positives within z binomial sds of the mean."""
    edges = np.linspace(0, 1, 11)
    index = np.clip(np.searchsorted(edges, forecast, side="right") - 1, 0, 9)
    checked = 0
    for k in range(10):
        inside = index == k
        m = np.count_nonzero(inside)
        if m < 50:
            continue
        mean = forecast[inside].mean()
        sd = np.sqrt(max(mean * (1 - mean), 1e-3) / m)
        assert abs(labels[inside].mean() - mean) <= z * sd, (k, m, labels[inside].mean(), mean)
        checked += 1
    return checked


def test_merged_probability_is_calibrated_in_bins(simulation):
    # not a theorem: the merge is pulled towards 1/2 (p0 <= p <= p1). At 200 calibration cases
    # and 4000 replicas its bias stays inside the bands; 20000 replicas resolve it in the
    # outermost bins (under-confident, about 4 binomial sds), while p_Y stays inside.
    merged, _, _, _, labels = simulation
    assert _within_binomial_bands(merged, labels) >= 8


def test_probability_of_the_true_label_is_calibrated(simulation):
    # the theorem: P(Y = 1 | p_Y) = p_Y, p_Y = p1 if Y = 1 else p0
    _, p_y, _, _, labels = simulation
    assert _within_binomial_bands(p_y, labels) >= 8


def test_pair_brackets_the_frequency_of_positives(simulation):
    # E[p0] <= E[p_Y] = P(Y = 1) <= E[p1]; and p0 <= p1 everywhere
    _, _, p0, p1, labels = simulation
    assert np.all(p0 <= p1)
    sd = np.sqrt(0.25 / labels.size)
    assert p0.mean() - 3.29 * sd <= labels.mean() <= p1.mean() + 3.29 * sd


def test_fit_on_aggregated_rows_equals_fit_on_raw_rows():
    # what calibbook.distributed relies on: (score, label) rows with their counts as weights
    s, y, _ = sample(np.random.default_rng(10), 400, ties=True)
    rows, counts = np.unique(np.column_stack([s, y]), axis=0, return_counts=True)
    raw = VennAbers().fit(s, y)
    aggregated = VennAbers().fit(rows[:, 0], rows[:, 1], sample_weight=counts)
    t = np.linspace(s.min() - 1, s.max() + 1, 301)
    for a, b in zip(raw.predict_interval(t), aggregated.predict_interval(t), strict=True):
        np.testing.assert_allclose(a, b, rtol=0, atol=1e-12)


@pytest.mark.parametrize("cv", [None, 3])
def test_walk_over_sorted_scores_equals_the_search_per_score(monkeypatch, cv):
    """Against many runs, predict sorts the scores and walks the runs once; the pairs are the
    ones the search per score gives (run starts, near ties, scores beyond both ends)."""
    import calibbook.calibrators.venn_abers as module

    rng = np.random.default_rng(7)
    s = np.round(rng.normal(size=600), 2)  # ties, and runs of several rows
    y = (rng.uniform(size=600) < 1 / (1 + np.exp(-s))).astype(float)
    model = VennAbers(cv=cv, random_state=0).fit(s, y)
    edges = np.concatenate([k[:, 0] for k in model.knots_] + [k[:, 1] for k in model.knots_])
    q = np.concatenate([s, edges, np.nextafter(edges, np.inf), rng.normal(size=200) * 4])
    searched = model.predict_interval(q)
    monkeypatch.setattr(module, "_LARGE_TABLE", 4)
    walked = model.predict_interval(q)
    for a, b in zip(walked, searched, strict=True):
        np.testing.assert_array_equal(a, b)
