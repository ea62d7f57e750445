r"""Statistical tests of calibration used in medicine and risk: Cox, Spiegelhalter, Hosmer-Lemeshow.

Each test takes binary outcomes ``y_true`` and predicted probabilities ``y_prob``
that were *not* fitted on these outcomes (a validation or test set), and asks
whether :math:`P(y = 1 \mid p) = p`:

- :func:`calibration_intercept_slope` fits Cox's logistic recalibration model
  :math:`\operatorname{logit} P(y = 1) = a + b \operatorname{logit}(p)` and reports
  the calibration slope *b* (H0: b = 1) and the calibration-in-the-large intercept
  (the model with the slope fixed at 1; H0: intercept = 0), with Wald intervals.
- :func:`spiegelhalter_test` is Spiegelhalter's z-test on the Brier score.
- :func:`hosmer_lemeshow_test` is the Hosmer-Lemeshow chi-square test over groups
  of equal weight ("deciles of risk").

A row's sample weight multiplies its contribution to every sum, so integer weights
give the results of repeated rows (to rounding) and rows of weight 0 are absent.
"""

import warnings
from typing import NamedTuple

import numpy as np
from scipy.special import chdtrc, ndtr, ndtri

from calibbook._utils.binning import sorted_runs
from calibbook._utils.deprecation import renamed_parameter
from calibbook._utils.maths import clipped_logit
from calibbook._utils.params import Integral, Interval, Real, validate_params
from calibbook._utils.validation import _check_both_classes, check_probability_input

__all__ = [
    "HosmerLemeshowResult",
    "InterceptSlopeResult",
    "SpiegelhalterResult",
    "calibration_intercept_slope",
    "hosmer_lemeshow_test",
    "spiegelhalter_test",
]

# Newton's iterations stop once the score (gradient) is below this fraction of the total weight
_GRAD_TOL = 1e-12
_MAX_ITER = 200
# largest change of the linear predictor logit P(y = 1) that one Newton step may make
_MAX_REACH = 8.0


class InterceptSlopeResult(NamedTuple):
    """Calibration intercept and slope, each with its Wald standard error, interval and p-value."""

    intercept: float
    """Calibration-in-the-large: a in logit P(y = 1) = a + logit(p) (slope fixed at 1)."""
    intercept_se: float
    """Standard error of ``intercept`` (inverse observed information)."""
    intercept_ci: tuple
    """Wald confidence interval (low, high) of ``intercept`` at the requested level."""
    intercept_pvalue: float
    """Two-sided Wald p-value of H0: intercept = 0."""
    slope: float
    """Calibration slope: b in logit P(y = 1) = a + b logit(p)."""
    slope_se: float
    """Standard error of ``slope``."""
    slope_ci: tuple
    """Wald confidence interval (low, high) of ``slope``."""
    slope_pvalue: float
    """Two-sided Wald p-value of H0: slope = 1."""


class SpiegelhalterResult(NamedTuple):
    """Spiegelhalter's z statistic and its two-sided normal p-value."""

    statistic: float
    pvalue: float


class HosmerLemeshowResult(NamedTuple):
    """The Hosmer-Lemeshow statistic, its chi-square p-value and degrees of freedom."""

    statistic: float
    pvalue: float
    dof: int


def _unit_or(w, sample_weight):
    """The kernels' weights: an empty array stands for weights 1 (their fast path)."""
    return np.empty(0) if sample_weight is None else w


def _wald(estimate, se, null, z_crit):
    """(interval, two-sided p-value) of the Wald test of ``estimate == null``."""
    ci = (float(estimate - z_crit * se), float(estimate + z_crit * se))
    return ci, float(2.0 * ndtr(-abs(estimate - null) / se))


def _check_not_separated(x, y, w):
    """Raise unless the logistic fit of y on x has a finite maximum (no (quasi-)separation).

    With an intercept and one covariate the maximum exists if and only if the
    positives' and the negatives' covariate ranges overlap in more than one point
    on both sides: min(x | y = 1) < max(x | y = 0) and min(x | y = 0) < max(x | y = 1).
    Rows of weight 0 are absent (``w`` empty: weights 1). Returns the range of x.
    """
    from calibbook._kernels.calibration_tests import class_ranges

    min_pos, max_pos, min_neg, max_neg = class_ranges(x, y, w)
    if min_pos < max_neg and min_neg < max_pos:
        return min(min_pos, min_neg), max(max_pos, max_neg)
    if max_pos == min_pos == max_neg == min_neg:
        problem = "every prediction is the same, so no slope can be fitted"
    else:
        problem = (
            "the predictions separate the classes (every positive has a prediction at or "
            "above every negative's, or at or below it), so the maximum-likelihood slope is "
            "infinite"
        )
    raise ValueError(
        f"calibration_intercept_slope: {problem}. The calibration slope needs positives "
        "and negatives whose predicted probabilities overlap."
    )


def _offset_intercept(x, y, w, total):
    """The intercept a of logit P(y = 1) = a + x, and the information at it.

    A safeguarded Newton iteration on the score: the score is monotone in a, so
    each evaluation narrows a bracket around the root, and a Newton step that
    leaves the bracket is replaced by bisection (or by a doubling step while one
    side of the bracket is still open). Returns (a, information, converged).
    """
    from calibbook._kernels.platt import objective

    # Platt's parameterisation: P(y = 1) = 1 / (1 + exp(A x + B)) with A = -1, B = -a
    b, lo, hi = 0.0, -np.inf, np.inf
    for _ in range(_MAX_ITER):
        g, h = objective(x, y, w, 1.0, 0.0, -1.0, b, False)[2::3]
        if abs(g) <= _GRAD_TOL * total:
            return -b, h, True
        if g > 0.0:  # the loss increases with B: the root lies below
            hi = b
        else:
            lo = b
        with np.errstate(over="ignore", divide="ignore"):  # h may underflow: inf steps
            new = b - g / h
        if not lo < new < hi:
            if np.isfinite(lo) and np.isfinite(hi):
                new = 0.5 * (lo + hi)
            else:
                new = b + np.copysign(max(1.0, abs(b)), -g)
        if abs(new - b) <= 1e-15 * (1.0 + abs(b)):
            return -new, h, True  # the step is below rounding: the score has no more digits
        b = new
    g, h = objective(x, y, w, 1.0, 0.0, -1.0, b, False)[2::3]
    return -b, h, abs(g) <= 1e-6 * total


def _logistic_fit(x, y, w, total, x_range, big_a, big_b):
    """Maximum likelihood of P(y = 1) = 1 / (1 + exp(A x + B)) by damped Newton steps.

    Platt's parameterisation, so that ``_kernels.platt.objective`` gives the loss, the
    gradient and the Hessian in one blocked pass. A Newton step is shortened so that
    the linear predictor moves by at most ``_MAX_REACH`` anywhere on ``x_range``:
    where the predictions of some rows are saturated, the Hessian is nearly singular
    and the raw step can be enormous. Then a backtracking (Armijo) line search, except
    once the steps are below 1e-6 relative, where Newton converges quadratically and
    the loss is too flat for the line search to see a decrease. Stops when the
    gradient is below ``_GRAD_TOL`` times the total weight, or the step below
    rounding. Returns (A, B, h_AA, h_AB, h_BB, converged), the Hessian at the end.
    """
    from calibbook._kernels.platt import objective

    x_lo, x_hi = x_range
    fval, ga, gb, haa, hab, hbb = objective(x, y, w, 1.0, 0.0, big_a, big_b)
    for _ in range(_MAX_ITER):
        if max(abs(ga), abs(gb)) <= _GRAD_TOL * total:
            return big_a, big_b, haa, hab, hbb, True
        ridge = 1e-14 * (haa + hbb)  # only matters when the Hessian is singular to rounding
        det = (haa + ridge) * (hbb + ridge) - hab * hab
        with np.errstate(all="ignore"):
            da = -((hbb + ridge) * ga - hab * gb) / det
            db = -((haa + ridge) * gb - hab * ga) / det
            reach = max(abs(da * x_lo + db), abs(da * x_hi + db))
        if not (det > 0.0 and np.isfinite(reach)):  # no curvature left: steepest descent
            da, db = -ga, -gb
            reach = max(abs(da * x_lo + db), abs(da * x_hi + db))
        capped = reach > _MAX_REACH
        if capped:
            da, db = da * (_MAX_REACH / reach), db * (_MAX_REACH / reach)
        size = max(abs(da), abs(db)) / (1.0 + abs(big_a) + abs(big_b))
        if size <= 1e-15:
            return big_a + da, big_b + db, haa, hab, hbb, True  # the step is below rounding
        if not capped and size <= 1e-6:
            big_a, big_b = big_a + da, big_b + db
            fval, ga, gb, haa, hab, hbb = objective(x, y, w, 1.0, 0.0, big_a, big_b, False)
            continue
        if np.isnan(fval):  # the last evaluation skipped the loss
            fval = objective(x, y, w, 1.0, 0.0, big_a, big_b)[0]
        slope = ga * da + gb * db
        step = 1.0
        for _ in range(60):
            new = objective(x, y, w, 1.0, 0.0, big_a + step * da, big_b + step * db)
            if new[0] <= fval + 1e-4 * step * slope:
                break
            step *= 0.5
        else:  # no decrease to be found: rounding has the last word
            return big_a, big_b, haa, hab, hbb, max(abs(ga), abs(gb)) <= 1e-6 * total
        big_a, big_b = big_a + step * da, big_b + step * db
        fval, ga, gb, haa, hab, hbb = new
    return big_a, big_b, haa, hab, hbb, max(abs(ga), abs(gb)) <= _GRAD_TOL * total


@renamed_parameter("level", "confidence")
@validate_params({"confidence": [Interval(Real, 0.0, 1.0, closed="neither")]})
def calibration_intercept_slope(y_true, y_prob, *, confidence=0.95, sample_weight=None):
    r"""Calibration intercept and calibration slope, with Wald intervals and tests.

    Cox's logistic recalibration model regresses the outcomes on the logit of the
    predictions:

    .. math::

        \operatorname{logit} P(y = 1 \mid p) = a + b \operatorname{logit}(p).

    The **calibration slope** is the maximum-likelihood *b* of this model: b < 1
    means over-confident predictions (too extreme), b > 1 under-confident ones.
    The **calibration intercept** (calibration-in-the-large) is the *a* of the same
    model with the slope fixed at 1, that is the logistic regression with offset
    :math:`\operatorname{logit}(p)`: a > 0 means the predictions are too low on
    average, a < 0 too high. Perfect calibration has intercept 0 and slope 1.
    These tests complement the binned measures of :doc:`/book/appendix_estimators`.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Binary outcomes in {0, 1}; both classes must be present (among the rows of
        positive weight).
    y_prob : array-like of shape (n,)
        Predicted probabilities of the positive class, in [0, 1].
    confidence : float, default=0.95
        Confidence level of the Wald intervals, in (0, 1). (Called ``level`` before
        calibbook 0.2; the old name warns until 0.3.)
    sample_weight : array-like of shape (n,), optional
        Non-negative frequency weights: a row of weight k counts as k rows (as
        statsmodels' ``freq_weights``), and rows of weight 0 are absent.

    Returns
    -------
    InterceptSlopeResult
        A named tuple with ``intercept``, ``intercept_se``, ``intercept_ci``,
        ``intercept_pvalue`` (H0: intercept = 0), ``slope``, ``slope_se``,
        ``slope_ci`` and ``slope_pvalue`` (H0: slope = 1). Each interval is a
        ``(low, high)`` tuple.

    Raises
    ------
    ValueError
        If the inputs are invalid (empty, different lengths, NaN or infinity,
        labels that are not binary, probabilities outside [0, 1], negative
        weights), ``confidence`` is not in (0, 1), the outcomes hold a single class, or
        the predictions separate the classes (perfectly, or up to ties at one
        value; this includes all predictions being equal): the slope is then
        infinite or undefined. Also if the slope's information matrix is singular
        to rounding, so that no standard error can be given.

    Warns
    -----
    RuntimeWarning
        If Newton's method stops before the score vanishes (not seen in practice:
        without separation the log-likelihood is strictly concave).

    Notes
    -----
    Predictions of exactly 0 or 1 have an infinite logit. They are clipped to
    [``LOGIT_EPS``, 1 - ``LOGIT_EPS``] (``LOGIT_EPS`` = 1e-12, the convention of
    ``calibbook._utils.maths.clipped_logit``), so their logit is about +-27.6. Such a
    prediction that turns out wrong weighs heavily on both fits, as it should: it
    is a certain prediction that failed.

    Both fits are Newton iterations run until the score is below 1e-12 times the
    total weight, so they agree with any converged logistic-regression solver (such
    as statsmodels' ``GLM`` with a ``Binomial`` family) to about 1e-10. The standard
    errors are the square roots of the diagonal of the inverse observed information
    (for the logit link, the expected information), and the intervals and p-values
    use the normal distribution (Wald). With small samples or few events, profile
    likelihood intervals are more accurate.

    References
    ----------
    Cox, "Two further applications of a model for binary regression", Biometrika
    45 (1958) 562-565. Van Calster, McLernon, van Smeden, Wynants & Steyerberg,
    "Calibration: the Achilles heel of predictive analytics", BMC Medicine 17
    (2019) 230 (the calibration intercept and slope as practice).

    Examples
    --------
    >>> import numpy as np
    >>> from calibbook import calibration_intercept_slope
    >>> p = np.array([0.05, 0.1, 0.2, 0.3, 0.4, 0.6, 0.7, 0.8, 0.9, 0.95])
    >>> y = np.array([0, 0, 1, 1, 0, 1, 0, 1, 1, 1])
    >>> res = calibration_intercept_slope(y, p)
    >>> round(res.intercept, 3), round(res.slope, 3)
    (0.674, 0.766)
    >>> [round(v, 3) for v in res.slope_ci], round(res.slope_pvalue, 3)
    ([-0.246, 1.779], 0.651)

    Ten rows cannot tell a slope of 0.77 from 1: the interval is wide.
    """
    y, p, w = check_probability_input(y_true, y_prob, sample_weight)
    if sample_weight is None:
        _check_both_classes(y == 1.0, "y_true")
    else:
        _check_both_classes(y[w > 0] == 1.0, "y_true", " among samples with positive weight")
    x = clipped_logit(p)
    wk = _unit_or(w, sample_weight)
    x_range = _check_not_separated(x, y, wk)
    total = float(w.sum())
    intercept, info, ok_intercept = _offset_intercept(x, y, wk, total)
    # Platt's parameterisation: P(y = 1) = 1 / (1 + exp(A x + B)), slope -A, intercept -B;
    # start from the recalibration with slope 1
    big_a, _big_b, h_xx, h_x1, h_11, ok_slope = _logistic_fit(
        x, y, wk, total, x_range, -1.0, -intercept
    )
    if not (ok_intercept and ok_slope):
        warnings.warn(
            "calibration_intercept_slope: Newton's method stopped before the score vanished; "
            "the estimates may be slightly off the maximum likelihood.",
            RuntimeWarning,
            stacklevel=2,
        )
    det = h_xx * h_11 - h_x1 * h_x1
    if not det > 0.0:
        raise ValueError(
            "calibration_intercept_slope: the information matrix of the slope fit is "
            "singular (the logits of y_prob hardly vary); no standard error can be given."
        )
    slope = -big_a
    intercept_se = 1.0 / np.sqrt(info)
    slope_se = float(np.sqrt(h_11 / det))
    z_crit = float(ndtri(0.5 + 0.5 * confidence))
    intercept_ci, intercept_pvalue = _wald(intercept, intercept_se, 0.0, z_crit)
    slope_ci, slope_pvalue = _wald(slope, slope_se, 1.0, z_crit)
    return InterceptSlopeResult(
        float(intercept), float(intercept_se), intercept_ci, intercept_pvalue,
        float(slope), slope_se, slope_ci, slope_pvalue,
    )  # fmt: skip


def spiegelhalter_test(y_true, y_prob, *, sample_weight=None):
    r"""Spiegelhalter's z-test of calibration, built on the Brier score.

    Under the hypothesis that every :math:`y_i` is Bernoulli(:math:`p_i`), the
    Brier score :math:`\sum_i (y_i - p_i)^2` has expectation
    :math:`\sum_i p_i (1 - p_i)`, and its deviation from it, standardised,

    .. math::

        Z = \frac{\sum_i (y_i - p_i)(1 - 2 p_i)}
                 {\sqrt{\sum_i (1 - 2 p_i)^2\, p_i (1 - p_i)}},

    is approximately standard normal. The p-value is two-sided. It complements the
    Brier score's decomposition in :doc:`/book/01_measuring_calibration`.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Binary outcomes in {0, 1}.
    y_prob : array-like of shape (n,)
        Predicted probabilities of the positive class, in [0, 1].
    sample_weight : array-like of shape (n,), optional
        Non-negative weights multiplying each row's terms in both sums (integer
        weights equal repeated rows).

    Returns
    -------
    SpiegelhalterResult
        A named tuple ``(statistic, pvalue)``: Z and :math:`2 \Phi(-|Z|)`.

    Raises
    ------
    ValueError
        If the inputs are invalid (as in :func:`calibration_intercept_slope`), or the
        null variance is zero: every prediction (of positive weight) is 0, 1/2 or 1,
        where Z is undefined.

    Notes
    -----
    Z is large and positive when the Brier score exceeds its null expectation.
    Predictions of 0 or 1 add nothing to the variance but a wrong one adds 1 to
    the numerator, so a single failed certainty can make Z large. Predictions of
    exactly 1/2 add nothing to either sum: the test cannot see them.

    References
    ----------
    Spiegelhalter, "Probabilistic prediction in patient management and clinical
    trials", Statistics in Medicine 5 (1986) 421-433.

    Examples
    --------
    >>> from calibbook import spiegelhalter_test
    >>> res = spiegelhalter_test([0, 1, 0, 1], [0.2, 0.9, 0.3, 0.6])
    >>> round(res.statistic, 4), round(res.pvalue, 4)
    (-1.005, 0.3149)

    By hand: the numerator is -0.12 - 0.08 - 0.12 - 0.08 = -0.4 and the variance
    0.0576 + 0.0576 + 0.0336 + 0.0096 = 0.1584, so Z = -0.4 / 0.398 = -1.005.
    """
    from calibbook._kernels.calibration_tests import spiegelhalter_sums

    y, p, w = check_probability_input(y_true, y_prob, sample_weight)
    num, var = spiegelhalter_sums(y, p, _unit_or(w, sample_weight))
    if not var > 0.0:
        raise ValueError(
            "spiegelhalter_test: the null variance sum (1 - 2p)^2 p (1 - p) is zero because "
            "every prediction is 0, 1/2 or 1; Spiegelhalter's z is undefined."
        )
    z = num / np.sqrt(var)
    return SpiegelhalterResult(float(z), float(2.0 * ndtr(-abs(z))))


def _hosmer_lemeshow_groups(y, p, w, n_groups):
    """Total weight, observed and expected positives of the ``"quantile"`` groups of p.

    Sorting is the floor. Without weights the negatives' and the positives'
    predictions are sorted apart (no argsort) and the groups found on them in
    O(K log N), which also counts each group's rows and positives; one pass over
    each sorted part then sums the predictions. With weights, the sorted runs of
    tied predictions carry the weights, and the groups cost O(runs).

    In both paths a group whose predictions are all 1 gets expected == total
    exactly (sums of ones, or of 1 * weight in the same order), and all 0 gives 0.
    """
    from calibbook._kernels.binning import equal_frequency_two_sorted, split_by_label
    from calibbook._kernels.calibration_tests import sorted_group_sums, weighted_groups

    if w is not None:
        return weighted_groups(*sorted_runs(p, y, w), n_groups, np.count_nonzero(w))
    neg, pos = split_by_label(p, y)
    neg.sort()
    pos.sort()
    edges, n, observed = equal_frequency_two_sorted(neg, pos, n_groups)
    expected = sorted_group_sums(neg, edges) + sorted_group_sums(pos, edges)
    return n, observed, expected


@validate_params({"n_groups": [Interval(Integral, 1, None)], "ddof": [Interval(Integral, 0, None)]})
def hosmer_lemeshow_test(y_true, y_prob, *, n_groups=10, ddof=0, sample_weight=None):
    r"""The Hosmer-Lemeshow goodness-of-fit test over groups of equal weight.

    The rows are grouped by their predictions into ``n_groups`` groups of (about)
    equal total weight, the "deciles of risk" for 10 groups. With :math:`n_g` the
    total weight of group g, :math:`O_g` its observed positives and :math:`E_g`
    the sum of its predictions,

    .. math::

        C = \sum_g \frac{(O_g - E_g)^2}{E_g (1 - E_g / n_g)},

    which is compared with a chi-square distribution with (number of groups) -
    ``ddof`` degrees of freedom. The groups are those of the quantile-binned ECE of
    :doc:`/book/appendix_estimators`.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Binary outcomes in {0, 1}.
    y_prob : array-like of shape (n,)
        Predicted probabilities of the positive class, in [0, 1].
    n_groups : int, default=10
        Number of groups G asked for (at least 1).
    ddof : int, default=0
        Degrees of freedom taken off the number of groups. The default, 0, is right
        for predictions evaluated on rows they were not fitted on (a test set, the
        usual case for a calibrator's output): no parameter is estimated from these
        rows, and the test has its nominal size. ``ddof=2`` is Hosmer and Lemeshow's
        reference distribution for a logistic model fitted on these same rows (and
        what R's ``ResourceSelection::hoslem.test`` uses); on fixed predictions it
        rejects about twice as often as it should (about 11% at the 5% level with 10
        groups, see Notes).
    sample_weight : array-like of shape (n,), optional
        Non-negative weights: they weight each row in :math:`n_g`, :math:`O_g`,
        :math:`E_g` and in the grouping itself (equal weight, not equal count).
        Integer weights equal repeated rows; rows of weight 0 are absent.

    Returns
    -------
    HosmerLemeshowResult
        A named tuple ``(statistic, pvalue, dof)``.

    Raises
    ------
    ValueError
        If the inputs are invalid (as in :func:`calibration_intercept_slope`),
        ``n_groups`` is not a positive integer or ``ddof`` not a non-negative one,
        or fewer than ``ddof + 1`` groups are left to count (the degrees of freedom
        would be below 1).

    Notes
    -----
    *Groups.* The groups are the ``"quantile"`` bins of ``calibbook._utils.binning``:
    equal total weight, and tied predictions are never split. Heavy ties can
    therefore leave some of the ``n_groups`` groups empty; empty groups are left
    out, and the degrees of freedom count only the groups that remain. So with
    three distinct prediction values and ``n_groups=10`` there are at most 3 groups.

    *Degenerate groups.* A group whose predictions are all 0 (or all 1) has
    :math:`E_g (1 - E_g / n_g) = 0`: its outcomes are certain under the
    hypothesis. If they came out as predicted (:math:`O_g = E_g`) the group carries
    no information and is left out of both C and the count of groups. If not, a
    certain prediction failed and the hypothesis is refuted: C is +inf and the
    p-value 0.

    *Reference distribution.* Hosmer and Lemeshow (1980) derived the G - 2
    degrees of freedom for a logistic model fitted by maximum likelihood on the
    same data. For fixed predictions and groups with little spread of the
    predictions inside them, each term is close to a squared standard normal and
    C is close to a chi-square with G degrees of freedom, hence ``ddof=0`` on a
    validation set. In both cases the approximation needs enough expected events
    in each group (E_g and n_g - E_g of at least a few).

    References
    ----------
    Hosmer & Lemeshow, "Goodness of fit tests for the multiple logistic regression
    model", Communications in Statistics - Theory and Methods 9 (1980) 1043-1069;
    Hosmer, Lemeshow & Sturdivant, "Applied Logistic Regression", 3rd ed., Wiley
    (2013), Section 5.2.2.

    Examples
    --------
    Two groups of four on a validation set:

    >>> from calibbook import hosmer_lemeshow_test
    >>> p = [0.1, 0.1, 0.2, 0.2, 0.6, 0.6, 0.8, 0.8]
    >>> y = [0, 0, 1, 0, 1, 0, 1, 1]
    >>> res = hosmer_lemeshow_test(y, p, n_groups=2)
    >>> res.dof, round(res.statistic, 4), round(res.pvalue, 4)
    (2, 0.3613, 0.8347)

    By hand: the low group has n = 4, E = 0.6, O = 1 and adds 0.4^2 / (0.6 * 0.85) =
    0.3137; the high group has E = 2.8, O = 3 and adds 0.2^2 / (2.8 * 0.3) = 0.0476.
    """

    n_groups, ddof = int(n_groups), int(ddof)
    y, p, w = check_probability_input(y_true, y_prob, sample_weight)
    n, observed, expected = _hosmer_lemeshow_groups(
        y, p, None if sample_weight is None else w, n_groups
    )
    variance = expected * (n - expected)  # n_g times E_g (1 - E_g / n_g)
    degenerate = (n > 0) & (variance == 0.0)
    if np.any(degenerate & (observed != expected)):
        statistic = np.inf  # a prediction of 0 or 1 failed
    else:
        keep = (n > 0) & ~degenerate
        statistic = float(np.sum(n[keep] * (observed[keep] - expected[keep]) ** 2 / variance[keep]))
    counted = int(np.count_nonzero((n > 0) & ~(degenerate & (observed == expected))))
    dof = counted - ddof
    if dof < 1:
        raise ValueError(
            f"hosmer_lemeshow_test: only {counted} group(s) hold predictions that are not all "
            f"0 or all 1 (of n_groups={n_groups}; tied predictions are never split), which "
            f"leaves {dof} degrees of freedom with ddof={ddof}. Use more groups, or data "
            "with more distinct predictions."
        )
    return HosmerLemeshowResult(float(statistic), float(chdtrc(dof, statistic)), dof)
