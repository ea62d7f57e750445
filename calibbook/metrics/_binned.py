"""Binned measures: ECE and MCE, reliability curves, Murphy's Brier decomposition.

The binned calibration errors ECE and MCE of Naeini, Cooper & Hauskrecht,
reliability curves with binomial confidence intervals, and Murphy's
decomposition of the Brier score.

Binning (``calibbook._utils.binning``): ``strategy="uniform"`` uses K
equal-width bins [k/K, (k+1)/K) on [0, 1], with k/K the float nearest to it (a
forecast 0.3 is in bin 3 of 10; 1 is in the last bin); ``strategy="quantile"``
uses K equal-frequency bins that never split tied predictions. ECE and MCE also accept
``strategy="positional"``, the groups of the papers' evaluation code: the
predictions sorted (ties broken by the label, negatives first) and cut into K
groups by position, which can split tied predictions.
"""

import numpy as np

from calibbook._utils.binning import STRATEGIES, bin_statistics, binned
from calibbook._utils.optional import require
from calibbook._utils.params import Integral, Interval, Options, Real, validate_params
from calibbook._utils.validation import check_probability_input

__all__ = [
    "brier_decomposition",
    "expected_calibration_error",
    "maximum_calibration_error",
    "reliability_curve",
]


def _binned(y, p, w, n_bins, strategy):
    """Per-bin (weight, mean prediction, observed rate) and inner edges, for validated arrays."""
    n_bins = int(n_bins)
    edges, ids = binned(p, w, n_bins, strategy)
    weight, e, o = bin_statistics(y, p, w, ids, n_bins)
    return weight, e, o, edges


#: Binnings of the ECE and the MCE: the two of ``calibbook._utils.binning`` and the positional
#: groups.
ERROR_STRATEGIES = (*STRATEGIES, "positional")

#: Constraints shared by the binned measures (see ``calibbook._utils.params``).
N_BINS = [Interval(Integral, 1, None)]
LEVEL = [Interval(Real, 0.0, 1.0, closed="neither")]
_ERROR_PARAMETERS = {"n_bins": N_BINS, "strategy": [Options(*ERROR_STRATEGIES)]}


def _positional_gaps(y, p, n_bins):
    """Size and |o_k - e_k| of the K groups of the sorted (prediction, label) pairs cut by position.

    The groups of ``getECE.m`` / ``getMCE.m`` in the authors' code: ``np.array_split`` sizes
    (the first N mod K groups one larger); empty groups (N < K) are left out.
    """
    groups = [g for g in np.array_split(np.lexsort((y, p)), n_bins) if g.size]
    size = np.array([g.size for g in groups], dtype=np.float64)
    return size, np.array([abs(y[g].mean() - p[g].mean()) for g in groups])


def _bin_gaps(y_true, y_prob, sample_weight, n_bins, strategy):
    """Weight and |o_k - e_k| of every non-empty bin."""
    y, p, w = check_probability_input(y_true, y_prob, sample_weight)
    if strategy == "positional":
        if sample_weight is not None:
            raise ValueError(
                "strategy='positional' cuts the sorted predictions into groups of equal count "
                "and takes no sample_weight; use 'quantile' for weighted equal-mass bins."
            )
        return _positional_gaps(y, p, int(n_bins))
    weight, e, o, _ = _binned(y, p, w, n_bins, strategy)
    full = weight > 0
    return weight[full], np.abs(o[full] - e[full])


@validate_params(_ERROR_PARAMETERS)
def expected_calibration_error(
    y_true, y_prob, *, n_bins=10, strategy="uniform", sample_weight=None
):
    r"""Expected calibration error, :math:`\sum_k P(k)\,|o_k - e_k|`.

    For each of the ``n_bins`` bins, :math:`P(k)` is the fraction of samples
    (of total weight) falling in bin k, :math:`o_k` the observed fraction of
    positives and :math:`e_k` the mean predicted probability in the bin.
    Empty bins contribute nothing. :doc:`/book/01_measuring_calibration` defines
    it, Eq. :eq:`eq-ece`, and measures its bias.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Binary labels in {0, 1}.
    y_prob : array-like of shape (n,)
        Predicted probabilities of the positive class, in [0, 1].
    n_bins : int, default=10
        Number of bins K (the papers use K = 10).
    strategy : {"uniform", "quantile", "positional"}, default="uniform"
        Equal-width bins [k/K, (k+1)/K) on [0, 1] (the ENIR paper's text), k/K
        being the float nearest to it, so that forecasts rounded to 0.1 fill one
        bin each of 10 (1.0 joins 0.9 in the last); equal-frequency bins
        on the sorted predictions that never split ties (the histogram-binning
        paper's text); or the authors' evaluation code's groups: the predictions
        sorted with the label as tie-breaker and cut into ``n_bins`` groups by
        position, which may split ties (no ``sample_weight`` then).
    sample_weight : array-like of shape (n,), optional
        Non-negative weights; integer weights equal repeated rows.

    Returns
    -------
    float
        The ECE, in [0, 1].

    Raises
    ------
    ValueError
        If the inputs are empty, of different lengths, hold NaN or infinity, the
        labels are not binary, a probability lies outside [0, 1], a weight is
        negative, or ``n_bins`` or ``strategy`` is invalid.

    Notes
    -----
    The binned ECE is a biased estimator: even perfectly calibrated predictions
    give a positive value that shrinks with the number of samples per bin
    :cite:p:`kumar2019verified,roelofs2022mitigating`.

    References
    ----------
    Naeini, Cooper & Hauskrecht, "Obtaining well calibrated probabilities using
    Bayesian binning", AAAI 2015; Naeini & Cooper, ICDM 2016, Section IV-B.

    See Also
    --------
    calibbook.maximum_calibration_error : The worst bin instead of the average.
    calibbook.reliability_curve : The bins themselves.

    Examples
    --------
    >>> from calibbook import expected_calibration_error
    >>> y, p = [0, 1, 1, 0], [0.1, 0.9, 0.8, 0.3]
    >>> round(expected_calibration_error(y, p, n_bins=2), 6)
    0.175
    """
    weight, gap = _bin_gaps(y_true, y_prob, sample_weight, n_bins, strategy)
    return float(np.sum(weight * gap) / weight.sum())


@validate_params(_ERROR_PARAMETERS)
def maximum_calibration_error(y_true, y_prob, *, n_bins=10, strategy="uniform", sample_weight=None):
    r"""Maximum calibration error, :math:`\max_k |o_k - e_k|` over non-empty bins.

    :math:`o_k` is the observed fraction of positives and :math:`e_k` the mean
    predicted probability in bin k; :doc:`/book/01_measuring_calibration`
    defines it, Eq. :eq:`eq-mce`, and shows how noisy it is with few cases per bin.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Binary labels in {0, 1}.
    y_prob : array-like of shape (n,)
        Predicted probabilities of the positive class, in [0, 1].
    n_bins : int, default=10
        Number of bins K.
    strategy : {"uniform", "quantile", "positional"}, default="uniform"
        Equal-width bins, equal-frequency bins, or the authors' positional
        groups, as in :func:`calibbook.expected_calibration_error`.
    sample_weight : array-like of shape (n,), optional
        Non-negative weights.

    Returns
    -------
    float
        The MCE, in [0, 1].

    Raises
    ------
    ValueError
        If the inputs are empty, of different lengths, hold NaN or infinity, the
        labels are not binary, a probability lies outside [0, 1], a weight is
        negative, or ``n_bins`` or ``strategy`` is invalid.

    References
    ----------
    Naeini, Cooper & Hauskrecht, "Obtaining well calibrated probabilities using
    Bayesian binning", AAAI 2015; Naeini & Cooper, ICDM 2016, Section IV-B.

    Examples
    --------
    >>> from calibbook import maximum_calibration_error
    >>> y, p = [0, 1, 1, 0], [0.1, 0.9, 0.8, 0.3]
    >>> round(maximum_calibration_error(y, p, n_bins=2), 6)
    0.2
    """
    return float(np.max(_bin_gaps(y_true, y_prob, sample_weight, n_bins, strategy)[1]))


def _binomial_interval(successes, trials, level, method):
    """Two-sided binomial confidence interval for a proportion (vectorised)."""
    from scipy import stats

    alpha = 1.0 - level
    if method == "wilson":
        z = stats.norm.ppf(1.0 - alpha / 2.0)
        phat = successes / trials
        denom = 1.0 + z**2 / trials
        centre = (phat + z**2 / (2.0 * trials)) / denom
        half = z * np.sqrt(phat * (1.0 - phat) / trials + z**2 / (4.0 * trials**2)) / denom
        return np.clip(centre - half, 0.0, 1.0), np.clip(centre + half, 0.0, 1.0)
    # Clopper-Pearson: exact, through beta quantiles
    failures = trials - successes
    with np.errstate(invalid="ignore"):
        lo = np.where(successes > 0, stats.beta.ppf(alpha / 2.0, successes, failures + 1.0), 0.0)
        hi = np.where(
            failures > 0, stats.beta.ppf(1.0 - alpha / 2.0, successes + 1.0, failures), 1.0
        )
    return lo, hi


@validate_params(
    {
        "n_bins": N_BINS,
        "strategy": [Options(*STRATEGIES)],
        "confidence": LEVEL,
        "interval": [Options("wilson", "clopper-pearson")],
    }
)
def reliability_curve(
    y_true,
    y_prob,
    *,
    n_bins=10,
    strategy="uniform",
    sample_weight=None,
    confidence=0.95,
    interval="wilson",
):
    """Points of a reliability diagram, one row per non-empty bin.

    For each bin, the mean prediction :math:`e_k`, the observed frequency of
    positives :math:`o_k` and a binomial confidence interval for it
    (:doc:`/book/01_measuring_calibration`, Eq. :eq:`eq-bin-stats`).

    Parameters
    ----------
    y_true, y_prob, n_bins, strategy, sample_weight
        As in :func:`expected_calibration_error`.
    confidence : float, default=0.95
        Level of the binomial confidence interval of each observed frequency.
    interval : {"wilson", "clopper-pearson"}, default="wilson"
        Wilson score interval, or the exact (conservative) Clopper-Pearson one.
        With weights, the bin's total weight plays the role of the number of trials.

    Returns
    -------
    pandas.DataFrame
        Columns ``bin_lower``, ``bin_upper`` (bin boundaries; for quantile bins the
        data edges, with the extreme predictions as outer bounds), ``mean_predicted``
        (:math:`e_k`), ``observed`` (:math:`o_k`), ``count`` (total weight),
        ``ci_lower`` and ``ci_upper``.

    Raises
    ------
    ValueError
        If the inputs are empty, of different lengths, hold NaN or infinity, the
        labels are not binary, a probability lies outside [0, 1], a weight is
        negative, or ``n_bins`` or ``strategy`` is invalid, ``confidence`` is not in
        (0, 1) or ``interval`` is unknown.

    See Also
    --------
    calibbook.reliability_diagram : Draws these points.

    References
    ----------
    Wilson, "Probable inference, the law of succession, and statistical
    inference", JASA 22 (1927); Clopper & Pearson, "The use of confidence or
    fiducial limits illustrated in the case of the binomial", Biometrika 26
    (1934); Niculescu-Mizil & Caruana, ICML 2005 (reliability diagrams).

    Examples
    --------
    >>> from calibbook import reliability_curve
    >>> curve = reliability_curve([0, 1, 1, 0], [0.1, 0.9, 0.8, 0.3], n_bins=2)
    >>> curve[["mean_predicted", "observed", "count"]].round(3).to_numpy().tolist()
    [[0.2, 0.0, 2.0], [0.85, 1.0, 2.0]]
    """
    pd = require("pandas", "tables")

    y, p, w = check_probability_input(y_true, y_prob, sample_weight)
    weight, e, o, edges = _binned(y, p, w, n_bins, strategy)
    if strategy == "uniform":
        outer = np.concatenate(([0.0], edges, [1.0]))
    else:
        lo, hi = p[w > 0].min(), p[w > 0].max()
        outer = np.concatenate(([lo], np.minimum(edges, hi), [hi]))
    full = weight > 0
    lo, hi = _binomial_interval(o[full] * weight[full], weight[full], confidence, interval)
    # at o = 0 or 1 rounding can leave a bound 1e-16 on the wrong side of o itself
    lo, hi = np.minimum(lo, o[full]), np.maximum(hi, o[full])
    return pd.DataFrame(
        {
            "bin_lower": outer[:-1][full],
            "bin_upper": outer[1:][full],
            "mean_predicted": e[full],
            "observed": o[full],
            "count": weight[full],
            "ci_lower": lo,
            "ci_upper": hi,
        }
    )


@validate_params({"n_bins": [None, *N_BINS], "strategy": [Options(*STRATEGIES)]})
def brier_decomposition(y_true, y_prob, *, n_bins=None, strategy="uniform", sample_weight=None):
    r"""Murphy's decomposition of the Brier score, exact or binned.

    With forecasts grouped into bins k (weight fraction :math:`P(k)`, mean
    forecast :math:`e_k`, observed rate :math:`o_k`, base rate :math:`\bar o`):

    .. math::

        \mathrm{BS} = \underbrace{\textstyle\sum_k P(k)(e_k - o_k)^2}_{\text{reliability}}
        - \underbrace{\textstyle\sum_k P(k)(o_k - \bar o)^2}_{\text{resolution}}
        + \underbrace{\bar o(1 - \bar o)}_{\text{uncertainty}}
        + \mathrm{WBV} - \mathrm{WBC},

    where the within-bin variance :math:`\mathrm{WBV}` and within-bin covariance
    :math:`\mathrm{WBC}` of :cite:t:`stephenson2008two` vanish when every bin
    holds a single forecast value. ``n_bins=None`` (the default) groups by
    distinct forecast values, which makes Murphy's three-term identity exact.
    :doc:`/book/01_measuring_calibration` derives the decomposition,
    Eq. :eq:`eq-brier-five-terms`.

    Parameters
    ----------
    y_true, y_prob, sample_weight
        As in :func:`expected_calibration_error`.
    n_bins : int or None, default=None
        None groups identical forecasts (exact decomposition); an integer uses
        that many bins of the given ``strategy``.
    strategy : {"uniform", "quantile"}, default="uniform"

    Returns
    -------
    dict
        ``brier``, ``reliability``, ``resolution``, ``uncertainty``,
        ``within_bin_variance``, ``within_bin_covariance``. The identity
        ``brier = reliability - resolution + uncertainty + within_bin_variance
        - within_bin_covariance`` holds to rounding error.

    Raises
    ------
    ValueError
        If the inputs are empty, of different lengths, hold NaN or infinity, the
        labels are not binary, a probability lies outside [0, 1], a weight is
        negative, or ``n_bins`` or ``strategy`` is invalid.

    References
    ----------
    Brier, "Verification of forecasts expressed in terms of probability",
    Monthly Weather Review 78 (1950); Murphy, "A new vector partition of the
    probability score", Journal of Applied Meteorology 12 (1973); Stephenson,
    Coelho & Jolliffe, "Two extra components in the Brier score decomposition",
    Weather and Forecasting 23 (2008).

    Examples
    --------
    >>> from calibbook import brier_decomposition
    >>> parts = brier_decomposition([0, 1, 1, 0], [0.2, 0.8, 0.8, 0.2])
    >>> {k: round(v, 4) for k, v in parts.items() if k != "within_bin_covariance"}
    {'brier': 0.04, 'reliability': 0.04, 'resolution': 0.25, 'uncertainty': 0.25,
     'within_bin_variance': 0.0}
    """
    y, p, w = check_probability_input(y_true, y_prob, sample_weight)
    if n_bins is None:
        values, ids = np.unique(p, return_inverse=True)
        n_groups = values.size
    else:
        n_groups = int(n_bins)
        ids = binned(p, w, n_groups, strategy)[1]
    weight, e, o = bin_statistics(y, p, w, ids, n_groups)
    total = w.sum()
    frac = np.where(weight > 0, weight / total, 0.0)
    e, o = np.nan_to_num(e), np.nan_to_num(o)
    base = np.sum(w * y) / total
    dev_p = p - e[ids]  # deviation of each forecast from its bin mean
    return {
        "brier": float(np.sum(w * (p - y) ** 2) / total),
        "reliability": float(np.sum(frac * (e - o) ** 2)),
        "resolution": float(np.sum(frac * (o - base) ** 2)),
        "uncertainty": float(base * (1.0 - base)),
        "within_bin_variance": float(np.sum(w * dev_p**2) / total),
        "within_bin_covariance": float(2.0 * np.sum(w * dev_p * (y - o[ids])) / total),
    }
