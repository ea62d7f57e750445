"""Scaling-binning (Kumar, Liang & Ma 2019): a Platt fit, discretised into equal-mass bins.

Fit a scaling function g (a sigmoid of the score) on one part of the calibration data, cut
g's outputs on a second part into B bins of equal mass, and predict, for a score s, the
mean of g over the third part's cases in the bin of g(s). The bin means are of g, not of
the labels: that is what tells it apart from histogram binning, and why its calibration
error can be measured with B bins while its variance is that of the scaling fit.
"""

import warnings

import numpy as np

from calibbook._kernels.binning import SLACK_PER_TERM
from calibbook._utils.binning import midpoints_below, split_sorted
from calibbook._utils.maths import standard_units
from calibbook._utils.params import Integral, Interval, Options
from calibbook._utils.weights import (
    LowWeightWarning,
    external_stacklevel,
    warn_low_total_weight,
)
from calibbook.base import BaseCalibrator
from calibbook.calibrators.platt import PlattScaling

__all__ = ["ScalingBinning"]

_N_PARTS = 3


def interleaved_split(scores, y, sample_weight=None):
    """Deal the cases, in score order, in turn to three parts: (scores, labels, weights) of each.

    The rows are sorted by score (negatives first among ties) and laid end to end on an
    axis of cumulative weight. With total weight W >= 3 the axis is cut into unit
    lengths, one case each, dealt in turn to parts 1, 2, 3, 1, 2, 3, ...; a row's weight
    in part j is the length of its stretch of the axis that falls in part j's units. With
    unit weights this deals case r of the sorted order to part r mod 3; a row of integer
    weight m is dealt as m repeated rows are; and the parts move continuously with the
    weights. Below W = 3 the unit is W / 3 (three consecutive thirds of the mass), so
    that every part holds a third of the weight; the two rules meet at W = 3.

    Parameters
    ----------
    scores, y : ndarray of shape (n,)
        Validated float64 scores and 0/1 labels.
    sample_weight : ndarray of shape (n,) or None
        Non-negative frequency weights (None: unit weights).

    Returns
    -------
    list of 3 tuples (scores, labels, weights)
        The rows of each part, in no particular order, and their weights in that part
        (None where every row of the part has weight 1). Rows with the same score and
        label are interchangeable, so only these values are returned.

    Examples
    --------
    >>> import numpy as np
    >>> from calibbook.calibrators.scaling_binning import interleaved_split
    >>> s = np.array([0.5, 0.1, 0.9, 0.3, 0.7, 0.2])
    >>> [sorted(part.tolist()) for part, _, _ in interleaved_split(s, np.zeros(6))]
    [[0.1, 0.5], [0.2, 0.7], [0.3, 0.9]]

    Weights 1.5 (score 0.1) and 3 (score 0.5) lay the rows on [0, 1.5) and [1.5, 4.5):
    part 1 takes [0, 1) and [3, 4), part 2 [1, 2) and [4, 4.5), part 3 [2, 3).

    >>> parts = interleaved_split(s[:2], np.zeros(2), np.array([3.0, 1.5]))
    >>> [(part.tolist(), w.tolist()) for part, _, w in parts]
    [([0.1, 0.5], [1.0, 1.0]), ([0.1, 0.5], [0.5, 1.0]), ([0.5], [1.0])]
    """
    if sample_weight is None and scores.size >= _N_PARTS:
        return _deal_unit_rows(scores, y)
    order = np.lexsort((y, scores))
    s, labels = scores[order], y[order]
    w = np.ones(scores.size) if sample_weight is None else sample_weight[order]
    total = float(np.sum(w))
    unit = min(1.0, total / _N_PARTS)  # one case, or a third of fewer than three cases
    end = np.cumsum(w) / unit
    start = np.concatenate(([0.0], end[:-1]))
    length = end - start
    parts = []
    for j in range(_N_PARTS):
        with np.errstate(invalid="ignore", divide="ignore"):
            share = (_part_measure(end, j) - _part_measure(start, j)) / length
        # a row too light to move the float sum: the part its start falls in takes it
        alone = np.minimum(np.floor(np.mod(start, _N_PARTS)), _N_PARTS - 1) == j
        share = np.where(length > 0, np.clip(share, 0.0, 1.0), alone)
        part_w = w * share
        keep = part_w > 0
        parts.append((s[keep], labels[keep], part_w[keep]))
    return parts


def _deal_unit_rows(scores, y):
    """Unit weights: case r of the (score, label) order goes to part r mod 3.

    Two ``np.sort`` calls (negatives and positives apart) and the rank of each case in the
    merged order, instead of a ``lexsort`` of all rows (three times slower).
    """
    buf, n_neg = split_sorted(scores, y)
    neg, pos = buf[:n_neg], buf[n_neg + 1 : -1]
    # negatives come first among ties: a negative follows the positives strictly below it
    rank_neg = np.arange(neg.size) + np.searchsorted(pos, neg, side="left")
    rank_pos = np.arange(pos.size) + np.searchsorted(neg, pos, side="right")
    parts = []
    for j in range(_N_PARTS):
        s_neg, s_pos = neg[rank_neg % _N_PARTS == j], pos[rank_pos % _N_PARTS == j]
        labels = np.concatenate((np.zeros(s_neg.size), np.ones(s_pos.size)))
        parts.append((np.concatenate((s_neg, s_pos)), labels, None))
    return parts


def _part_measure(x, j):
    """Length of [0, x) that lies in part j's unit intervals [3m + j, 3m + j + 1)."""
    periods = np.floor(x / _N_PARTS)
    return periods + np.clip(x - _N_PARTS * periods - j, 0.0, 1.0)


def equal_mass_edges(values, weights, n_bins):
    """Inner edges of ``n_bins`` equal-mass bins of ``values``, as the authors' package cuts.

    ``np.array_split`` of the sorted values into B parts, generalised to frequency weights:
    with total weight W = q B + r (q = floor(W / B)), bin k starts at the first distinct
    value with weight at least t_k = k q + min(k, r) strictly below it, so the first r bins
    hold one case more (the rounding slack of ``calibbook._kernels.binning.share_threshold``
    applies). t_k is continuous in W, and a function of the weighted empirical distribution
    and its total, so integer weights give the bins of repeated rows. Tied values are
    never split. A finite edge is the midpoint of the two neighbouring values it separates
    (as the authors'); bins that ties leave empty have coinciding or +inf edges.

    Parameters
    ----------
    values : ndarray of shape (n,)
    weights : ndarray of shape (n,) or None
        Frequency weights (None: unit weights).
    n_bins : int

    Returns
    -------
    ndarray of shape (n_bins - 1,)
        Non-decreasing; a value v falls in bin ``#{edges <= v}``.

    Examples
    --------
    >>> import numpy as np
    >>> from calibbook.calibrators.scaling_binning import equal_mass_edges
    >>> # parts of 3, 3, 2, 2 rows
    >>> equal_mass_edges(np.arange(10.0), None, 4).tolist()
    [2.5, 5.5, 7.5]
    """
    if weights is None:
        v = np.sort(values)
        below = np.arange(v.size, dtype=np.float64)
        total, n_terms = float(v.size), v.size
    else:
        keep = weights > 0
        order = np.argsort(values[keep], kind="stable")
        v, w = values[keep][order], weights[keep][order]
        cum = np.cumsum(w)
        below = cum - w
        below[1:] = cum[:-1]  # the running sum itself: rows tied in value agree exactly
        total, n_terms = float(cum[-1]), v.size
    first = np.empty(v.size, dtype=bool)
    first[0] = True
    np.not_equal(v[1:], v[:-1], out=first[1:])
    run_values, run_below = v[first], below[first]
    k = np.arange(1, n_bins, dtype=np.float64)
    q = np.floor(total / n_bins)
    thresholds = k * q + np.minimum(k, total - n_bins * q)
    thresholds *= 1.0 - SLACK_PER_TERM * max(n_terms, 1)
    starts = np.searchsorted(run_below, thresholds, side="left")
    padded = np.append(run_values, np.inf)  # a start past the last run: an empty bin, +inf
    return midpoints_below(padded[np.maximum(starts - 1, 0)], padded[starts])


class _LogisticScaling(PlattScaling):
    """Platt's sigmoid fitted to the 0/1 labels (plain maximum likelihood), as the authors'
    ``get_platt_scaler`` fits it (scikit-learn's ``LogisticRegression(C=1e10)``)."""

    def _fit(self, scores, y, sample_weight):
        from calibbook._kernels.platt import platt_newton

        w = np.empty(0) if sample_weight is None else sample_weight
        n_pos = float(np.sum(y) if sample_weight is None else np.dot(w, y))
        n_neg = (y.size if sample_weight is None else float(np.sum(w))) - n_pos
        a0, b0 = 0.0, float(np.log((n_neg + 1.0) / (n_pos + 1.0)))
        features = self._features(scores)
        units = standard_units(features)
        a, b, n_iter, converged = platt_newton(
            units.transform(features), y, w, 1.0, 0.0, a0, b0, self.max_iter
        )
        if not converged:
            from sklearn.exceptions import ConvergenceWarning

            warnings.warn(
                "ScalingBinning: the logistic fit on the labels did not converge (the classes "
                "may be separable in the first part); use targets='platt' for a finite fit.",
                ConvergenceWarning,
                stacklevel=external_stacklevel(),
            )
        self._standard = (units, float(a), float(b))
        self.a_, self.b_ = units.user_slope(a), units.user_intercept(a, b)
        self.n_iter_ = int(n_iter)
        return self


class ScalingBinning(BaseCalibrator):
    r"""Scaling-binning (Kumar, Liang & Ma 2019): Platt scaling, discretised to B values.

    Three steps, each on its own part of the calibration data:

    1. *scaling*: fit a sigmoid :math:`g(s) = 1 / (1 + \exp(A f(s) + B))` (Platt scaling,
       :class:`~calibbook.PlattScaling`) on part 1;
    2. *binning*: cut :math:`g`'s outputs on part 2 into ``n_bins`` bins of equal mass;
    3. *discretisation*: on part 3, replace :math:`g` by its mean in each bin.

    The prediction for a score s is the part-3 mean of g over the bin of g(s). Unlike
    histogram binning it averages g, not the labels, so its variance is that of the
    scaling fit, while its output takes only B values and its calibration error can
    therefore be estimated (the paper's point). An empty bin of part 3 predicts the
    midpoint of its edges (0 and 1 outside), as the authors' package does.

    Which calibrator suits your data and classifier: the decision guide,
    :doc:`/book/which_calibrator`.

    Parameters
    ----------
    n_bins : int, default=10
        Number of bins B (the authors' package's default). With fewer cases than bins
        in part 2, each case is a bin and the rest are empty (+inf edges).
    split : {"thirds", "none"}, default="thirds"
        ``"thirds"``: the paper's algorithm, three disjoint parts of a third each, dealt
        in score order (``interleaved_split`` in this module): the sorted cases go in turn to parts
        1, 2, 3, 1, 2, 3, ..., so each part spans the whole range of scores. ``"none"``:
        every step on all the data, as the authors' package (``PlattBinnerCalibrator``)
        and their experiments do.
    targets : {"platt", "labels"}, default="platt"
        What the sigmoid fits: ``"platt"``, Platt's smoothed targets
        (:class:`~calibbook.PlattScaling`, finite on separable data); ``"labels"``, the
        0/1 labels by plain maximum likelihood, as the authors' ``get_platt_scaler``
        (a logistic regression with ``C=1e10``).
    logit_input : bool, default=False
        If True, the scores are probabilities and the sigmoid is fitted to their clipped
        logit (the authors' package's input: probabilities, clipped to [1e-12, 1 - 1e-12]).

    Attributes
    ----------
    scaler_ : PlattScaling
        The sigmoid g fitted on part 1 (its ``a_`` and ``b_``).
    thresholds_ : ndarray of shape (n_bins - 1,)
        Inner bin edges on the scale of g's output: a score s falls in bin
        ``#{thresholds_ <= g(s)}``. Each finite edge is the midpoint of the two part-2
        values of g it separates; +inf marks empty trailing bins.
    step_values_ : ndarray of shape (n_bins,)
        The prediction of each bin: the weighted mean of g over part 3's cases in it.
    bin_weights_ : ndarray of shape (n_bins,)
        Part 3's weight in each bin.
    part_weights_ : ndarray of shape (3,)
        The total weight of parts 1, 2 and 3.

    Warns
    -----
    calibbook.LowWeightWarning
        When the sample weights total fewer than two cases per bin.
    sklearn.exceptions.ConvergenceWarning
        When the sigmoid's fit does not converge (with ``targets="labels"`` on separable data).

    Notes
    -----
    **Why the split is not random.** The paper splits the data at random; but a random
    split of rows cannot treat a row of weight 2 as two rows (two copies could land in
    different parts), and calibbook's weights are frequencies. The interleaved split is a
    function of the weighted empirical distribution: integer weights give the split of
    repeated rows, it needs no ``random_state``, and each part is a systematic sample of
    the score distribution. Steps 2 and 3 read only the scores (never the labels), and
    step 1 reads labels only in part 1, so the labels of parts 2 and 3 are never used.

    **Bins.** As the authors' ``get_equal_bins``: ``np.array_split`` of the sorted values
    into B parts (the first W mod B bins one case larger) and edges at the midpoints,
    generalised to weights by ``equal_mass_edges`` (in this module). Two differences, both on ties:
    tied values are never split (the authors' edge then sits on the tied value, ours
    midway to the next value), and coinciding edges stay (the authors' drop them), which
    leaves the same partition of the cases. A value exactly on an edge goes to the upper
    bin here, to the lower one in the authors' package.

    ``fit`` costs two ``np.sort`` calls (negatives and positives apart) for the split
    (a ``lexsort`` when weighted), the sigmoid's Newton
    iterations on a third of them and a sort of another third; ``predict`` one sigmoid
    and a binary search over the B - 1 edges per score.

    See Also
    --------
    calibbook.HistogramBinning : Bins of the labels' mean instead of g's.
    calibbook.PlattScaling : The scaling step alone.

    References
    ----------
    Kumar, Liang & Ma, "Verified uncertainty calibration", NeurIPS 2019, Section 4 and
    the ``uncertainty-calibration`` package (https://github.com/p-lambda/verified_calibration).
    :doc:`/book/11_ties_and_guarantees` derives the method and measures its calibration error.

    Examples
    --------
    >>> import numpy as np
    >>> from calibbook import ScalingBinning
    >>> rng = np.random.default_rng(0)
    >>> s = rng.normal(size=3000)
    >>> y = (rng.uniform(size=3000) < 1 / (1 + np.exp(-2 * s))).astype(int)
    >>> cal = ScalingBinning(n_bins=5).fit(s, y)
    >>> np.unique(cal.predict(s)).size  # B values
    5
    >>> cal.part_weights_.tolist()
    [1000.0, 1000.0, 1000.0]
    """

    _parameter_constraints = {
        "n_bins": [Interval(Integral, 1, None)],
        "split": [Options("thirds", "none")],
        "targets": [Options("platt", "labels")],
        "logit_input": ["boolean"],
    }

    def __init__(self, *, n_bins=10, split="thirds", targets="platt", logit_input=False):
        self.n_bins = n_bins
        self.split = split
        self.targets = targets
        self.logit_input = logit_input

    def _fit(self, scores, y, sample_weight):
        n_bins = int(self.n_bins)
        if sample_weight is not None:
            warn_low_total_weight(float(np.sum(sample_weight)), n_bins, "bin", "ScalingBinning")
        if self.split == "thirds":
            parts = interleaved_split(scores, y, sample_weight)
        else:
            parts = [(scores, y, sample_weight)] * _N_PARTS
        totals = [float(s.size if w is None else np.sum(w)) for s, _, w in parts]
        if not min(totals) > 0:  # weights so small that a part's sum underflows to zero
            raise ValueError(
                "ScalingBinning: the sample_weight total is too small to split into three parts."
            )
        (s1, y1, w1), (s2, _, w2), (s3, _, w3) = parts
        scaler_cls = PlattScaling if self.targets == "platt" else _LogisticScaling
        scaler = scaler_cls(logit_input=self.logit_input)
        with warnings.catch_warnings():  # warned once above, for the whole fit
            warnings.simplefilter("ignore", LowWeightWarning)
            scaler._fit(s1, y1, w1)
        scaler.classes_ = np.array([0, 1])
        edges = equal_mass_edges(scaler._predict(s2), w2, n_bins)
        self.scaler_ = scaler
        self.thresholds_ = edges
        self.step_values_, self.bin_weights_ = self._bin_means(s3, w3, edges, n_bins)
        self.part_weights_ = np.array(totals)
        return self

    def _bin_means(self, scores, weights, edges, n_bins):
        """(mean of g per bin, weight per bin) of part 3; an empty bin: its edges' midpoint."""
        from calibbook._kernels.binning import sorted_index

        g = self.scaler_._predict(scores)
        ids = sorted_index(edges, g)
        w = np.ones_like(g) if weights is None else weights
        weight = np.bincount(ids, weights=w, minlength=n_bins)
        sums = np.bincount(ids, weights=w * g, minlength=n_bins)
        bounds = np.clip(np.concatenate(([0.0], edges, [1.0])), 0.0, 1.0)
        empty = 0.5 * bounds[:-1] + 0.5 * bounds[1:]
        with np.errstate(invalid="ignore", divide="ignore"):
            means = np.where(weight > 0, sums / weight, empty)
        # a mean of values in [0, 1] stays there; rounding must not take it out
        return np.clip(means, 0.0, 1.0), weight

    def _predict(self, scores):
        from calibbook._kernels.binning import sorted_index

        return self.step_values_[sorted_index(self.thresholds_, self.scaler_._predict(scores))]
