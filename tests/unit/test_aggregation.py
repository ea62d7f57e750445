"""Fitting on unique (score, label) rows weighted by their counts gives the model of the raw rows.

This is what lets a distributed engine reduce 1e9 scored events to their sufficient
statistics before calibrating. Heavy ties make the check bite: many rows share a score,
some with both labels.
"""

import numpy as np
import pytest

from calibbook.calibrators.bbq import BBQ
from calibbook.calibrators.enir import ENIR
from calibbook.calibrators.histogram_binning import HistogramBinning
from calibbook.calibrators.isotonic import IsotonicCalibration
from calibbook.calibrators.near_isotonic import NearIsotonicRegression
from calibbook.calibrators.platt import PlattScaling
from tests._reference.bbq_before_the_sweep import _old_bbq_fit

METHODS = {
    "isotonic": IsotonicCalibration,
    "near_isotonic": lambda: NearIsotonicRegression(lam=0.7),
    "enir": ENIR,
    "platt": PlattScaling,
    "histogram_quantile": HistogramBinning,
    "histogram_uniform": lambda: HistogramBinning(strategy="uniform"),
    "bbq": BBQ,
}


def aggregate(scores, y):
    """Unique (score, label) rows and their counts, as a groupby would give them."""
    rows, counts = np.unique(np.column_stack((scores, y)), axis=0, return_counts=True)
    return rows[:, 0], rows[:, 1], counts.astype(float)


@pytest.mark.parametrize("name", METHODS)
@pytest.mark.parametrize("seed", range(5))
def test_aggregated_rows_fit_like_raw_rows(name, seed):
    rng = np.random.default_rng(seed)
    n = 5000
    grid = np.round(rng.uniform(size=int(rng.integers(20, 200))), 3)  # heavy ties
    scores = rng.choice(grid, size=n)
    y = (rng.uniform(size=n) < 0.2 + 0.6 * scores).astype(float)
    s_agg, y_agg, counts = aggregate(scores, y)
    assert s_agg.size < n / 10
    raw = METHODS[name]().fit(scores, y)
    agg = METHODS[name]().fit(s_agg, y_agg, sample_weight=counts)
    probe = np.concatenate([grid, np.linspace(0, 1, 101)])
    np.testing.assert_allclose(agg.predict(probe), raw.predict(probe), atol=1e-9)


@pytest.mark.parametrize("seed", range(2))
def test_kde_and_dpm_on_aggregated_rows(seed):
    """What holds for the two density methods (chapter 9).

    KDE: the kernel sums, class weights and bandwidth rules are all weighted sums, so a fixed
    evaluation method gives the raw fit to rounding. With method="auto" the choice between the
    exact and the binned Gaussian sums depends on the number of rows, which aggregation
    changes: the fits then agree only to binned_tol. DPM: tied rows start in the same component
    and keep equal responsibilities, so the weighted coordinate ascent has the same iterates.
    """
    from calibbook.calibrators.dpm import DPMCalibration
    from calibbook.calibrators.kde import KDECalibration

    rng = np.random.default_rng(seed)
    n = 4000
    grid = np.round(rng.uniform(size=int(rng.integers(50, 200))), 3)
    scores = rng.choice(grid, size=n)
    y = (rng.uniform(size=n) < 0.2 + 0.6 * scores).astype(float)
    s_agg, y_agg, counts = aggregate(scores, y)
    probe = np.concatenate([grid, np.linspace(-0.5, 1.5, 201)])

    def gap(make):
        raw, agg = make().fit(scores, y), make().fit(s_agg, y_agg, sample_weight=counts)
        return np.abs(agg.predict(probe) - raw.predict(probe)).max(), raw, agg

    for algorithm in ("exact", "binned"):
        assert gap(lambda a=algorithm: KDECalibration(algorithm=a))[0] < 1e-9
    assert gap(lambda: KDECalibration(kernel="epanechnikov"))[0] < 1e-9
    diff, raw, agg = gap(KDECalibration)
    assert (raw.algorithm_, agg.algorithm_) == ("binned", "exact")  # 4000 rows, < 2000 unique
    assert diff <= raw.binned_tol
    diff, raw, agg = gap(lambda: DPMCalibration(max_iter=200))
    assert [m.n_iter_ for m in raw.mixtures_] == [m.n_iter_ for m in agg.mixtures_]
    assert diff < 1e-9


# --- BBQ's one sweep over the cuts against the old binary search per cut (frozen copy) ---


def _bbq_case(rng, kind, n):
    if kind == "distinct":
        s = rng.uniform(size=n)
    elif kind == "ties":
        s = rng.integers(0, 7, size=n) / 7
    elif kind == "rounded":
        s = np.round(rng.beta(0.5, 0.5, size=n), 2)
    else:
        s = rng.beta(0.3, 0.3, size=n)
    y = (rng.uniform(size=n) < s).astype(float)
    y[0], y[1] = 0.0, 1.0
    w = None
    if kind == "float weights":  # totals that are not integers: cuts of a fraction differ
        w = rng.uniform(0.0, 3.0, size=n)
    elif kind == "integer weights":
        w = rng.integers(0, 4, size=n).astype(float)
        w[0] = w[1] = 1.0
    return s, y, w


@pytest.mark.parametrize(
    "kind", ["distinct", "ties", "rounded", "float weights", "integer weights"]
)
@pytest.mark.parametrize("seed", range(8))
def test_bbq_sweep_equals_the_old_search_bit_for_bit(kind, seed):
    rng = np.random.default_rng(seed)
    s, y, w = _bbq_case(rng, kind, int(rng.integers(2, 6000)))
    for strength, clip, prune, alpha in [
        (2.0, 0.005, None, None),
        (0.7, 0.1, "elbow", None),
        (2.0, 0.005, "window", 0.01),
    ]:
        cal = BBQ(prior_strength=strength, prior_clip=clip, prune=prune, prune_alpha=alpha)
        cal.fit(s, y, sample_weight=w)
        new = (
            cal.thresholds_,
            cal.step_values_,
            cal.model_n_bins_,
            cal.model_weights_,
            cal.log_marginal_likelihoods_,
        )
        for a, b in zip(new, _old_bbq_fit(s, y, w, strength, clip, prune, alpha), strict=True):
            assert a.shape == b.shape and np.array_equal(a, b)


def test_bbq_sweep_equals_the_old_search_on_many_binnings():
    """2e5 rows: binnings of 5 to 585 bins, and float weights whose targets differ by ulps."""
    rng = np.random.default_rng(0)
    s = rng.beta(0.7, 0.7, size=200_000)
    y = (rng.uniform(size=s.size) < s).astype(float)
    w = rng.uniform(0.5, 1.5, size=s.size)
    for weights in (None, w):
        cal = BBQ().fit(s, y, sample_weight=weights)
        new = (
            cal.thresholds_,
            cal.step_values_,
            cal.model_n_bins_,
            cal.model_weights_,
            cal.log_marginal_likelihoods_,
        )
        for a, b in zip(new, _old_bbq_fit(s, y, weights, 2.0, 0.005, None, None), strict=True):
            assert a.shape == b.shape and np.array_equal(a, b)


def _exact_equal_weight_bbq(s, y, weight, model_n_bins, strength=2.0, clip=0.005):
    """BBQ of distinct sorted scores that all weigh ``weight``, its cuts in exact arithmetic.

    Run r has weight r w below it, so it reaches the target k W / B = k n w / B exactly
    when r B >= k n: an integer comparison, whatever the rounding of w's multiples.
    """
    from scipy.special import gammaln

    n = s.size
    models = []
    for b in model_n_bins:
        starts = sorted({-(-k * n // b) for k in range(1, b)} - {0, n})  # first r: r b >= k n
        edges = [0.5 * s[r - 1] + 0.5 * s[r] for r in starts]
        lows, highs = [0.0, *edges], [*edges, 1.0]
        score, est = 0.0, []
        for lo_r, hi_r, lo, hi in zip([0, *starts], [*starts, n], lows, highs, strict=True):
            p = min(max(0.5 * lo + 0.5 * hi, clip), 1 - clip)
            nw, n1 = weight * (hi_r - lo_r), weight * y[lo_r:hi_r].sum()
            a1, a0 = strength * p, strength * (1 - p)
            score += gammaln(strength) - gammaln(nw + strength)
            score += gammaln(n1 + a1) - gammaln(a1) + gammaln(nw - n1 + a0) - gammaln(a0)
            est.append((n1 + a1) / (nw + strength))
        models.append((np.array(edges), np.array(est), score))
    return models


@pytest.mark.parametrize("weight, n", [(0.7, 184), (0.7, 196), (0.7, 222), (1.1, 234)])
def test_bbq_sweep_when_the_cuts_of_one_fraction_fall_on_different_runs(weight, n):
    """Equal weights 0.7: k W / B and (k / g) W / (B / g) differ in the last bit and a run's
    weight below lies between them (found by search), so the cuts of one fraction fall on
    different runs, and the sweep must take them in increasing order of target. The old
    search decided these ties by rounding (issue 28: a jump when the weights are scaled);
    the sweep decides them as exact arithmetic does, against an exact oracle here."""
    rng = np.random.default_rng(n)
    s = np.sort(rng.uniform(size=n))
    y = (rng.uniform(size=n) < s).astype(float)
    y[0], y[1] = 0.0, 1.0
    w = np.full(n, weight)
    cal = BBQ().fit(s, y, sample_weight=w)
    models = _exact_equal_weight_bbq(s, y, weight, cal.model_n_bins_)
    expected_cuts = np.unique(np.concatenate([edges for edges, _, _ in models]))
    np.testing.assert_array_equal(cal.thresholds_, expected_cuts)
    log_ml = np.array([score for _, _, score in models])
    np.testing.assert_allclose(cal.log_marginal_likelihoods_, log_ml, rtol=1e-12)
    probe = np.concatenate([s, np.linspace(0, 1, 101)])
    expected = sum(
        wt * est[np.searchsorted(edges, probe, side="right")]
        for wt, (edges, est, _) in zip(cal.model_weights_, models, strict=True)
    )
    np.testing.assert_allclose(cal.predict(probe), expected, rtol=0, atol=1e-12)
    # weights that total the same but round differently give the same fit
    again = BBQ().fit(s, y, sample_weight=w * (1 + 4 * np.finfo(float).eps))
    np.testing.assert_array_equal(again.thresholds_, cal.thresholds_)
