"""Debiased binned calibration error and the monotone sweep against brute-force references.

The references below are written from the papers' definitions with plain loops over
bins (and, for the sweep, over every number of bins), independently of the kernels.
"""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate

from calibbook._kernels.binned_estimators import _violates_all, _violates_near_descents
from calibbook.metrics._binned_estimators import debiased_calibration_error, ece_sweep


# ---------------------------------------------------------------- brute force
def brute_bins(p, w, n_bins, strategy):
    """Bin of every sample from the definitions of calibbook._utils.binning, O(N^2)."""
    ids = np.empty(len(p), dtype=int)
    if strategy == "uniform":
        # bin = edges at or below p; edge k is the float nearest to k / K
        inner = [float(Fraction(k, n_bins)) for k in range(1, n_bins)]
        for i in range(len(p)):
            ids[i] = sum(edge <= p[i] for edge in inner)
    else:  # in exact arithmetic: a tie W(p' < p) = k W / K reaches the share
        wf = [Fraction(v) for v in w]
        total = sum(wf)
        for i in range(len(p)):
            below = sum(wj for wj, pj in zip(wf, p, strict=True) if pj < p[i])
            ids[i] = sum(below * n_bins >= k * total for k in range(1, n_bins))
    return ids


def brute_bin_table(y, p, w, n_bins, strategy):
    """(weight, observed, mean prediction) of each non-empty bin, in bin order."""
    ids = brute_bins(p, w, n_bins, strategy)
    rows = []
    for k in range(n_bins):
        m = (ids == k) & (w > 0)
        if m.any():
            n_k = w[m].sum()
            rows.append((n_k, np.sum(w[m] * y[m]) / n_k, np.sum(w[m] * p[m]) / n_k))
    return rows


def brute_debiased(y, p, w, n_bins, strategy):
    """Kumar et al.'s estimator: bins of weight <= 1 add nothing but keep their mass."""
    total, estimate, usable = w.sum(), 0.0, False
    for n_k, o, e in brute_bin_table(y, p, w, n_bins, strategy):
        if n_k > 1:
            usable = True
            estimate += n_k / total * ((o - e) ** 2 - o * (1 - o) / (n_k - 1))
    return estimate if usable else None


def brute_sweep(y, p, w, strategy, norm):
    """Try b = 2, 3, ... up to the number of distinct predictions; stop at a decrease."""
    best = 1
    for b in range(2, len(np.unique(p[w > 0])) + 1):
        rates = [o for _, o, _ in brute_bin_table(y, p, w, b, strategy)]
        if any(rates[i + 1] < rates[i] for i in range(len(rates) - 1)):
            break
        best = b
    table = brute_bin_table(y, p, w, best, strategy)
    total = sum(n_k for n_k, _, _ in table)
    err = sum(n_k / total * abs(o - e) ** norm for n_k, o, e in table)
    return err ** (1.0 / norm), best


@st.composite
def labelled_predictions(draw, weights="integer", max_n=40):
    n = draw(st.integers(1, max_n))
    if draw(st.booleans()):  # few distinct values, many ties (including 0 and 1)
        grid = draw(
            st.lists(
                st.sampled_from([0.0, 0.1, 0.2, 0.3, 0.5, 0.6, 0.9, 1.0]), min_size=1, max_size=6
            )
        )
        p = np.array(draw(st.lists(st.sampled_from(grid), min_size=n, max_size=n)))
    else:
        p = np.array(draw(st.lists(st.floats(0, 1), min_size=n, max_size=n)))
    if draw(st.booleans()):  # nearly sorted labels: the sweep goes far, past the descents
        flips = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)))
        y = ((p > draw(st.floats(0, 1))) ^ (flips & (np.arange(n) % 5 == 0))).astype(float)
    else:
        y = np.array(draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)), dtype=float)
    if weights == "integer":
        w = np.array(draw(st.lists(st.integers(0, 4), min_size=n, max_size=n)), dtype=float)
    elif weights == "real":
        w = np.array(draw(st.lists(st.floats(0.1, 3.0), min_size=n, max_size=n)))
    else:
        w = np.ones(n)
    if w.sum() == 0:
        w[0] = 1.0
    return y, p, w


# ---------------------------------------------------------------- debiased estimator
@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
@pytest.mark.parametrize("weights", ["none", "integer", "real"])
@settings(max_examples=40, deadline=None)
@given(data=st.data(), n_bins=st.integers(1, 8))
def test_debiased_equals_brute_force(strategy, weights, data, n_bins):
    y, p, w = data.draw(labelled_predictions(weights=weights))
    expected = brute_debiased(y, p, w, n_bins, strategy)
    kw = dict(n_bins=n_bins, strategy=strategy, sample_weight=None if weights == "none" else w)
    if expected is None:
        with pytest.raises(ValueError, match="total weight at most 1"):
            debiased_calibration_error(y, p, **kw)
        return
    assert debiased_calibration_error(y, p, **kw) == pytest.approx(expected, abs=1e-12)
    root = debiased_calibration_error(y, p, squared=False, **kw)
    # the root of a value near 0 magnifies its rounding (sqrt(1e-18) = 1e-9): compare squares
    assert root >= 0.0 and root**2 == pytest.approx(max(expected, 0.0), abs=1e-12)


def test_debiased_hand_worked_and_light_bins():
    # two uniform bins: bin 0 holds one row (weight 1, dropped), bin 1 holds four
    y = np.array([1, 0, 1, 1, 1])
    p = np.array([0.2, 0.6, 0.7, 0.8, 0.9])
    # bin 1: o = 3/4, e = 3/4: gap 0, correction (3/16) / 3; mass 4 of 5
    expected = 4 / 5 * (0.0 - (0.75 * 0.25) / 3)
    got = debiased_calibration_error(y, p, n_bins=2, strategy="uniform")
    assert got == pytest.approx(expected, abs=1e-15)
    assert got < 0  # returned as is, not clipped
    assert debiased_calibration_error(y, p, n_bins=2, strategy="uniform", squared=False) == 0.0
    # the light bin's mass counts: halving its weight to 0.5 changes n, not the sum
    w = np.array([0.5, 1, 1, 1, 1])
    got_w = debiased_calibration_error(y, p, n_bins=2, strategy="uniform", sample_weight=w)
    assert got_w == pytest.approx(4 / 4.5 * (-(0.75 * 0.25) / 3), abs=1e-15)


def test_debiased_positive_example_by_hand():
    y = np.array([0, 0, 0, 0, 1, 1, 1, 1])
    p = np.array([0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5])
    # one bin: o = 1/2, e = 1/2 -> -(1/4)/7
    assert debiased_calibration_error(y, p) == pytest.approx(-0.25 / 7, abs=1e-15)
    p2 = np.array([0.1] * 4 + [0.9] * 4)  # quantile bins {0.1}, {0.9}: gaps 0.1 and 0.1
    assert debiased_calibration_error(y, p2, n_bins=2) == pytest.approx(0.01, abs=1e-15)


# ---------------------------------------------------------------- sweep
@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
@pytest.mark.parametrize("weights", ["none", "integer", "real"])
@settings(max_examples=40, deadline=None)
@given(data=st.data(), norm=st.sampled_from([1, 2]))
def test_sweep_equals_brute_force(strategy, weights, data, norm):
    y, p, w = data.draw(labelled_predictions(weights=weights))
    expected, best = brute_sweep(y, p, w, strategy, norm)
    kw = dict(strategy=strategy, norm=norm, sample_weight=None if weights == "none" else w)
    got, n_bins = ece_sweep(y, p, return_n_bins=True, **kw)
    assert n_bins == best
    assert got == pytest.approx(expected, abs=1e-12)
    assert ece_sweep(y, p, **kw) == got


def authors_sweep_bins(y, p):
    """Equal-mass sweep of the authors' code: sorted position i of n goes to bin i b // n.

    Tries b = 2 .. n - 1 and keeps the last b before the first decrease.
    """
    order = np.argsort(p, kind="stable")
    ys, n, best = y[order], len(p), 1
    for b in range(2, n):
        ids = np.arange(n) * b // n
        rates = [ys[ids == k].mean() for k in range(b) if (ids == k).any()]
        if any(rates[i + 1] < rates[i] for i in range(len(rates) - 1)):
            break
        best = b
    return best


@settings(max_examples=50, deadline=None)
@given(n=st.integers(3, 60), seed=st.integers(0, 2**32 - 1))
def test_sweep_matches_the_authors_rule_on_distinct_predictions(n, seed):
    rng = np.random.default_rng(seed)
    p = rng.permutation(np.arange(1, n + 1) / (n + 1))
    y = (rng.uniform(size=n) < p).astype(float)
    authors = authors_sweep_bins(y, p)
    ours = ece_sweep(y, p, return_n_bins=True)[1]
    # the authors stop at n - 1 bins; the definition (and this package) allows n
    assert ours == authors or (authors == n - 1 and ours in (n - 1, n))


@pytest.mark.parametrize("equal_mass", [True, False])
def test_sweep_checks_agree_on_every_number_of_bins(equal_mass):
    """The all-pairs check and the check near descents decide every b alike."""
    rng = np.random.default_rng(7)
    for trial in range(30):
        n = int(rng.integers(2, 80))
        values = np.unique(rng.choice(np.linspace(0, 1, 41), size=n))
        weights = rng.integers(1, 5, size=values.size).astype(float)
        positives = np.minimum(weights, rng.integers(0, 5, size=values.size)).astype(float)
        keys = np.concatenate(([0.0], np.cumsum(weights)[:-1])) if equal_mass else values
        total = float(np.sum(weights))
        rates = positives / weights
        descents = np.flatnonzero(rates[:-1] > rates[1:])
        cum_pos = np.concatenate(([0.0], np.cumsum(positives)))
        cum_neg = np.concatenate(([0.0], np.cumsum(weights - positives)))
        for b in range(1, values.size + 3):
            for slack in (0.0, 1e-12 * total):  # exact sums, and a rounding allowance
                args = (keys, cum_pos, cum_neg, descents, b, total, equal_mass, values.size, slack)
                assert _violates_all(*args) == _violates_near_descents(*args), (trial, b)


@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
@pytest.mark.parametrize("scale", [0.1, 1 / 3, 0.7, 1e-6, 1e6])
def test_sweep_does_not_depend_on_the_weights_scale(strategy, scale):
    """Frequency weights c * 1 give the unweighted sweep: the same bins and the same ECE.

    Forecasts on a grid of 0.05 with few rows tie often, so bins of equal observed
    frequency (a tie the sweep must not read as a drop) are common; the sums of c * 1
    round where the counts do not (issue 28).
    """
    rng = np.random.default_rng(11)
    for _ in range(40):
        n = int(rng.integers(8, 60))
        p = np.round(rng.uniform(size=n) * 20) / 20
        y = (rng.uniform(size=n) < p).astype(float)
        want, b = ece_sweep(y, p, strategy=strategy, return_n_bins=True)
        w = np.full(n, scale)
        got, b_scaled = ece_sweep(y, p, strategy=strategy, sample_weight=w, return_n_bins=True)
        assert b_scaled == b
        assert got == pytest.approx(want, rel=1e-9, abs=1e-12)


def reference_sweep_numpy(y, p, strategy):
    """Sweep through calibbook._utils.binning for every b (vectorised per b, O(N) each)."""
    from calibbook._utils.binning import assign_bins, bin_edges, bin_statistics

    w = np.ones_like(p)
    best = 1
    for b in range(2, np.unique(p).size + 1):
        weight, _, o = bin_statistics(y, p, w, assign_bins(p, bin_edges(p, w, b, strategy)), b)
        o = o[weight > 0]
        if np.any(o[1:] < o[:-1]):
            break
        best = b
    return best


@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
def test_sweep_goes_far_on_nearly_separable_data(strategy):
    rng = np.random.default_rng(3)
    p = np.round(rng.uniform(size=1500), 3)
    y = (p > 0.5).astype(float)
    flip = rng.choice(np.flatnonzero(np.abs(p - 0.5) < 0.05), size=4, replace=False)
    y[flip] = 1 - y[flip]
    expected = reference_sweep_numpy(y, p, strategy)
    assert expected > 20  # the sweep is not stopped by noise early
    assert ece_sweep(y, p, strategy=strategy, return_n_bins=True)[1] == expected
    # sorted labels: every b is monotone, and b* is the number of distinct predictions
    y_sorted = (p > 0.5).astype(float)
    value, n_bins = ece_sweep(y_sorted, p, strategy=strategy, return_n_bins=True)
    assert n_bins == np.unique(p).size
    runs = [(y_sorted[p == v].mean(), v, (p == v).sum()) for v in np.unique(p)]
    assert value == pytest.approx(sum(c * abs(o - v) for o, v, c in runs) / p.size, abs=1e-12)


def test_sweep_first_b_breaks():
    # two bins already decrease: b* = 1, the gap of the whole sample
    y = np.array([1, 1, 0, 0])
    p = np.array([0.1, 0.2, 0.3, 0.4])
    value, n_bins = ece_sweep(y, p, return_n_bins=True)
    assert n_bins == 1
    assert value == pytest.approx(abs(0.5 - 0.25), abs=1e-15)
    assert ece_sweep(y, p, norm=2) == pytest.approx(0.25, abs=1e-15)


def test_sweep_hand_worked():
    y = [0, 0, 1, 0, 1, 1, 1, 1]
    p = [0.1, 0.2, 0.3, 0.4, 0.6, 0.7, 0.8, 0.9]
    # b = 5 bins {.1,.2} {.3,.4} {.6} {.7,.8} {.9} rise (0, .5, 1, 1, 1); b = 6 falls (1 then 0)
    value, n_bins = ece_sweep(y, p, return_n_bins=True)
    assert n_bins == 5
    assert value == pytest.approx((0.3 + 0.3 + 0.4 + 0.5 + 0.1) / 8, abs=1e-15)


# ---------------------------------------------------------------- weights
@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
@settings(max_examples=50, deadline=None)
@given(
    data=labelled_predictions(weights="integer"),
    n_bins=st.integers(1, 8),
    norm=st.sampled_from([1, 2]),
)
def test_integer_weights_equal_repeated_rows(strategy, data, n_bins, norm):
    y, p, w = data
    reps = w.astype(int)
    yr, pr = np.repeat(y, reps), np.repeat(p, reps)
    kw = dict(strategy=strategy)
    weighted = ece_sweep(y, p, sample_weight=w, norm=norm, return_n_bins=True, **kw)
    repeated = ece_sweep(yr, pr, norm=norm, return_n_bins=True, **kw)
    assert weighted[1] == repeated[1]
    assert weighted[0] == pytest.approx(repeated[0], abs=1e-12)
    try:
        rep = debiased_calibration_error(yr, pr, n_bins=n_bins, **kw)
    except ValueError:
        with pytest.raises(ValueError, match="total weight at most 1"):
            debiased_calibration_error(y, p, n_bins=n_bins, sample_weight=w, **kw)
        return
    got = debiased_calibration_error(y, p, n_bins=n_bins, sample_weight=w, **kw)
    assert got == pytest.approx(rep, abs=1e-12)


# ---------------------------------------------------------------- bad input
GOOD = dict(y_true=[0, 1, 1, 0], y_prob=[0.1, 0.8, 0.6, 0.3])


@pytest.mark.parametrize(
    "func, override, message",
    [
        (debiased_calibration_error, dict(n_bins=0), "n_bins"),
        (debiased_calibration_error, dict(n_bins=2.5), "n_bins"),
        (debiased_calibration_error, dict(strategy="positional"), "strategy"),
        (debiased_calibration_error, dict(squared="yes"), "squared"),
        (debiased_calibration_error, dict(y_true=[0, 2, 1, 0]), "binary"),
        (debiased_calibration_error, dict(y_prob=[0.1, 1.2, 0.6, 0.3]), r"\[0, 1\]"),
        (debiased_calibration_error, dict(y_prob=[0.1, np.nan, 0.6, 0.3]), "NaN"),
        (debiased_calibration_error, dict(sample_weight=[1, -1, 1, 1]), "negative"),
        (debiased_calibration_error, dict(y_prob=[0.1, 0.2]), "Inconsistent"),
        (debiased_calibration_error, dict(n_bins=4), "total weight at most 1"),
        (ece_sweep, dict(strategy="equal"), "strategy"),
        (ece_sweep, dict(norm=3), "norm"),
        (ece_sweep, dict(norm=1.5), "norm"),
        (ece_sweep, dict(return_n_bins=1), "return_n_bins"),
        (ece_sweep, dict(y_true=[]), "empty"),
        (ece_sweep, dict(y_prob=[0.1, -0.2, 0.6, 0.3]), r"\[0, 1\]"),
        (ece_sweep, dict(sample_weight=[0, 0, 0, 0]), "zero everywhere"),
    ],
)
def test_bad_input_raises(func, override, message):
    kwargs = {**GOOD, **override}
    with pytest.raises(ValueError, match=message):
        func(kwargs.pop("y_true"), kwargs.pop("y_prob"), **kwargs)


def test_normalised_weights_leave_no_bin_for_the_correction():
    rng = np.random.default_rng(0)
    p, y = rng.uniform(size=50), rng.integers(0, 2, size=50)
    # weight 1/4 each (a power of two, so every sum is exact): 15 bins of weight < 1
    w = np.full(50, 0.25)
    with pytest.raises(ValueError, match="frequency weights"):
        debiased_calibration_error(y, p, sample_weight=w)
    assert debiased_calibration_error(y, p, n_bins=5, sample_weight=w) != pytest.approx(
        debiased_calibration_error(y, p, n_bins=5)
    )
    # the sweep depends on the weights only through their proportions
    assert ece_sweep(y, p, sample_weight=w, return_n_bins=True) == ece_sweep(
        y, p, return_n_bins=True
    )


# ---------------------------------------------------------------- simulation
N, BINS, REPS = 200, 10, 4000
MAPS = {  # P(Y = 1 | p) = p^c / (p^c + (1 - p)^c): c = 1 calibrated
    "calibrated": 1.0,
    "over-confident": 0.5,  # true probabilities less extreme than the predictions
    "under-confident": 2.0,
}


def true_squared_error(c):
    """sum_k P(k) (E[Y | k] - E[p | k])^2 for p ~ U(0, 1) and fixed equal-width bins."""

    def f(t):
        return t**c / (t**c + (1 - t) ** c)

    total = 0.0
    for k in range(BINS):
        lo, hi = k / BINS, (k + 1) / BINS
        mass = hi - lo
        mean_y = integrate.quad(f, lo, hi, epsabs=1e-13)[0] / mass
        total += mass * (mean_y - (lo + hi) / 2) ** 2
    return total


def plugin_squared_error(y, p):
    ids = np.minimum((p * BINS).astype(int), BINS - 1)
    n_k = np.bincount(ids, minlength=BINS)
    full = n_k > 0
    o = np.bincount(ids, weights=y, minlength=BINS)[full] / n_k[full]
    e = np.bincount(ids, weights=p, minlength=BINS)[full] / n_k[full]
    return float(np.sum(n_k[full] / len(p) * (o - e) ** 2))


@pytest.mark.parametrize("name", list(MAPS))
def test_debiased_is_unbiased_in_simulation_and_plugin_is_not(name):
    c = MAPS[name]
    truth = true_squared_error(c)
    rng = np.random.default_rng(2024)
    debiased, plugin = np.empty(REPS), np.empty(REPS)
    for r in range(REPS):
        p = rng.uniform(size=N)
        y = (rng.uniform(size=N) < p**c / (p**c + (1 - p) ** c)).astype(float)
        debiased[r] = debiased_calibration_error(y, p, n_bins=BINS, strategy="uniform")
        plugin[r] = plugin_squared_error(y, p)
    # the estimator's own residual bias, sum_k (Var(p | k) - 2 Cov(p, Y | k)) / N from the
    # spread of p within bins, is -3e-5 to -4e-5 here: under half a standard error
    se = debiased.std(ddof=1) / np.sqrt(REPS)
    assert abs(debiased.mean() - truth) < 3 * se, (debiased.mean(), truth, se)
    if name == "calibrated":
        # the plug-in square overshoots by about E[p(1 - p)] / (N / BINS) = 1/120
        se_plugin = plugin.std(ddof=1) / np.sqrt(REPS)
        assert plugin.mean() - truth > 30 * se_plugin
        assert plugin.mean() - truth > 0.005
