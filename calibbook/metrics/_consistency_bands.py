"""Consistency bands of reliability diagrams (Bröcker & Smith's consistency resampling).

A reliability diagram of a perfectly calibrated forecaster still strays from the
diagonal, because each bin holds finitely many labels. The consistency band of a
bin is the range of observed frequencies that such a forecaster, making exactly
the predictions at hand, would show: labels are redrawn as ``y*_i ~ Bernoulli(p_i)``,
each bin's observed frequency is recomputed, and the band runs between two
quantiles of the redrawn frequencies. An observed point outside its band is
evidence of miscalibration at the band's level.

Sampling (exact in distribution, no per-row draw)
-------------------------------------------------
With a bin's predictions fixed, a resampled count of positives is a sum of
independent Bernoulli(p_i), a Poisson-binomial variable. Drawing it row by row costs
N draws per resample; here the rows are cut into *groups* of nearby predictions,
each inside one bin, with smallest and largest prediction ``a <= b``, and every
label is seen as ``1[U_i < p_i]`` with ``U_i`` uniform on [0, 1):

* ``U_i < a``: a positive whatever ``p_i`` is in the group (category A);
* ``U_i >= b``: a negative (category C);
* otherwise (category B, probability ``b - a``) ``U_i`` is uniform on [a, b) and the
  label is ``1[U_i < p_i]``.

Per group and resample, the category counts are multinomial (two binomial draws),
the B rows are a uniformly random subset of the group of that size, and only they
need a uniform each. Groups of about sqrt(T) trials (T the number of trials) make
this O(sqrt(T)) work per resample instead of O(T): for N = 1e5 distinct
predictions about 600 binomial draws and 300 uniforms per resample. Every step is
exact, so the draws have exactly the distribution of row-by-row Bernoulli draws.

Weights
-------
A weight counts rows, as the binomial intervals of :func:`calibbook.reliability_curve`
do: a row of weight ``w`` stands for ``floor(w)`` independent rows of weight 1 plus,
when ``w`` is not an integer, one row of weight ``w - floor(w)`` (its label drawn once
and counted with that fraction). Integer weights are therefore repeated rows, and
since the sampler works on the distinct predictions with their counts, they give
*bit for bit* the bands of the repeated rows for the same ``random_state``. Rows of
weight 0 are absent. Fractional parts shared by at least 64 rows (class weights, say)
go through the grouped sampler too; scattered fractional parts are drawn row by row.
"""

from numbers import Integral, Real
from typing import NamedTuple

import numpy as np

from calibbook._utils.binning import STRATEGIES, assign_bins, bin_edges, bin_statistics
from calibbook._utils.deprecation import renamed_parameter
from calibbook._utils.params import (
    Interval,
    Options,
    check_random_state,
    validate_params,
)
from calibbook._utils.validation import check_sample_weight, check_scores

__all__ = ["ConsistencyBands", "consistency_bands"]

# groups never straddle a multiple of 1/_GRID, so a group's range b - a is at most 1/_GRID:
# few B rows per group, and the draw of distinct B positions rarely has to redraw one
_GRID = 16
# a class of rows sharing a fractional weight needs this many trials for the grouped sampler
_MIN_GROUPED = 64
# how many group draws (or row draws) one chunk of resamples holds in memory
_CHUNK = 1 << 21


class ConsistencyBands(NamedTuple):
    """Per-bin consistency bands, one entry per non-empty bin, in the bins' order.

    Attributes
    ----------
    mean_predicted : ndarray
        Weighted mean prediction of each bin (the x of :func:`calibbook.reliability_curve`).
    lower, upper : ndarray
        The band: quantiles of the observed frequency of a calibrated forecaster.
    count : ndarray
        Total weight of each bin.
    """

    mean_predicted: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    count: np.ndarray


#: The constraints of the band's own parameters (``reliability_diagram`` shares them).
BAND_PARAMETERS = {
    "confidence": [Interval(Real, 0.0, 1.0, closed="neither")],
    "n_resamples": [Interval(Integral, 1, None)],
    "random_state": ["random_state"],
}


def _runs(values, counts, order=None):
    """Distinct sorted values with their total counts (``order`` sorts ``values``)."""
    if order is not None:
        values, counts = values[order], counts[order]
    starts = np.flatnonzero(np.concatenate(([True], values[1:] != values[:-1])))
    return values[starts], np.add.reduceat(counts, starts) if starts.size else counts[:0]


def _atoms(p, w):
    """Trial atoms ``(value, multiplicity, class weight)``, sorted by class weight, then value.

    A row of weight w gives floor(w) trials of class weight 1 and, for a non-integer w,
    one trial of class weight w - floor(w). Equal (class weight, value) pairs merge, so
    repeated rows and integer weights give the same atoms.
    """
    units = np.floor(w)
    frac = w - units
    has_unit, has_frac = units > 0, frac > 0
    if units[has_unit].sum() >= 2.0**53:
        raise ValueError(
            "sample_weight is too large: consistency bands count weights as rows, and the "
            "weights sum to 2**53 or more."
        )
    if not has_frac.any():
        pu, cu = p[has_unit], units[has_unit]
        if np.all(cu == 1.0):  # unweighted: a plain sort is enough
            v = np.sort(pu)
            starts = np.flatnonzero(np.concatenate(([True], v[1:] != v[:-1])))
            v, c = v[starts], np.diff(np.append(starts, v.size))
        else:
            v, c = _runs(pu, cu, np.argsort(pu, kind="stable"))
        return v, c.astype(np.int64), np.ones(v.size)
    v = np.concatenate((p[has_unit], p[has_frac]))
    f = np.concatenate((np.ones(np.count_nonzero(has_unit)), frac[has_frac]))
    c = np.concatenate((units[has_unit], np.ones(np.count_nonzero(has_frac))))
    order = np.lexsort((v, f))
    v, f, c = v[order], f[order], c[order]
    starts = np.flatnonzero(np.concatenate(([True], (v[1:] != v[:-1]) | (f[1:] != f[:-1]))))
    return v[starts], np.add.reduceat(c, starts).astype(np.int64), f[starts]


def _plan(v, c, f, bins):
    """Split the atoms into groups for the grouped sampler and trials drawn one by one.

    Returns ``(groups, atoms, single)``: ``groups`` a dict of per-group arrays (trials
    ``n``, range start ``a`` and width ``beta``, probability ``q_a`` of category A
    among the non-B trials, class weight ``f``, ``bin``, first trial ``offset``);
    ``atoms`` the ``(value, cumulative count)`` arrays that map a trial to its value;
    ``single`` the ``(value, class weight, bin)`` of the trials drawn one by one.
    """
    new_class = np.concatenate(([True], f[1:] != f[:-1]))
    cls = np.cumsum(new_class) - 1
    total = np.bincount(cls, weights=c)  # trials per class (exact: < 2**53)
    small = (total < _MIN_GROUPED)[cls]
    single = (
        np.repeat(v[small], c[small]),
        np.repeat(f[small], c[small]),
        np.repeat(bins[small], c[small]),
    )
    v, c, f, bins, cls = v[~small], c[~small], f[~small], bins[~small], cls[~small]
    cum = np.cumsum(c)
    if v.size == 0:
        empty = np.empty(0)
        groups = dict(
            n=np.empty(0, np.int64),
            a=empty,
            beta=empty,
            q_a=empty,
            f=empty,
            bin=np.empty(0, np.intp),
            offset=np.empty(0, np.int64),
        )
        return groups, (v, cum), single
    before = cum - c  # trials before each atom
    new_class = np.concatenate(([True], cls[1:] != cls[:-1]))
    class_start = np.maximum.accumulate(np.where(new_class, before, 0))
    # about sqrt(T) trials per group: O(T / m) binomials plus O(m) B trials per resample
    m = np.ceil(np.sqrt(np.bincount(cls, weights=c)))[cls].astype(np.int64)
    block = (before - class_start) // m
    heavy = c >= m  # an atom as large as a group is a group of its own: a binomial, no B
    cell = np.floor(v * _GRID)

    def changes(x):
        return np.concatenate(([True], x[1:] != x[:-1]))

    start = (
        new_class
        | changes(bins)
        | changes(cell)
        | changes(block)
        | heavy
        | np.concatenate(([False], heavy[:-1]))
    )
    first = np.flatnonzero(start)
    last = np.append(first[1:], v.size) - 1
    a = v[first]
    beta = v[last] - a
    # P(A | not B) = a / (1 - beta); beta <= 1 / _GRID, the clip only guards rounding
    q_a = np.clip(a / (1.0 - beta), 0.0, 1.0)
    groups = dict(
        n=np.add.reduceat(c, first),
        a=a,
        beta=beta,
        q_a=q_a,
        f=f[first],
        bin=bins[first],
        offset=before[first],
    )
    return groups, (v, cum), single


def _distinct_positions(k, n, rng):
    """For each event i, ``k[i]`` distinct positions drawn uniformly from ``range(n[i])``.

    Returns ``(event, position)`` of every draw, events in order. Positions are drawn
    with replacement and repeats redrawn until none is left: the procedure commutes with
    any relabelling of the positions, so the final set is a uniform ``k[i]``-subset.
    """
    event = np.repeat(np.arange(k.size), k)
    high = n[event]
    pos = rng.integers(0, high)
    first = np.cumsum(k) - k  # index of each event's first draw
    sizes = np.flatnonzero(np.bincount(k))
    for size in sizes[sizes > 1]:  # a lone draw cannot repeat
        # the draws of the events with `size` draws, one row per event
        idx = first[k == size][:, None] + np.arange(size)
        while idx.size:
            repeat = _repeats(pos[idx])
            if not repeat.any():
                break
            redo = idx[repeat]
            pos[redo] = rng.integers(0, high[redo])
            idx = idx[repeat.any(axis=1)]
    return event, pos


def _repeats(block):
    """Mask of the entries of each row equal to an earlier entry of that row."""
    _rows, size = block.shape
    repeat = np.zeros(block.shape, dtype=bool)
    if size <= 16:  # pairwise comparisons beat a sort for short rows
        for col in range(1, size):
            repeat[:, col] = (block[:, :col] == block[:, col : col + 1]).any(axis=1)
        return repeat
    order = np.argsort(block, axis=1, kind="stable")
    ordered = np.take_along_axis(block, order, axis=1)
    same = np.zeros(block.shape, dtype=bool)
    same[:, 1:] = ordered[:, 1:] == ordered[:, :-1]
    np.put_along_axis(repeat, order, same, axis=1)
    return repeat


def _grouped_sums(groups, atoms, n_bins, n_resamples, rng):
    """Resampled weighted positives per bin from the groups, shape (n_resamples, n_bins)."""
    n, a, beta, q_a = groups["n"], groups["a"], groups["beta"], groups["q_a"]
    n_groups = n.size
    values, cum = atoms
    several = cum.size > 0 and cum[-1] != cum.size  # some atom holds several trials
    sums = np.zeros((n_resamples, n_bins))
    step = max(1, _CHUNK // max(n_groups, 1))
    for r0 in range(0, n_resamples, step):
        rows = min(step, n_resamples - r0)
        n_b = rng.binomial(n, beta, size=(rows, n_groups))
        count = rng.binomial(n - n_b, q_a)  # category A: positives
        events = np.flatnonzero(n_b)
        if events.size:
            g = events % n_groups
            event, pos = _distinct_positions(n_b.ravel()[events], n[g], rng)
            ge = g[event]
            atom = groups["offset"][ge] + pos  # trial index
            if several:  # map the trial to its atom
                atom = np.searchsorted(cum, atom, side="right")
            # U uniform on [a, b): positive iff U < p, i.e. (U - a) < p - a
            hit = rng.random(event.size) * beta[ge] < values[atom] - a[ge]
            count.ravel()[events] += np.bincount(event, weights=hit, minlength=events.size).astype(
                np.int64
            )
        where = (np.arange(rows)[:, None] * n_bins + groups["bin"][None, :]).ravel()
        sums[r0 : r0 + rows] += np.bincount(
            where, weights=(count * groups["f"]).ravel(), minlength=rows * n_bins
        ).reshape(rows, n_bins)
    return sums


def _single_sums(single, n_bins, n_resamples, rng):
    """Resampled weighted positives per bin from trials drawn one by one."""
    values, weights, bins = single
    sums = np.zeros((n_resamples, n_bins))
    if values.size == 0:
        return sums
    order = np.argsort(bins, kind="stable")
    values, weights, bins = values[order], weights[order], bins[order]
    first = np.flatnonzero(np.concatenate(([True], bins[1:] != bins[:-1])))
    step = max(1, _CHUNK // values.size)
    for r0 in range(0, n_resamples, step):
        rows = min(step, n_resamples - r0)
        hit = rng.random((rows, values.size)) < values
        sums[r0 : r0 + rows, bins[first]] += np.add.reduceat(hit * weights, first, axis=1)
    return sums


def _resampled_positives(p, w, edges, n_bins, n_resamples, rng):
    """Weighted number of positives of each bin when ``y*_i ~ Bernoulli(p_i)``.

    ``p``, ``w``: validated predictions and weights (rows of weight 0 are dropped here);
    ``edges``: inner bin edges. Returns an array of shape (n_resamples, n_bins).
    """
    keep = w > 0
    v, c, f = _atoms(p[keep], w[keep])
    # bins are intervals of p: an atom falls in the bin of its rows
    groups, atoms, single = _plan(v, c, f, assign_bins(v, edges))
    sums = _grouped_sums(groups, atoms, n_bins, n_resamples, rng)
    sums += _single_sums(single, n_bins, n_resamples, rng)
    return sums


def _order_statistic(q, n_resamples):
    """0-based index of the ceil(q R)-th smallest of R draws (the inverted-CDF quantile)."""
    k = int(np.ceil(q * n_resamples - 1e-9))  # 1e-9: (1 - 0.7) / 2 * 1000 is 150.00000000000003
    return min(max(k, 1), n_resamples) - 1


@renamed_parameter("level", "confidence")
@validate_params(
    {"n_bins": [Interval(Integral, 1, None)], "strategy": [Options(*STRATEGIES)], **BAND_PARAMETERS}
)
def consistency_bands(
    y_prob,
    *,
    n_bins=10,
    strategy="uniform",
    confidence=0.9,
    n_resamples=1000,
    sample_weight=None,
    random_state=None,
):
    """Consistency bands of a reliability diagram: where a calibrated forecaster's points fall.

    For the bins of :func:`calibbook.reliability_curve`, the range of observed
    frequencies that a perfectly calibrated forecaster making the same predictions
    would show: labels are redrawn as :math:`y^*_i \\sim \\mathrm{Bernoulli}(p_i)`
    ``n_resamples`` times, each bin's observed frequency is recomputed, and the band
    runs from its :math:`(1 - \\text{confidence})/2` to its
    :math:`(1 + \\text{confidence})/2`
    quantile. A bin whose observed frequency lies outside its band departs from
    calibration more than chance would explain at that level.
    :doc:`/book/01_measuring_calibration` reads reliability diagrams.

    Parameters
    ----------
    y_prob : array-like of shape (n,)
        Predicted probabilities, in [0, 1]. The labels play no part: the band
        depends on the predictions only.
    n_bins : int, default=10
        Number of bins, as in :func:`calibbook.reliability_curve`.
    strategy : {"uniform", "quantile"}, default="uniform"
        Equal-width bins on [0, 1], or equal-frequency bins that never split ties,
        as in :func:`calibbook.reliability_curve`.
    confidence : float, default=0.9
        Probability, in (0, 1), that the band holds a calibrated forecaster's point.
        (Called ``level`` before calibbook 0.2; the old name warns until 0.3.)
    n_resamples : int, default=1000
        Number of redrawn label sets.
    sample_weight : array-like of shape (n,), optional
        Non-negative weights, counted as rows (see Notes).
    random_state : None, int, numpy.random.Generator or RandomState, default=None
        Seed or generator of the redrawn labels.

    Returns
    -------
    ConsistencyBands
        A named tuple of arrays with one entry per non-empty bin, in the order and
        with the filtering of :func:`calibbook.reliability_curve` (bins of total
        weight 0 are left out, so no entry is NaN): ``mean_predicted`` (the bins'
        weighted mean predictions, the curve's x), ``lower`` and ``upper`` (the band)
        and ``count`` (the bins' total weight).

    Raises
    ------
    ValueError
        If ``y_prob`` is empty, holds NaN or infinity or values outside [0, 1]; if
        ``sample_weight`` has the wrong length, negative or non-finite entries, sums
        to 0 or to 2**53 or more; if ``n_bins``, ``strategy``, ``confidence`` (not in
        (0, 1)), ``n_resamples`` (not a positive integer) or ``random_state`` is invalid.

    See Also
    --------
    calibbook.reliability_diagram : Draws the bands with ``consistency_bands=True``.

    Notes
    -----
    The predictions, hence each bin's members and mean prediction, stay fixed; only the
    labels are redrawn. Bröcker & Smith also redraw the predictions (a bootstrap of the
    forecasts before the labels); holding them fixed answers the question the diagram
    asks of *these* predictions, and makes the band a quantile range of each bin's
    Poisson-binomial frequency.

    ``lower`` is the :math:`\\lceil R(1-\\text{confidence})/2 \\rceil`-th smallest of the R
    redrawn frequencies and ``upper`` the :math:`\\lceil R(1+\\text{confidence})/2 \\rceil`-th
    (inverted-CDF quantiles), so both are attainable frequencies. The redrawn count is
    discrete, and the closed band then holds a calibrated forecaster's point with
    probability at least ``confidence``, by up to the probability of the two end values: a
    bin of a few dozen rows can reach 95% for a 90% band, one of several hundred stays
    within about a point of the nominal level.

    The redraw is exact in distribution without one draw per row (the module
    ``calibbook.metrics._consistency_bands`` explains how); its cost grows with the square root
    of the number of rows (or of the total integer weight): about 0.1 s of CPU for 1e5
    predictions and 1000 resamples, 0.4 s for 1e6. A weight ``w`` counts as
    ``floor(w)`` rows plus, for a non-integer ``w``, one row counted with weight
    ``w - floor(w)``. Integer weights thus give exactly the bands of repeated rows (bit
    for bit, for the same ``random_state``), and rows of weight 0 are absent. Weights
    are counts, not only relative importances: doubling every weight narrows the bands
    as doubling the data would.

    References
    ----------
    Bröcker & Smith, "Increasing the reliability of reliability diagrams", Weather
    and Forecasting 22 (2007) 651-661 (consistency resampling and consistency bars);
    Smith, "The maintenance of uncertainty", Proc. International School of Physics
    "Enrico Fermi" (1997) (consistency bars).

    Examples
    --------
    >>> import numpy as np
    >>> from calibbook import consistency_bands
    >>> p = np.repeat([0.1, 0.3, 0.8], 200)
    >>> bands = consistency_bands(p, n_bins=5, random_state=0)
    >>> bands.mean_predicted.round(2).tolist()
    [0.1, 0.3, 0.8]
    >>> m = bands.mean_predicted
    >>> bool(np.all((bands.lower < m) & (m < bands.upper)))
    True
    >>> bands.count.tolist()
    [200.0, 200.0, 200.0]
    """
    p = check_scores(y_prob, name="y_prob", probabilities=True, estimator="this function")
    w = check_sample_weight(sample_weight, p.shape[0])
    n_bins, n_resamples, rng = int(n_bins), int(n_resamples), check_random_state(random_state)

    edges = bin_edges(p, w, n_bins, strategy)
    # the same bins, weights and means as reliability_curve computes
    weight, mean, _ = bin_statistics(np.zeros_like(p), p, w, assign_bins(p, edges), n_bins)
    full = weight > 0
    positives = _resampled_positives(p, w, edges, n_bins, n_resamples, rng)[:, full]
    # fractional weights summed in another order can pass the total by an ulp
    freq = np.sort(np.minimum(positives / weight[full], 1.0), axis=0)
    lower = freq[_order_statistic((1.0 - confidence) / 2.0, n_resamples)]
    upper = freq[_order_statistic((1.0 + confidence) / 2.0, n_resamples)]
    return ConsistencyBands(mean[full], lower, upper, weight[full])
