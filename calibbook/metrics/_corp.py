r"""CORP reliability diagrams and the CORP decomposition of a mean score.

CORP (Dimitriadis, Gneiting & Jordan 2021: Consistent, Optimally binned, Reproducible,
PAV-based) replaces the bins of a reliability diagram by the isotonic regression of the
labels on the predictions: the pool-adjacent-violators (PAV) fit :math:`\hat c(p)`, with
tied predictions pooled first. Its blocks are the bins, chosen by the data and by no
tuning parameter, and :math:`\hat c` is the recalibration of :math:`p` that minimises
every proper score among the non-decreasing maps of :math:`p` (PAV solves the isotonic
problem for every Bregman loss at once).

Decomposition. With :math:`S` the Brier score :math:`(p - y)^2` or the log score
:math:`-y \log p - (1 - y) \log(1 - p)`, weights :math:`w_i` and base rate
:math:`\bar y = \sum w_i y_i / \sum w_i`,

.. math::

    \bar S = \overline{S(p, y)},\quad \bar S_C = \overline{S(\hat c(p), y)},\quad
    \bar S_R = \overline{S(\bar y, y)},

    \mathrm{MCB} = \bar S - \bar S_C,\quad \mathrm{DSC} = \bar S_R - \bar S_C,\quad
    \mathrm{UNC} = \bar S_R,\qquad \bar S = \mathrm{MCB} - \mathrm{DSC} + \mathrm{UNC}.

MCB >= 0 because the identity map is non-decreasing, DSC >= 0 because a constant is.

Sums over runs. Every score is a sum over the runs of tied predictions of
``neg * s(f, 0) + pos * s(f, 1)``, ``pos`` and ``neg`` the run's positive and negative
weight, so the rows are sorted once and nothing per row is kept. The recalibrated score
is summed per PAV block with :math:`1 - \hat c` computed as ``neg / (pos + neg)``, never as
``1 - c``, so that a block with a tiny negative weight still has a finite log score.
"""

from numbers import Integral, Real
from typing import NamedTuple

import numpy as np
from scipy.special import xlogy

from calibbook._utils.binning import assign_bins, ordered_runs, sorted_runs
from calibbook._utils.params import Interval, Options, check_random_state, validate_params
from calibbook._utils.validation import check_probability_input, check_sample_weight, check_scores
from calibbook.metrics._bootstrap import resampled_weights
from calibbook.metrics._consistency_bands import (
    _atoms,
    _grouped_sums,
    _order_statistic,
    _plan,
    _single_sums,
)

__all__ = [
    "CORPBands",
    "CORPCurve",
    "CORPDecomposition",
    "corp_confidence_bands",
    "corp_consistency_bands",
    "corp_decomposition",
    "corp_reliability",
]

SCORES = ("brier", "log")
# at most this many fitted values (resamples x points) held per chunk of band resamples
_CHUNK = 1 << 22

_BAND_PARAMETERS = {
    "confidence": [Interval(Real, 0.0, 1.0, closed="neither")],
    "n_resamples": [Interval(Integral, 1, None)],
    "random_state": ["random_state"],
}


class CORPCurve(NamedTuple):
    """The CORP reliability curve, one entry per distinct prediction (of positive weight).

    Attributes
    ----------
    x : ndarray
        The distinct predictions, increasing.
    calibrated : ndarray
        The PAV-recalibrated probability at each (non-decreasing).
    count : ndarray
        The total weight of the rows at each prediction.
    """

    x: np.ndarray
    calibrated: np.ndarray
    count: np.ndarray


class CORPDecomposition(NamedTuple):
    """The CORP decomposition ``mean_score = mcb - dsc + unc`` of a mean score.

    Attributes
    ----------
    score : str
        "brier" or "log".
    mean_score : float
        The mean score of the predictions.
    mcb : float
        Miscalibration: mean score less that of the PAV-recalibrated predictions.
    dsc : float
        Discrimination: the base rate's mean score less the recalibrated one.
    unc : float
        Uncertainty: the mean score of the constant base rate.
    """

    score: str
    mean_score: float
    mcb: float
    dsc: float
    unc: float


class CORPBands(NamedTuple):
    """Pointwise bands of the CORP curve.

    Attributes
    ----------
    x : ndarray
        Where the band is read (the distinct predictions unless ``at`` was given).
    lower, upper : ndarray
        The band's ends at each point.
    """

    x: np.ndarray
    lower: np.ndarray
    upper: np.ndarray


def _runs(y, p, w, weighted):
    """Distinct predictions with their total, positive and negative weight (weight 0 dropped)."""
    if not weighted:
        v, total, pos = sorted_runs(p, y)
        return v, total, pos, total - pos  # counts: exact
    order = np.argsort(p, kind="stable")
    v, total, pos = ordered_runs(p, w, y, order)
    _, _, neg = ordered_runs(p, w, 1.0 - y, order)  # summed apart: no total - pos rounding
    return v, total, pos, neg


def _pav_blocks(total, pos):
    """Run index where each PAV block starts, and each run's recalibrated value."""
    from calibbook._kernels.isotonic import pav_runs

    ends, bw, bs = pav_runs(total, pos)
    starts = np.concatenate(([0], ends[:-1]))
    return starts, np.repeat(bs / bw, np.diff(np.concatenate(([0], ends))))


def _score_sum(score, pos, neg, f, one_minus_f):
    """Sum of the scores of forecasts ``f`` over groups of ``pos`` positives and ``neg`` negatives.

    ``0 * log 0`` is 0 (a forecast of 0 costs nothing where no positive occurs); a forecast
    of 0 for a positive (or 1 for a negative) costs an infinite log score.
    """
    if score == "brier":
        return float(np.sum(neg * f * f + pos * one_minus_f * one_minus_f))
    return float(-np.sum(xlogy(pos, f) + xlogy(neg, one_minus_f)))


def _validated(y_true, y_prob, sample_weight):
    y, p, w = check_probability_input(y_true, y_prob, sample_weight)
    return _runs(y, p, w, sample_weight is not None)


def corp_reliability(y_true, y_prob, *, sample_weight=None):
    """CORP reliability curve: the PAV recalibration of each distinct prediction.

    The isotonic (non-decreasing) regression of the labels on the predictions, with tied
    predictions pooled first: the curve of a CORP reliability diagram, plotted against the
    diagonal. Its blocks are the diagram's bins, chosen optimally by PAV, with no binning
    parameter; the curve is the same for every proper score.
    :doc:`/book/01_measuring_calibration` reads reliability diagrams.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Binary labels in {0, 1}.
    y_prob : array-like of shape (n,)
        Predicted probabilities of the positive class, in [0, 1].
    sample_weight : array-like of shape (n,), optional
        Non-negative frequency weights; integer weights equal repeated rows and rows of
        weight 0 are absent.

    Returns
    -------
    CORPCurve
        A named tuple of arrays, one entry per distinct prediction of positive weight:
        ``x`` (the predictions, increasing), ``calibrated`` (the recalibrated
        probabilities) and ``count`` (their total weight).

    Raises
    ------
    ValueError
        If the inputs are empty, of different lengths, hold NaN or infinity, the labels
        are not binary, a probability lies outside [0, 1], or a weight is negative or all
        are zero.

    See Also
    --------
    corp_decomposition : The mean score split by this curve.
    corp_consistency_bands, corp_confidence_bands : Its bands.
    calibbook.reliability_curve : The binned curve.

    References
    ----------
    Dimitriadis, Gneiting & Jordan, "Stable reliability diagrams for probabilistic
    classifiers", PNAS 118 (2021) e2016191118. :doc:`/book/12_corp` derives the curve.

    Examples
    --------
    >>> from calibbook import corp_reliability
    >>> curve = corp_reliability([0, 1, 0, 1, 1], [0.1, 0.2, 0.4, 0.4, 0.9])
    >>> curve.x.tolist(), curve.calibrated.round(3).tolist(), curve.count.tolist()
    ([0.1, 0.2, 0.4, 0.9], [0.0, 0.667, 0.667, 1.0], [1.0, 1.0, 2.0, 1.0])
    """
    v, total, pos, _ = _validated(y_true, y_prob, sample_weight)
    return CORPCurve(v, _pav_blocks(total, pos)[1], total)


@validate_params({"score": [Options(*SCORES)]})
def corp_decomposition(y_true, y_prob, *, score="brier", sample_weight=None):
    r"""CORP decomposition of a mean score: miscalibration, discrimination, uncertainty.

    With :math:`\bar S` the mean score of the predictions, :math:`\bar S_C` that of their
    PAV recalibration (:func:`corp_reliability`) and :math:`\bar S_R` that of the constant
    base rate, :math:`\mathrm{MCB} = \bar S - \bar S_C`,
    :math:`\mathrm{DSC} = \bar S_R - \bar S_C`, :math:`\mathrm{UNC} = \bar S_R`, and

    .. math:: \bar S = \mathrm{MCB} - \mathrm{DSC} + \mathrm{UNC}.

    MCB and DSC are non-negative (the identity and the constants are among the
    non-decreasing maps over which PAV minimises the score). Unlike Murphy's binned
    decomposition (:func:`calibbook.brier_decomposition`) it holds with no binning and
    no within-bin terms. :doc:`/book/01_measuring_calibration` reads the Brier score's.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Binary labels in {0, 1}.
    y_prob : array-like of shape (n,)
        Predicted probabilities of the positive class, in [0, 1].
    score : {"brier", "log"}, default="brier"
        The Brier score :math:`(p - y)^2` or the log score
        :math:`-y \log p - (1 - y)\log(1 - p)` (natural logarithm).
    sample_weight : array-like of shape (n,), optional
        Non-negative frequency weights (integer weights equal repeated rows); the means
        are weighted means, so only the weights' proportions matter.

    Returns
    -------
    CORPDecomposition
        A named tuple ``(score, mean_score, mcb, dsc, unc)``.

    Raises
    ------
    ValueError
        If the inputs are empty, of different lengths, hold NaN or infinity, the labels
        are not binary, a probability lies outside [0, 1], a weight is negative or all
        are zero, or ``score`` is not one of the two.

    Notes
    -----
    Log score at the ends: :math:`0 \log 0 = 0`, so a prediction of 0 (or 1) costs
    nothing on a negative (a positive) row, and an infinite score on a positive (a
    negative) one. ``mean_score`` and ``mcb`` are then ``inf``, while ``dsc`` and ``unc``
    stay finite: the recalibrated value of a block is 0 only when the block has no
    positive and 1 only when it has no negative. ``mean_score - mcb`` is then NaN, not
    the recalibrated score.

    The three means are sums over the runs of tied predictions and over the PAV blocks,
    so the identity holds to rounding (about 1e-16 relative) and matches the mean of the
    per-row scores to the same order. Cost: one sort of the predictions and one PAV pass.

    References
    ----------
    Dimitriadis, Gneiting & Jordan, "Stable reliability diagrams for probabilistic
    classifiers", PNAS 118 (2021) e2016191118; Bröcker, "Reliability, sufficiency, and
    the decomposition of proper scores", QJRMS 135 (2009) (the decomposition for any
    proper score). :doc:`/book/12_corp` derives the decomposition and proves its signs.

    Examples
    --------
    >>> from calibbook import corp_decomposition
    >>> d = corp_decomposition([0, 1, 0, 1], [0.2, 0.4, 0.6, 0.8])
    >>> round(d.mean_score, 6), round(d.mcb, 6), round(d.dsc, 6), round(d.unc, 6)
    (0.2, 0.075, 0.125, 0.25)
    >>> round(d.mcb - d.dsc + d.unc, 12) == round(d.mean_score, 12)
    True
    """
    v, total, pos, neg = _validated(y_true, y_prob, sample_weight)
    weight = float(np.sum(total))
    mean = _score_sum(score, pos, neg, v, 1.0 - v) / weight
    starts, _ = _pav_blocks(total, pos)
    bp, bn = np.add.reduceat(pos, starts), np.add.reduceat(neg, starts)
    mean_c = _score_sum(score, bp, bn, bp / (bp + bn), bn / (bp + bn)) / weight
    tp, tn = np.sum(pos), np.sum(neg)
    mean_r = _score_sum(score, tp, tn, tp / (tp + tn), tn / (tp + tn)) / weight
    return CORPDecomposition(score, mean, mean - mean_c, mean_r - mean_c, mean_r)


def _band_points(at, x):
    """The sorted points where a band is read: ``at`` if given, else the distinct predictions."""
    if at is None:
        return x
    return np.sort(check_scores(at, name="at"))


def _quantile_band(fitted, confidence):
    """Pointwise inverted-CDF quantiles of resampled curves (rows), as the binned bands."""
    n_res = fitted.shape[0]
    ordered = np.sort(fitted, axis=0)
    lower = ordered[_order_statistic((1.0 - confidence) / 2.0, n_res)]
    upper = ordered[_order_statistic((1.0 + confidence) / 2.0, n_res)]
    return lower, upper


@validate_params(_BAND_PARAMETERS)
def corp_consistency_bands(
    y_prob, *, confidence=0.9, n_resamples=1000, sample_weight=None, random_state=None, at=None
):
    r"""Consistency bands of a CORP diagram: where a calibrated forecaster's curve falls.

    Under the hypothesis of calibration the labels are redrawn as
    :math:`y^*_i \sim \mathrm{Bernoulli}(p_i)` with the predictions held fixed, the CORP
    curve is refitted by PAV on each redraw, and the band runs between the pointwise
    :math:`(1 \mp \text{confidence})/2` quantiles of the refitted curves. Where the
    observed curve (:func:`corp_reliability`) leaves the band, the predictions depart
    from calibration more than chance explains at that level. The band surrounds the
    diagonal and depends on the predictions only. :doc:`/book/01_measuring_calibration`
    reads reliability diagrams and their bands.

    Parameters
    ----------
    y_prob : array-like of shape (n,)
        Predicted probabilities, in [0, 1].
    confidence : float, default=0.9
        Pointwise probability, in (0, 1), that the band holds a calibrated forecaster's
        curve (the paper's 90%).
    n_resamples : int, default=1000
        Number of redrawn label sets (the paper's software uses 100 by default; 1000 makes
        the 5% and 95% quantiles steadier).
    sample_weight : array-like of shape (n,), optional
        Non-negative weights counted as rows, as in :func:`calibbook.consistency_bands`.
    random_state : None, int, numpy.random.Generator or RandomState, default=None
        Seed or generator of the redrawn labels.
    at : array-like, optional
        Predictions at which to read the band; by default the distinct predictions of
        positive weight. A refitted curve is joined linearly between distinct
        predictions and constant beyond them.

    Returns
    -------
    CORPBands
        ``(x, lower, upper)``: the points (sorted) and the band at each.

    Raises
    ------
    ValueError
        If ``y_prob`` is empty, holds NaN or infinity or values outside [0, 1]; if the
        weights are invalid (as in :func:`calibbook.consistency_bands`); if ``at`` holds
        NaN or infinity; if a parameter is invalid.

    Notes
    -----
    The redraws use the exact grouped sampler of :func:`calibbook.consistency_bands`
    with each distinct prediction its own bin, so a weight ``w`` counts as ``floor(w)``
    rows plus one row counted with weight ``w - floor(w)``, and integer weights give bit
    for bit the bands of repeated rows. Each redraw costs O(m) draws and one PAV pass
    over the m distinct predictions (a numba kernel refits all redraws); the refitted
    curves are held as an ``n_resamples`` by ``len(at)`` array, so for a million
    distinct predictions pass ``at`` (a grid of a few hundred points, say).

    References
    ----------
    Dimitriadis, Gneiting & Jordan, "Stable reliability diagrams for probabilistic
    classifiers", PNAS 118 (2021) e2016191118 (consistency bands by resampling under
    the hypothesis of calibration); Bröcker & Smith, Weather and Forecasting 22 (2007).
    :doc:`/book/12_corp` draws and reads the bands.

    Examples
    --------
    >>> import numpy as np
    >>> from calibbook import corp_consistency_bands
    >>> p = np.repeat([0.1, 0.5, 0.9], 100)
    >>> bands = corp_consistency_bands(p, n_resamples=200, random_state=0)
    >>> bands.x.tolist()
    [0.1, 0.5, 0.9]
    >>> bool(np.all((bands.lower <= bands.x) & (bands.x <= bands.upper)))
    True
    """
    p = check_scores(y_prob, name="y_prob", probabilities=True, estimator="this function")
    w = check_sample_weight(sample_weight, p.shape[0])
    if np.sum(np.floor(w)) >= 2.0**53:
        raise ValueError("sample_weight sums to 2**53 or more: the bands count weights as rows.")
    rng = check_random_state(random_state)
    keep = w > 0
    x, total = sorted_runs(p[keep], None, w[keep])[:2]
    points = _band_points(at, x)
    v, c, f = _atoms(p[keep], w[keep])
    m = x.shape[0]
    groups, atoms, single = _plan(v, c, f, assign_bins(v, x[1:]))  # one bin per prediction
    n_resamples = int(n_resamples)
    fitted = np.empty((n_resamples, points.shape[0]))
    step = max(1, _CHUNK // max(m, points.shape[0]))
    from calibbook._kernels.corp import pav_resampled

    for r0 in range(0, n_resamples, step):
        rows = min(step, n_resamples - r0)
        sums = _grouped_sums(groups, atoms, m, rows, rng) + _single_sums(single, m, rows, rng)
        fitted[r0 : r0 + rows] = pav_resampled(x, total[None, :], sums, points)
    return CORPBands(points, *_quantile_band(fitted, confidence))


@validate_params(_BAND_PARAMETERS)
def corp_confidence_bands(
    y_true,
    y_prob,
    *,
    confidence=0.9,
    n_resamples=1000,
    sample_weight=None,
    random_state=None,
    at=None,
):
    r"""Bootstrap confidence bands of the CORP reliability curve.

    The rows are resampled with replacement (the frequency-weight bootstrap of
    :func:`calibbook.bootstrap_ci`), the CORP curve is refitted by PAV on each resample
    and read at the distinct predictions, and the band runs between the pointwise
    :math:`(1 \mp \text{confidence})/2` quantiles: a pointwise interval for the
    conditional event probability :math:`P(y = 1 \mid p)`.
    :doc:`/book/01_measuring_calibration` reads reliability diagrams and their bands.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Binary labels in {0, 1}.
    y_prob : array-like of shape (n,)
        Predicted probabilities of the positive class, in [0, 1].
    confidence : float, default=0.9
        Nominal pointwise coverage, in (0, 1).
    n_resamples : int, default=1000
        Number of bootstrap resamples.
    sample_weight : array-like of shape (n,), optional
        Non-negative frequency weights, resampled as in :func:`calibbook.bootstrap_ci`
        (integer weights: the law of the bootstrap of repeated rows).
    random_state : None, int, numpy.random.Generator or RandomState, default=None
        Seed or generator of the resampling.
    at : array-like, optional
        Predictions at which to read the band; by default the distinct predictions of
        positive weight.

    Returns
    -------
    CORPBands
        ``(x, lower, upper)``: the points (sorted) and the band at each.

    Raises
    ------
    ValueError
        If the inputs are empty, of different lengths, hold NaN or infinity, the labels
        are not binary, a probability lies outside [0, 1], a weight is negative or all
        are zero; if ``at`` holds NaN or infinity; if a parameter is invalid.

    Notes
    -----
    A prediction absent from a resample is read off the resample's curve joined
    linearly between its neighbouring distinct predictions (constant beyond the ends).
    Each resample costs O(n) for the draw and one PAV pass over the distinct
    predictions; the refitted curves are held as an ``n_resamples`` by ``len(at)``
    array. At the ends of the range, where PAV pools few rows, percentile bands of an
    isotonic fit undercover; the paper prefers asymptotic bands for large samples.

    References
    ----------
    Dimitriadis, Gneiting & Jordan, "Stable reliability diagrams for probabilistic
    classifiers", PNAS 118 (2021) e2016191118. :doc:`/book/12_corp` draws and reads the
    bands.

    Examples
    --------
    >>> import numpy as np
    >>> from calibbook import corp_confidence_bands, corp_reliability
    >>> rng = np.random.default_rng(0)
    >>> p = rng.uniform(size=400)
    >>> y = (rng.uniform(size=400) < p).astype(int)
    >>> bands = corp_confidence_bands(y, p, n_resamples=200, random_state=0)
    >>> curve = corp_reliability(y, p)
    >>> c = curve.calibrated
    >>> bool(np.mean((bands.lower <= c) & (c <= bands.upper)) > 0.9)
    True
    """
    y, p, w = check_probability_input(y_true, y_prob, sample_weight)
    rng = check_random_state(random_state)
    x, _, _, _ = _runs(y, p, w, sample_weight is not None)
    points = _band_points(at, x)
    m = x.shape[0]
    run = np.minimum(np.searchsorted(x, p), m - 1)  # rows of weight 0 may miss x: never drawn
    n_resamples = int(n_resamples)
    fitted = np.empty((n_resamples, points.shape[0]))
    step = max(1, _CHUNK // max(m, points.shape[0]))
    draws = resampled_weights(w, n_resamples, rng)
    from calibbook._kernels.corp import pav_resampled

    for r0 in range(0, n_resamples, step):
        rows = min(step, n_resamples - r0)
        weights, sums = np.empty((rows, m)), np.empty((rows, m))
        for r in range(rows):
            counts = next(draws)
            weights[r] = np.bincount(run, weights=counts, minlength=m)
            sums[r] = np.bincount(run, weights=counts * y, minlength=m)
        fitted[r0 : r0 + rows] = pav_resampled(x, weights, sums, points)
    return CORPBands(points, *_quantile_band(fitted, confidence))
