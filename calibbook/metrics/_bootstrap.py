"""Bootstrap confidence intervals for any scalar calibration measure, with frequency weights.

Weights (what is resampled)
---------------------------
calibbook reads a weight as a frequency (``calibbook._utils.weights``): rows of weights
``w_i`` stand for a population of total mass ``W = sum w_i`` in which row i holds the
interval ``[c_{i-1}, c_i)`` of ``[0, W)``, ``c`` the cumulative sums. A resample draws
``k = floor(W)`` units uniformly from ``[0, W)`` with replacement, each adding 1 to the
weight of the row whose interval holds it, and, when ``W`` is not an integer, one more
unit of weight ``W - k``. So

* with integer weights, the resampled weights are Multinomial(W, w / W): the law of the
  ordinary bootstrap of the repeated rows, summed back onto the rows. With the repeated
  rows laid out in order, a unit position falls in the same original row on both sides,
  so for the same ``random_state`` the two draw *the same* resamples (below the switch
  to multinomial counts, next point);
* when ``k`` exceeds ``MULTINOMIAL_FACTOR`` times the number of rows (weights that
  count many cases per row) the counts are drawn at once as Multinomial(k, w / W), the
  same law at a cost of O(n) per resample instead of O(W);
* a resample always has total weight ``W``, and its law moves continuously with the
  weights: nothing jumps when ``W`` crosses an integer (below 1, a resample is one row
  of weight ``W``);
* rows of weight 0 are never drawn.
"""

from numbers import Integral, Real
from typing import NamedTuple

import numpy as np

from calibbook._utils.params import Interval, Options, check_random_state, validate_params
from calibbook._utils.validation import (
    check_binary_labels,
    check_consistent_length,
    check_sample_weight,
    check_scores,
)
from calibbook.metrics._consistency_bands import _order_statistic

__all__ = ["BootstrapResult", "bootstrap_ci"]

#: Above this many units per row, a resample's counts are one multinomial draw.
MULTINOMIAL_FACTOR = 4


class BootstrapResult(NamedTuple):
    """A bootstrap confidence interval.

    Attributes
    ----------
    estimate : float
        The measure on the data as given.
    low, high : float
        The interval's ends.
    standard_error : float
        Standard deviation (``ddof=1``) of the bootstrap distribution.
    bootstrap_distribution : ndarray of shape (n_resamples,)
        The measure on each resample.
    """

    estimate: float
    low: float
    high: float
    standard_error: float
    bootstrap_distribution: np.ndarray


class _WeightResampler:
    """Draws resampled frequency weights of validated weights ``w`` (see the module notes)."""

    def __init__(self, w):
        self.cum = np.cumsum(w)
        self.total = float(self.cum[-1])  # the cumulative sum's end: every draw lands in a row
        self.units = int(np.floor(self.total))
        self.frac = self.total - self.units
        self.probs = w / self.total
        self.n = w.shape[0]

    def _rows(self, size, rng):
        rows = np.searchsorted(self.cum, rng.random(size) * self.total, side="right")
        return np.minimum(rows, self.n - 1)  # guards u * W rounding up to W

    def draw(self, rng):
        """One resample's weights, an array of the rows' length."""
        if self.units > MULTINOMIAL_FACTOR * self.n:
            counts = rng.multinomial(self.units, self.probs).astype(np.float64)
        else:
            counts = np.bincount(self._rows(self.units, rng), minlength=self.n).astype(np.float64)
        if self.frac > 0.0:
            counts[self._rows(1, rng)[0]] += self.frac
        return counts


def resampled_weights(w, n_resamples, rng):
    """Yield ``n_resamples`` resampled weight vectors of the validated weights ``w``."""
    sampler = _WeightResampler(w)
    for _ in range(n_resamples):
        yield sampler.draw(rng)


def interval_ends(distribution, estimate, confidence, method):
    """(low, high) of a bootstrap distribution: inverted-CDF quantiles, as the bands use."""
    ordered = np.sort(distribution)
    n = ordered.shape[0]
    lo = ordered[_order_statistic((1.0 - confidence) / 2.0, n)]
    hi = ordered[_order_statistic((1.0 + confidence) / 2.0, n)]
    if method == "basic":
        return 2.0 * estimate - hi, 2.0 * estimate - lo
    return lo, hi


@validate_params(
    {
        "measure": ["callable"],
        "n_resamples": [Interval(Integral, 2, None)],
        "confidence": [Interval(Real, 0.0, 1.0, closed="neither")],
        "random_state": ["random_state"],
        "method": [Options("percentile", "basic")],
    }
)
def bootstrap_ci(
    measure,
    y_true,
    y_prob,
    *,
    sample_weight=None,
    n_resamples=1000,
    confidence=0.95,
    random_state=None,
    method="percentile",
):
    r"""Bootstrap confidence interval of a scalar calibration measure, with frequency weights.

    The rows (label, prediction, weight) are resampled with replacement ``n_resamples``
    times, the measure is recomputed on each resample, and the interval is read off the
    resampled values: their :math:`(1 \mp \text{confidence})/2` quantiles
    (``method="percentile"``), or those quantiles reflected about the estimate
    (``method="basic"``, :math:`2\hat\theta - q_{hi}` to :math:`2\hat\theta - q_{lo}`).
    Any measure of this package fits: :func:`calibbook.expected_calibration_error`,
    :func:`calibbook.maximum_calibration_error`,
    :func:`calibbook.debiased_calibration_error`, :func:`calibbook.smooth_ece`, or the
    miscalibration of :func:`calibbook.corp_decomposition`.
    :doc:`/book/01_measuring_calibration` discusses the spread of these measures.

    Parameters
    ----------
    measure : callable
        ``measure(y_true, y_prob, sample_weight=...)`` returning a float. Fix other
        arguments with ``functools.partial`` or a lambda. It is always called with
        a ``sample_weight`` on the resamples (the resampled counts), so it must accept
        one (``strategy="positional"`` of the binned ECE does not).
    y_true : array-like of shape (n,)
        Binary labels in {0, 1}.
    y_prob : array-like of shape (n,)
        Predicted probabilities (checked by ``measure`` itself; here only that they are
        finite).
    sample_weight : array-like of shape (n,), optional
        Non-negative frequency weights: integer weights give the law of the bootstrap of
        the repeated rows (see Notes).
    n_resamples : int, default=1000
        Number of resamples, at least 2.
    confidence : float, default=0.95
        Nominal coverage of the interval, in (0, 1).
    random_state : None, int, numpy.random.Generator or RandomState, default=None
        Seed or generator of the resampling.
    method : {"percentile", "basic"}, default="percentile"
        Efron's percentile interval, or the basic (reverse percentile) interval.

    Returns
    -------
    BootstrapResult
        A named tuple: ``estimate`` (the measure on the data), ``low`` and ``high``,
        ``standard_error`` and ``bootstrap_distribution``.

    Raises
    ------
    ValueError
        If the inputs are empty, of different lengths, hold NaN or infinity, the labels
        are not binary or a weight is negative or all are zero; if a parameter is
        invalid; or whatever ``measure`` raises on the data or on a resample.

    Notes
    -----
    A weight counts cases. Row i holds ``w_i`` of the ``W`` units of mass; a resample
    draws ``floor(W)`` units with replacement (each adds 1 to its row's weight) and, when
    ``W`` is not an integer, one unit of weight ``W - floor(W)``. Integer weights
    therefore give Multinomial(W, w / W) counts, the law of the ordinary bootstrap of
    the repeated rows; below ``MULTINOMIAL_FACTOR`` units per row the draws are
    unit positions, so that the repeated rows, laid out in order, get the very same
    resamples for the same ``random_state``. Every resample has total weight ``W``, and
    the law changes continuously with the weights (nothing jumps at integer totals).
    Weights that are relative importances should be rescaled to sum to the number of
    rows first: weights summing to 1 are one case, and every resample is one row.

    The quantiles are inverted-CDF order statistics (the
    :math:`\lceil R(1 \mp \text{confidence})/2 \rceil`-th smallest of R values), as in
    :func:`calibbook.consistency_bands`. The bootstrap interval of a binned ECE inherits
    its bias: the ECE of calibrated predictions is positive, and so is the interval.

    References
    ----------
    Efron & Tibshirani, "An Introduction to the Bootstrap", Chapman & Hall (1993),
    Ch. 13; Davison & Hinkley, "Bootstrap Methods and their Application", Cambridge
    (1997), Section 5.2 (basic interval). :doc:`/book/12_corp` measures how often the
    intervals cover.

    Examples
    --------
    >>> import numpy as np
    >>> from calibbook import bootstrap_ci, expected_calibration_error
    >>> rng = np.random.default_rng(0)
    >>> p = rng.uniform(size=500)
    >>> y = (rng.uniform(size=500) < p).astype(int)
    >>> ci = bootstrap_ci(expected_calibration_error, y, p, n_resamples=200,
    ...                   random_state=0)
    >>> bool(ci.low <= ci.estimate <= ci.high), ci.bootstrap_distribution.shape
    (True, (200,))
    """
    y = check_binary_labels(y_true, name="y_true", require_both=False)
    p = check_scores(y_prob, name="y_prob")
    check_consistent_length(y_true=y, y_prob=p)
    w = check_sample_weight(sample_weight, p.shape[0])
    rng = check_random_state(random_state)
    estimate = float(measure(y, p, sample_weight=sample_weight if sample_weight is None else w))
    values = np.empty(int(n_resamples))
    for r, counts in enumerate(resampled_weights(w, int(n_resamples), rng)):
        keep = counts > 0
        values[r] = measure(y[keep], p[keep], sample_weight=counts[keep])
    low, high = interval_ends(values, estimate, confidence, method)
    se = float(np.std(values, ddof=1))
    return BootstrapResult(estimate, float(low), float(high), se, values)
