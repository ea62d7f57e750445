"""Calibration at scale: reduce Dask collections to weighted unique rows, fit locally.

Every calibbook calibrator sees its training data only through weighted
(score, label) rows, and tied rows can be merged by adding their weights without
changing the fit (chapter 9 proves it for PAV and near-isotonic regression;
``tests/test_aggregation.py`` checks all five exact methods). So 1e8 scored events
need not fit in memory: Dask sums the weights of equal (score, label) pairs block
by block in a tree reduction, the few unique rows come back to this process, and
the calibrator fits on them as usual. Prediction is blockwise.

When the scores take too many distinct values, a :class:`ScoreGrid` rounds each
one to the centre of its cell first, so at most two rows per cell come back.

Dask is an optional dependency (``pip install "calibbook[distributed]"``) and is
imported only when a Dask collection is passed; plain NumPy input works without it.
"""

from dataclasses import dataclass
from functools import partial

import numpy as np

from calibbook._utils.optional import require
from calibbook._utils.params import (
    Integral,
    Interval,
    Real,
    TupleOf,
    validate_parameters,
    validate_params,
)
from calibbook._utils.validation import (
    as_float_array,
    check_consistent_length,
    check_finite,
    check_weight_values,
    positive_label_mask,
)

__all__ = ["ScoreGrid", "aggregate", "fit_distributed", "predict_distributed"]

_INSTALL_HINT = (
    "calibbook.distributed needs dask for Dask collections; install it with "
    "pip install 'calibbook[distributed]' (or pip install 'dask[dataframe]' distributed)."
)
# A dense bincount over the grid beats a sort once a block holds a fair share of the
# cells; beyond this many cells per row the sparse (sort-based) path is used.
_DENSE_CELLS_PER_ROW = 4
# Up to this many cells, predictions on a grid are one table lookup per score (the table,
# 8 bytes per cell, travels with the graph instead of the calibrator).
_MAX_TABLE_CELLS = 2**21


# --------------------------------------------------------------------------- the grid
@dataclass(frozen=True)
class ScoreGrid:
    """``n_cells`` equal cells on ``[lo, hi]``; a score is replaced by its cell's centre.

    Cell ``k`` is ``[lo + k d, lo + (k + 1) d)`` with width ``d = (hi - lo) / n_cells``
    (the last cell also holds ``hi``), and its centre is ``lo + (k + 1/2) d``. So
    rounding moves every score by at most ``d / 2`` (:attr:`max_shift`), and a data
    set reduced on the grid has at most ``2 n_cells`` distinct (score, label) rows.

    Parameters
    ----------
    n_cells : int
        Number of cells G, at least 2.
    lo, hi : float
        Range of the grid, finite with ``lo < hi``. Training scores must lie in it.

    Raises
    ------
    ValueError
        If ``n_cells`` is not an integer >= 2 or the range is not finite and increasing.

    Notes
    -----
    What the rounding costs (proofs in chapter 9 of the book):

    * a fit on the reduced rows equals the in-memory fit on ``grid.quantize(scores)``
      (to rounding: aggregation is exact);
    * evaluated at quantised scores, a map that is L-Lipschitz in the score moves by
      at most ``L * max_shift`` (for ``PlattScaling`` on raw scores, L is a quarter of
      the absolute slope ``abs(a_)``);
    * for ``IsotonicCalibration``, the weighted mean squared error on the training
      rows of the grid fit (evaluated at quantised scores) exceeds that of the exact
      fit by at most twice the largest fraction of the total weight in one cell.

    Nothing is claimed about the distance between the two fitted step functions
    themselves: a cell that merges rows of both labels can move a PAV block edge.

    References
    ----------
    The grid and its error bounds are the book's own; :doc:`/book/09_billion_predictions`
    states and proves them (the aggregation follows Chu et al., NIPS 2006).

    Examples
    --------
    >>> grid = ScoreGrid(4, 0.0, 1.0)
    >>> grid.quantize([0.0, 0.3, 0.5, 1.0]).tolist()
    [0.125, 0.375, 0.625, 0.875]
    >>> grid.max_shift
    0.125
    """

    n_cells: int
    lo: float = 0.0
    hi: float = 1.0

    _parameter_constraints = {
        # at most 2**52 cells: cell codes must stay exact in float64 arithmetic
        "n_cells": [Interval(Integral, 2, 2**52)],
        "lo": [Interval(Real, None, None)],
        "hi": [Interval(Real, None, None)],
    }

    def __post_init__(self):
        validate_parameters(self)
        object.__setattr__(self, "n_cells", int(self.n_cells))
        object.__setattr__(self, "lo", float(self.lo))
        object.__setattr__(self, "hi", float(self.hi))

    def _check_parameter_combinations(self):
        if not self.lo < self.hi:
            raise ValueError(f"ScoreGrid needs lo < hi; got lo={self.lo!r}, hi={self.hi!r}.")

    @property
    def width(self):
        """Cell width ``(hi - lo) / n_cells``."""
        return (self.hi - self.lo) / self.n_cells

    @property
    def max_shift(self):
        """Largest distance between a score in ``[lo, hi]`` and its cell centre: ``width / 2``."""
        return self.width / 2.0

    def cells(self, scores, *, clip=False):
        """Cell index (int64) of each score.

        Parameters
        ----------
        scores : array-like of shape (n,)
            Finite scores.
        clip : bool, default=False
            Put scores outside ``[lo, hi]`` in the end cells instead of raising.

        Returns
        -------
        ndarray of int64, shape (n,)

        Raises
        ------
        ValueError
            If a score is NaN or infinite, or outside ``[lo, hi]`` and ``clip`` is False.
        """
        s = _finite_scores(scores)
        if not clip and s.size and (s.min() < self.lo or s.max() > self.hi):
            raise ValueError(
                f"scores outside the grid range [{self.lo:.6g}, {self.hi:.6g}]: found values in "
                f"[{s.min():.6g}, {s.max():.6g}]. Widen the ScoreGrid (e.g. to the min and max "
                "of the scores) so that rounding moves no score by more than half a cell."
            )
        k = np.floor((s - self.lo) / self.width)
        return np.clip(k, 0, self.n_cells - 1).astype(np.int64)

    def centres(self, cells):
        """Centre ``lo + (k + 1/2) width`` of each cell index ``k``."""
        return self.lo + (np.asarray(cells, dtype=np.float64) + 0.5) * self.width

    def quantize(self, scores, *, clip=False):
        """Replace each score by the centre of its cell (moves it by at most :attr:`max_shift`).

        Parameters and errors as in :meth:`cells`.
        """
        return self.centres(self.cells(scores, clip=clip))


#: ``grid`` of the public functions: None, a ScoreGrid or its fields (n_cells, lo, hi).
GRID = [None, ScoreGrid, TupleOf(3)]


def _as_grid(grid):
    return ScoreGrid(*grid) if isinstance(grid, tuple) else grid


# --------------------------------------------------------------------------- block kernels
# Pure NumPy functions over one block (a NumPy chunk or a pandas partition). Errors are
# raised inside the task and reach the caller as the same ValueError.
def _finite_scores(values, name="scores"):
    return check_finite(as_float_array(values, name).reshape(-1), name, "in a block")


def _block_labels(y, n):
    labels = np.asarray(y).reshape(-1)
    if labels.shape[0] != n:
        raise ValueError(
            f"y has {labels.shape[0]} entries in a block where scores has {n}; scores, y and "
            "sample_weight must be aligned (same partitions or chunks)."
        )
    return positive_label_mask(labels)


def _block_weights(sample_weight, n):
    if sample_weight is None:
        return None
    w = as_float_array(sample_weight, "sample_weight").reshape(-1)
    if w.shape[0] != n:
        raise ValueError(
            f"sample_weight has {w.shape[0]} entries in a block where scores has {n}; scores, y "
            "and sample_weight must be aligned (same partitions or chunks)."
        )
    return check_weight_values(w)


def _sum_by_key(keys, weights, n_cells):
    """Sorted distinct keys and the summed weight of each (rows of weight 0 dropped)."""
    if weights is not None:
        keep = weights > 0
        keys, weights = keys[keep], weights[keep]
    if n_cells is not None and n_cells <= _DENSE_CELLS_PER_ROW * keys.size:
        sums = np.bincount(keys, weights=weights, minlength=n_cells).astype(np.float64)
        present = np.flatnonzero(sums)
        return present.astype(np.int64), sums[present]
    if weights is None:
        values, counts = np.unique(keys, return_counts=True)
        return values, counts.astype(np.float64)
    values, inverse = np.unique(keys, return_inverse=True)
    return values, np.bincount(inverse, weights=weights, minlength=values.size)


def _block_partial(scores, y, sample_weight, grid):
    """Reduce one block to (keys_0, weights_0, keys_1, weights_1), one pair per label.

    Keys are the scores themselves, or int64 cell indices on a grid.
    """
    s = _finite_scores(scores)
    is_pos = _block_labels(y, s.size)
    w = _block_weights(sample_weight, s.size)
    keys = s if grid is None else grid.cells(s)
    n_cells = None if grid is None else grid.n_cells
    out = []
    for mask in (~is_pos, is_pos):
        out.extend(_sum_by_key(keys[mask], None if w is None else w[mask], n_cells))
    return tuple(out)


def _merge_partials(n_cells, *partials):
    """Merge block results: equal keys of the same label add their weights."""
    out = []
    for j in (0, 2):  # label 0, then label 1
        keys = np.concatenate([p[j] for p in partials])
        weights = np.concatenate([p[j + 1] for p in partials])
        out.extend(_sum_by_key(keys, weights, n_cells))
    return tuple(out)


def _rows(partial, grid):
    """(score, label, weight) arrays from a merged result, sorted by score then label."""
    k0, w0, k1, w1 = partial
    keys = np.concatenate([k0, k1])
    scores = keys.astype(np.float64) if grid is None else grid.centres(keys)
    labels = np.concatenate([np.zeros(k0.size), np.ones(k1.size)])
    weights = np.concatenate([w0, w1])
    order = np.argsort(scores, kind="stable")
    return scores[order], labels[order], weights[order]


def _predict_block(scores, calibrator, grid):
    s = np.asarray(scores, dtype=np.float64).reshape(-1)
    if s.size == 0:  # dask probes with empty blocks; calibrators reject empty input
        return np.empty(0, dtype=np.float64)
    if grid is not None:
        s = grid.quantize(s, clip=True)
    return calibrator.predict(s)


def _lookup_block(scores, table, grid):
    """Predictions on a grid from the table of the calibrated value of every cell."""
    s = _finite_scores(scores)
    return table[grid.cells(s, clip=True)]


def _predict_partition(part, predict):
    pd = require("pandas", "distributed")

    return pd.Series(predict(part.to_numpy()), index=part.index, name=part.name)


# --------------------------------------------------------------------------- collections
def _kind(x, name):
    """'array', 'series' or 'numpy'; importing dask only for Dask collections."""
    if not hasattr(x, "__dask_graph__"):
        if np.ndim(x) != 1:
            raise ValueError(f"{name} must be 1-D (one value per sample); got shape {np.shape(x)}.")
        return "numpy"
    try:
        import dask.array as da
        import dask.dataframe as dd
    except ImportError as exc:  # a dask object, but dask cannot be imported
        raise ImportError(_INSTALL_HINT) from exc
    if isinstance(x, da.Array):
        if x.ndim != 1:
            raise ValueError(f"{name} must be a 1-D dask Array; got shape {x.shape}.")
        return "array"
    if isinstance(x, dd.Series):
        return "series"
    if isinstance(x, dd.DataFrame):
        raise ValueError(
            f"{name} is a dask DataFrame; pass one column, e.g. ddf['score'], ddf['label']."
        )
    raise ValueError(
        f"{name} must be a dask Array or Series (or a NumPy array); got {type(x).__name__}."
    )


def _blocks(scores, y, sample_weight):
    """Delayed blocks of the three inputs, aligned, or None for NumPy input."""
    kind = _kind(scores, "scores")
    others = {"y": y} if sample_weight is None else {"y": y, "sample_weight": sample_weight}
    for name, value in others.items():
        other = _kind(value, name)
        if other != kind:
            raise ValueError(
                f"scores is a {_KIND_NAMES[kind]} but {name} is a {_KIND_NAMES[other]}; pass the "
                "same kind of collection for scores, y and sample_weight."
            )
    if kind == "numpy":
        check_consistent_length(scores=scores, **others)
        return None
    if kind == "array":
        for name, value in others.items():
            if (
                not (np.isnan(value.shape[0]) or np.isnan(scores.shape[0]))
                and value.shape != scores.shape
            ):
                raise ValueError(
                    f"Inconsistent numbers of samples: scores has {scores.shape[0]}, "
                    f"{name} has {value.shape[0]}."
                )
            if value.chunks != scores.chunks:
                if any(np.isnan(c) for c in scores.chunks[0] + value.chunks[0]):
                    raise ValueError(
                        f"{name} and scores have different chunks of unknown size; call "
                        "compute_chunk_sizes() on both, or build them from the same source."
                    )
                others[name] = value.rechunk(scores.chunks)
        # Unoptimised: optimising each column alone would fuse a shared source (one loaded
        # or generated block sliced into scores and labels) into each, computing it twice.
        return [
            c.to_delayed(optimize_graph=False).ravel().tolist() for c in [scores, *others.values()]
        ]
    for name, value in others.items():
        if value.npartitions != scores.npartitions:
            raise ValueError(
                f"scores has {scores.npartitions} partitions but {name} has {value.npartitions}; "
                "take both as columns of one dask DataFrame."
            )
    return [list(c.to_delayed()) for c in [scores, *others.values()]]


_KIND_NAMES = {"numpy": "NumPy array", "array": "dask Array", "series": "dask Series"}


_AGGREGATE_PARAMETERS = {"grid": GRID, "split_every": [Interval(Integral, 2, None)]}


@validate_params(_AGGREGATE_PARAMETERS)
def aggregate(scores, y, sample_weight=None, *, grid=None, client=None, split_every=8):
    """Weighted unique (score, label) rows of a data set too large for memory.

    Each block is reduced to the distinct (score, label) pairs it holds with their
    summed weight (their count when unweighted); block results are merged in a tree
    of fan-in ``split_every``, as Dask's own groupby-aggregations do, and only the
    final merged rows come back to this process.

    Parameters
    ----------
    scores : dask Array, dask Series or array-like of shape (n,)
        Classifier scores, finite.
    y : same kind as ``scores``
        Labels in {0, 1} (or booleans), aligned with ``scores`` (same chunks, or
        columns of the same dask DataFrame; dask Arrays of the same shape are
        rechunked to match).
    sample_weight : same kind as ``scores``, optional
        Non-negative weights; rows of weight 0 are dropped.
    grid : ScoreGrid or tuple (n_cells, lo, hi), optional
        Round every score to the centre of its cell first (see :class:`ScoreGrid`);
        at most ``2 n_cells`` rows come back. Scores must lie in ``[lo, hi]``.
    client : dask.distributed.Client, optional
        Compute on this client; by default Dask's current scheduler (a local
        thread pool, or the active distributed client if one was created).
    split_every : int, default=8
        Fan-in of the tree reduction.

    Returns
    -------
    scores, labels, weights : ndarray of float64, shape (m,)
        The distinct rows, sorted by score then label; ``labels`` in {0, 1},
        ``weights`` > 0. Pass them to ``calibrator.fit(scores, labels, sample_weight=weights)``.

    Raises
    ------
    ValueError
        NaN or infinite scores, labels outside {0, 1}, negative or non-finite
        weights, misaligned inputs, scores outside the grid, or no row with
        positive weight. Errors found inside a block are raised when the graph runs.
    ImportError
        If a Dask collection is passed and dask is not installed.

    References
    ----------
    Chu et al., "Map-reduce for machine learning on multicore", NIPS 2006 (statistics
    that are sums over the data, computed block by block); Rocklin, "Dask: parallel
    computation with blocked algorithms and task scheduling", SciPy 2015.
    :doc:`/book/09_billion_predictions` proves that the fit on the reduced rows is exact.

    Examples
    --------
    >>> import dask.array as da
    >>> s = da.from_array([0.2, 0.2, 0.7, 0.2, 0.7], chunks=2)
    >>> y = da.from_array([0, 1, 1, 1, 1], chunks=2)
    >>> rows = aggregate(s, y)
    >>> [r.tolist() for r in rows]
    [[0.2, 0.2, 0.7], [0.0, 1.0, 1.0], [1.0, 2.0, 2.0]]
    """
    grid = _as_grid(grid)
    split_every = int(split_every)
    blocks = _blocks(scores, y, sample_weight)
    if blocks is None:
        merged = _block_partial(scores, y, sample_weight, grid)
    else:
        merged = _compute(_tree_reduce(blocks, grid, split_every), client)
    s, labels, w = _rows(merged, grid)
    if s.size == 0:
        raise ValueError(
            "no rows with positive weight to aggregate; at least one sample is needed."
        )
    return s, labels, w


def _tree_reduce(blocks, grid, split_every):
    from dask import delayed

    n_cells = None if grid is None else grid.n_cells
    weights = blocks[2] if len(blocks) == 3 else [None] * len(blocks[0])
    partial = delayed(_block_partial, pure=True)
    merge = delayed(_merge_partials, pure=True)
    level = [partial(s, y, w, grid) for s, y, w in zip(blocks[0], blocks[1], weights, strict=True)]
    if not level:
        raise ValueError("scores is empty; at least one sample is needed.")
    while len(level) > 1:
        level = [
            merge(n_cells, *level[i : i + split_every]) for i in range(0, len(level), split_every)
        ]
    return level[0]


def _compute(task, client):
    if client is None:
        return task.compute()
    return client.compute(task, sync=True)


@validate_params(_AGGREGATE_PARAMETERS)
def fit_distributed(
    calibrator, scores, y, sample_weight=None, *, grid=None, client=None, split_every=8
):
    """Fit a calibrator on data held by Dask: aggregate (:func:`aggregate`), then fit locally.

    Parameters
    ----------
    calibrator : calibbook calibrator
        Any estimator with ``fit(scores, y, sample_weight)``; it is fitted in place.
    scores, y, sample_weight, grid, client, split_every
        As in :func:`aggregate`.

    Returns
    -------
    calibrator
        The fitted calibrator, ready for ``predict`` or :func:`predict_distributed`.

    Raises
    ------
    ValueError
        As in :func:`aggregate`, and whatever the calibrator's own ``fit`` rejects
        (for instance a single class, or scores outside [0, 1] for a method that
        needs probabilities).

    Notes
    -----
    Without a grid the model equals the in-memory fit on the raw rows for
    ``IsotonicCalibration``, ``NearIsotonicRegression``, ``ENIR``, ``PlattScaling``,
    ``HistogramBinning`` and ``BBQ`` (to rounding). ``DPMCalibration`` runs the same
    coordinate-ascent iterations in exact arithmetic (tied rows keep equal
    responsibilities), so the fits agree to rounding unless rounding moves its
    stopping test by one iteration. ``KDECalibration``
    agrees to rounding when its ``method`` is ``"exact"`` or ``"binned"``; with
    ``method="auto"`` it chooses between the two from the number of rows it sees,
    which aggregation changes, so the two fits then agree only to its ``binned_tol``.
    With a grid, the model is the in-memory fit on the quantised scores.

    References
    ----------
    Chu et al., "Map-reduce for machine learning on multicore", NIPS 2006 (statistics
    that are sums over the data, computed block by block); Rocklin, "Dask: parallel
    computation with blocked algorithms and task scheduling", SciPy 2015.
    :doc:`/book/09_billion_predictions` proves that the fit on the reduced rows is exact.

    Examples
    --------
    >>> import dask.array as da
    >>> from calibbook import IsotonicCalibration
    >>> s = da.from_array([0.1, 0.2, 0.3, 0.4], chunks=2)
    >>> y = da.from_array([0, 1, 0, 1], chunks=2)
    >>> cal = fit_distributed(IsotonicCalibration(), s, y)
    >>> cal.predict([0.1, 0.25, 0.4]).tolist()
    [0.0, 0.5, 1.0]
    """
    s, labels, w = aggregate(
        scores, y, sample_weight, grid=grid, client=client, split_every=split_every
    )
    return calibrator.fit(s, labels, sample_weight=w)


@validate_params({"grid": GRID})
def predict_distributed(calibrator, scores, *, grid=None):
    """Calibrated probabilities of a Dask collection, computed block by block (lazily).

    Parameters
    ----------
    calibrator : fitted calibrator
        Anything with ``predict(scores)``; it is shipped to the workers with the graph.
    scores : dask Array, dask Series or array-like of shape (n,)
    grid : ScoreGrid or tuple (n_cells, lo, hi), optional
        Round the scores to the grid before predicting (scores outside ``[lo, hi]``
        go to the end cells). Pass the grid used in the fit to evaluate exactly the
        map that the grid's guarantees are about.

    Returns
    -------
    dask Array, dask Series or ndarray
        Same kind and partitioning as ``scores`` (built with ``map_blocks`` or
        ``map_partitions``; nothing is computed until you ask); NumPy input gives
        a NumPy result at once.

    Raises
    ------
    sklearn.exceptions.NotFittedError
        If the calibrator is not fitted.
    ValueError
        For a dask DataFrame or a multi-dimensional array; NaN or infinite scores
        raise when the blocks are computed.

    Notes
    -----
    With a grid of at most 2**21 cells, the calibrator is evaluated once at every
    cell centre and each block looks its scores up in that table: the same numbers
    as ``calibrator.predict(grid.quantize(scores, clip=True))``, at the cost of one
    rounding per score whatever the calibrator.

    References
    ----------
    Chu et al., "Map-reduce for machine learning on multicore", NIPS 2006 (statistics
    that are sums over the data, computed block by block); Rocklin, "Dask: parallel
    computation with blocked algorithms and task scheduling", SciPy 2015.
    :doc:`/book/09_billion_predictions` proves that the fit on the reduced rows is exact.

    Examples
    --------
    >>> import dask.array as da
    >>> from calibbook import IsotonicCalibration
    >>> cal = IsotonicCalibration().fit([0.1, 0.2, 0.3, 0.4], [0, 1, 0, 1])
    >>> p = predict_distributed(cal, da.from_array([0.1, 0.25, 0.4], chunks=2))
    >>> p.compute().tolist()
    [0.0, 0.5, 1.0]
    """
    from sklearn.utils.validation import check_is_fitted

    check_is_fitted(calibrator)
    grid = _as_grid(grid)
    kind = _kind(scores, "scores")
    if kind == "numpy":
        return _predict_block(_finite_scores(scores), calibrator, grid)
    if grid is not None and grid.n_cells <= _MAX_TABLE_CELLS:
        table = calibrator.predict(grid.centres(np.arange(grid.n_cells)))
        predict = partial(_lookup_block, table=table, grid=grid)
    else:
        predict = partial(_predict_block, calibrator=calibrator, grid=grid)
    if kind == "array":
        return scores.map_blocks(predict, dtype=np.float64)
    pd = require("pandas", "distributed")

    meta = pd.Series(np.empty(0, dtype=np.float64), name=scores.name)
    return scores.map_partitions(_predict_partition, predict, meta=meta)
