"""Consistency bands: exact redraws, nominal coverage, the bins of reliability_curve, weights."""

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from calibbook._utils.binning import uniform_edges
from calibbook.metrics import reliability_curve
from calibbook.metrics._consistency_bands import (
    _distinct_positions,
    _resampled_positives,
    consistency_bands,
)


# ---------------------------------------------------------------- references, written plainly
def poisson_binomial_pmf(p):
    """P(sum of independent Bernoulli(p_i) = s), s = 0..n, by repeated convolution."""
    pmf = np.array([1.0])
    for pi in p:
        pmf = np.convolve(pmf, [1.0 - pi, pi])
    return pmf


def weighted_sum_distribution(p, w):
    """Exact law {value: probability} of sum_i w_i Bernoulli(p_i), one row at a time."""
    law = {0.0: 1.0}
    for pi, wi in zip(p, w, strict=True):
        step = {}
        for value, prob in law.items():
            for v, q in ((value, prob * (1.0 - pi)), (round(value + wi, 9), prob * pi)):
                step[v] = step.get(v, 0.0) + q
        law = step
    return law


def chi_square_pvalue(observed, expected):
    """Pearson's test after pooling cells (in order) until each expects at least 5."""
    pooled_obs, pooled_exp, o, e = [], [], 0.0, 0.0
    for oi, ei in zip(observed, expected, strict=True):
        o, e = o + oi, e + ei
        if e >= 5:
            pooled_obs.append(o)
            pooled_exp.append(e)
            o, e = 0.0, 0.0
    pooled_obs[-1] += o
    pooled_exp[-1] += e
    return stats.chisquare(pooled_obs, pooled_exp).pvalue


def draws_match_law(draws, support, probs):
    """p-value of the draws against the law ``probs`` on the sorted values ``support``."""
    support = np.asarray(support, dtype=float)
    i = np.clip(np.searchsorted(support, draws), 1, support.size - 1)
    nearest = np.where(draws - support[i - 1] < support[i] - draws, i - 1, i)
    assert np.all(np.abs(support[nearest] - draws) < 1e-7)  # every draw is a possible value
    counts = np.bincount(nearest, minlength=support.size)
    return chi_square_pvalue(counts, np.asarray(probs) * len(draws))


# ---------------------------------------------------------------- the redraws are exact
R_EXACT = 20_000


@pytest.mark.parametrize("case", ["distinct", "ties and extremes", "integer weights"])
def test_redrawn_counts_follow_the_poisson_binomial_law(case):
    # 200 trials in one bin: the grouped sampler (groups, B rows, heavy atoms) is used
    rng = np.random.default_rng(1)
    if case == "distinct":
        p, w = rng.uniform(size=200), np.ones(200)
    elif case == "ties and extremes":
        p = np.concatenate((rng.choice([0.0, 0.03, 0.5, 0.51, 1.0], 100), rng.uniform(size=100)))
        w = np.ones(200)
    else:
        p, w = rng.uniform(size=60), rng.integers(0, 7, 60).astype(float)
        w[:3] = 40.0  # atoms heavier than a group: a binomial of their own
    draws = _resampled_positives(p, w, uniform_edges(1), 1, R_EXACT, np.random.default_rng(2))
    pmf = poisson_binomial_pmf(np.repeat(p, w.astype(int)))
    support = np.arange(pmf.size)
    assert draws_match_law(draws[:, 0], support, pmf) > 1e-3
    # first two moments, within 5 standard errors
    mean, var = np.sum(support * pmf), np.sum(support**2 * pmf) - np.sum(support * pmf) ** 2
    assert abs(draws.mean() - mean) < 5 * math.sqrt(var / R_EXACT)
    assert abs(draws.var() / var - 1) < 5 * math.sqrt(2 / R_EXACT)


def test_redrawn_bins_are_exact_and_independent():
    rng = np.random.default_rng(3)
    p = rng.uniform(size=400)
    edges = uniform_edges(4)
    draws = _resampled_positives(p, np.ones(400), edges, 4, R_EXACT, np.random.default_rng(4))
    bins = np.searchsorted(edges, p, side="right")
    for k in range(4):
        pmf = poisson_binomial_pmf(p[bins == k])
        assert draws_match_law(draws[:, k], np.arange(pmf.size), pmf) > 1e-3
    corr = np.corrcoef(draws.T)[np.triu_indices(4, 1)]
    assert np.all(np.abs(corr) < 5 / math.sqrt(R_EXACT))


def test_fractional_weights_follow_the_law_of_their_definition():
    # weight w: floor(w) rows plus one row counted w - floor(w); class weights go grouped
    rng = np.random.default_rng(5)
    p = rng.uniform(size=150)
    w = np.where(np.arange(150) < 100, 0.5, 1.5)  # 150 rows share the fraction 0.5
    draws = _resampled_positives(p, w, uniform_edges(1), 1, R_EXACT, np.random.default_rng(6))
    # twice the sum is an integer: a 1.5 row gives 2 Bernoulli + 1 Bernoulli, 0.5 gives 1
    law = np.array([1.0])
    for pi, wi in zip(p, w, strict=True):
        law = np.convolve(law, [1 - pi, pi])  # the fractional part, counted 0.5
        if wi > 1:
            law = np.convolve(law, [1 - pi, 0.0, pi])  # the whole row, counted 1
    assert draws_match_law(draws[:, 0], np.arange(law.size) / 2, law) > 1e-3


def test_scattered_real_weights_follow_their_law():
    # few rows per fraction: drawn row by row
    rng = np.random.default_rng(7)
    p, w = rng.uniform(size=10), rng.uniform(0.1, 2.5, 10)
    draws = _resampled_positives(p, w, uniform_edges(1), 1, R_EXACT, np.random.default_rng(8))
    units = np.floor(w)
    law = weighted_sum_distribution(
        np.concatenate((np.repeat(p, units.astype(int)), p)),
        np.concatenate((np.ones(int(units.sum())), w - units)),
    )
    support = sorted(law)
    assert draws_match_law(draws[:, 0], support, [law[v] for v in support]) > 1e-3


@pytest.mark.parametrize("k, n", [(3, 5), (2, 4), (18, 20)])
def test_distinct_positions_are_uniform_subsets(k, n):
    # pairwise checks (k <= 16) and the sorting path (k > 16)
    events = 30_000
    event, pos = _distinct_positions(
        np.full(events, k), np.full(events, n), np.random.default_rng(9)
    )
    np.testing.assert_array_equal(event, np.repeat(np.arange(events), k))
    subsets = np.sort(pos.reshape(events, k), axis=1)
    assert np.all(np.diff(subsets, axis=1) > 0)  # distinct within each event
    codes = (subsets * n ** np.arange(k)).sum(axis=1)  # one code per subset
    observed = np.unique(codes, return_counts=True)[1]
    n_subsets = math.comb(n, k)
    assert observed.size == n_subsets
    assert stats.chisquare(observed, np.full(n_subsets, events / n_subsets)).pvalue > 1e-3


# ---------------------------------------------------------------- the bands
def test_bands_match_exact_poisson_binomial_quantiles():
    # bins of ~500 rows: the exact quantiles by convolution against 40000 redraws
    rng = np.random.default_rng(10)
    p = rng.beta(2, 3, 2000)
    r = 40_000
    bins = np.minimum((p * 4).astype(int), 3)
    present = np.unique(bins)
    for level in (0.5, 0.9):
        bands = consistency_bands(p, n_bins=4, confidence=level, n_resamples=r, random_state=11)
        assert bands.lower.size == present.size
        for j, k in enumerate(present):
            members = p[bins == k]
            n = members.size
            cdf = np.cumsum(poisson_binomial_pmf(members))
            np.testing.assert_allclose(bands.mean_predicted[j], members.mean(), rtol=1e-12)
            assert bands.count[j] == n
            for value, q in ((bands.lower[j], (1 - level) / 2), (bands.upper[j], (1 + level) / 2)):
                s = round(value * n)
                assert abs(value * n - s) < 1e-9  # an attainable frequency
                # the inverted-CDF quantile, F(s) >= q > F(s - 1), up to Monte Carlo error
                tol = 4 * math.sqrt(q * (1 - q) / r)
                assert cdf[s] >= q - tol
                assert s == 0 or cdf[s - 1] < q + tol


@pytest.mark.parametrize("level", [0.5, 0.7, 0.9, 0.95])
@pytest.mark.parametrize("r", [999, 1000])
def test_bands_are_order_statistics_of_the_redraws(level, r):
    # the ceil(R (1 -+ level) / 2)-th smallest of the very redraws behind the bands, the
    # rank in exact decimal arithmetic (in floats, (1 - 0.7) / 2 * 1000 is 150.00000000000003);
    # real weights make the redrawn frequencies nearly all distinct, so a rank off by one shows
    rng = np.random.default_rng(16)
    p, w = rng.uniform(size=800), rng.uniform(0.5, 2.0, 800)
    edges = uniform_edges(5)
    total = np.bincount(np.searchsorted(edges, p, side="right"), weights=w, minlength=5)
    freq = _resampled_positives(p, w, edges, 5, r, np.random.default_rng(17)) / total
    bands = consistency_bands(
        p, n_bins=5, confidence=level, n_resamples=r, sample_weight=w, random_state=17
    )
    ordered = np.sort(freq, axis=0)
    alpha = 1 - Fraction(str(level))
    np.testing.assert_array_equal(bands.lower, ordered[math.ceil(r * alpha / 2) - 1])
    np.testing.assert_array_equal(bands.upper, ordered[math.ceil(r * (2 - alpha) / 2) - 1])
    if r == 999:  # R q is no integer here: numpy's inverted-CDF quantile agrees
        quantiles = np.quantile(
            freq, [(1 - level) / 2, (1 + level) / 2], axis=0, method="inverted_cdf"
        )
        np.testing.assert_array_equal(bands.lower, quantiles[0])
        np.testing.assert_array_equal(bands.upper, quantiles[1])


def test_ninety_percent_bands_cover_a_calibrated_forecaster_ninety_percent_of_the_time():
    # The acceptance. Each run: a calibrated forecaster's predictions and labels,
    # bands from that run's own predictions, and whether each bin's observed frequency
    # lies in its band. With ~2500 rows per bin the discreteness of the count adds about
    # 0.3 points of coverage; 199 redraws put the bounds at the 10th and 190th of 199,
    # whose coverage is (190 - 10) / 200 = 90% for a continuous law.
    rng = np.random.default_rng(2024)
    runs, n = 1000, 10_000
    covered = np.zeros((runs, 4), dtype=bool)
    for run in range(runs):
        p = rng.uniform(size=n)
        y = (rng.random(n) < p).astype(int)
        bands = consistency_bands(p, n_bins=4, n_resamples=199, random_state=rng)
        observed = reliability_curve(y, p, n_bins=4)["observed"].to_numpy()
        covered[run] = (bands.lower <= observed) & (observed <= bands.upper)
    per_bin = covered.mean(axis=0)
    # 3 points is over 3 standard errors (0.95 points) of a 1000-run proportion
    assert np.all(np.abs(per_bin - 0.9) <= 0.03), per_bin
    assert abs(covered.mean() - 0.9) <= 0.015, covered.mean()


def test_a_miscalibrated_forecaster_leaves_its_bands():
    # the bands can fail: labels drawn from p**2 fall below the bands of the middle bins
    rng = np.random.default_rng(12)
    p = rng.uniform(size=20_000)
    y = (rng.random(20_000) < p**2).astype(int)
    bands = consistency_bands(p, random_state=0)
    observed = reliability_curve(y, p)["observed"].to_numpy()
    assert np.all(observed[2:9] < bands.lower[2:9])


@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
def test_bins_and_order_are_those_of_reliability_curve(strategy):
    rng = np.random.default_rng(13)
    # a gap and a heavy tie: empty uniform bins and merged quantile bins
    p = np.concatenate((rng.uniform(0.0, 0.3, 300), rng.uniform(0.7, 0.9, 100), np.full(200, 0.8)))
    y = (rng.random(p.size) < p).astype(int)
    w = rng.integers(0, 3, p.size).astype(float)
    for weights in (None, w):
        curve = reliability_curve(y, p, n_bins=10, strategy=strategy, sample_weight=weights)
        bands = consistency_bands(
            p, n_bins=10, strategy=strategy, sample_weight=weights, random_state=0
        )
        assert bands.lower.size == len(curve)
        np.testing.assert_array_equal(bands.mean_predicted, curve["mean_predicted"])
        np.testing.assert_array_equal(bands.count, curve["count"])
        assert np.all((bands.lower <= bands.upper) & (0 <= bands.lower) & (bands.upper <= 1))
        assert not np.isnan(bands.lower).any() and not np.isnan(bands.upper).any()


def test_degenerate_bins_have_zero_width_bands():
    p = np.repeat([0.0, 0.5, 1.0], 50)
    bands = consistency_bands(p, n_bins=3, random_state=0)
    np.testing.assert_array_equal(bands.lower[[0, 2]], [0.0, 1.0])
    np.testing.assert_array_equal(bands.upper[[0, 2]], [0.0, 1.0])
    assert bands.lower[1] < 0.5 < bands.upper[1]


@settings(max_examples=40, deadline=None)
@given(
    data=st.lists(
        st.tuples(st.sampled_from([0.0, 0.05, 0.2, 0.21, 0.5, 0.77, 0.99, 1.0]), st.integers(0, 4)),
        min_size=1,
        max_size=40,
    ).filter(lambda rows: any(w for _, w in rows)),
    n_bins=st.integers(1, 6),
    strategy=st.sampled_from(["uniform", "quantile"]),
    seed=st.integers(0, 2**32 - 1),
    extra=st.integers(0, 300),
)
def test_integer_weights_give_the_bands_of_repeated_rows_bit_for_bit(
    data, n_bins, strategy, seed, extra
):
    # `extra` distinct rows of weight 1 push the atoms past the row-by-row threshold
    p = np.concatenate(([v for v, _ in data], np.linspace(0.3, 0.6, extra)))
    w = np.concatenate(([float(k) for _, k in data], np.ones(extra)))
    kw = dict(n_bins=n_bins, strategy=strategy, n_resamples=50)
    weighted = consistency_bands(p, sample_weight=w, random_state=seed, **kw)
    repeated = consistency_bands(np.repeat(p, w.astype(int)), random_state=seed, **kw)
    np.testing.assert_array_equal(weighted.lower, repeated.lower)
    np.testing.assert_array_equal(weighted.upper, repeated.upper)
    np.testing.assert_array_equal(weighted.count, repeated.count)
    np.testing.assert_allclose(weighted.mean_predicted, repeated.mean_predicted, atol=1e-12)


def test_rows_of_weight_zero_are_absent():
    rng = np.random.default_rng(14)
    p = rng.uniform(size=500)
    w = np.where(np.arange(500) % 3 == 0, 0.0, 1.0)
    with_zeros = consistency_bands(p, sample_weight=w, random_state=5)
    without = consistency_bands(p[w > 0], random_state=5)
    for a, b in zip(with_zeros, without, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-12)


def test_random_state_reproducibility():
    p = np.random.default_rng(15).uniform(size=3000)
    a = consistency_bands(p, random_state=7)
    b = consistency_bands(p, random_state=7)
    for x, y in zip(a, b, strict=True):
        np.testing.assert_array_equal(x, y)
    gen = np.random.default_rng(7)
    c = consistency_bands(p, random_state=gen)
    np.testing.assert_array_equal(c.lower, a.lower)  # a seed and its Generator agree
    d = consistency_bands(p, random_state=gen)  # the generator moved on
    assert not (np.array_equal(d.lower, c.lower) and np.array_equal(d.upper, c.upper))


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(confidence=0.0), "confidence"),
        (dict(confidence=1.0), "confidence"),
        (dict(confidence=1.5), "confidence"),
        (dict(confidence=float("nan")), "confidence"),
        (dict(confidence="0.9"), "confidence"),
        (dict(n_resamples=0), "n_resamples"),
        (dict(n_resamples=2.5), "n_resamples"),
        (dict(n_bins=0), "n_bins"),
        (dict(strategy="positional"), "strategy"),
        (dict(random_state="seed"), "random_state"),
        (dict(random_state=-1), "random_state"),
        (dict(y_prob=[0.2, 1.3]), r"\[0, 1\]"),
        (dict(y_prob=[0.2, np.nan]), "NaN"),
        (dict(y_prob=[]), "empty"),
        (dict(sample_weight=[1.0, -1.0]), "non-negative"),
        (dict(sample_weight=[0.0, 0.0]), "zero everywhere"),
        (dict(sample_weight=[1.0]), "entries"),
        (dict(sample_weight=[1e16, 1e16]), "2\\*\\*53"),
    ],
)
def test_bad_input_raises(kwargs, message):
    args = dict(y_prob=[0.2, 0.7])
    args.update(kwargs)
    with pytest.raises(ValueError, match=message):
        consistency_bands(args.pop("y_prob"), **args)
