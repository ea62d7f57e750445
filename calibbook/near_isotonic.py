"""Near-isotonic regression and its exact solution path (Tibshirani, Hoefling & Tibshirani 2011).

For scores sorted into runs of tied values, with weights w_i and mean responses y_i,
near-isotonic regression solves, for a penalty lam >= 0,

    minimise  1/2 sum_i w_i (p_i - y_i)^2 + lam * sum_i (p_i - p_{i+1})_+ ,

which is Eq. 3 of Naeini & Cooper (2016) with weights. At lam = 0 the fit is the
(pooled) responses; as lam grows adjacent blocks merge and never split again, and
beyond the last merge the fit is the isotonic regression.
"""

import numbers
from dataclasses import dataclass
from functools import cached_property

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.utils.validation import check_is_fitted

from ._binning import sorted_runs
from ._validation import check_consistent_length, check_option, check_sample_weight, check_scores

__all__ = ["NearIsotonicPath", "near_isotonic_path", "NearIsotonicRegression"]


@dataclass(frozen=True)
class NearIsotonicPath:
    """The whole solution path of near-isotonic regression, stored as merge events.

    Returned by :func:`calibbook.near_isotonic_path`; it takes O(number of runs)
    memory and evaluates the fit at any penalty ``lam`` without refitting. As
    ``lam`` grows, neighbouring blocks merge and never split again;
    :doc:`/book/05_near_isotonic_enir_bbq` proves this and derives the merge times.

    Parameters
    ----------
    scores, weights, sums, event_lam, event_left, event_right, event_coef, initial_coef : ndarray
        The fields listed under Attributes, as computed by
        :func:`calibbook.near_isotonic_path` (not meant to be built by hand).

    Attributes
    ----------
    scores : ndarray (R,)
        Distinct training scores (the runs), increasing.
    weights, sums : ndarray (R,)
        Total weight and weighted sum of the responses of each run.
    event_lam : ndarray (E,)
        Lambda of each merge, non-decreasing (0 for equal neighbours fused at the start).
    event_left, event_right : ndarray (E,)
        First runs of the two blocks that merge.
    event_coef, initial_coef : ndarray
        Slope data: a block's value is S / W - lam * c between its merges.

    References
    ----------
    Tibshirani, Hoefling & Tibshirani, "Nearly-isotonic regression",
    Technometrics 53 (2011).

    Examples
    --------
    >>> from calibbook import near_isotonic_path
    >>> path = near_isotonic_path([1, 2, 3, 4], [0.0, 1.0, 0.0, 1.0])
    >>> path.breakpoints.tolist()
    [0.0, 0.5]
    >>> path.n_blocks(0.0), path.n_blocks(0.5)
    (4, 3)
    """

    scores: np.ndarray
    weights: np.ndarray
    sums: np.ndarray
    event_lam: np.ndarray
    event_left: np.ndarray
    event_right: np.ndarray
    event_coef: np.ndarray
    initial_coef: np.ndarray

    @cached_property
    def _grouped_lam(self):
        """Each event's lambda with merges within rounding of each other (1e-12 relative)
        made one breakpoint, and the distinct breakpoints, starting with 0."""
        from ._kernels.neariso import group_events

        event_model, model_lam = group_events(self.event_lam, 1e-12)
        return model_lam[event_model], model_lam

    @property
    def breakpoints(self):
        """Distinct lambdas at which blocks merge, starting with 0 (an ndarray).

        Merges that coincide in exact arithmetic can come out of floating point one
        rounding error apart; they count as one breakpoint.
        """
        return self._grouped_lam[1]

    def fitted(self, lam):
        """Fitted value of every run at penalty ``lam``.

        Parameters
        ----------
        lam : float
            Penalty, at least 0.

        Returns
        -------
        ndarray of shape (R,)
            The fit at each distinct training score ``scores``.

        Raises
        ------
        ValueError
            If ``lam`` is negative or not finite.
        """
        from ._kernels.neariso import fit_at

        lam = float(lam)
        if not np.isfinite(lam) or lam < 0:
            raise ValueError(f"lam must be a finite number >= 0; got {lam!r}.")
        return fit_at(self.weights, self.sums, self._grouped_lam[0], self.event_left, self.event_right,
                      self.event_coef, self.initial_coef, lam)

    def n_blocks(self, lam):
        """Number of blocks (runs of equal adjacent fitted values) at ``lam``.

        Parameters
        ----------
        lam : float

        Returns
        -------
        int
        """
        return int(self.scores.size - np.count_nonzero(self._grouped_lam[0] <= lam))


def _runs_for_regression(scores, y, sample_weight):
    """Sorted runs for real-valued responses (binary 0/1 responses take the fast path)."""
    binary = np.all((y == 0.0) | (y == 1.0))
    if binary and sample_weight is None:
        return sorted_runs(scores, y, None)
    w = np.ones_like(scores) if sample_weight is None else sample_weight
    return sorted_runs(scores, y, w)


def near_isotonic_path(scores, y, sample_weight=None):
    """Exact solution path of weighted near-isotonic regression for every lam >= 0.

    Tied scores are pooled first (their weighted mean response, with their total
    weight), so aggregated rows give the same path as raw rows. The path is found
    with a heap of merge times in O(R log R) for R distinct scores. For a penalty
    lam >= 0 the fit minimises, over runs r with weights w_r and mean responses y_r,
    1/2 sum_r w_r (p_r - y_r)^2 + lam sum_r (p_r - p_{r+1})_+ ;
    :doc:`/book/05_near_isotonic_enir_bbq` derives the path algorithm.

    Parameters
    ----------
    scores : array-like of shape (n,)
        Any real scores; the fit is monotone in their order.
    y : array-like of shape (n,)
        Real responses (0/1 labels for calibration).
    sample_weight : array-like of shape (n,), optional
        Non-negative weights; integer weights equal repeated rows.

    Returns
    -------
    :class:`~calibbook.near_isotonic.NearIsotonicPath`
        The path; ``path.fitted(lam)`` evaluates it.

    Raises
    ------
    ValueError
        If scores or responses are empty, NaN or infinite, their lengths differ,
        or a weight is negative.

    See Also
    --------
    calibbook.NearIsotonicRegression : The fit at one penalty, as an estimator.
    calibbook.ENIR : Averages the models along the path.

    References
    ----------
    Tibshirani, Hoefling & Tibshirani, "Nearly-isotonic regression",
    Technometrics 53 (2011); Naeini & Cooper, "Binary classifier calibration
    using an ensemble of near isotonic regression models", ICDM 2016, Eq. 3.

    Examples
    --------
    >>> from calibbook import near_isotonic_path
    >>> path = near_isotonic_path([1, 2, 3], [1.0, 0.0, 1.0])
    >>> path.fitted(0.0).tolist(), path.fitted(10.0).tolist()
    ([1.0, 0.0, 1.0], [0.5, 0.5, 1.0])
    """
    from ._kernels.neariso import near_isotonic_path as path_kernel

    s = check_scores(scores)
    target = check_scores(y, name="y")
    check_consistent_length(scores=s, y=target)
    w = None if sample_weight is None else check_sample_weight(sample_weight, s.shape[0])
    values, weights, sums = _runs_for_regression(s, target, w)
    events = path_kernel(weights, sums)
    return NearIsotonicPath(values, weights, sums, *events)


def interpolate_runs(run_scores, run_values, scores, interpolation):
    """Evaluate a map known at the run scores: linear between them or the step to the left."""
    from ._kernels.isotonic import linear_values, step_values

    if interpolation == "linear":
        return linear_values(run_scores, run_values, scores)
    return step_values(run_scores, run_values, scores)


class NearIsotonicRegression(RegressorMixin, BaseEstimator):
    """Near-isotonic regression at one penalty ``lam`` (works for real-valued y).

    The fit follows the ordering of the scores, but pays ``lam`` for each unit
    a fitted value drops between neighbouring scores, instead of forbidding it:
    lam = 0 reproduces the data and a large lam the isotonic regression.
    :doc:`/book/05_near_isotonic_enir_bbq` derives it.

    Which calibrator suits your data and classifier: the decision guide,
    :doc:`/book/which_calibrator`.

    Parameters
    ----------
    lam : float, default=1.0
        Penalty on each decrease between neighbouring fitted values. 0 fits the
        (pooled) responses; a large value gives the isotonic regression.
    interpolation : {"linear", "step"}, default="linear"
        Between training scores: linear interpolation of the neighbouring fitted
        values, or the value at the training score to the left. Constant beyond
        the training range.

    Attributes
    ----------
    path_ : NearIsotonicPath
        The whole path; ``path_.fitted(other_lam)`` reuses it for any penalty.
    fitted_values_ : ndarray (R,)
        Fit at ``lam`` for each distinct training score ``path_.scores``.

    See Also
    --------
    calibbook.near_isotonic_path : The whole path, as a function.
    calibbook.IsotonicCalibration : The limit of a large penalty.

    References
    ----------
    Tibshirani, Hoefling & Tibshirani, "Nearly-isotonic regression",
    Technometrics 53 (2011).

    Examples
    --------
    >>> from calibbook import NearIsotonicRegression
    >>> reg = NearIsotonicRegression(lam=0.25).fit([1, 2, 3, 4], [0.0, 1.0, 0.0, 1.0])
    >>> reg.fitted_values_.round(3).tolist()
    [0.0, 0.75, 0.25, 1.0]
    """

    def __init__(self, lam=1.0, interpolation="linear"):
        self.lam = lam
        self.interpolation = interpolation

    def fit(self, scores, y, sample_weight=None):
        """Fit the path and evaluate it at ``lam``.

        Parameters
        ----------
        scores : array-like of shape (n_samples,)
            Any real scores.
        y : array-like of shape (n_samples,)
            Real responses (0/1 labels for calibration).
        sample_weight : array-like of shape (n_samples,), optional
            Non-negative weights.

        Returns
        -------
        self : NearIsotonicRegression

        Raises
        ------
        ValueError
            If ``lam`` or ``interpolation`` is invalid, or the data are (as in
            :func:`calibbook.near_isotonic_path`).
        """
        check_option(self.interpolation, "interpolation", ("linear", "step"))
        if not isinstance(self.lam, numbers.Real) or not np.isfinite(self.lam) or self.lam < 0:
            raise ValueError(f"lam must be a finite number >= 0; got {self.lam!r}.")
        self.path_ = near_isotonic_path(scores, y, sample_weight)
        self.fitted_values_ = self.path_.fitted(self.lam)
        return self

    def predict(self, scores):
        """Fitted values at new scores.

        Parameters
        ----------
        scores : array-like of shape (n_samples,)

        Returns
        -------
        ndarray of shape (n_samples,)

        Raises
        ------
        sklearn.exceptions.NotFittedError
            If ``fit`` has not been called.
        ValueError
            If a score is NaN or infinite.
        """
        check_is_fitted(self)
        s = check_scores(scores)
        return interpolate_runs(self.path_.scores, self.fitted_values_, s, self.interpolation)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.one_d_array = True
        tags.input_tags.two_d_array = False
        return tags
