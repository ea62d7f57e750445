"""BBQ: Bayesian binning into quantiles (Naeini, Cooper & Hauskrecht, AAAI 2015)."""

import numpy as np

from calibbook._utils.binning import sorted_runs, split_sorted
from calibbook._utils.deprecation import renamed_attribute
from calibbook._utils.params import Interval, Real, validate_params
from calibbook._utils.weights import warn_low_total_weight
from calibbook.base import BaseCalibrator
from calibbook.calibrators._model_averaging import (
    PRUNING_CONSTRAINTS,
    check_pruning,
    pruning_alpha,
    relative_likelihoods,
)

__all__ = ["BBQ", "bbq_bin_range"]


@validate_params({"n": [Interval(Real, 1, None)]})
def bbq_bin_range(n):
    """The smallest and largest number of bins BBQ averages over for ``n`` samples.

    BBQ scores one equal-frequency histogram for every B from
    max(1, floor(N^(1/3) / 10)) to min(ceil(N / 5), ceil(10 N^(1/3))), the range of the
    authors' reference code, and averages them (:doc:`/book/05_near_isotonic_enir_bbq`).

    Parameters
    ----------
    n : int
        N, the number of calibration cases; at least 1.

    Returns
    -------
    (int, int)
        B_min and B_max, with 1 <= B_min <= B_max.

    Raises
    ------
    ValueError
        If ``n`` is smaller than 1 or not finite.

    References
    ----------
    Naeini, Cooper & Hauskrecht, "Obtaining well calibrated probabilities using Bayesian
    binning", AAAI 2015; their code, github.com/pakdaman/calibration (``BBQ/build.m``).

    Examples
    --------
    >>> from calibbook.calibrators.bbq import bbq_bin_range
    >>> bbq_bin_range(1000)
    (1, 100)
    >>> bbq_bin_range(10**6)
    (10, 1000)
    """
    return _bin_range(n)


def _bin_range(n):
    # validated by the caller; a total weight below 1 gives (1, 1)
    root = float(np.cbrt(n))  # n ** (1/3) gives 99.999... for 1e6
    b_min = max(1, int(np.floor(root / 10.0)))
    b_max = max(b_min, min(int(np.ceil(n / 5.0)), int(np.ceil(10.0 * root))))
    return b_min, b_max


#: The most bins a binning may have: B_max = 10 N^(1/3) reaches it at a total weight of 1e18.
_MAX_BINS = 10**7


def _model_range(total):
    """B_min, B_max and the log prior weight of each binning, continuous in the total weight.

    The binnings of ``bbq_bin_range(W)``, each of prior weight 1, except where a binning
    has just joined the range or is about to leave it. B joins when W passes
    t = max(5 (B - 1), ((B - 1) / 10)^3) and fades in until the next integer,
    floor(t) + 1: with f the fraction of that stretch passed, its prior weight is
    f exp(-K (1 - f)), K = ``_FADE``. B leaves at the integer u = (10 (B + 1))^3 and fades
    out over the unit before it, g = u - W taking the place of f. At every integer W
    the range is the reference code's; in between, no binning enters or leaves the
    average with a jump as the weights are scaled, and one whose evidence is far above
    the others' (by up to about K nats) fades in over a stretch of W much wider than its
    rounding, where a linear fade would let it take over within an ulp of t.
    """
    b_min, b_max = _bin_range(total)
    if b_max > _MAX_BINS:  # frequency weights of an astronomical total
        raise ValueError(
            f"sample_weight totals {total:.3g}, for which BBQ's binnings would need up to "
            f"{b_max:.3g} bins; rescale the weights (they are frequencies)."
        )
    log_prior = np.zeros(b_max - b_min + 1)
    if b_max > 1:
        t = max(5.0 * (b_max - 1), ((b_max - 1) / 10.0) ** 3)
        top = np.floor(t) + 1.0
        if total < top:
            log_prior[-1] = _fade(max(total - t, 0.0) / (top - t))
    leave = (10.0 * (b_min + 1)) ** 3
    if b_min < b_max and total > leave - 1.0:
        log_prior[0] = _fade(leave - total)
    return b_min, b_max, log_prior


def _fade(f):
    """log(f exp(-K (1 - f))): the log prior weight of a binning a fraction f faded in."""
    with np.errstate(divide="ignore"):  # f = 0: weight 0
        return float(np.log(f)) - _FADE * (1.0 - f)


#: How sharply a binning fades in or out of BBQ's range between integer totals.
_FADE = 700.0


class BBQ(BaseCalibrator):
    """Bayesian binning into quantiles: an average of equal-frequency histogram binnings.

    For every number of bins B in ``bbq_bin_range(N)``, from
    max(1, floor(N^(1/3) / 10)) to min(ceil(N / 5), ceil(10 N^(1/3))), the scores are cut into B
    equal-frequency bins (never splitting ties). Each bin has a Beta prior with
    mean at the middle of its score interval and strength ``prior_strength``
    (pseudo-cases); a binning's score is its marginal likelihood, the
    product over bins of Beta-binomial evidences. The calibrated probability is
    the likelihood-weighted average of the binnings' posterior-mean bin estimates.
    :doc:`/book/05_near_isotonic_enir_bbq` derives the score of a binning and
    compares BBQ with ENIR.

    Which calibrator suits your data and classifier: the decision guide,
    :doc:`/book/which_calibrator`.

    Parameters
    ----------
    prior_strength : float, default=2.0
        Pseudo count C > 0 of each bin's Beta(C p_j, C (1 - p_j)) prior, with p_j the
        middle of the bin's score interval; 2 in the paper, whose equivalent sample
        size N' = C B is that of the whole binning. It enters each binning's marginal
        likelihood and the bin estimates (n1 + C p_j) / (n + C). The same quantity
        as ``HistogramBinning(prior_strength=...)``, the pseudo count of each bin's
        Beta prior, there centred on the overall positive rate instead.
    prune : {None, "elbow", "window"}, default=None
        Which binnings take part in the average. None: all of them, weighted by
        their marginal likelihoods (the paper's model averaging). ``"elbow"``: the
        rule of the authors' reference code (:func:`calibbook.calibrators.enir.elbow_keep`),
        which keeps the best binnings up to the first small drop in relative
        likelihood. ``"window"``: Occam's window, binnings whose likelihood relative
        to the best is at least ``prune_alpha``.
    prune_alpha : float or None, default=None
        The pruning threshold, in [0, 1); with ``prune="elbow"`` None means 0.001,
        the reference code's value for BBQ. Must be None when ``prune`` is None.
    prior_clip : float, default=0.005
        The prior mean is kept in [prior_clip, 1 - prior_clip], as in the authors' code.

    Attributes
    ----------
    model_n_bins_ : ndarray (M,)
        Numbers of bins of the binnings with positive weight (the averaged models).
    model_weights_ : ndarray (M,)
        Their weights (summing to one).
    log_marginal_likelihoods_ : ndarray (M,)
        Their log marginal likelihoods.
    thresholds_ : ndarray (K - 1,)
        Inner edges of the averaged map, a step function: the union of the averaged
        binnings' cuts, increasing. A score s falls in cell ``#{thresholds_ <= s}``.
        (``bin_edges_`` before 0.2; the old name warns until 0.3.)
    step_values_ : ndarray (K,)
        The averaged map's value on each cell: ``step_values_[i]`` on
        ``[thresholds_[i - 1], thresholds_[i])``. Every step map of calibbook names
        its values ``step_values_``. (``bin_estimates_`` before 0.2; the old name
        warns until 0.3.)

    Notes
    -----
    A binning's cut between two bins is the midpoint of the largest training score
    of the bin below and the smallest of the bin above (as in the authors' code), so
    no edge of the averaged map lies on a training score, and a rounding-level change
    of a training score never changes its prediction.

    Sample weights are frequencies (:class:`~calibbook.LowWeightWarning`): N is the
    total weight, the bins hold weight, and the fit moves continuously when all
    weights are scaled. Between integer totals the range's binnings fade in and out
    (``_model_range``), and a weight below within a few ulps of a cut's target counts
    as reaching it, as exact arithmetic says for equal weights. Below a total of 5 the
    range is one bin, and the evidence favours few bins at small totals; sample
    weights that total fewer than two cases per bin of the largest binning (B_max)
    warn with :class:`~calibbook.LowWeightWarning`.

    Bin estimates are the posterior means (n1 + C p) / (n + C) under the same prior
    that scores the binning; the authors' code shrinks towards a slightly different
    data-dependent mean. Cost: one sort, then one sweep over the cuts of all the
    binnings in increasing order (``calibbook._kernels.bbq``), O(N log N + sum_B B) in all.

    See Also
    --------
    calibbook.HistogramBinning : One binning, without the average.
    calibbook.ENIR : The ensemble of near-isotonic fits that the ENIR paper compares with BBQ.

    References
    ----------
    Naeini, Cooper & Hauskrecht, "Obtaining well calibrated probabilities using
    Bayesian binning", AAAI 2015.

    Examples
    --------
    >>> import numpy as np
    >>> from calibbook import BBQ
    >>> rng = np.random.default_rng(0)
    >>> s = rng.uniform(size=1000)
    >>> cal = BBQ().fit(s, (rng.uniform(size=1000) < s).astype(int))
    >>> bool(np.isclose(cal.model_weights_.sum(), 1.0))
    True
    """

    _requires_probabilities = True

    _ELBOW_ALPHA = 0.001  # BBQ/build.m of the authors' code

    _parameter_constraints = {
        "prior_strength": [Interval(Real, 0, None, closed="neither")],
        **PRUNING_CONSTRAINTS,
        "prior_clip": [Interval(Real, 0, 0.5, closed="neither")],
    }

    # the 0.1 names (CHANGELOG.md)
    bin_edges_ = renamed_attribute("bin_edges_", "thresholds_")
    bin_estimates_ = renamed_attribute("bin_estimates_", "step_values_")

    def __init__(self, *, prior_strength=2.0, prune=None, prune_alpha=None, prior_clip=0.005):
        self.prior_strength = prior_strength
        self.prune = prune
        self.prune_alpha = prune_alpha
        self.prior_clip = prior_clip

    def _check_parameter_combinations(self):
        check_pruning(self.prune, self.prune_alpha)

    def _fit(self, scores, y, sample_weight):
        from calibbook._kernels.bbq import (
            averaged_map,
            bbq_log_marginals,
            cuts_of_rows,
            cuts_of_runs,
            n_fractions,
            new_record,
            record_size,
        )
        from calibbook._kernels.interpreted import for_size

        n = scores.size
        b_min, b_max = _bin_range(float(n))
        if sample_weight is None and n * b_max < 2**53:
            # every row weighs 1: the runs stream straight out of the two sorted classes
            record = new_record(n_fractions(b_max))
            for_size(cuts_of_rows, n)(*split_sorted(scores, y), b_min, b_max, record)
            total, pos_total = float(n), float(np.count_nonzero(y == 1.0))
            log_prior = 0.0
        else:
            values, weights, positives = sorted_runs(scores, y, sample_weight)
            b_min, b_max, log_prior = _model_range(weights.sum())
            record = new_record(record_size(b_min, b_max))
            cuts = for_size(cuts_of_runs, n)
            size, total, pos_total = cuts(values, weights, positives, b_min, b_max, record)
            record = tuple(field[:size] for field in record)
            if sample_weight is not None:
                warn_low_total_weight(total, b_max, "bin", "BBQ")
        strength, clip = float(self.prior_strength), float(self.prior_clip)
        log_ml = bbq_log_marginals(record, total, pos_total, b_min, b_max, strength, clip)
        alpha = pruning_alpha(self.prune, self.prune_alpha, self._ELBOW_ALPHA)
        weight = relative_likelihoods(-2.0 * (log_ml + log_prior), self.prune, alpha)
        keep = weight > 0
        grid, averaged = for_size(averaged_map, n)(
            record, b_min, weight, total, pos_total, strength, clip
        )
        self.thresholds_ = grid
        self.step_values_ = np.clip(averaged, 0.0, 1.0)
        self.model_n_bins_ = np.arange(b_min, b_max + 1)[keep]
        self.model_weights_ = weight[keep]
        self.log_marginal_likelihoods_ = log_ml[keep]
        return self

    def _predict(self, scores):
        from calibbook._kernels.binning import sorted_index

        return self.step_values_[sorted_index(self.thresholds_, scores)]
