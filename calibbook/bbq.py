"""BBQ: Bayesian binning into quantiles (Naeini, Cooper & Hauskrecht, AAAI 2015)."""

import numbers

import numpy as np

from ._binning import sorted_runs
from .base import BaseCalibrator
from .enir import check_pruning, pruning_alpha, relative_likelihoods

__all__ = ["BBQ", "bbq_bin_range"]


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
    >>> from calibbook.bbq import bbq_bin_range
    >>> bbq_bin_range(1000)
    (1, 100)
    >>> bbq_bin_range(10**6)
    (10, 1000)
    """
    if not np.isfinite(n) or n < 1:
        raise ValueError(f"n must be a finite number >= 1, got {n!r}")
    return _bin_range(n)


def _bin_range(n):
    # validated by the caller; a total weight below 1 gives (1, 1)
    root = float(np.cbrt(n))  # n ** (1/3) gives 99.999... for 1e6
    b_min = max(1, int(np.floor(root / 10.0)))
    b_max = max(b_min, min(int(np.ceil(n / 5.0)), int(np.ceil(10.0 * root))))
    return b_min, b_max


class BBQ(BaseCalibrator):
    """Bayesian binning into quantiles: an average of equal-frequency histogram binnings.

    For every number of bins B in ``bbq_bin_range(N)``, from
    max(1, floor(N^(1/3) / 10)) to min(ceil(N / 5), ceil(10 N^(1/3))), the scores are cut into B
    equal-frequency bins (never splitting ties). Each bin has a Beta prior with
    mean at the middle of its score interval and strength ``prior_strength`` (an
    equivalent sample size); a binning's score is its marginal likelihood, the
    product over bins of Beta-binomial evidences. The calibrated probability is
    the likelihood-weighted average of the binnings' posterior-mean bin estimates.
    :doc:`/book/05_near_isotonic_enir_bbq` derives the score of a binning and
    compares BBQ with ENIR.

    Which calibrator suits your data and classifier: the decision guide,
    :doc:`/book/which_calibrator`.

    Parameters
    ----------
    prior_strength : float, default=2.0
        Equivalent sample size C of each bin's Beta(C p, C (1 - p)) prior (2 in the paper).
    prune : {None, "elbow", "window"}, default=None
        Which binnings take part in the average. None: all of them, weighted by
        their marginal likelihoods (the paper's model averaging). ``"elbow"``: the
        rule of the authors' reference code (:func:`calibbook.enir.elbow_keep`),
        which keeps the best binnings up to the first small drop in relative
        likelihood. ``"window"``: Occam's window, binnings whose likelihood relative
        to the best is at least ``prune_alpha``.
    prune_alpha : float or None, default=None
        The pruning threshold; with ``prune="elbow"`` None means 0.001, the
        reference code's value for BBQ. Must be None when ``prune`` is None.
    prior_clip : float, default=0.005
        The prior mean is kept in [prior_clip, 1 - prior_clip], as in the authors' code.

    Attributes
    ----------
    n_bins_ : ndarray (M,)
        Numbers of bins of the binnings with positive weight.
    model_weights_ : ndarray (M,)
        Their weights (summing to one).
    log_marginal_likelihoods_ : ndarray (M,)
        Their log marginal likelihoods.
    cuts_, cell_values_ : ndarray
        The averaged map as one step function: value ``cell_values_[i]`` on
        [cuts_[i - 1], cuts_[i]).

    Notes
    -----
    Bin estimates are the posterior means (n1 + C p) / (n + C) under the same prior
    that scores the binning; the authors' code shrinks towards a slightly different
    data-dependent mean. Cost: one sort, then O(B log R) per binning with prefix sums,
    O(N log N + sum_B B log N) in all.

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

    def __init__(self, prior_strength=2.0, prune=None, prune_alpha=None, prior_clip=0.005):
        self.prior_strength = prior_strength
        self.prune = prune
        self.prune_alpha = prune_alpha
        self.prior_clip = prior_clip

    def _check_params(self):
        c = self.prior_strength
        if not isinstance(c, numbers.Real) or not np.isfinite(c) or c <= 0:
            raise ValueError(f"prior_strength must be a finite number > 0; got {c!r}.")
        check_pruning(self.prune, self.prune_alpha)
        if not isinstance(self.prior_clip, numbers.Real) or not 0.0 < self.prior_clip < 0.5:
            raise ValueError(f"prior_clip must be in (0, 0.5); got {self.prior_clip!r}.")

    def _fit(self, scores, y, sample_weight):
        from ._kernels.bbq import average_step_functions, bbq_models

        self._check_params()
        values, weights, positives = sorted_runs(scores, y, sample_weight)
        b_min, b_max = _bin_range(weights.sum())
        log_ml, offsets, cuts, estimates = bbq_models(
            values, weights, positives, b_min, b_max, float(self.prior_strength), float(self.prior_clip)
        )
        model_weight = relative_likelihoods(
            -2.0 * log_ml, self.prune, pruning_alpha(self.prune, self.prune_alpha, self._ELBOW_ALPHA)
        )
        used = np.repeat(model_weight > 0, np.diff(offsets))
        grid = np.unique(cuts[used & np.isfinite(cuts)])
        self.cuts_ = grid
        self.cell_values_ = np.clip(average_step_functions(offsets, cuts, estimates, model_weight, grid), 0.0, 1.0)
        keep = model_weight > 0
        self.n_bins_ = (np.arange(b_min, b_max + 1))[keep]
        self.model_weights_ = model_weight[keep]
        self.log_marginal_likelihoods_ = log_ml[keep]
        return self

    def _predict(self, scores):
        from ._kernels.binning import bin_index

        return self.cell_values_[bin_index(self.cuts_, scores)]
