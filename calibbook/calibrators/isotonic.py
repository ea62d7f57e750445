"""Isotonic-regression calibration by pool-adjacent-violators (Zadrozny & Elkan 2002), and its
centred variant (Oron & Flournoy 2017)."""

import numpy as np

from calibbook._utils.binning import sorted_runs, split_sorted
from calibbook._utils.deprecation import renamed_attribute
from calibbook._utils.params import Options
from calibbook._utils.validation import check_sample_weight, check_scores
from calibbook._utils.weights import warn_low_total_weight
from calibbook.base import BaseCalibrator

__all__ = ["CenteredIsotonicCalibration", "IsotonicCalibration", "pav_runs"]


def pav_runs(weights, sums):
    """Pool adjacent violators over runs sorted by score: the blocks of the isotonic fit.

    Run r (the cases that share the r-th distinct score) has weight W_r > 0 and weighted
    label sum S_r. Adjacent blocks are pooled while the left block's mean is at least the
    right one's, so the returned block means S / W strictly increase (compared as the kernel
    compares them, cross-multiplied; the quotients themselves may round to equal values).
    Each run is pushed once and each pooling removes a block: O(R) for R runs. This is the
    compiled kernel behind :class:`IsotonicCalibration`; :doc:`/book/04_isotonic_regression`
    derives it and proves that the blocks give the weighted least-squares non-decreasing fit.

    Parameters
    ----------
    weights : array-like of shape (R,)
        W_r, the total weight of each run, in score order; finite and > 0.
    sums : array-like of shape (R,)
        S_r, the weighted sum of the labels (or responses) of each run; finite.

    Returns
    -------
    ends : ndarray of int64, shape (n_blocks,)
        One past the last run of each block (the blocks tile 0 .. R).
    block_weight, block_sum : ndarray of float64, shape (n_blocks,)
        The total weight and sum of each block; block b predicts block_sum[b] / block_weight[b].

    Raises
    ------
    ValueError
        If the arrays are not 1-D of one length, a value is not finite, or a weight is not
        positive.

    References
    ----------
    Ayer, Brunk, Ewing, Reid & Silverman, "An empirical distribution function for sampling
    with incomplete information", Annals of Mathematical Statistics 26 (1955); Zadrozny &
    Elkan, KDD 2002.

    Examples
    --------
    >>> from calibbook.calibrators.isotonic import pav_runs
    >>> ends, w, s = pav_runs([1.0, 1.0, 1.0], [1.0, 0.0, 1.0])
    >>> ends.tolist(), (s / w).tolist()
    ([2, 3], [0.5, 1.0])
    """
    from calibbook._kernels.isotonic import pav_runs as kernel

    sums = check_scores(sums, name="sums")
    weights = check_sample_weight(weights, sums.size, name="weights")
    if np.any(weights == 0):
        raise ValueError("every run weight must be > 0 (a run of weight 0 has no mean)")
    return kernel(weights, sums)


class IsotonicCalibration(BaseCalibrator):
    """Calibration by isotonic regression, fitted with pool-adjacent-violators.

    The fitted map is the non-decreasing step function of the score that
    minimises the (weighted) squared error to the 0/1 labels; each step is a
    block of consecutive sorted scores and predicts its fraction of positives.
    :doc:`/book/04_isotonic_regression` derives PAV, proves that it finds the
    minimiser, and links the fit to the convex hull of the ROC curve. The map
    reads only the proportions of the sample weights; weights that total fewer
    than two cases per block warn with :class:`calibbook.LowWeightWarning`.

    Which calibrator suits your data and classifier: the decision guide,
    :doc:`/book/which_calibrator`.

    Parameters
    ----------
    increasing : bool, default=True
        Fit a non-decreasing map (False: non-increasing).
    out_of_bounds : {"clip", "raise"}, default="clip"
        Scores below the smallest or above the largest training score get the
        value at that end ("clip"), or raise a ValueError ("raise").
    interpolation : {"step", "linear"}, default="step"
        ``"step"``: predictions are the PAV block values themselves; a score
        between two blocks takes the value of the nearer one, the edge sitting
        at the midpoint between the last training score of one block and the
        first of the next. An edge is thus never on a training score, so a
        training score moved by a rounding error keeps its block's value.
        ``"linear"``: interpolate linearly between the fitted values at
        neighbouring training scores, as scikit-learn does. Both agree at every
        training score. The default is "step" because PAV's minimiser is
        defined only at the training scores and the step map is the one
        Zadrozny & Elkan use; ENIR interpolates linearly, as its paper does.

    Attributes
    ----------
    block_lower_ : ndarray (n_blocks,)
        Smallest training score of each block, increasing.
    block_upper_ : ndarray (n_blocks,)
        Largest training score of each block.
    step_values_ : ndarray (n_blocks,)
        Fraction of positives (weighted) of each block, in [0, 1]
        (``block_values_`` before 0.2; the old name warns until 0.3).
    block_weights_ : ndarray (n_blocks,)
        Training weight of each block.

    Notes
    -----
    Tied scores are pooled before PAV, so a fit on aggregated (score, weight,
    positives) rows equals the fit on the raw rows. Without weights the fit sorts
    positives and negatives apart (in place, with ``np.sort``'s algorithm; no argsort),
    and one pass merges them into runs of tied scores while PAV pools the runs; PAV
    itself is O(number of distinct scores).

    See Also
    --------
    calibbook.NearIsotonicRegression : Relaxes monotonicity with a penalty.
    calibbook.ENIR : Averages near-isotonic fits along the whole penalty path.

    References
    ----------
    Ayer, Brunk, Ewing, Reid & Silverman, "An empirical distribution function for
    sampling with incomplete information", Annals of Mathematical Statistics 26
    (1955). Zadrozny & Elkan, "Transforming classifier scores into accurate
    multiclass probability estimates", KDD 2002. Niculescu-Mizil & Caruana,
    "Predicting good probabilities with supervised learning", ICML 2005.

    Examples
    --------
    >>> from calibbook import IsotonicCalibration
    >>> cal = IsotonicCalibration().fit([0.1, 0.2, 0.3, 0.4], [0, 1, 0, 1])
    >>> cal.predict([0.1, 0.25, 0.4]).tolist()
    [0.0, 0.5, 1.0]
    >>> cal.step_values_.tolist()  # the middle two scores are pooled
    [0.0, 0.5, 1.0]
    """

    _parameter_constraints = {
        "increasing": ["boolean"],
        "out_of_bounds": [Options("clip", "raise")],
        "interpolation": [Options("step", "linear")],
    }

    # the 0.1 names (CHANGELOG.md)
    block_values_ = renamed_attribute("block_values_", "step_values_")

    def __init__(self, *, increasing=True, out_of_bounds="clip", interpolation="step"):
        self.increasing = increasing
        self.out_of_bounds = out_of_bounds
        self.interpolation = interpolation

    def _fit(self, scores, y, sample_weight):
        from calibbook._kernels.isotonic import pav_runs, pav_two_sorted

        # a decreasing fit is an increasing one in -score
        s = scores if self.increasing else -scores
        if sample_weight is None:  # one sort of each class, then runs and PAV in one pass
            lower, upper, block_weight, block_sum = pav_two_sorted(*split_sorted(s, y))
        else:
            values, weights, positives = sorted_runs(s, y, sample_weight)
            ends, block_weight, block_sum = pav_runs(weights, positives)
            starts = np.concatenate(([0], ends[:-1]))
            lower, upper = values[starts], values[ends - 1]
            warn_low_total_weight(
                block_weight.sum(), block_weight.size, "block", "IsotonicCalibration"
            )
        if not self.increasing:  # back to the original score axis, still listed by increasing score
            lower, upper = -upper[::-1], -lower[::-1]
            block_weight, block_sum = block_weight[::-1], block_sum[::-1]
        self.block_lower_ = lower
        self.block_upper_ = upper
        self.block_weights_ = block_weight
        self.step_values_ = np.clip(block_sum / block_weight, 0.0, 1.0)
        return self

    def _predict(self, scores):
        from calibbook._kernels.binning import sorted_index
        from calibbook._kernels.isotonic import linear_values

        lo, hi = self.block_lower_[0], self.block_upper_[-1]
        if self.out_of_bounds == "raise" and (scores.min() < lo or scores.max() > hi):
            raise ValueError(
                f"scores outside the training range [{lo:.6g}, {hi:.6g}] and out_of_bounds='raise'."
            )
        if self.interpolation == "linear":
            return linear_values(*self._knots(), scores)
        # blocks are listed by increasing score in either direction; edges between them,
        # as _kernels.binning.midpoint: halves first (no overflow near the largest float),
        # and the upper score where the two are adjacent floats (subnormals 5e-324 apart)
        upper, lower = self.block_upper_[:-1], self.block_lower_[1:]
        edges = 0.5 * upper + 0.5 * lower
        edges = np.where(edges > upper, edges, lower)
        return self.step_values_[sorted_index(edges, scores)]

    def _knots(self):
        """Knots of the linear interpolant: each block's first and last score."""
        x = np.column_stack((self.block_lower_, self.block_upper_)).ravel()
        y = np.repeat(self.step_values_, 2)
        keep = np.concatenate(([True], x[1:] != x[:-1]))  # one-score blocks give one knot
        return x[keep], y[keep]


def _power_of_two_below(scores):
    """2**-k with 2**k above every |score|: sums of scores times it stay finite."""
    largest = max(abs(float(scores.max())), abs(float(scores.min())))
    return float(np.ldexp(1.0, -max(int(np.frexp(largest)[1]), 0)))  # never above 1


class CenteredIsotonicCalibration(BaseCalibrator):
    """Centred isotonic regression (CIR): the PAV blocks, interpolated between their centres.

    Isotonic regression pools the sorted scores into blocks of constant value, so every
    score of a block gets the same probability: the map has flat stretches, and a test
    set loses the order of its scores inside them (scikit-learn issue #16321: the AUC
    drops after isotonic calibration). Oron & Flournoy (2017) keep PAV's block values
    and place each at the block's *centre*, the weighted mean of its training scores,
    then interpolate linearly between consecutive centres. PAV's block values strictly
    increase, so the map strictly increases from the first centre to the last: scores
    in that range keep their order (and a test set its AUC), and isotonic regression's
    ties disappear. Beyond the first and the last centre the map is flat, at the first
    and the last block's value (as in Oron & Flournoy's estimate, which is defined
    between the centres only); so scores below the first centre, or above the last,
    still tie. The fit is one PAV pass (the kernel of :class:`IsotonicCalibration`) and
    one pass over the sorted scores for the centres. Weights are frequencies; a total
    below two cases per block warns with :class:`calibbook.LowWeightWarning`.

    The map is not the least-squares isotonic fit at the training scores (it moves the
    values of a block's outer scores towards its neighbours); Oron & Flournoy show that
    it has a smaller bias and error than isotonic regression when the true curve
    strictly increases. :doc:`/book/04_isotonic_regression` derives PAV.

    Which calibrator suits your data and classifier: the decision guide,
    :doc:`/book/which_calibrator`.

    Parameters
    ----------
    increasing : bool, default=True
        Fit a non-decreasing map (False: non-increasing; the centres are the same).
    out_of_bounds : {"clip", "raise"}, default="clip"
        Scores below the smallest or above the largest training score get the value at
        that end ("clip"), or raise a ValueError ("raise").

    Attributes
    ----------
    block_centers_ : ndarray (n_blocks,)
        The weighted mean training score of each block, strictly increasing: the knots
        of the linear interpolation.
    center_values_ : ndarray (n_blocks,)
        Fraction of positives (weighted) of each block, its value at its centre.
    block_lower_, block_upper_ : ndarray (n_blocks,)
        Smallest and largest training score of each block (each centre lies between).
    block_weights_ : ndarray (n_blocks,)
        Training weight of each block.

    Notes
    -----
    Tied scores are pooled before PAV and a block's centre reads only the sums of its
    weights and weighted scores, so a fit on aggregated (score, weight, positives) rows
    equals the fit on the raw rows, to rounding. A change of units ``a * s + b``
    (a > 0) moves the centres with the scores, so the map follows it.

    See Also
    --------
    calibbook.IsotonicCalibration : The step map of the same blocks.

    References
    ----------
    Oron & Flournoy, "Centered isotonic regression: point and interval estimation for
    dose-response studies", Statistics in Biopharmaceutical Research 9 (2017).
    scikit-learn issue #16321, "Isotonic calibration changes rank-based test metrics values".
    :doc:`/book/11_ties_and_guarantees` derives the map and measures the AUC effect.

    Examples
    --------
    >>> from calibbook import CenteredIsotonicCalibration
    >>> cal = CenteredIsotonicCalibration().fit([0.1, 0.2, 0.3, 0.4], [0, 1, 0, 1])
    >>> cal.block_centers_.tolist(), cal.center_values_.tolist()
    ([0.1, 0.25, 0.4], [0.0, 0.5, 1.0])
    >>> # isotonic regression gives 0.5 to both
    >>> cal.predict([0.2, 0.3]).tolist()
    [0.3333333333333333, 0.6666666666666666]
    """

    _parameter_constraints = {
        "increasing": ["boolean"],
        "out_of_bounds": [Options("clip", "raise")],
    }

    def __init__(self, *, increasing=True, out_of_bounds="clip"):
        self.increasing = increasing
        self.out_of_bounds = out_of_bounds

    def _fit(self, scores, y, sample_weight):
        from calibbook._kernels.centered_isotonic import centres_runs, centres_two_sorted
        from calibbook._kernels.isotonic import pav_runs, pav_two_sorted

        s = scores if self.increasing else -scores
        scale = _power_of_two_below(s)
        if sample_weight is None:
            buf, n_neg = split_sorted(s, y)
            lower, upper, block_weight, block_sum = pav_two_sorted(buf, n_neg)
            centres = centres_two_sorted(buf, n_neg, upper, scale)
        else:
            values, weights, positives = sorted_runs(s, y, sample_weight)
            ends, block_weight, block_sum = pav_runs(weights, positives)
            starts = np.concatenate(([0], ends[:-1]))
            lower, upper = values[starts], values[ends - 1]
            centres = centres_runs(values, weights, ends, scale)
            warn_low_total_weight(
                block_weight.sum(), block_weight.size, "block", "CenteredIsotonicCalibration"
            )
        # a mean rounds: keep it inside its block, so the centres strictly increase
        centres = np.clip(centres, lower, upper)
        if not self.increasing:
            lower, upper, centres = -upper[::-1], -lower[::-1], -centres[::-1]
            block_weight, block_sum = block_weight[::-1], block_sum[::-1]
        self.block_lower_ = lower
        self.block_upper_ = upper
        self.block_weights_ = block_weight
        self.block_centers_ = centres
        self.center_values_ = np.clip(block_sum / block_weight, 0.0, 1.0)
        return self

    def _predict(self, scores):
        from calibbook._kernels.isotonic import linear_values

        lo, hi = self.block_lower_[0], self.block_upper_[-1]
        if self.out_of_bounds == "raise" and (scores.min() < lo or scores.max() > hi):
            raise ValueError(
                f"scores outside the training range [{lo:.6g}, {hi:.6g}] and out_of_bounds='raise'."
            )
        return linear_values(self.block_centers_, self.center_values_, scores)
