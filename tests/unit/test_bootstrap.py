"""Bootstrap intervals: a plain loop with the same seed, repeated rows, and scipy's bootstrap."""

import functools

import numpy as np
import pytest

from calibbook import (
    bootstrap_ci,
    corp_decomposition,
    debiased_calibration_error,
    expected_calibration_error,
    maximum_calibration_error,
    smooth_ece,
)
from calibbook._utils.params import InvalidParameterError
from calibbook.metrics import _bootstrap


def _mcb(y_true, y_prob, sample_weight=None):
    return corp_decomposition(y_true, y_prob, sample_weight=sample_weight).mcb


MEASURES = {
    "ece": functools.partial(expected_calibration_error, n_bins=10),
    "ece_quantile": functools.partial(expected_calibration_error, strategy="quantile"),
    "mce": maximum_calibration_error,
    "debiased": functools.partial(debiased_calibration_error, n_bins=5),
    "smooth": smooth_ece,
    "corp_mcb": _mcb,
}


def _data(n=200, seed=0):
    rng = np.random.default_rng(seed)
    p = rng.uniform(0.02, 0.98, size=n)
    y = (rng.uniform(size=n) < p**1.2).astype(float)
    return y, p


def test_equals_a_plain_loop_over_index_draws():
    """The unweighted bootstrap is the textbook one: n row indices drawn uniformly."""
    y, p = _data()
    ours = bootstrap_ci(MEASURES["ece"], y, p, n_resamples=30, random_state=4)
    rng = np.random.default_rng(4)
    ref = []
    for _ in range(30):
        idx = np.floor(rng.random(p.size) * p.size).astype(int)
        ref.append(expected_calibration_error(y[idx], p[idx], n_bins=10))
    np.testing.assert_allclose(ours.bootstrap_distribution, ref, rtol=0, atol=1e-12)
    q = np.quantile(ref, [0.025, 0.975], method="inverted_cdf")
    assert (ours.low, ours.high) == pytest.approx(tuple(q), abs=1e-12)
    assert ours.estimate == expected_calibration_error(y, p, n_bins=10)
    assert ours.standard_error == pytest.approx(np.std(ref, ddof=1), abs=1e-12)


@pytest.mark.parametrize("name", sorted(MEASURES))
def test_integer_weights_draw_the_resamples_of_repeated_rows(name):
    y, p = _data(n=120, seed=1)
    w = np.random.default_rng(2).integers(0, 4, size=p.size).astype(float)
    idx = np.repeat(np.arange(p.size), w.astype(int))
    a = bootstrap_ci(MEASURES[name], y, p, sample_weight=w, n_resamples=20, random_state=9)
    b = bootstrap_ci(MEASURES[name], y[idx], p[idx], n_resamples=20, random_state=9)
    np.testing.assert_allclose(a.bootstrap_distribution, b.bootstrap_distribution, atol=1e-12)
    assert a.estimate == pytest.approx(b.estimate, abs=1e-12)


def test_multinomial_counts_have_the_law_of_repeated_rows():
    """Large integer weights switch to multinomial counts: same law, other draws."""
    y, p = _data(n=40, seed=3)
    w = np.full(p.size, 10.0)  # 10 units per row: above the switch
    assert 10 > _bootstrap.MULTINOMIAL_FACTOR
    idx = np.repeat(np.arange(p.size), 10)
    a = bootstrap_ci(_mcb, y, p, sample_weight=w, n_resamples=1500, random_state=0)
    b = bootstrap_ci(_mcb, y[idx], p[idx], n_resamples=1500, random_state=1)
    se = np.hypot(a.standard_error, b.standard_error) / np.sqrt(1500)
    assert abs(a.bootstrap_distribution.mean() - b.bootstrap_distribution.mean()) < 4 * se
    assert a.standard_error == pytest.approx(b.standard_error, rel=0.1)


def test_resampled_weights_keep_the_total_and_move_continuously():
    rng = np.random.default_rng(0)
    for total in (0.4, 0.999, 1.0, 2.5, 7.0):
        w = np.array([0.3, 0.0, 0.5, 0.2]) * total
        for counts in _bootstrap.resampled_weights(w, 20, rng):
            assert counts.sum() == pytest.approx(total)
            assert counts[1] == 0.0  # rows of weight 0 are never drawn
    # below a total of 1 a resample is one row holding the whole weight
    for counts in _bootstrap.resampled_weights(np.array([0.2, 0.3]), 10, rng):
        assert np.count_nonzero(counts) == 1


def test_agrees_with_scipy_bootstrap():
    stats = pytest.importorskip("scipy.stats")
    y, p = _data(n=300, seed=5)
    ours = bootstrap_ci(MEASURES["ece"], y, p, n_resamples=2000, random_state=0)
    ref = stats.bootstrap(
        (y, p),
        lambda yy, pp: expected_calibration_error(yy, pp, n_bins=10),
        paired=True,
        vectorized=False,
        n_resamples=2000,
        method="percentile",
        confidence_level=0.95,
        random_state=1,
    )
    width = ref.confidence_interval.high - ref.confidence_interval.low
    # two Monte Carlo estimates of the same quantiles
    assert ours.low == pytest.approx(ref.confidence_interval.low, abs=0.1 * width)
    assert ours.high == pytest.approx(ref.confidence_interval.high, abs=0.1 * width)
    assert ours.standard_error == pytest.approx(ref.standard_error, rel=0.1)


def test_basic_interval_reflects_the_percentile_one():
    y, p = _data(seed=6)
    a = bootstrap_ci(smooth_ece, y, p, n_resamples=50, random_state=2)
    b = bootstrap_ci(smooth_ece, y, p, n_resamples=50, random_state=2, method="basic")
    assert b.low == pytest.approx(2 * a.estimate - a.high)
    assert b.high == pytest.approx(2 * a.estimate - a.low)


def test_bad_arguments():
    y, p = _data(n=20)
    with pytest.raises(InvalidParameterError, match="method"):
        bootstrap_ci(smooth_ece, y, p, method="bca")
    with pytest.raises(InvalidParameterError, match="measure"):
        bootstrap_ci("ece", y, p)
    with pytest.raises(ValueError, match="sample_weight"):
        bootstrap_ci(smooth_ece, y, p, sample_weight=-np.ones(20))
    with pytest.raises(ValueError, match="Inconsistent"):
        bootstrap_ci(smooth_ece, y, p[:-1])
