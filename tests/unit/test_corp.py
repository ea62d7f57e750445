"""CORP reliability curves, decompositions and bands against brute force with scikit-learn."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from calibbook import (
    corp_confidence_bands,
    corp_consistency_bands,
    corp_decomposition,
    corp_reliability,
)
from calibbook.metrics._bootstrap import resampled_weights

sk_isotonic = pytest.importorskip("sklearn.isotonic")


def _data(n=400, seed=0, ties=True, weights=False):
    rng = np.random.default_rng(seed)
    p = rng.beta(0.8, 0.8, size=n)
    if ties:
        p = np.round(p, 2)
    y = (rng.uniform(size=n) < p**1.3).astype(float)
    w = rng.integers(0, 4, size=n).astype(float) if weights else None
    return y, p, w


def _brute(y, p, w, score):
    """Mean scores of p, of sklearn's isotonic fit and of the base rate, row by row."""
    w = np.ones_like(p) if w is None else w
    c = sk_isotonic.IsotonicRegression(out_of_bounds="clip").fit(p, y, sample_weight=w).predict(p)
    r = np.full_like(p, np.sum(w * y) / np.sum(w))

    keep = w > 0  # absent rows (an infinite score times 0 would be NaN)

    def mean(f):
        f, yk, wk = f[keep], y[keep], w[keep]
        if score == "brier":
            s = (f - yk) ** 2
        else:
            with np.errstate(divide="ignore"):
                s = np.where(yk == 1, -np.log(f), -np.log1p(-f))
        return np.sum(wk * s) / np.sum(wk)

    return mean(p), mean(c), mean(r)


@pytest.mark.parametrize("score", ["brier", "log"])
@pytest.mark.parametrize("weights", [False, True])
def test_decomposition_equals_brute_force(score, weights):
    y, p, w = _data(weights=weights, seed=3)
    p = np.clip(p, 0.01, 0.99)
    d = corp_decomposition(y, p, score=score, sample_weight=w)
    s, s_c, s_r = _brute(y, p, w, score)
    assert d.mean_score == pytest.approx(s, abs=1e-12)
    assert d.mcb == pytest.approx(s - s_c, abs=1e-12)
    assert d.dsc == pytest.approx(s_r - s_c, abs=1e-12)
    assert d.unc == pytest.approx(s_r, abs=1e-12)
    assert abs(d.mcb - d.dsc + d.unc - d.mean_score) <= 1e-12


@pytest.mark.parametrize("weights", [False, True])
def test_curve_equals_sklearn_isotonic(weights):
    y, p, w = _data(weights=weights, seed=1)
    curve = corp_reliability(y, p, sample_weight=w)
    ref_w = np.ones_like(p) if w is None else w
    ref = sk_isotonic.IsotonicRegression().fit(p, y, sample_weight=ref_w)
    keep = ref_w > 0
    np.testing.assert_array_equal(curve.x, np.unique(p[keep]))
    np.testing.assert_allclose(curve.calibrated, ref.predict(curve.x), rtol=0, atol=1e-12)
    assert np.all(np.diff(curve.calibrated) >= 0)
    np.testing.assert_allclose(curve.count.sum(), ref_w.sum())


def test_integer_weights_equal_repeated_rows():
    y, p, w = _data(weights=True, seed=2)
    idx = np.repeat(np.arange(p.size), w.astype(int))
    for score in ("brier", "log"):
        a = corp_decomposition(y, p, score=score, sample_weight=w)
        b = corp_decomposition(y[idx], p[idx], score=score)
        np.testing.assert_allclose(a[1:], b[1:], rtol=1e-13, atol=1e-15)
    a, b = corp_reliability(y, p, sample_weight=w), corp_reliability(y[idx], p[idx])
    np.testing.assert_allclose(a.calibrated, b.calibrated, atol=1e-15)


def test_hand_worked_cases():
    # constant 0.5 on a balanced sample: calibrated, no discrimination
    d = corp_decomposition([0, 1, 0, 1], [0.5] * 4)
    assert (d.mean_score, d.mcb, d.dsc, d.unc) == (0.25, 0.0, 0.0, 0.25)
    # perfect ranking: PAV gives 0 and 1, the recalibrated Brier score is 0
    d = corp_decomposition([0, 0, 1, 1], [0.3, 0.4, 0.6, 0.7])
    assert d.dsc == d.unc == 0.25
    assert d.mcb == pytest.approx((0.09 + 0.16 + 0.16 + 0.09) / 4)


def test_log_score_at_zero_and_one():
    # 0 and 1 on the rows where they are right cost nothing
    d = corp_decomposition([0, 1, 0, 1], [0.0, 1.0, 0.0, 1.0], score="log")
    assert (d.mean_score, d.mcb, d.dsc) == (0.0, 0.0, np.log(2))
    # a forecast of 0 for a positive: infinite mean score and MCB, finite DSC and UNC
    d = corp_decomposition([1, 0, 1, 1], [0.0, 0.5, 0.7, 0.9], score="log")
    assert d.mean_score == d.mcb == np.inf
    assert np.isfinite(d.dsc) and np.isfinite(d.unc)


@settings(max_examples=50, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 20), st.booleans(), st.integers(0, 3)), min_size=1, max_size=40
    ),
    st.sampled_from(["brier", "log"]),
)
def test_properties(rows, score):
    p = np.array([r[0] for r in rows]) / 20.0
    y = np.array([r[1] for r in rows], dtype=float)
    w = np.array([r[2] for r in rows], dtype=float)
    if not w.any():
        w[0] = 1.0
    d = corp_decomposition(y, p, score=score, sample_weight=w)
    assert d.dsc >= -1e-12 and d.unc >= d.dsc - 1e-12
    if np.isfinite(d.mean_score):
        assert d.mcb >= -1e-12
        assert abs(d.mcb - d.dsc + d.unc - d.mean_score) <= 1e-12


def test_consistency_bands_weights_are_repeated_rows():
    _, p, w = _data(weights=True, seed=4)
    idx = np.repeat(np.arange(p.size), w.astype(int))
    a = corp_consistency_bands(p, sample_weight=w, n_resamples=300, random_state=5)
    b = corp_consistency_bands(p[idx], n_resamples=300, random_state=5)
    for u, v in zip(a, b, strict=True):
        np.testing.assert_array_equal(u, v)


def test_consistency_bands_match_a_brute_force_loop():
    _, p, _ = _data(n=300, seed=6)
    ours = corp_consistency_bands(p, n_resamples=1000, confidence=0.8, random_state=0)
    rng = np.random.default_rng(1)
    fits = np.array(
        [
            sk_isotonic.IsotonicRegression()
            .fit(p, (rng.uniform(size=p.size) < p).astype(float))
            .predict(ours.x)
            for _ in range(1000)
        ]
    )
    lower, upper = np.quantile(fits, [0.1, 0.9], axis=0, method="inverted_cdf")
    # two Monte Carlo runs of the same law: the quantiles agree to their noise
    assert np.mean(np.abs(ours.lower - lower)) < 0.02
    assert np.mean(np.abs(ours.upper - upper)) < 0.02
    assert np.all(ours.lower <= ours.upper)


def test_confidence_bands_equal_sklearn_on_the_same_resamples():
    y, p, w = _data(n=200, seed=7, weights=True)
    ours = corp_confidence_bands(y, p, sample_weight=w, n_resamples=50, random_state=3)
    rng = np.random.default_rng(3)
    fits = []
    for counts in resampled_weights(w, 50, rng):
        keep = counts > 0
        ref = sk_isotonic.IsotonicRegression(out_of_bounds="clip")
        fits.append(ref.fit(p[keep], y[keep], sample_weight=counts[keep]).predict(ours.x))
    lower, upper = np.quantile(np.array(fits), [0.05, 0.95], axis=0, method="inverted_cdf")
    np.testing.assert_allclose(ours.lower, lower, atol=1e-12)
    np.testing.assert_allclose(ours.upper, upper, atol=1e-12)


def test_bands_cover_a_calibrated_curve_and_read_at_points():
    rng = np.random.default_rng(8)
    p = rng.uniform(size=2000)
    y = (rng.uniform(size=2000) < p).astype(float)
    grid = np.linspace(0.05, 0.95, 19)
    cons = corp_consistency_bands(p, n_resamples=200, random_state=0, at=grid)
    conf = corp_confidence_bands(y, p, n_resamples=200, random_state=0, at=grid)
    np.testing.assert_array_equal(cons.x, grid)
    assert np.mean((cons.lower <= grid) & (grid <= cons.upper)) > 0.9
    assert np.mean((conf.lower <= grid) & (grid <= conf.upper)) > 0.8


def test_bad_input_names_the_problem():
    with pytest.raises(ValueError, match="y_prob"):
        corp_decomposition([0, 1], [0.2, 1.2])
    with pytest.raises(ValueError, match="score"):
        corp_decomposition([0, 1], [0.2, 0.4], score="spherical")
    with pytest.raises(ValueError, match="at"):
        corp_consistency_bands([0.2, 0.4], at=[np.nan])
