"""HistogramBinning against a brute-force binning written from the definitions."""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from calibbook.calibrators.histogram_binning import HistogramBinning, auto_n_bins
from tests._support.contract import check_calibrator_contract


def brute_nearest_fill(est, weight):
    out = est.copy()
    full = [k for k in range(len(est)) if weight[k] > 0]
    for k in range(len(est)):
        if weight[k] > 0:
            continue
        d = min(abs(k - j) for j in full)
        nearest = [est[j] for j in full if abs(k - j) == d]
        out[k] = np.mean(nearest)
    return out


def brute_midpoint(a, b):
    """A cut strictly between scores a < b: their midpoint, else b (adjacent floats)."""
    m = 0.5 * a + 0.5 * b
    return m if m > a else b


LOW_WEIGHT = "ignore::calibbook._utils.weights.LowWeightWarning"

#: The documented slack of equal-width edges: a training score this close to k/B is "on" it.
SLACK = 16 * np.finfo(float).eps


def exact_share_edges(s, w, n_bins):
    """Equal-frequency edges in exact arithmetic: the smallest score with W(below) >= k W / K."""
    wf = [Fraction(v) for v in w]
    total = sum(wf)
    edges = []
    for k in range(1, n_bins):
        cand = [
            v
            for v in s
            if sum(wj for wj, sj in zip(wf, s, strict=True) if sj < v) * n_bins >= k * total
        ]
        edges.append(min(cand) if cand else np.inf)
    return np.array(edges)


def brute_histogram_binning(s, y, w, n_bins, strategy, prior=0.0):
    """Edges and per-bin estimates straight from the definitions (O(N^2)).

    The rows fall in the papers' bins (equal-frequency, or [k/K, (k+1)/K) with k/K the
    nearest float). The step map's edges: quantile, each finite edge moves down to the
    midpoint with the largest score below it; uniform, k/K clipped to [a + SLACK, b - SLACK]
    with a < k/K <= b the neighbouring training scores, or their midpoint if closer.
    """
    keep = w > 0
    s, y, w = s[keep], y[keep], w[keep]
    if strategy == "uniform":
        paper_edges = np.array([float(Fraction(k, n_bins)) for k in range(1, n_bins)])
    else:
        paper_edges = exact_share_edges(s, w, n_bins)

    def paper_bin(x):
        return sum(e <= x for e in paper_edges)

    ids = np.array([paper_bin(v) for v in s], dtype=int)
    if strategy == "quantile":  # each finite edge: midpoint with the largest score below it
        edges = np.array(
            [e if not np.isfinite(e) else brute_midpoint(s[s < e].max(), e) for e in paper_edges]
        )
    else:
        edges = []
        for e in paper_edges:
            a = s[s < e].max() if (s < e).any() else -np.inf
            b = s[s >= e].min() if (s >= e).any() else np.inf
            lo, hi = a + SLACK, b - SLACK
            edges.append(min(max(e, lo), hi) if lo <= hi else brute_midpoint(a, b))
        edges = np.array(edges)

    def bin_of(x):
        return sum(e <= x for e in edges)

    assert [bin_of(v) for v in s] == ids.tolist()  # the training rows keep the papers' bins
    weight, pos = np.zeros(n_bins), np.zeros(n_bins)
    for k, yi, wi in zip(ids, y, w, strict=True):
        weight[k] += wi
        pos[k] += wi * yi
    rate = pos.sum() / weight.sum()
    with np.errstate(invalid="ignore", divide="ignore"):
        est = (pos + prior * rate) / (weight + prior)
    est = brute_nearest_fill(est, weight)

    def predict(xs):
        return np.array([est[bin_of(x)] for x in xs])

    return np.asarray(edges, dtype=float), weight, est, predict


@st.composite
def calibration_data(draw):
    n = draw(st.integers(2, 50))
    if draw(st.booleans()):
        values = st.sampled_from([0.0, 0.05, 0.3, 0.31, 0.5, 0.8, 1.0])
        pool = draw(st.lists(values, min_size=1, max_size=5))
        s = np.array(draw(st.lists(st.sampled_from(pool), min_size=n, max_size=n)))
    else:
        s = np.array(draw(st.lists(st.floats(0, 1), min_size=n, max_size=n)))
    y = np.array(draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)), dtype=float)
    y[0], y[1] = 0, 1
    w = np.array(draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)), dtype=float)
    w[0] = w[1] = 1
    if draw(st.booleans()):
        w = np.ones(n)
    return s, y, w


@pytest.mark.parametrize("strategy", ["quantile", "uniform"])
@pytest.mark.filterwarnings(LOW_WEIGHT)
@settings(max_examples=150, deadline=None)
@given(data=calibration_data(), n_bins=st.integers(1, 12), prior=st.sampled_from([0.0, 2.0]))
def test_matches_brute_force(strategy, data, n_bins, prior):
    s, y, w = data
    cal = HistogramBinning(n_bins=n_bins, strategy=strategy, prior_strength=prior).fit(s, y, w)
    edges, weight, est, predict = brute_histogram_binning(s, y, w, n_bins, strategy, prior)
    np.testing.assert_array_equal(cal.thresholds_, edges)
    np.testing.assert_allclose(cal.bin_weights_, weight)
    np.testing.assert_allclose(cal.step_values_, est, atol=1e-12)
    probe = np.concatenate([s, np.linspace(0, 1, 23)])
    np.testing.assert_allclose(cal.predict(probe), predict(probe), atol=1e-12)


@pytest.mark.parametrize("strategy", ["quantile", "uniform"])
@pytest.mark.filterwarnings(LOW_WEIGHT)
@settings(max_examples=80, deadline=None)
@given(data=calibration_data(), n_bins=st.integers(1, 12))
def test_integer_weights_equal_repeated_rows(strategy, data, n_bins):
    s, y, w = data
    reps = w.astype(int)
    a = HistogramBinning(n_bins=n_bins, strategy=strategy).fit(s, y, w)
    b = HistogramBinning(n_bins=n_bins, strategy=strategy)
    b.fit(np.repeat(s, reps), np.repeat(y, reps))
    np.testing.assert_array_equal(a.thresholds_, b.thresholds_)
    np.testing.assert_allclose(a.step_values_, b.step_values_, atol=1e-12)


@settings(max_examples=80, deadline=None)
@given(data=calibration_data(), n_bins=st.integers(1, 12))
def test_quantile_bins_never_split_ties(data, n_bins):
    s, y, _w = data
    cal = HistogramBinning(n_bins=n_bins).fit(s, y)
    ids = np.searchsorted(cal.thresholds_, s, side="right")
    for v in np.unique(s):
        assert np.unique(ids[s == v]).size == 1


def test_quantile_bins_equal_frequency_on_distinct_scores():
    rng = np.random.default_rng(0)
    s = rng.normal(size=1000)  # any real scores are fine for quantile bins
    cal = HistogramBinning(n_bins=10).fit(s, (s + rng.normal(size=1000) > 0).astype(int))
    assert (cal.bin_weights_ == 100).all()


def test_auto_bins_is_cube_root():
    assert [auto_n_bins(n) for n in (1, 7, 8, 1000, 1_000_000)] == [1, 2, 2, 10, 100]
    rng = np.random.default_rng(1)
    s = rng.uniform(size=1000)
    assert HistogramBinning().fit(s, (s > 0.5).astype(int)).n_bins_ == 10


def test_empty_uniform_bin_predicts_nearest_non_empty_bin():
    # bins of width 0.2; data only in bins 0 and 3
    s = np.array([0.05, 0.1, 0.65, 0.7])
    y = np.array([0, 0, 1, 1])
    cal = HistogramBinning(n_bins=5, strategy="uniform").fit(s, y)
    assert cal.bin_weights_.tolist() == [2, 0, 0, 2, 0]
    # bin 1 is nearer bin 0, bin 2 nearer bin 3, bin 4 nearer bin 3
    assert cal.predict([0.3, 0.5, 0.9]).tolist() == [0.0, 1.0, 1.0]
    halfway = HistogramBinning(n_bins=3, strategy="uniform").fit([0.1, 0.9], [0, 1])
    assert halfway.predict([0.5]).tolist() == [0.5]


def test_hand_worked_example():
    cal = HistogramBinning(n_bins=2).fit([0.1, 0.2, 0.7, 0.9], [0, 1, 1, 1])
    # the paper's edge is 0.7, the smallest score of the upper bin; the step map cuts at
    # the midpoint of 0.2 and 0.7 instead
    np.testing.assert_allclose(cal.thresholds_, [0.45], rtol=1e-15)
    probe = [0.15, 0.44, 0.46, 0.8, -5.0, 5.0]
    assert cal.predict(probe).tolist() == [0.5, 0.5, 1.0, 1.0, 0.5, 1.0]


def test_uniform_edges_by_hand():
    # K = 5: bins [0, .2), [.2, .4), ...; rows in bins 0, 1 and 4, bins 2 and 3 empty.
    # 0.2 sits on the edge 1/5 and stays in bin 1; the edge moves just below it.
    s = np.array([0.05, 0.1, 0.2, 0.3, 0.9])
    cal = HistogramBinning(n_bins=5, strategy="uniform").fit(s, [0, 0, 1, 0, 1])
    assert cal.bin_weights_.tolist() == [2, 2, 0, 0, 1]
    assert cal.thresholds_.tolist() == [0.2 - SLACK, 0.4, 0.6, 0.8]
    assert cal.predict([0.2, 0.2 * (1 - 4e-16), 0.1, 0.1 * (1 + 4e-16)]).tolist() == [
        0.5,
        0.5,
        0.0,
        0.0,
    ]
    # new scores in the gaps get the textbook bins: 0.16 in bin 0, 0.62 in the empty bin 3,
    # which borrows from bin 4 (nearer than bin 1)
    assert cal.predict([0.16, 0.39, 0.41, 0.62]).tolist() == [0.0, 0.5, 0.5, 1.0]


def test_uniform_edge_moves_only_for_a_training_score_on_it():
    # 0.30000000000000004 (3 * 0.1) is in bin 3 of 10, above the edge 0.3: the edge moves
    # below it, so the float 0.3 and the score one ulp under it follow the training row
    s = np.array([0.05, 3 * 0.1, 0.55, 0.95])
    cal = HistogramBinning(n_bins=10, strategy="uniform").fit(s, [0, 1, 0, 1])
    expected = np.arange(1, 10) / 10
    expected[2] = 3 * 0.1 - SLACK
    assert cal.thresholds_.tolist() == expected.tolist()
    for near in (0.3, np.nextafter(0.3, 0), 3 * 0.1, np.nextafter(3 * 0.1, 1)):
        assert cal.predict([near]).tolist() == [1.0]
    # a score just below the edge keeps it just above itself: 0.6 - 1 ulp is in bin 5
    below = np.nextafter(0.6, 0)
    cal = HistogramBinning(n_bins=10, strategy="uniform").fit([0.05, below, 0.95], [1, 0, 1])
    assert cal.thresholds_[5] == below + SLACK
    assert cal.predict([0.6, below]).tolist() == [0.0, 0.0]


@st.composite
def scores_on_and_off_edges(draw):
    """Training data for B equal-width bins: scores on k/B, near it, and anywhere in [0, 1]."""
    n_bins = draw(st.integers(1, 40))
    n = draw(st.integers(2, 40))
    k = np.array(draw(st.lists(st.integers(0, n_bins), min_size=n, max_size=n)))
    kind = np.array(draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)))
    anywhere = np.array(draw(st.lists(st.floats(0, 1), min_size=n, max_size=n)))
    on = k / n_bins
    s = np.select(
        [kind == 0, kind == 1, kind == 2],
        [on, np.nextafter(on, 0.0), np.clip(k * (1.0 / n_bins), 0, 1)],  # linspace's k/B
        anywhere,
    )
    y = np.array(draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)), dtype=float)
    y[0], y[1] = 0, 1
    return s, y, n_bins


def exact_uniform_bin(x, n_bins):
    """#{k >= 1 : k/B <= x} with k/B the nearest float, in exact arithmetic."""
    return sum(Fraction(float(Fraction(k, n_bins))) <= Fraction(x) for k in range(1, n_bins))


@settings(max_examples=60, deadline=None)
@given(data=scores_on_and_off_edges(), seed=st.integers(0, 2**32 - 1))
def test_uniform_map_is_the_binning_on_fixed_edges(data, seed):
    """Rows, and new scores farther than the slack from every k/B, take the bins of k/B."""
    s, y, n_bins = data
    cal = HistogramBinning(n_bins=n_bins, strategy="uniform").fit(s, y)
    ids = [exact_uniform_bin(v, n_bins) for v in s]
    np.testing.assert_array_equal(cal.bin_weights_, np.bincount(ids, minlength=n_bins))
    np.testing.assert_array_equal(cal.predict(s), cal.step_values_[ids])
    rng = np.random.default_rng(seed)
    edges = np.arange(1, n_bins) / n_bins
    new = np.concatenate([rng.uniform(size=100), edges, edges + 2 * SLACK, edges - 2 * SLACK])
    off = np.array([np.all(np.abs(v - edges) > SLACK) for v in new], dtype=bool)
    new = new[off]
    expected = cal.step_values_[[exact_uniform_bin(v, n_bins) for v in new]]
    np.testing.assert_array_equal(cal.predict(new), expected)
    # the edges themselves move only where a training score lies within the slack
    near = np.array([np.any(np.abs(s - e) <= SLACK) for e in edges], dtype=bool)
    np.testing.assert_array_equal(cal.thresholds_[~near], edges[~near])


@settings(max_examples=60, deadline=None)
@given(data=calibration_data(), n_bins=st.integers(1, 12), seed=st.integers(0, 2**32 - 1))
def test_quantile_map_puts_a_new_score_in_the_bin_of_the_nearer_training_score(data, n_bins, seed):
    """Quantile edges are midpoints: a new score in a gap takes its nearer neighbour's bin."""
    s, y, _ = data
    cal = HistogramBinning(n_bins=n_bins).fit(s, y)
    paper = exact_share_edges(s, np.ones(s.size), n_bins)
    values = np.unique(s)
    bins = np.array([np.sum(paper <= v) for v in values])  # the papers' bin of each score
    rng = np.random.default_rng(seed)
    gaps = 0.5 * values[1:] + 0.5 * values[:-1]
    new = np.concatenate([rng.uniform(-0.5, 1.5, 200), gaps - 1e-9, gaps + 1e-9])
    d = np.sort(np.abs(new[:, None] - values[None, :]), axis=1)
    clear = np.ones(new.size, bool) if values.size == 1 else d[:, 1] - d[:, 0] > 1e-12
    new = new[clear]  # no score halfway between two training scores, up to rounding
    if new.size == 0:  # training scores a rounding apart (0 and 1e-100): every probe is halfway
        return
    nearest = np.abs(new[:, None] - values[None, :]).argmin(axis=1)
    np.testing.assert_array_equal(cal.predict(new), cal.step_values_[bins[nearest]])


def test_uniform_rejects_scores_outside_unit_interval_with_advice():
    with pytest.raises(ValueError, match=r"\[0, 1\].*sigmoid"):
        HistogramBinning(strategy="uniform").fit([-1.0, 0.5, 2.0], [0, 1, 1])


@pytest.mark.parametrize(
    "params,message",
    [
        (dict(n_bins=0), "n_bins"),
        (dict(n_bins="many"), "n_bins"),
        (dict(n_bins=2.5), "n_bins"),
        (dict(strategy="kmeans"), "strategy"),
        (dict(prior_strength=-1.0), "prior_strength"),
        (dict(prior_strength=np.nan), "prior_strength"),
    ],
)
def test_bad_parameters(params, message):
    with pytest.raises(ValueError, match=message):
        HistogramBinning(**params).fit([0.1, 0.5, 0.9], [0, 1, 1])


@pytest.mark.parametrize("strategy", ["quantile", "uniform"])
def test_contract(strategy):
    rng = np.random.default_rng(2)
    s = rng.uniform(size=200)
    y = (rng.uniform(size=200) < s).astype(int)
    check_calibrator_contract(HistogramBinning(n_bins=7, strategy=strategy), s, y)


@st.composite
def grid_scores(draw, lo=0.0, hi=1.0):
    """Scores from a grid (so ties are common and distinct scores lie far apart) and labels."""
    n = draw(st.integers(2, 40))
    steps = draw(st.sampled_from([4, 10, 1000]))
    k = np.array(draw(st.lists(st.integers(0, steps), min_size=n, max_size=n)))
    s = lo + (hi - lo) * k / steps
    y = np.array(draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)), dtype=float)
    y[0], y[1] = 0, 1
    return s, y


def perturbed(s, lo=-np.inf, hi=np.inf):
    """The scores times (1 - 4e-16) and (1 + 4e-16): a rounding-level change, as between a
    classifier's decision_function on a batch and on one row."""
    return [np.clip(s * (1.0 - 4e-16), lo, hi), np.clip(s * (1.0 + 4e-16), lo, hi)]


@pytest.mark.parametrize("strategy", ["quantile", "uniform"])
@settings(max_examples=150, deadline=None)
@given(data=st.data(), n_bins=st.integers(1, 12))
def test_rounding_never_moves_a_training_score_to_another_bin(strategy, data, n_bins):
    if strategy == "uniform":
        s, y = data.draw(grid_scores())
        bounds = (0.0, 1.0)
    else:
        s, y = data.draw(grid_scores(lo=-7.3, hi=5.1))  # any real scores
        bounds = (-np.inf, np.inf)
    cal = HistogramBinning(n_bins=n_bins, strategy=strategy).fit(s, y)
    assert not np.isin(cal.thresholds_, s).any()  # no edge on a training score
    at_scores = cal.predict(s)
    for moved in perturbed(s, *bounds):
        np.testing.assert_array_equal(cal.predict(moved), at_scores)


def test_issue_reproduction_row_alone_equals_batch():
    """Issue 17, item 4: a row predicted alone differed from the batch by up to 0.24."""
    from sklearn.linear_model import LogisticRegression

    from calibbook import CalibratedClassifier

    r = np.random.RandomState(0)
    X = 3 * r.uniform(size=(60, 3))
    y = X[:, 0] + r.normal(size=60) > 1.5
    clf = CalibratedClassifier(LogisticRegression(), method="histogram", cv=3).fit(X, y)
    batch = clf.predict_proba(X)[:, 1]
    assert clf.predict_proba(X[35:36])[0, 1] == batch[35]
    alone = np.array([clf.predict_proba(X[i : i + 1])[0, 1] for i in range(len(X))])
    np.testing.assert_array_equal(alone, batch)
    # the cause, whatever the BLAS: an edge on a score of the calibration fold
    for pair in clf.calibrated_classifiers_:
        edges = pair.calibrators[0].thresholds_
        assert not np.isin(edges, pair.estimator.decision_function(X)).any()


def test_constructor_is_keyword_only():
    with pytest.raises(TypeError):
        HistogramBinning(10)
