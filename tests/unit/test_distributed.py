"""calibbook.distributed against the in-memory fit on the raw rows.

The reference is always the calibrator fitted directly on the NumPy arrays, which
never goes through the aggregation code. Scores are drawn from a few hundred values,
so most rows are tied, with both labels, and the reduction does real work.
"""

import sys

import numpy as np
import pytest

da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")
pd = pytest.importorskip("pandas")

from sklearn.exceptions import NotFittedError  # noqa: E402

from calibbook.calibrators.bbq import BBQ  # noqa: E402
from calibbook.calibrators.beta import BetaCalibration  # noqa: E402
from calibbook.calibrators.enir import ENIR  # noqa: E402
from calibbook.calibrators.histogram_binning import HistogramBinning  # noqa: E402
from calibbook.calibrators.isotonic import (  # noqa: E402
    CenteredIsotonicCalibration,
    IsotonicCalibration,
)
from calibbook.calibrators.near_isotonic import NearIsotonicRegression  # noqa: E402
from calibbook.calibrators.platt import PlattScaling  # noqa: E402
from calibbook.calibrators.quadratic import QuadraticScaling  # noqa: E402
from calibbook.calibrators.spline import SplineCalibration  # noqa: E402
from calibbook.calibrators.venn_abers import VennAbers  # noqa: E402
from calibbook.distributed import ScoreGrid, aggregate, fit_distributed, predict_distributed  # noqa: E402

METHODS = {
    "isotonic": IsotonicCalibration,
    "near_isotonic": lambda: NearIsotonicRegression(lam=0.3),
    "enir": ENIR,
    "platt": PlattScaling,
    "histogram": HistogramBinning,
    "histogram_uniform": lambda: HistogramBinning(strategy="uniform"),
    "bbq": BBQ,
    # issue 30: their fits read only per-score sums, so aggregation is exact
    "quadratic": QuadraticScaling,
    "centered_isotonic": CenteredIsotonicCalibration,
    "venn_abers": VennAbers,
    "beta": BetaCalibration,
    "spline": lambda: SplineCalibration(penalty=1.0),
}
FIVE = ["isotonic", "enir", "platt", "histogram", "bbq"]
PROBE = np.linspace(0.0, 1.0, 1001)
N = 20_000
CHUNK = 3_000  # 7 blocks: the tree reduction merges twice with split_every=4


def make_data(seed, n=N, n_values=300):
    rng = np.random.default_rng(seed)
    values = np.round(rng.uniform(size=n_values), 3)  # heavy ties
    s = rng.choice(values, size=n)
    y = (rng.uniform(size=n) < 0.1 + 0.8 * s**2).astype(np.float64)
    w = rng.integers(0, 4, size=n).astype(np.float64)  # zeros: absent rows
    w[:10] = 0.5 + rng.uniform(size=10)  # and a few real weights
    return s, y, w


@pytest.fixture(scope="module")
def data():
    return make_data(0)


def as_kind(kind, s, y, w, chunk=CHUNK):
    if kind == "array":
        return tuple(da.from_array(v, chunks=chunk) for v in (s, y, w))
    frame = pd.DataFrame({"score": s, "label": y.astype(np.int64), "weight": w})
    ddf = dd.from_pandas(frame, npartitions=-(-len(s) // chunk), sort=False)
    return ddf["score"], ddf["label"], ddf["weight"]


def assert_same_model(fitted, reference):
    np.testing.assert_allclose(fitted.predict(PROBE), reference.predict(PROBE), rtol=0, atol=1e-9)


# --------------------------------------------------------------------------- aggregation
def test_aggregate_counts_match_numpy_unique(data):
    s, y, w = data
    rows, counts = np.unique(np.column_stack((s, y)), axis=0, return_counts=True)
    got = aggregate(*as_kind("array", s, y, w)[:2], split_every=3)
    np.testing.assert_array_equal(got[0], rows[:, 0])
    np.testing.assert_array_equal(got[1], rows[:, 1])
    np.testing.assert_array_equal(got[2], counts)
    assert got[0].size < N / 20


def test_aggregate_sums_weights_and_drops_zero_weights(data):
    s, y, w = data
    got_s, got_y, got_w = aggregate(*as_kind("series", s, y, w))
    keep = w > 0
    frame = pd.DataFrame({"s": s[keep], "y": y[keep], "w": w[keep]}).groupby(["s", "y"])["w"].sum()
    np.testing.assert_array_equal(got_s, frame.index.get_level_values("s"))
    np.testing.assert_array_equal(got_y, frame.index.get_level_values("y"))
    np.testing.assert_allclose(got_w, frame.to_numpy(), rtol=1e-14)
    assert (got_w > 0).all()


def test_numpy_input_needs_no_dask_and_matches(data):
    s, y, w = data
    ref = IsotonicCalibration().fit(s, y, sample_weight=w)
    cal = fit_distributed(IsotonicCalibration(), s, y, w)
    assert_same_model(cal, ref)
    # Same model, two paths: exact. (cal and ref agree to rounding only: a weighted block mean
    # over aggregated rows may differ in the last bit, e.g. without NumPy's SIMD summation.)
    np.testing.assert_array_equal(predict_distributed(cal, s), cal.predict(s))


# --------------------------------------------------------------------------- fit = in-memory fit
@pytest.mark.parametrize("name", METHODS)
@pytest.mark.parametrize("kind", ["array", "series"])
@pytest.mark.parametrize("weighted", [False, True], ids=["counts", "weights"])
def test_fit_matches_in_memory_fit(data, name, kind, weighted):
    s, y, w = data
    ref = METHODS[name]().fit(s, y, sample_weight=w if weighted else None)
    S, Y, W = as_kind(kind, s, y, w)
    cal = fit_distributed(METHODS[name](), S, Y, W if weighted else None, split_every=4)
    assert_same_model(cal, ref)


@pytest.mark.parametrize("seed", range(1, 4))
def test_heavy_ties_few_values_many_blocks(seed):
    # 5 distinct scores in 40 blocks: every block holds every value with both labels
    rng = np.random.default_rng(seed)
    s = rng.choice([0.1, 0.3, 0.5, 0.7, 0.9], size=8000)
    y = (rng.uniform(size=8000) < s).astype(np.float64)
    S, Y = da.from_array(s, chunks=200), da.from_array(y, chunks=200)
    for name in FIVE:
        assert_same_model(fit_distributed(METHODS[name](), S, Y), METHODS[name]().fit(s, y))


def test_chunks_are_aligned_and_empty_blocks_are_fine(data):
    s, y, _ = data
    S = da.from_array(s, chunks=((5000, 0, 7000, 8000),))
    Y = da.from_array(y, chunks=6000)  # other chunks: rechunked to match
    cal = fit_distributed(IsotonicCalibration(), S, Y)
    ref = IsotonicCalibration().fit(s, y)
    assert_same_model(cal, ref)
    np.testing.assert_array_equal(predict_distributed(cal, S).compute(), cal.predict(s))


# --------------------------------------------------------------------------- predict
@pytest.mark.parametrize("kind", ["array", "series"])
def test_predict_is_lazy_blockwise_and_matches_predict(data, kind):
    s, y, w = data
    S = as_kind(kind, s, y, w)[0]
    for name in FIVE:
        cal = METHODS[name]().fit(s, y)
        p = predict_distributed(cal, S)
        assert type(p) is type(S) and p.npartitions == S.npartitions
        out = p.compute()
        if kind == "series":
            assert out.index.equals(S.compute().index)
            out = out.to_numpy()
        np.testing.assert_array_equal(out, cal.predict(s))


def test_predict_unfitted_raises():
    with pytest.raises(NotFittedError):
        predict_distributed(IsotonicCalibration(), da.ones(3, chunks=2))


# --------------------------------------------------------------------------- the grid
def test_grid_moves_scores_by_at_most_half_a_cell():
    rng = np.random.default_rng(5)
    grid = ScoreGrid(1000, -3.0, 2.0)
    s = np.concatenate([[-3.0, 2.0], rng.uniform(-3.0, 2.0, 10_000)])
    q = grid.quantize(s)
    assert np.abs(q - s).max() <= grid.max_shift * (1 + 1e-9)
    assert np.unique(q).size <= grid.n_cells
    # independent cell index: scaled truncation, the last cell closed
    k = np.minimum(((s + 3.0) * (1000 / 5.0)).astype(np.int64), 999)
    np.testing.assert_allclose(q, -3.0 + (k + 0.5) * 0.005, rtol=0, atol=1e-12)


@pytest.mark.parametrize("name", FIVE)
def test_grid_fit_is_the_in_memory_fit_on_quantised_scores(name):
    rng = np.random.default_rng(7)
    s = rng.beta(2, 3, size=N)  # continuous: almost all distinct
    y = (rng.uniform(size=N) < s).astype(np.float64)
    grid = ScoreGrid(256, 0.0, 1.0)
    k = np.minimum((s * 256).astype(np.int64), 255)  # independent of ScoreGrid.cells
    ref = METHODS[name]().fit((k + 0.5) / 256, y)
    rows = aggregate(da.from_array(s, chunks=CHUNK), da.from_array(y, chunks=CHUNK), grid=grid)
    assert rows[0].size <= 2 * grid.n_cells
    cal = fit_distributed(
        METHODS[name](), da.from_array(s, chunks=CHUNK), da.from_array(y, chunks=CHUNK), grid=grid
    )
    assert_same_model(cal, ref)


@pytest.mark.parametrize("n_cells", [16, 128, 1024])
def test_grid_isotonic_training_error_within_bound(n_cells):
    # Chapter 9: 0 <= MSE(grid fit o Q) - MSE(exact fit)
    #                <= 2 * (largest cell weight) / (total weight)
    rng = np.random.default_rng(n_cells)
    s = rng.beta(2, 5, size=N)
    y = (rng.uniform(size=N) < np.sqrt(s)).astype(np.float64)
    grid = ScoreGrid(n_cells, 0.0, 1.0)
    S, Y = da.from_array(s, chunks=CHUNK), da.from_array(y, chunks=CHUNK)
    grid_fit = fit_distributed(IsotonicCalibration(), S, Y, grid=grid)
    exact = IsotonicCalibration().fit(s, y)
    mse_grid = np.mean((y - predict_distributed(grid_fit, S, grid=grid).compute()) ** 2)
    mse_exact = np.mean((y - exact.predict(s)) ** 2)
    largest_cell = np.bincount(grid.cells(s), minlength=n_cells).max() / N
    assert -1e-12 <= mse_grid - mse_exact <= 2 * largest_cell


@pytest.mark.parametrize("n_cells", [64, 2**22], ids=["lookup-table", "per-block"])
@pytest.mark.parametrize("kind", ["array", "series"])
def test_grid_predictions_are_predict_on_quantised_scores(data, n_cells, kind):
    s, y, _w = data
    grid = ScoreGrid(n_cells, 0.0, 1.0)
    x = np.concatenate(
        [[-0.5, 0.0, 1.0, 1.5], np.random.default_rng(4).uniform(size=4000)]
    )  # out of range: end cells
    X = as_kind(kind, x, np.zeros_like(x), np.ones_like(x), chunk=1000)[0]
    for name in ["isotonic", "enir", "platt"]:
        cal = METHODS[name]().fit(s, y)
        expected = cal.predict(np.clip(grid.quantize(np.clip(x, 0.0, 1.0)), 0.0, 1.0))
        np.testing.assert_array_equal(
            np.asarray(predict_distributed(cal, X, grid=grid).compute()), expected
        )
        np.testing.assert_array_equal(predict_distributed(cal, x, grid=grid), expected)


def test_grid_platt_prediction_shift_within_lipschitz_bound(data):
    s, y, _ = data
    cal = PlattScaling().fit(s, y)
    grid = ScoreGrid(50, 0.0, 1.0)
    x = np.random.default_rng(3).uniform(size=5000)
    shift = np.abs(predict_distributed(cal, x, grid=grid) - cal.predict(x)).max()
    assert shift <= abs(cal.a_) / 4 * grid.max_shift * (1 + 1e-9)


# --------------------------------------------------------------------------- bad input
def _dask_pair(s, y):
    return da.from_array(np.asarray(s, dtype=float), chunks=2), da.from_array(
        np.asarray(y, dtype=float), chunks=2
    )


@pytest.mark.parametrize(
    ("scores", "labels", "weights", "match"),
    [
        ([0.1, np.nan, 0.3], [0, 1, 1], None, "NaN or infinite"),
        ([0.1, np.inf, 0.3], [0, 1, 1], None, "NaN or infinite"),
        ([0.1, 0.2, 0.3], [0, 2, 1], None, r"binary with values in \{0, 1\}"),
        ([0.1, 0.2, 0.3], [0, 1, 1], [1.0, -1.0, 1.0], "non-negative"),
        ([0.1, 0.2, 0.3], [0, 1, 1], [1.0, np.nan, 1.0], "sample_weight contains NaN"),
        ([0.1, 0.2, 0.3], [0, 1, 1], [0.0, 0.0, 0.0], "no rows with positive weight"),
        ([0.1, 0.2, 0.3], [0, 1], None, "Inconsistent numbers of samples"),
    ],
)
def test_bad_input_raises_value_error(scores, labels, weights, match):
    s, y = _dask_pair(scores, labels)
    w = None if weights is None else da.from_array(np.asarray(weights), chunks=2)
    with pytest.raises(ValueError, match=match):
        aggregate(s, y, w)


def test_bad_collections_raise_value_error(data):
    s, y, w = data
    S, Y, _ = as_kind("series", s, y, w)
    ddf = dd.from_pandas(pd.DataFrame({"score": s, "label": y}), npartitions=3)
    with pytest.raises(ValueError, match="pass one column"):
        aggregate(ddf, ddf["label"])
    with pytest.raises(ValueError, match="same kind"):
        aggregate(S, da.from_array(y, chunks=CHUNK))
    with pytest.raises(ValueError, match="same kind"):
        aggregate(da.from_array(s, chunks=CHUNK), y)
    with pytest.raises(ValueError, match="partitions"):
        aggregate(S, ddf["label"])
    with pytest.raises(ValueError, match="1-D"):
        aggregate(da.ones((4, 2), chunks=2), da.ones((4, 2), chunks=2))
    with pytest.raises(ValueError, match="1-D"):
        fit_distributed(IsotonicCalibration(), np.ones((4, 2)), np.ones((4, 2)))
    with pytest.raises(ValueError, match="split_every"):
        aggregate(S, Y, split_every=1)
    with pytest.raises(ValueError, match="single class"):  # the calibrator's own check
        fit_distributed(
            IsotonicCalibration(),
            S,
            Y * 0,  # one class, on S's own partitions
        )


def test_misaligned_partitions_raise_when_computed():
    s = dd.from_pandas(pd.Series(np.linspace(0, 1, 10)), npartitions=2)
    y = dd.from_pandas(pd.Series(np.arange(7) % 2), npartitions=2)
    with pytest.raises(ValueError, match="aligned"):
        aggregate(s, y)


def test_bad_grids_raise_value_error():
    # at most 2**52 cells, so that cell codes stay exact in float64
    at_most = f"n_cells must be an integer in \\[2, {2**52}\\]"
    for n_cells in (1, 2.5, 2**53):
        with pytest.raises(ValueError, match=at_most):
            ScoreGrid(n_cells)
    with pytest.raises(ValueError, match="grid must be None, a ScoreGrid or a tuple of 3"):
        aggregate(*_dask_pair([0.1], [1]), grid=(10, 0.0))
    with pytest.raises(ValueError, match="lo < hi"):
        ScoreGrid(10, 1.0, 1.0)
    with pytest.raises(ValueError, match="hi must be a finite number"):
        ScoreGrid(10, 0.0, np.inf)
    s, y = _dask_pair([0.1, 0.5, 1.5], [0, 1, 1])
    with pytest.raises(ValueError, match="outside the grid range"):
        aggregate(s, y, grid=(10, 0.0, 1.0))
    with pytest.raises(ValueError, match="grid must be"):
        aggregate(s, y, grid=10)


def test_missing_dask_gives_install_hint(monkeypatch):
    class FakeCollection:
        def __dask_graph__(self):  # looks like a dask collection
            return {}

    monkeypatch.setitem(sys.modules, "dask.array", None)
    with pytest.raises(ImportError, match=r"calibbook\[distributed\]"):
        aggregate(FakeCollection(), FakeCollection())


# --------------------------------------------------------------------------- a real cluster
@pytest.fixture(scope="module")
def thread_cluster_client():
    distributed = pytest.importorskip("distributed")
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0"
        ) as cluster,
        distributed.Client(cluster, set_as_default=False) as client,
    ):
        yield client


@pytest.mark.parametrize("kind", ["array", "series"])
def test_local_cluster_fit_and_predict_match_in_memory(thread_cluster_client, data, kind):
    s, y, w = data
    S, Y, W = as_kind(kind, s, y, w)
    for name in FIVE:
        ref = METHODS[name]().fit(s, y, sample_weight=w)
        cal = fit_distributed(METHODS[name](), S, Y, W, client=thread_cluster_client)
        assert_same_model(cal, ref)
        out = thread_cluster_client.compute(predict_distributed(cal, S), sync=True)
        np.testing.assert_allclose(np.asarray(out), ref.predict(s), rtol=0, atol=1e-9)


def test_local_cluster_reports_bad_labels(thread_cluster_client):
    s, y = _dask_pair([0.1, 0.2, 0.3, 0.4], [0, 1, 3, 1])
    with pytest.raises(ValueError, match="binary"):
        aggregate(s, y, client=thread_cluster_client)


def test_local_cluster_with_worker_processes():
    # Worker processes: the calibrator and the block functions travel by pickle.
    distributed = pytest.importorskip("distributed")
    s, y, w = make_data(11, n=6000)
    S, Y, _ = as_kind("series", s, y, w, chunk=2000)
    with (
        distributed.LocalCluster(
            n_workers=1, threads_per_worker=1, processes=True, dashboard_address=":0"
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        cal = fit_distributed(ENIR(), S, Y, client=client, grid=ScoreGrid(100, 0.0, 1.0))
        p = predict_distributed(
            cal, S, grid=ScoreGrid(100, 0.0, 1.0)
        ).compute()  # the default client
    ref = ENIR().fit(ScoreGrid(100, 0.0, 1.0).quantize(s), y)
    assert_same_model(cal, ref)
    np.testing.assert_allclose(
        p.to_numpy(), ref.predict(ScoreGrid(100, 0.0, 1.0).quantize(s)), atol=1e-12
    )


def test_numpy_length_mismatch_raises_value_error():
    with pytest.raises(ValueError, match="Inconsistent numbers of samples"):
        aggregate(np.array([0.1, 0.2, 0.3]), np.array([0, 1]))
    with pytest.raises(ValueError, match="Inconsistent numbers of samples"):
        fit_distributed(IsotonicCalibration(), [0.1, 0.2], [0, 1], [1.0, 1.0, 1.0])


@pytest.mark.parametrize("kind", ["array", "series"])
def test_string_labels_are_a_clear_value_error(kind):
    """Issue 28: labels such as "yes"/"no" gave "Unknown format code 'g' for object of type
    'str'" inside a block; they get the in-memory message, listing the labels."""
    s = np.linspace(0.0, 1.0, 10)
    y = np.array(["no", "yes"] * 5)
    if kind == "array":
        S, Y = da.from_array(s, chunks=5), da.from_array(y, chunks=5)
    else:
        S = dd.from_pandas(pd.Series(s), npartitions=2)
        Y = dd.from_pandas(pd.Series(y), npartitions=2)
    with pytest.raises(ValueError, match=r"binary with values in \{0, 1\}.*'no', 'yes'"):
        fit_distributed(IsotonicCalibration(), S, Y)


def test_complex_scores_are_a_clear_value_error():
    s = da.from_array(np.linspace(0.0, 1.0, 6) + 1j, chunks=3)
    y = da.from_array(np.arange(6) % 2, chunks=3)
    with pytest.raises(ValueError, match="scores must be real"):
        aggregate(s, y)
