"""ScalingBinning against the authors' package (uncertainty-calibration) and by hand."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from calibbook import HistogramBinning, ScalingBinning
from calibbook.calibrators.scaling_binning import equal_mass_edges, interleaved_split

SETTINGS = settings(max_examples=50, deadline=None)


def sample(n, seed):
    rng = np.random.default_rng(seed)
    p = rng.beta(0.7, 0.7, size=n)
    return p, (rng.uniform(size=n) < p**1.5).astype(float)


def parts_of(cal, p, y):
    """The scores of parts 1, 2, 3 and the labels of part 1."""
    if cal.split == "none":
        return p, y, p, p
    (s1, y1, _), (s2, _, _), (s3, _, _) = interleaved_split(p, y)
    return s1, y1, s2, s3


@pytest.fixture
def tight_authors(monkeypatch):
    """The authors' package, with its logistic regression run to convergence.

    ``get_platt_scaler`` fits scikit-learn's ``LogisticRegression(C=1e10)`` with the default
    tolerance 1e-4, which leaves its probabilities about 1e-4 from the optimum; the test
    tightens that tolerance and changes nothing else of the authors' code.
    """
    calibration = pytest.importorskip("calibration")
    from sklearn.linear_model import LogisticRegression

    class Converged(LogisticRegression):
        def __init__(self, C=1.0, solver="lbfgs"):
            super().__init__(C=C, solver=solver, tol=1e-14, max_iter=100_000)

    monkeypatch.setattr(calibration.utils, "LogisticRegression", Converged)
    return calibration


@pytest.mark.parametrize("split", ["thirds", "none"])
@pytest.mark.parametrize("n,n_bins", [(3001, 10), (1000, 7), (200, 15)])
def test_the_authors_pipeline_on_the_same_parts(tight_authors, split, n, n_bins):
    cal = tight_authors
    p, y = sample(n, n_bins)
    ours = ScalingBinning(n_bins=n_bins, split=split, targets="labels", logit_input=True)
    ours.fit(p, y)
    s1, y1, s2, s3 = parts_of(ours, p, y)
    g = cal.get_platt_scaler(s1, y1)
    bins = cal.get_equal_bins(g(s2), num_bins=n_bins)
    discrete = cal.get_discrete_calibrator(g(s3), bins)
    t = np.random.default_rng(1).uniform(size=2000)
    np.testing.assert_allclose(ours.scaler_.predict(t), g(t), rtol=0, atol=1e-6)
    np.testing.assert_allclose(ours.predict(t), discrete(g(t)), rtol=0, atol=1e-6)
    np.testing.assert_allclose(ours.thresholds_, bins[:-1], rtol=0, atol=1e-6)


@pytest.mark.parametrize("split", ["thirds", "none"])
@pytest.mark.parametrize("n,n_bins", [(3001, 10), (999, 4), (40, 7), (9, 10)])
def test_bins_and_bin_means_are_the_authors_on_our_scaler(split, n, n_bins):
    """Given the same g, the bins are identical (to the bit) and so are the bin means."""
    cal = pytest.importorskip("calibration")
    p, y = sample(n, n)
    ours = ScalingBinning(n_bins=n_bins, split=split, logit_input=True).fit(p, y)
    _, _, s2, s3 = parts_of(ours, p, y)
    g = ours.scaler_.predict
    bins = cal.get_equal_bins(g(s2), num_bins=n_bins)
    reached = ours.thresholds_[np.isfinite(ours.thresholds_)]  # n < B: trailing +inf edges
    np.testing.assert_array_equal(reached, bins[:-1])
    discrete = cal.get_discrete_calibrator(g(s3), bins)
    t = np.random.default_rng(2).uniform(size=500)
    np.testing.assert_allclose(ours.predict(t), discrete(g(t)), rtol=0, atol=1e-12)


def test_the_logistic_scaler_is_the_maximum_likelihood_fit():
    sm = pytest.importorskip("statsmodels.api")
    p, y = sample(2000, 5)
    ours = ScalingBinning(split="none", targets="labels", logit_input=True).fit(p, y)
    z = np.log(p) - np.log1p(-p)
    ref = sm.Logit(y, sm.add_constant(z)).fit(disp=0, tol=1e-12, maxiter=200)
    # our sigmoid is 1 / (1 + exp(a z + b)): a = -slope, b = -intercept
    np.testing.assert_allclose([-ours.scaler_.b_, -ours.scaler_.a_], ref.params, atol=1e-6)


def test_the_default_scaler_is_platt_scaling_on_part_one():
    from calibbook import PlattScaling

    s, y = sample(900, 6)
    ours = ScalingBinning().fit(s, y)
    s1, y1, _ = interleaved_split(s, y)[0]
    ref = PlattScaling().fit(s1, y1)
    assert ours.scaler_.a_ == ref.a_ and ours.scaler_.b_ == ref.b_


def test_a_hand_worked_fit():
    """Nine cases, split none, three bins: the bins hold three g-values each, and each bin
    predicts their mean, whatever the labels in it."""
    s = np.arange(9.0)
    y = np.array([0, 0, 1, 0, 1, 0, 1, 1, 1])
    cal = ScalingBinning(n_bins=3, split="none").fit(s, y)
    g = cal.scaler_.predict(s)
    means = g.reshape(3, 3).mean(axis=1)
    np.testing.assert_allclose(cal.predict(s), np.repeat(means, 3), rtol=1e-15)
    np.testing.assert_allclose(cal.thresholds_, [(g[2] + g[3]) / 2, (g[5] + g[6]) / 2])
    # histogram binning on the same bins predicts the labels' means instead
    hist = HistogramBinning(n_bins=3).fit(s, y)
    assert not np.allclose(hist.predict(s), cal.predict(s))


def test_the_unweighted_split_deals_sorted_rows_in_turn():
    rng = np.random.default_rng(0)
    s = rng.permutation(30).astype(float)
    y = (s > 10).astype(float)
    parts = interleaved_split(s, y)
    for j, (part, _, w) in enumerate(parts):
        assert w is None
        np.testing.assert_array_equal(np.sort(part), np.arange(j, 30, 3))


def test_ties_deal_negatives_before_positives():
    s = np.zeros(6)
    y = np.array([1.0, 0, 1, 0, 1, 0])
    parts = interleaved_split(s, y)
    assert [labels.tolist() for _, labels, _ in parts] == [[0, 1], [0, 1], [0, 1]]


def part_sums(s, y, w):
    """Each part's weight per distinct (score, label) row, which is what the fit reads."""
    out = []
    for part, labels, pw in interleaved_split(s, y, w):
        pw = np.ones(part.size) if pw is None else pw
        keys = {}
        for si, yi, wi in zip(part, labels, pw, strict=True):
            keys[(si, yi)] = keys.get((si, yi), 0.0) + wi
        out.append(keys)
    return out


@SETTINGS
@given(
    st.lists(st.tuples(st.integers(0, 5), st.integers(0, 1), st.integers(0, 4)), min_size=1),
)
def test_integer_weights_split_as_repeated_rows(rows):
    s = np.array([r[0] for r in rows], float)
    y = np.array([r[1] for r in rows], float)
    w = np.array([r[2] for r in rows], float)
    if w.sum() < 3:
        return
    m = w.astype(int)
    assert part_sums(s, y, w) == part_sums(np.repeat(s, m), np.repeat(y, m), None)


@SETTINGS
@given(
    st.lists(st.floats(0.0, 10.0), min_size=1, max_size=30),
    st.integers(0, 2**16),
)
def test_every_part_holds_a_third_of_the_weight_up_to_one_case(w, seed):
    w = np.array(w)
    s = np.random.default_rng(seed).normal(size=w.size)
    total = w.sum()
    if total < np.finfo(float).tiny:
        return  # fit refuses a total below the normal floats (check_sample_weight)
    parts = interleaved_split(s, (s > 0).astype(float), w)
    sums = np.array([pw.sum() for _, _, pw in parts])
    np.testing.assert_allclose(sums.sum(), total, rtol=1e-12)
    assert np.all(np.abs(sums - total / 3) <= 2.0 / 3 + 1e-9 * total)


@SETTINGS
@given(st.integers(1, 60), st.integers(1, 12), st.integers(0, 2**16))
def test_equal_mass_edges_are_array_splits_midpoints(n, n_bins, seed):
    v = np.random.default_rng(seed).uniform(size=n)
    parts = np.array_split(np.sort(v), min(n_bins, n))
    expected = [(a[-1] + b[0]) / 2 for a, b in itertools.pairwise(parts)]
    edges = equal_mass_edges(v, None, n_bins)
    np.testing.assert_array_equal(edges[np.isfinite(edges)], expected)
    # unit weights take the weighted path to the same edges
    np.testing.assert_array_equal(equal_mass_edges(v, np.ones(n), n_bins), edges)


def test_ties_are_never_split():
    v = np.array([1.0, 2, 2, 2, 2, 3, 4, 5])
    # cuts after 2, 4, 6 rows; the first two fall inside the run of 2s, which stays whole
    # in the first bin (the authors' edges, 2 and 2 deduplicated, leave the same partition)
    edges = equal_mass_edges(v, None, 4)
    np.testing.assert_array_equal(edges, [2.5, 2.5, 3.5])


def test_empty_bins_predict_the_midpoint_of_their_edges():
    # split none, with part 3 = part 2: only ties leave a bin empty, and no case reaches it
    s = np.r_[np.zeros(5), np.ones(5)]
    y = np.r_[np.zeros(4), 1, np.zeros(2), np.ones(3)]
    cal = ScalingBinning(n_bins=4, split="none").fit(s, y)
    empty = cal.bin_weights_ == 0
    assert empty.any()
    bounds = np.clip(np.r_[0.0, cal.thresholds_, 1.0], 0, 1)
    np.testing.assert_allclose(cal.step_values_[empty], (0.5 * (bounds[:-1] + bounds[1:]))[empty])


def test_predictions_take_at_most_n_bins_values_and_follow_the_scores():
    s, y = sample(3000, 7)
    cal = ScalingBinning(n_bins=8).fit(s, y)
    t = np.sort(np.random.default_rng(3).uniform(-1, 2, size=1000))
    p = cal.predict(t)
    assert np.unique(p).size <= 8
    assert np.all(np.diff(p) >= 0)  # g increases here, and so do its bin means


def test_parts_weigh_a_third_each():
    s, y = sample(300, 8)
    cal = ScalingBinning().fit(s, y, sample_weight=np.full(300, 2.0))
    np.testing.assert_array_equal(cal.part_weights_, [200.0, 200.0, 200.0])
