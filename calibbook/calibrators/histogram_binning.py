"""Histogram binning (Zadrozny & Elkan 2001; Naeini, Cooper & Hauskrecht 2014).

Partition the score axis into B bins and predict, for a score in bin j, the
fraction of positives among the training scores in bin j. Seen as a plug-in Bayes
classifier with histogram density estimates of the two class-conditional score
densities, this is P(y = 1 | bin j) = m_j / (m_j + n_j), with m_j positives and
n_j negatives in the bin.
"""

import numpy as np

from calibbook._utils.binning import STRATEGIES, equal_frequency_fit, uniform_step_edges
from calibbook._utils.deprecation import renamed_attribute
from calibbook._utils.params import Integral, Interval, Options, Real, validate_params
from calibbook._utils.weights import warn_low_total_weight
from calibbook.base import BaseCalibrator

__all__ = ["HistogramBinning", "auto_n_bins"]


@validate_params({"n_samples": [Interval(Real, 0, None)]})
def auto_n_bins(n_samples):
    """The number of bins ``n_bins="auto"`` uses: B = round(N^(1/3)), at least 1.

    N^(1/3) balances the two error terms of the histogram-binning bounds: the bias of a bin
    of width about 1/B against the variance of an estimate from about N/B cases
    (:doc:`/book/02_histogram_binning`, the trade-off section).

    Parameters
    ----------
    n_samples : int or float
        N, the number of calibration cases (or their total weight); at least 0.

    Returns
    -------
    int
        B, at least 1.

    Raises
    ------
    ValueError
        If ``n_samples`` is negative or not finite.

    References
    ----------
    Naeini, Cooper & Hauskrecht, "Binary classifier calibration: non-parametric
    approach", arXiv:1401.3390 (2014), Section 3.

    Examples
    --------
    >>> from calibbook.calibrators.histogram_binning import auto_n_bins
    >>> auto_n_bins(1000), auto_n_bins(10), auto_n_bins(0)
    (10, 2, 1)
    """
    return _auto_n_bins(n_samples)


def _auto_n_bins(n_samples):
    return max(1, round(float(np.cbrt(n_samples))))


def fill_empty_bins(estimates, weights):
    """Give each empty bin the estimate of its nearest non-empty bin (by index).

    An empty bin lying exactly halfway between two non-empty bins takes their mean.
    """
    full = np.flatnonzero(weights > 0)
    idx = np.arange(estimates.size)
    right = np.searchsorted(full, idx).clip(max=full.size - 1)  # first full bin at or after
    left = (right - 1).clip(min=0)
    d_left, d_right = np.abs(idx - full[left]), np.abs(full[right] - idx)
    out = np.where(d_left < d_right, estimates[full[left]], estimates[full[right]])
    tie = d_left == d_right
    out[tie] = 0.5 * (estimates[full[left]][tie] + estimates[full[right]][tie])
    return out


class HistogramBinning(BaseCalibrator):
    """Calibration by histogram binning.

    The score axis is cut into B bins; a score in bin j gets the fraction of
    positives among the training scores in bin j, m_j / (m_j + n_j).
    :doc:`/book/02_histogram_binning` reads this as a plug-in Bayes classifier
    and proves the paper's bounds on its MCE, ECE and loss of AUC.

    Which calibrator suits your data and classifier: the decision guide,
    :doc:`/book/which_calibrator`.

    Parameters
    ----------
    n_bins : int or "auto", default="auto"
        Number of bins B. ``"auto"`` uses B = round(N^(1/3)) with N the total
        sample weight (the number of rows when unweighted), which balances the
        bias and the variance terms of the calibration error bounds; at most the
        number of rows of positive weight.
    strategy : {"quantile", "uniform"}, default="quantile"
        ``"quantile"``: equal-frequency bins on the sorted training scores, never
        splitting tied scores (any real scores are accepted). ``"uniform"``:
        equal-width bins [k/B, (k+1)/B) on [0, 1], fixed in advance; the scores
        must then be probabilities.
    prior_strength : float, default=0.0
        Pseudo count a >= 0 of a Beta prior centred on the overall positive rate
        pi, the same in every bin: a bin predicts (m_j + a pi) / (m_j + n_j + a),
        shrinking small bins towards pi. The default 0 gives the paper's estimator
        m_j / (m_j + n_j). The same quantity as ``BBQ(prior_strength=...)``, whose
        Beta prior is centred on each bin's mid-score instead.

    Attributes
    ----------
    n_bins_ : int
        Number of bins used, B.
    thresholds_ : ndarray of shape (n_bins_ - 1,)
        Inner bin edges only (the outer ones are the whole real line), non-decreasing;
        a score s falls in bin ``#{thresholds_ <= s}``. (``bin_edges_`` before 0.2; the
        old name warns until 0.3.) ``"uniform"``: the points k/B (as the nearest
        floats), except an edge with a training score within 16 eps of it, which moves
        just clear of that score (see Notes). ``"quantile"``: each finite edge lies
        strictly between two neighbouring distinct training scores, never on one;
        edges that coincide mark bins that heavy ties left empty, +inf marks trailing
        empty bins.
    bin_weights_ : ndarray of shape (n_bins_,)
        Training weight (row count) per bin.
    bin_positives_ : ndarray of shape (n_bins_,)
        Positive training weight per bin.
    step_values_ : ndarray of shape (n_bins_,)
        Predicted probability per bin (``bin_estimates_`` before 0.2; the old name
        warns until 0.3). An empty bin (possible with uniform bins)
        predicts the estimate of the nearest non-empty bin, or the mean of the
        two nearest when it lies halfway between them: with no data of its own,
        the neighbouring bins are the best local evidence.

    Notes
    -----
    The training rows fall in the bins of the papers: for ``"quantile"`` a bin
    starts at the smallest score with at least k N / B rows strictly below it, for
    ``"uniform"`` bin k is [k/B, (k+1)/B), with k/B the float nearest to it (so a
    score 0.3 is in bin 3 of 10) and 1 in the last bin. A score changed by rounding (a
    classifier's ``predict_proba`` on a batch and on one row can differ by 1e-16)
    must stay in its training row's bin, so no edge may sit on a training score:

    * ``"uniform"``: the edges stay at k/B, fixed in advance as the theory of
      :doc:`/book/02_histogram_binning` assumes, except where a training score lies
      within 16 eps (3.6e-15) of k/B. The edge then moves just clear of it: to
      ``a + 16 eps`` or ``b - 16 eps``, with a < k/B <= b the nearest training scores
      on either side (a training score on k/B stays in bin k, with its rounding-level
      neighbours below it). Where a and b are closer than 32 eps the edge is their
      midpoint. Only new scores within 16 eps of k/B can fall in another bin than
      the textbook map's.
    * ``"quantile"``: the edges are the training scores that start the bins, so each
      finite one moves down to the midpoint of that score and the largest training
      score below it; coinciding edges (empty bins) move together and stay
      unreachable, +inf edges stay. A new score strictly between two neighbouring
      training scores goes to the bin of the nearer one (the upper one at equal
      distance).

    No training row changes bin. Where two distinct training scores are adjacent
    floats, nothing lies between them and the edge stays on the upper one.

    With ``sample_weight`` the total weight W replaces N in the quantile rule, and
    weights that tie exactly (W(score < s) = k W / B) do so at any scale: the
    comparison allows for the rounding of the float sums, 2 eps per summed row
    (``calibbook._utils.binning``), so weights 0.1 or 1e6 per row give the unweighted
    bins. Weights are frequencies (a weight of 2 is a row seen twice): a total below
    two cases per bin warns :class:`~calibbook.LowWeightWarning`.

    ``fit`` costs two ``np.sort`` calls (positives and negatives apart) and one
    linear merge when unweighted; an ``argsort`` when weighted. ``predict`` is a
    binary search over the B - 1 edges per score.

    See Also
    --------
    calibbook.BBQ : Averages equal-frequency binnings over many numbers of bins.
    calibbook.reliability_curve : The same bins, read as a diagnostic.

    References
    ----------
    Zadrozny & Elkan, "Obtaining calibrated probability estimates from decision
    trees and naive Bayesian classifiers", ICML 2001. Naeini, Cooper & Hauskrecht,
    "Binary classifier calibration: non-parametric approach", arXiv:1401.3390
    (2014).

    Examples
    --------
    >>> from calibbook import HistogramBinning
    >>> cal = HistogramBinning(n_bins=2).fit([0.1, 0.2, 0.7, 0.9], [0, 1, 1, 1])
    >>> cal.predict([0.15, 0.8]).tolist()
    [0.5, 1.0]
    >>> # s falls in bin #{thresholds_ <= s}; (0.2 + 0.7) / 2
    >>> cal.thresholds_.round(6).tolist()
    [0.45]
    """

    _parameter_constraints = {
        "n_bins": [Interval(Integral, 1, None), Options("auto")],
        "strategy": [Options(*STRATEGIES)],
        "prior_strength": [Interval(Real, 0, None)],
    }

    # the 0.1 names (CHANGELOG.md)
    bin_edges_ = renamed_attribute("bin_edges_", "thresholds_")
    bin_estimates_ = renamed_attribute("bin_estimates_", "step_values_")

    def __init__(self, *, n_bins="auto", strategy="quantile", prior_strength=0.0):
        self.n_bins = n_bins
        self.strategy = strategy
        self.prior_strength = prior_strength

    @property
    def _requires_probabilities(self):
        return self.strategy == "uniform"

    def _fit(self, scores, y, sample_weight):
        if sample_weight is None:
            total = rows = scores.size
        else:
            total, rows = sample_weight.sum(), np.count_nonzero(sample_weight)
        # weights read as frequencies can total far more than the rows: bins past the
        # number of rows could only be empty
        n_bins = min(_auto_n_bins(total), rows) if self.n_bins == "auto" else int(self.n_bins)
        if sample_weight is not None:
            warn_low_total_weight(total, n_bins, "bin", "HistogramBinning")
        a = float(self.prior_strength)
        if self.strategy == "quantile":
            edges, weights, positives = equal_frequency_fit(
                scores, y, sample_weight, n_bins, cut_between=True
            )
        else:
            from calibbook._kernels.binning import uniform_bin_sums

            if sample_weight is None:
                sample_weight = np.ones_like(scores)
            weights, positives, lowest, highest = uniform_bin_sums(scores, y, sample_weight, n_bins)
            edges = uniform_step_edges(lowest, highest)
        base_rate = positives.sum() / weights.sum()
        with np.errstate(invalid="ignore", divide="ignore"):
            estimates = (positives + a * base_rate) / (weights + a)
        self.n_bins_ = n_bins
        self.thresholds_ = edges
        self.bin_weights_ = weights
        self.bin_positives_ = positives
        self.step_values_ = fill_empty_bins(estimates, weights)
        return self

    def _predict(self, scores):
        from calibbook._kernels.binning import sorted_index

        return self.step_values_[sorted_index(self.thresholds_, scores)]
