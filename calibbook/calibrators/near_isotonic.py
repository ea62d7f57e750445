"""Near-isotonic regression and its exact solution path (Tibshirani, Hoefling & Tibshirani 2011).

For scores sorted into runs of tied values, with weights w_i and mean responses y_i,
near-isotonic regression solves, for a penalty lam >= 0,

    minimise  1/2 sum_i w_i (p_i - y_i)^2 + lam * sum_i (p_i - p_{i+1})_+ ,

which is Eq. 3 of Naeini & Cooper (2016) with weights. At lam = 0 the fit is the
(pooled) responses; as lam grows adjacent blocks merge and never split again, and
beyond the last merge the fit is the isotonic regression.
"""

from dataclasses import dataclass
from functools import cached_property

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.utils.validation import check_is_fitted

from calibbook._utils.binning import sorted_runs
from calibbook._utils.deprecation import renamed_attribute
from calibbook._utils.params import (
    Interval,
    Options,
    Real,
    validate_parameters,
    validate_params,
)
from calibbook._utils.validation import check_consistent_length, check_sample_weight, check_scores
from calibbook.calibrators._path_scoring import ScoredPath, score_path_models

__all__ = ["NearIsotonicPath", "NearIsotonicRegression", "near_isotonic_path"]


@dataclass(frozen=True)
class NearIsotonicPath:
    """The whole solution path of near-isotonic regression, stored as merge events.

    Returned by :func:`calibbook.near_isotonic_path`; it takes O(number of runs)
    memory and evaluates the fit at any penalty ``lam`` without refitting. As
    ``lam`` grows, neighbouring blocks merge and never split again;
    :doc:`/book/05_near_isotonic_enir_bbq` proves this and derives the merge times.

    Parameters
    ----------
    scores, weights, sums, merge_lam, merge_left, merge_right, merge_coef, violations : ndarray
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
        Slope data: a block's value is S / W - lam * c between its merges (c of the
        merged block, and of each run on its own at lam = 0).
    violations : ndarray of int8 (R,)
        1 where a run's mean exceeds the next run's (beyond rounding), else 0; a
        block's c is (its last run's flag - the flag before its first run) / W.
    merge_lam, merge_left, merge_right, merge_coef : ndarray
        The events after the first ones, which fuse neighbouring runs with equal means
        at lam = 0 and follow from the runs: the events are stored as these and
        ``event_*`` is assembled when asked.

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
    merge_lam: np.ndarray
    merge_left: np.ndarray
    merge_right: np.ndarray
    merge_coef: np.ndarray
    violations: np.ndarray

    @cached_property
    def _events(self):
        """All merge events: the fusing of equal neighbours, then the stored merges."""
        from calibbook._kernels.interpreted import for_size
        from calibbook._kernels.neariso.replay import fused_events

        fused = for_size(fused_events, self.weights.size)(self.weights, self.sums, self.violations)
        stored = (self.merge_lam, self.merge_left, self.merge_right, self.merge_coef)
        return tuple(np.concatenate((a, b)) for a, b in zip(fused, stored, strict=True))

    @property
    def event_lam(self):
        """Lambda of each merge (ndarray (E,)), non-decreasing."""
        return self._events[0]

    @property
    def event_left(self):
        """First run of the left block of each merge (ndarray (E,))."""
        return self._events[1]

    @property
    def event_right(self):
        """First run of the right block of each merge (ndarray (E,))."""
        return self._events[2]

    @property
    def event_coef(self):
        """c of the merged block of each merge (ndarray (E,))."""
        return self._events[3]

    @cached_property
    def initial_coef(self):
        """c of each run as a block of its own at lam = 0 (an ndarray), from the flags."""
        from calibbook._kernels.interpreted import for_size
        from calibbook._kernels.neariso.replay import initial_coefficients

        return for_size(initial_coefficients, self.weights.size)(self.weights, self.violations)

    @cached_property
    def _n_fused(self):
        """Number of runs fused into their left neighbour at the start (equal means)."""
        means = self.sums / self.weights
        return int(np.count_nonzero(means[1:] == means[:-1]))

    @cached_property
    def _grouped_lam(self):
        """Each stored merge's lambda with merges within rounding of each other (1e-12
        relative) made one breakpoint, and the distinct breakpoints, starting with 0
        (the fusing at the start is at 0, in the first)."""
        from calibbook._kernels.neariso.models import group_events

        event_model, model_lam = group_events(self.merge_lam, 1e-12)
        return model_lam[event_model], model_lam

    @property
    def breakpoints(self):
        """Distinct lambdas at which blocks merge, starting with 0 (an ndarray).

        Merges that coincide in exact arithmetic can come out of floating point one
        rounding error apart; they count as one breakpoint.
        """
        return self._grouped_lam[1]

    @validate_params({"lam": [Interval(Real, 0.0, None)]})
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
        from calibbook._kernels.interpreted import for_size
        from calibbook._kernels.neariso.replay import fit_at

        lam = float(lam)
        return for_size(fit_at, self.weights.size)(
            self.weights,
            self.sums,
            self.violations,
            self._grouped_lam[0],
            self.merge_left,
            self.merge_right,
            self.merge_coef,
            lam,
        )

    def n_blocks(self, lam):
        """Number of blocks (runs of equal adjacent fitted values) at ``lam``.

        Parameters
        ----------
        lam : float

        Returns
        -------
        int
        """
        merged = self._n_fused + np.count_nonzero(self._grouped_lam[0] <= lam)
        return int(self.scores.size - merged)


def _runs_for_regression(scores, y, sample_weight):
    """Sorted runs for real-valued responses (binary 0/1 responses take the fast path)."""
    binary = np.all((y == 0.0) | (y == 1.0))
    if binary and sample_weight is None:
        return sorted_runs(scores, y, None)
    w = np.ones_like(scores) if sample_weight is None else sample_weight
    return sorted_runs(scores, y, w)


def _checked(scores, y, sample_weight):
    """Validated float64 scores, responses and weights (None when not given)."""
    s = check_scores(scores)
    target = check_scores(y, name="y")
    check_consistent_length(scores=s, y=target)
    w = None if sample_weight is None else check_sample_weight(sample_weight, s.shape[0])
    return s, target, w


def _path(s, target, w):
    from calibbook._kernels.interpreted import for_size
    from calibbook._kernels.neariso.path import near_isotonic_path as path_kernel

    values, weights, sums = _runs_for_regression(s, target, w)
    return NearIsotonicPath(
        values, weights, sums, *for_size(path_kernel, weights.size)(weights, sums)
    )


def near_isotonic_path(scores, y, sample_weight=None):
    """Exact solution path of weighted near-isotonic regression for every lam >= 0.

    Tied scores are pooled first (their weighted mean response, with their total
    weight), so aggregated rows give the same path as raw rows. The path is found
    with a heap of merge times in O(R log R) for R distinct scores, block by block of
    the isotonic fit (no merge crosses from one to the next). For a penalty
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
    :class:`~calibbook.calibrators.near_isotonic.NearIsotonicPath`
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
    return _path(*_checked(scores, y, sample_weight))


def difference_variance(scores, y, sample_weight=None):
    """Rice's difference-based estimate of the noise variance of y around a smooth mean.

    With the rows sorted by score (ties kept in their order) and rows of zero weight
    left out: sum_i (y_(i+1) - y_(i))^2 / (2 (W - 1)), W the total weight. A trend
    that varies little between neighbouring scores adds little, so no model of the
    mean is needed. A row of integer weight k counts as k adjacent copies, which add
    no differences among themselves. NaN when W <= 1.
    """
    keep = slice(None) if sample_weight is None else sample_weight > 0
    order = np.argsort(scores[keep], kind="stable")
    total = scores[keep].size if sample_weight is None else sample_weight[keep].sum()
    if total <= 1:
        return np.nan
    return float(np.sum(np.diff(y[keep][order]) ** 2) / (2.0 * (total - 1.0)))


def interpolate_runs(run_scores, run_values, scores, interpolation):
    """Evaluate a map known at the run scores: linear between them or the step to the left."""
    from calibbook._kernels.interpreted import for_size
    from calibbook._kernels.isotonic import linear_values, step_values

    if interpolation == "linear":
        kernel = for_size(linear_values, max(scores.size, run_scores.size))
        return kernel(run_scores, run_values, scores)
    return step_values(run_scores, run_values, scores)


class NearIsotonicRegression(RegressorMixin, BaseEstimator):
    """Near-isotonic regression of real-valued y, at a penalty ``lam`` chosen by BIC or given.

    The fit follows the ordering of the scores, but pays ``lam`` for each unit
    a fitted value drops between neighbouring scores, instead of forbidding it:
    lam = 0 reproduces the data and a large lam the isotonic regression.
    :doc:`/book/05_near_isotonic_enir_bbq` derives it. This is a regressor (any
    real y, ``score`` is R^2), not one of the calibrators of the shared contract;
    :class:`~calibbook.ENIR` is the calibrator built on it.

    Which calibrator suits your data and classifier: the decision guide,
    :doc:`/book/which_calibrator`.

    Parameters
    ----------
    lam : "bic" or float, default="bic"
        Penalty on each decrease between neighbouring fitted values. ``"bic"`` picks
        the model of the near-isotonic path (one per breakpoint) with the smallest
        Bayesian information criterion, df = its number of blocks (an unbiased
        estimate of the degrees of freedom, Tibshirani et al. 2011), and penalty
        df (log n + log 2 pi) with n the total weight. The log-likelihood is
        Bernoulli when every response is 0 or 1, which is exactly how
        :class:`~calibbook.ENIR` scores its models; otherwise Gaussian,
        -RSS / (2 sigma^2) - n/2 log(2 pi sigma^2), with sigma^2 estimated once,
        before any model, by Rice's difference estimator (a variance fitted with
        each model would vanish near the saturated end and win there). As in ENIR, the
        lam = 0 model (the pooled responses) is left out unless it is the only one.
        A number >= 0 is used as it is; its effect depends on the sample size,
        since the squared error grows with n and the penalty does not: lam = 1
        barely regularises a million rows.
    interpolation : {"linear", "step"}, default="linear"
        Between training scores: linear interpolation of the neighbouring fitted
        values, or the value at the training score to the left. Constant beyond
        the training range.

    Attributes
    ----------
    lam_ : float
        The penalty used: the chosen breakpoint with ``lam="bic"``, else ``lam``.
    path_ : NearIsotonicPath
        The whole path; ``path_.fitted(other_lam)`` reuses it for any penalty.
    step_values_ : ndarray (R,)
        Fit at ``lam_`` for each distinct training score ``path_.scores``
        (``fitted_values_`` before 0.2; the old name warns until 0.3).

    See Also
    --------
    calibbook.near_isotonic_path : The whole path, as a function.
    calibbook.ENIR : Averages the path's models instead of picking one.
    calibbook.IsotonicCalibration : The limit of a large penalty.

    References
    ----------
    Tibshirani, Hoefling & Tibshirani, "Nearly-isotonic regression",
    Technometrics 53 (2011); Schwarz, "Estimating the dimension of a model",
    Annals of Statistics 6 (1978); Rice, "Bandwidth choice for nonparametric
    regression", Annals of Statistics 12 (1984); Naeini & Cooper, ICDM 2016,
    Section III-B.

    Examples
    --------
    >>> from calibbook import NearIsotonicRegression
    >>> reg = NearIsotonicRegression(lam=0.25).fit([1, 2, 3, 4], [0.0, 1.0, 0.0, 1.0])
    >>> reg.step_values_.round(3).tolist()
    [0.0, 0.75, 0.25, 1.0]
    >>> # by BIC
    >>> NearIsotonicRegression().fit([1, 2, 3, 4], [0.0, 1.0, 0.0, 1.0]).lam_
    0.5
    """

    _parameter_constraints = {
        "lam": [Interval(Real, 0, None), Options("bic")],
        "interpolation": [Options("linear", "step")],
    }

    # the 0.1 names (CHANGELOG.md)
    fitted_values_ = renamed_attribute("fitted_values_", "step_values_")

    def __init__(self, *, lam="bic", interpolation="linear"):
        self.lam = lam
        self.interpolation = interpolation

    def fit(self, scores, y, sample_weight=None):
        """Fit the path and evaluate it at ``lam`` (or at the breakpoint BIC picks).

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
        validate_parameters(self)
        s, target, w = _checked(scores, y, sample_weight)
        if self.lam == "bic":
            self.path_, self.lam_ = self._bic_path(s, target, w)
        else:
            self.path_, self.lam_ = _path(s, target, w), float(self.lam)
        self.step_values_ = self.path_.fitted(self.lam_)
        return self

    def _bic_path(self, scores, y, sample_weight):
        """The path, and the breakpoint whose model has the smallest BIC."""
        values, weights, sums = _runs_for_regression(scores, y, sample_weight)
        if np.all((y == 0.0) | (y == 1.0)):
            scored = ScoredPath.fit(values, weights, sums)
            gaussian = None
        else:
            variance = difference_variance(scores, y, sample_weight)
            if not variance > 0:  # y constant: every model is the same
                path = ScoredPath.fit(values, weights, sums, score=None).path
                return path, float(path.breakpoints[-1])
            w = np.ones_like(y) if sample_weight is None else sample_weight
            mean = np.sum(w * y) / weights.sum()
            centred = sums - weights * mean  # the squared errors lose less to rounding
            scored = ScoredPath.fit(values, weights, sums, centred, score="gaussian")
            gaussian = (float(np.sum(w * (y - mean) ** 2)), variance)
        _, ic, _ = score_path_models(scored, "bic", gaussian=gaussian)
        if not (ic < np.inf).any():  # no model with a finite criterion: the isotonic end
            return scored.path, float(scored.model_lam[-1])
        return scored.path, float(scored.model_lam[np.argmin(ic)])

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
        return interpolate_runs(self.path_.scores, self.step_values_, s, self.interpolation)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.one_d_array = True
        tags.input_tags.two_d_array = False
        return tags
