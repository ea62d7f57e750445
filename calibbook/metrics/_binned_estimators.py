r"""Binned calibration errors with less bias than the plain binned ECE.

The binned ECE overstates the calibration error of well calibrated predictions:
each bin's observed frequency :math:`o_k` is noisy, and the noise enters the gap
:math:`|o_k - e_k|` with a positive sign. Two remedies from the literature:

* :func:`debiased_calibration_error`, the estimator of Kumar, Liang & Ma (NeurIPS
  2019) after Bröcker (2012) and Ferro & Fricker (2012): the squared gap of each
  bin minus an unbiased estimate of the variance of :math:`o_k`;
* :func:`ece_sweep`, the monotone sweep of Roelofs, Cain, Shlens & Mozer (AISTATS
  2022): as many bins as the data allow while the reliability diagram still rises.

Both bin with :mod:`calibbook._utils.binning` ("uniform" or "quantile", tied predictions
never split) and take frequency weights: integer weights give the result of
repeated rows.
"""

import numpy as np

from calibbook._kernels.binned_estimators import bin_totals, binned_sums, monotone_sweep
from calibbook._utils.binning import STRATEGIES, bin_edges, sorted_runs, unit_weights_or_none
from calibbook._utils.params import Integral, Interval, Options, validate_params
from calibbook._utils.validation import check_probability_input

__all__ = ["debiased_calibration_error", "ece_sweep"]


@validate_params(
    {
        "n_bins": [Interval(Integral, 1, None)],
        "strategy": [Options(*STRATEGIES)],
        "squared": ["boolean"],
    }
)
def debiased_calibration_error(
    y_true, y_prob, *, n_bins=15, strategy="quantile", sample_weight=None, squared=True
):
    r"""Debiased estimate of the squared :math:`\ell_2` binned calibration error.

    With bins k of total weight :math:`n_k` (out of :math:`n`), observed frequency
    :math:`o_k` and mean prediction :math:`e_k`,

    .. math::

        \widehat{CE}^2 = \sum_{k:\, n_k > 1} \frac{n_k}{n}
            \Big[(o_k - e_k)^2 - \frac{o_k (1 - o_k)}{n_k - 1}\Big].

    Given :math:`n_k`, :math:`o_k (1 - o_k) / (n_k - 1)` is an unbiased estimate of
    the variance of :math:`o_k`, the amount by which the plug-in term
    :math:`(o_k - e_k)^2` overshoots :math:`(E[y \mid k] - e_k)^2` on average.
    :doc:`/book/appendix_estimators` measures its bias and spread against the
    binned ECE's.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Binary labels in {0, 1}.
    y_prob : array-like of shape (n,)
        Predicted probabilities of the positive class, in [0, 1].
    n_bins : int, default=15
        Number of bins (the authors' default).
    strategy : {"quantile", "uniform"}, default="quantile"
        Equal-mass bins that never split tied predictions (the authors' choice), or
        equal-width bins on [0, 1].
    sample_weight : array-like of shape (n,), optional
        Non-negative frequency weights: a bin's :math:`n_k` is its total weight, so
        integer weights equal repeated rows, and rescaling the weights changes the
        correction (weights that sum to 1 leave no bin above weight 1).
    squared : bool, default=True
        Return the estimate of the square as it is; if False, return
        :math:`\sqrt{\max(\widehat{CE}^2, 0)}`.

    Returns
    -------
    float
        The estimate of :math:`\sum_k P(k)\,(E[y \mid k] - E[p \mid k])^2`, or its
        clipped square root. The estimate of the square is negative when the
        corrections outweigh the squared gaps (typical of well calibrated
        predictions); with ``squared=True`` it is returned negative, unclipped, so
        that averages over replications stay unbiased.

    Raises
    ------
    ValueError
        If the inputs are empty, of different lengths, hold NaN or infinity, the
        labels are not binary, a probability lies outside [0, 1], a weight is
        negative, ``n_bins``, ``strategy`` or ``squared`` is invalid, or no bin has
        total weight above 1.

    Notes
    -----
    Bins of total weight at most 1 cannot estimate the variance of their label mean:
    they contribute nothing, as in the authors' code, and their weight still counts
    in :math:`n` (their share is estimated as zero, not left out). When every bin is
    that light there is no estimate and a ValueError asks for fewer bins.

    Given the bins' counts, the estimate is unbiased for predictions that are constant
    within each bin, the binned models of the paper. When predictions spread within
    bin k, :math:`e_k` is itself noisy and the estimate of bin k is off by
    :math:`(\mathrm{Var}(p \mid k) - 2\,\mathrm{Cov}(p, y \mid k)) / n_k` on average,
    of the order of the squared bin width over :math:`n_k`. The binned error is
    itself a lower bound on :math:`E[(E[y \mid p] - p)^2]`, by Jensen's inequality.

    With equal-mass bins the bins depend on the data, so the estimated quantity is
    that of the bins found; Roelofs et al. found equal-mass bins less biased.

    References
    ----------
    Kumar, Liang & Ma, "Verified uncertainty calibration", NeurIPS 2019, Section 5;
    Bröcker, "Estimating reliability and resolution of probability forecasts through
    decomposition of the empirical score", Climate Dynamics 39 (2012); Ferro & Fricker,
    "A bias-corrected decomposition of the Brier score", QJRMS 138 (2012).

    See Also
    --------
    calibbook.expected_calibration_error : The plug-in binned ECE.
    ece_sweep : Chooses the number of bins from the data.

    Examples
    --------
    >>> from calibbook import debiased_calibration_error
    >>> p = [0.5] * 10 + [0.9] * 10
    >>> y = [1] * 2 + [0] * 8 + [1] * 8 + [0] * 2
    >>> round(debiased_calibration_error(y, p, n_bins=2), 6)
    0.032222
    >>> round(debiased_calibration_error(y, p, n_bins=2, squared=False), 6)
    0.179505
    """
    n_bins = int(n_bins)
    y, p, w = check_probability_input(y_true, y_prob, sample_weight)
    weight, sum_p, sum_y = binned_sums(p, y, w, bin_edges(p, w, n_bins, strategy))
    heavy = weight > 1.0
    if not heavy.any():
        raise ValueError(
            f"every bin has total weight at most 1 ({n_bins} bins for a total weight of "
            f"{w.sum():.4g}), so none can estimate the variance of its label mean; use "
            "fewer bins, or frequency weights (counts) rather than normalised ones."
        )
    n_k = weight[heavy]
    o = sum_y[heavy] / n_k
    e = sum_p[heavy] / n_k
    estimate = float(np.sum(n_k * ((o - e) ** 2 - o * (1.0 - o) / (n_k - 1.0))) / weight.sum())
    return estimate if squared else float(np.sqrt(max(estimate, 0.0)))


@validate_params(
    {
        "strategy": [Options(*STRATEGIES)],
        "norm": [Interval(Integral, 1, 2)],
        "return_n_bins": ["boolean"],
    }
)
def ece_sweep(
    y_true, y_prob, *, strategy="quantile", norm=1, sample_weight=None, return_n_bins=False
):
    r"""Binned calibration error with the most bins that keep the diagram monotone.

    The monotone sweep of Roelofs et al.: for b = 2, 3, ... bins, compute the
    observed frequency :math:`o_k` of each non-empty bin; stop at the first b where
    some :math:`o_k` is strictly below the one before it, and take the b before
    that. The result is the binned error at that number of bins b*,

    .. math::

        \mathrm{ECE}_{\mathrm{sweep}} = \Big(\sum_{k=1}^{b^*} \frac{n_k}{n}
            |o_k - e_k|^{q}\Big)^{1/q},

    with :math:`q` = ``norm``: q = 1 gives the ECE, q = 2 the root of the weighted
    mean squared gap. :doc:`/book/appendix_estimators` measures its bias and
    spread against the binned ECE's.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Binary labels in {0, 1}.
    y_prob : array-like of shape (n,)
        Predicted probabilities of the positive class, in [0, 1].
    strategy : {"quantile", "uniform"}, default="quantile"
        Equal-mass bins (the paper's recommendation), never splitting tied
        predictions, or equal-width bins on [0, 1].
    norm : {1, 2}, default=1
        Exponent q of the gaps.
    sample_weight : array-like of shape (n,), optional
        Non-negative weights; integer weights equal repeated rows.
    return_n_bins : bool, default=False
        Also return the number of bins b* chosen.

    Returns
    -------
    float
        The calibration error at b* bins, in [0, 1].
    int
        b*, only with ``return_n_bins=True``.

    Raises
    ------
    ValueError
        If the inputs are empty, of different lengths, hold NaN or infinity, the
        labels are not binary, a probability lies outside [0, 1], a weight is
        negative, or ``strategy``, ``norm`` or ``return_n_bins`` is invalid.

    Notes
    -----
    The rule follows the authors' code (``caltrain`` in google-research): b runs upward
    from 2 and the sweep stops at the first violation, even if some larger b would be
    monotone again; equal consecutive frequencies are allowed (non-decreasing); empty
    bins (equal-width bins, or equal-mass bins over heavy ties) are skipped; when
    already b = 2 breaks monotonicity, b* = 1 and the result is the gap of the whole
    sample, :math:`|\bar y - \bar p|`. Two departures, both from never splitting tied
    predictions: the authors cut equal-mass bins by sorted position, which can split
    ties (and then depends on the order of the rows), and they try b up to n - 1 for
    n samples. Here at most R bins can be non-empty, R the number of distinct
    predictions (of positive weight), and b runs up to R. For distinct unweighted
    predictions the bins are the authors' and the results agree, except that b* = n
    is reachable when every b is monotone. When the frequencies of the distinct
    predictions themselves never decrease, every b is monotone and b* = R.

    Bins are sums over the sorted distinct predictions: prefix sums give a bin's
    totals in O(1), each b costs O(b) searches, and beyond a few bins per
    decrease of the distinct predictions' frequencies only the bins around those
    decreases are checked (a pair of adjacent bins can only break monotonicity if
    it contains one). One sort dominates the cost.

    References
    ----------
    Roelofs, Cain, Shlens & Mozer, "Mitigating bias in calibration error
    estimation", AISTATS 2022.

    See Also
    --------
    calibbook.expected_calibration_error : The binned ECE for a fixed number of bins.
    debiased_calibration_error : Removes the bias of the squared error instead.

    Examples
    --------
    >>> from calibbook import ece_sweep
    >>> y = [0, 0, 1, 0, 1, 1, 1, 1]
    >>> p = [0.1, 0.2, 0.3, 0.4, 0.6, 0.7, 0.8, 0.9]
    >>> value, n_bins = ece_sweep(y, p, return_n_bins=True)
    >>> n_bins, round(value, 6)
    (5, 0.2)
    """
    y, p, w = check_probability_input(y_true, y_prob, sample_weight)
    values, weights, positives = sorted_runs(p, y, unit_weights_or_none(w))
    n_rows = np.count_nonzero(w)  # rows of zero weight are absent
    # integer weights sum exactly (below 2**53); others compare beyond their rounding
    exact = bool(np.all(w == np.round(w)) and w.sum() < 2.0**53)
    n_bins, starts = monotone_sweep(
        values, weights, positives, strategy == "quantile", n_rows, exact
    )
    weight, sum_p, sum_y = bin_totals(values, weights, positives, starts)
    full = weight > 0
    gap = np.abs(sum_y[full] - sum_p[full]) / weight[full]
    if norm == 1:
        value = float(np.sum(weight[full] * gap) / weight.sum())
    else:
        value = float(np.sqrt(np.sum(weight[full] * gap**2) / weight.sum()))
    return (value, int(n_bins)) if return_n_bins else value
