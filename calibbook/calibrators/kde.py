"""Calibration by kernel density estimation (Naeini, Cooper & Hauskrecht 2014, Eq. 5).

Bayes' rule with kernel estimates of the two class-conditional score densities:

    P(z = 1 | x) = pi_1 f_1(x) / (pi_1 f_1(x) + pi_0 f_0(x)),
    f_t(x) = 1 / (W_t h_t) sum_{i in class t} w_i K((x - x_i) / h_t),  pi_t = W_t / W,

where W_t is the weight of class t. The priors cancel the densities' normalising
constants, leaving P(z = 1 | x) = (S_1 / h_1) / (S_1 / h_1 + S_0 / h_0) with
S_t = sum_{i in class t} w_i K((x - x_i) / h_t). With one bandwidth for both
classes this is the Nadaraya-Watson regression of the labels on the scores.
"""

import math
from typing import NamedTuple

import numpy as np

from calibbook._utils.deprecation import renamed_attribute, renamed_parameter, warn_renamed
from calibbook._utils.maths import expit
from calibbook._utils.params import Interval, Options, Real
from calibbook._utils.weights import warn_low_total_weight
from calibbook.base import BaseCalibrator

__all__ = ["KDECalibration", "bandwidth_rule"]

KERNELS = ("gaussian", "boxcar", "epanechnikov", "tricube")
BANDWIDTH_RULES = ("silverman", "silverman_robust", "scott")
METHODS = ("auto", "exact", "binned")

_AUTO_BINNED_ABOVE = 2000  # training points above which algorithm="auto" bins the Gaussian kernel
_GRID_POINTS_PER_BANDWIDTH = 1000  # grid spacing delta = h / 1000 for the binned path
_MAX_GRID = 2**21
_NOISE_FLOOR = 1e-11  # compact sums below this fraction of the nearby weight are rounding noise
_LN2 = math.log(2.0)
# Scores of ordinary size (below _ORDINARY in magnitude, spread above 1 / _ORDINARY) are used
# as they are, bit for bit as before issue 28; others are standardised. On the scale of the
# sums, scores are clipped to +-_FAR and bandwidths to _H_RANGE, so that every square and
# every distance in bandwidths stays finite and nonzero in the kernels.
_ORDINARY = 2.0**100
_FAR = 1e100
_H_RANGE = (1e-100, 1e100)
_HALVE_ABOVE = 2.0**1020  # scores this large are halved before differencing (no overflow)

# R(K) = int K^2 and mu_2(K) = int u^2 K of each kernel, on the supports used here
# (the standard normal; [-1, 1] for the compact kernels)
_KERNEL_MOMENTS = {
    "gaussian": (1.0 / (2.0 * math.sqrt(math.pi)), 1.0),
    "boxcar": (1.0 / 2.0, 1.0 / 3.0),
    "epanechnikov": (3.0 / 5.0, 1.0 / 5.0),
    "tricube": (175.0 / 247.0, 35.0 / 243.0),
}


def _canonical_bandwidth(kernel):
    """delta_K = (R(K) / mu_2(K)^2)^(1/5), Marron & Nolan's canonical bandwidth."""
    roughness, mu2 = _KERNEL_MOMENTS[kernel]
    return (roughness / mu2**2) ** 0.2


#: Equivalent-bandwidth factors delta_K / delta_phi: the rule-of-thumb bandwidths,
#: which are AMISE-optimal for the Gaussian kernel, are multiplied by these for the
#: compact kernels (boxcar 1.740, Epanechnikov 2.214, tricube 2.610).
EQUIVALENT_BANDWIDTH_FACTORS = {
    kernel: _canonical_bandwidth(kernel) / _canonical_bandwidth("gaussian") for kernel in KERNELS
}


def _scaled_weights(w):
    """``(w * 2**-k, k)``: weights of ordinary size as they are (k = 0), others scaled by a
    power of two so that the largest is in [0.5, 1).

    Scaling by a power of two is exact, so ratios of sums of the scaled weights are those
    of the weights themselves, and no sum overflows whatever the weights' magnitude.
    """
    top = float(np.max(w))
    if 1.0 / _ORDINARY <= top <= _ORDINARY:
        return w, 0
    k = math.frexp(top)[1]
    return np.ldexp(w, -k), k


def _weighted_quantile(xs, cw, q, unit):
    """Quantile q of sorted xs with cumulative weights cw, as np.percentile on repeated rows.

    ``unit`` is the weight of one case (cw[-1] >= 2 unit). The value of 0-based rank k is the
    first x whose cumulative weight exceeds k cases; ranks between integers interpolate
    linearly (numpy's default "linear" method).
    """
    rank = q * (cw[-1] - unit) / unit
    k = math.floor(rank)
    frac = rank - k
    last = xs.size - 1
    lo = xs[min(np.searchsorted(cw, k * unit, side="right"), last)]
    hi = xs[min(np.searchsorted(cw, (k + 1) * unit, side="right"), last)]
    return lo + frac * (hi - lo)


def _rule_statistics(xs, w, robust):
    """(sigma^2, iqr, N^(-1/5), kx) of sorted xs for the rules, in units of 2**kx (no overflow).

    N = max(W, 2) is the number of cases the rule reads; sigma^2 is the weighted sum of
    squares over max(W - 1, W / 2): the unbiased variance for W >= 2, and for W < 2 the
    variance of the weights rescaled to total 2. The IQR reads the weights the same way.
    Scores and weights of ordinary size are used as they are (kx = k = 0); others are scaled
    by powers of two, which changes no rounding (outside the subnormals).
    """
    ws, k = _scaled_weights(w)
    total = float(ws.sum())
    top = float(np.max(np.abs(xs)))
    kx = 0 if top <= _ORDINARY else math.frexp(top)[1]
    x1 = xs if kx == 0 else np.ldexp(xs, -kx)  # |x1| < 1: no square overflows
    mean = float(np.dot(ws, x1) / total)
    ss = float(np.dot(ws, (x1 - mean) ** 2))
    log_w = math.log(total) + k * _LN2
    # one case, in scaled weights; below two cases the weights read as two
    unit = math.ldexp(1.0, -k) if log_w >= _LN2 else total / 2.0
    var = ss / (total - unit)  # ss / max(W - 1, W / 2), continuous at W = 2
    iqr = 0.0
    if robust:
        cw = np.cumsum(ws)
        iqr = _weighted_quantile(x1, cw, 0.75, unit) - _weighted_quantile(x1, cw, 0.25, unit)
    if k == 0:
        return var, iqr, max(total, 2.0) ** -0.2, kx
    return var, iqr, math.exp(-0.2 * max(log_w, _LN2)), kx


class _Frame(NamedTuple):
    """z = (x - centre) / 2**exponent, computed as (x - centre) * f1 * f2 (or from x / 2)."""

    centre: float
    halve: bool  # difference x / 2 - centre / 2: no overflow for scores near the largest double
    f1: float  # f1 * f2 = 2**-(exponent - halve), split so that each factor is a finite double
    f2: float
    exponent: int  # the scale 2**exponent is a power of two near the weighted standard deviation


def _standard_frame(xs, w, always=False):
    """The frame that standardises sorted scores ``xs`` with weights ``w`` (private; see below).

    Centre: the lower weighted median (a training score, so integer weights and repeated rows
    give the same frame); scale: the power of two 2**e with 2**e <= sigma < 2**(e + 1), sigma
    the weighted population standard deviation. The scaled scores are then the same up to
    rounding under any change of units a * s + b, and nothing overflows or underflows for
    finite scores of any size. Scores of ordinary size (|s| <= 2**100, sigma >= 2**-100) get
    the identity frame unless ``always``: the fits then run on the scores themselves, as
    before issue 28 (the rules and priors are relative to the spread either way). DPM asks
    for ``always``: its sums of squares lose the digits a large offset takes. Constant scores
    are centred (z = 0), so that nothing downstream squares a score of odd magnitude.
    (A robust standardisation shared with the sigmoid fits may replace this one.)
    """
    ws, _ = _scaled_weights(w)
    cw = np.cumsum(ws)
    centre = float(xs[min(int(np.searchsorted(cw, 0.5 * cw[-1])), xs.size - 1)])
    halve = bool(max(abs(xs[0]), abs(xs[-1])) > _HALVE_ABOVE)
    d = 0.5 * xs - 0.5 * centre if halve else xs - centre
    top = float(np.max(np.abs(d)))
    if top == 0.0:  # constant scores: any scale will do
        return _Frame(centre, halve, 1.0, 1.0, int(halve))
    kd = math.frexp(top)[1]
    d1 = np.ldexp(d, -kd)
    p = ws / ws.sum()
    sigma1 = math.sqrt(float(np.dot(p, (d1 - np.dot(p, d1)) ** 2)))
    e = kd + (math.frexp(sigma1)[1] - 1 if sigma1 > 0 else 0)
    if not (always or halve) and max(abs(xs[0]), abs(xs[-1])) <= _ORDINARY and e >= -100:
        return _Frame(0.0, False, 1.0, 1.0, 0)
    half = -e // 2
    return _Frame(centre, halve, math.ldexp(1.0, half), math.ldexp(1.0, -e - half), e + halve)


def _standardise(x, frame):
    """(x - centre) / 2**exponent, clipped to +-_FAR (the clip also catches overflow)."""
    with np.errstate(over="ignore"):
        d = 0.5 * x - 0.5 * frame.centre if frame.halve else x - frame.centre
        z = d * frame.f1 * frame.f2
    return np.clip(z, -_FAR, _FAR)


def _to_user_units(v, frame):
    """A length v of the standardised scale in the scores' units (inf beyond the doubles)."""
    with np.errstate(over="ignore"):
        return np.ldexp(v, frame.exponent)


@renamed_parameter("w", "sample_weight")
def bandwidth_rule(xs, sample_weight, rule, kernel="gaussian"):
    r"""Rule-of-thumb bandwidth from sorted scores ``xs`` with weights ``sample_weight``.

    The weights are frequencies (:class:`calibbook.LowWeightWarning`): with total
    weight W, N = max(W, 2) is the number of cases, and :math:`\sigma^2` is the
    weighted sum of squared deviations over max(W - 1, W / 2). For W >= 2 (all
    integer weights) that is the unbiased variance with denominator W - 1, so
    integer weights give the bandwidth of the repeated rows. Below two cases the
    unbiased variance is undefined (W - 1 <= 0 at W <= 1, where it would flip
    sign or divide by zero); the rule then reads the weights as two cases (their
    proportions, rescaled to total 2), which joins the unbiased rule continuously
    at W = 2, so the bandwidth never jumps as W crosses 1 or 2 by rounding. The
    IQR reads the weights the same way. Scores beyond 2^100 are divided by a power
    of two first (exactly), so any finite scores give a finite bandwidth, and the
    rule is proportional to the scores' spread: ``a * xs + b`` gives ``a`` times
    the bandwidth. :doc:`/book/06_density_calibration` shows how the
    bandwidth shapes the calibration map. For the Gaussian kernel:

    - ``"silverman"``: :math:`h = 1.06\,\sigma N^{-1/5}`, Silverman's
      normal-reference rule (the paper's choice);
    - ``"silverman_robust"``: :math:`h = 0.9 \min(\sigma, \mathrm{IQR}/1.34) N^{-1/5}`,
      Silverman's (1986, Eq. 3.31) version that resists heavy tails and
      bimodality (:math:`\sigma` alone when the IQR is 0);
    - ``"scott"``: :math:`h = \sigma N^{-1/5}`, Scott's factor as in
      ``scipy.stats.gaussian_kde``.

    These constants minimise the asymptotic mean integrated squared error
    (AMISE) for the Gaussian kernel only. The AMISE-optimal bandwidth of a
    kernel K is proportional to its canonical bandwidth
    :math:`\delta_K = (R(K) / \mu_2(K)^2)^{1/5}`, with
    :math:`R(K) = \int K^2` and :math:`\mu_2(K) = \int u^2 K(u)\,du`
    (Marron & Nolan 1988). For a compact kernel on [-1, 1] the rule's value is
    therefore multiplied by the *equivalent-bandwidth factor*
    :math:`\delta_K / \delta_\phi` (``EQUIVALENT_BANDWIDTH_FACTORS``):
    boxcar 1.740, Epanechnikov 2.214, tricube 2.610. With these factors every
    kernel smooths about as much as the Gaussian kernel with the rule's
    bandwidth. The paper applied :math:`1.06\,\sigma N^{-1/5}` to the boxcar
    kernel unscaled; ``bandwidth_rule(xs, w, "silverman")`` (the Gaussian
    value), passed to :class:`calibbook.KDECalibration` as a number, gives that
    bandwidth.

    Parameters
    ----------
    xs : ndarray of shape (n,)
        Scores, sorted increasingly (float64).
    sample_weight : ndarray of shape (n,)
        Their positive weights (float64).
    rule : {"silverman", "silverman_robust", "scott"}
        The rule; any other value is taken as ``"silverman_robust"``
        (:class:`calibbook.KDECalibration` validates it).
    kernel : {"gaussian", "boxcar", "epanechnikov", "tricube"}, default="gaussian"
        The kernel the bandwidth is meant for; the rule's Gaussian-kernel value
        is multiplied by the kernel's equivalent-bandwidth factor.

    Returns
    -------
    float
        The bandwidth h, 0.0 when the scores do not vary.

    References
    ----------
    Silverman, "Density estimation for statistics and data analysis", Chapman &
    Hall (1986), Section 3.4.2; Scott, "Multivariate density estimation", Wiley
    (1992); Marron & Nolan, "Canonical kernels for density estimation",
    Statistics & Probability Letters 7 (1988); Wand & Jones, "Kernel smoothing",
    Chapman & Hall (1995), Section 2.7; Naeini, Cooper & Hauskrecht (2014),
    Section 4.

    Examples
    --------
    >>> import numpy as np
    >>> from calibbook.calibrators.kde import bandwidth_rule
    >>> xs = np.linspace(0.0, 1.0, 32)
    >>> round(bandwidth_rule(xs, np.ones(32), "silverman"), 4)
    0.1604
    >>> round(bandwidth_rule(xs, np.ones(32), "silverman", kernel="boxcar"), 4)
    0.2791
    >>> bandwidth_rule(np.zeros(3), np.ones(3), "scott")
    0.0

    Weights below two cases read as two; scaling the scores scales the bandwidth:

    >>> half, quarter = np.full(32, 0.5 / 32), np.full(32, 0.25 / 32)
    >>> bandwidth_rule(xs, half, "scott") == bandwidth_rule(xs, quarter, "scott")
    True
    >>> round(bandwidth_rule(1e200 * xs, np.ones(32), "silverman") / 1e200, 4)
    0.1604
    """
    w = sample_weight  # (called w before calibbook 0.2)
    robust = rule not in ("silverman", "scott")
    var, iqr, n_factor, kx = _rule_statistics(xs, w, robust)
    sigma = math.sqrt(var)
    factor = n_factor * EQUIVALENT_BANDWIDTH_FACTORS[kernel]
    if rule == "silverman":
        h = 1.06 * sigma * factor
    elif rule == "scott":
        h = sigma * factor
    else:
        h = 0.9 * (min(sigma, iqr / 1.34) if iqr > 0 else sigma) * factor
    with np.errstate(over="ignore"):
        return float(np.ldexp(h, kx))  # computed on xs / 2**kx, returned in their units


class _ClassDensity:
    """Sorted training scores of one class and the precomputed structures of its kernel sum."""

    def __init__(self, xs, w, h, kernel):
        from calibbook._kernels.kde import COMPACT_COEFFICIENTS, build_cells

        self.xs, self.w, self.h = xs, w, h
        if kernel != "gaussian":
            self.q = COMPACT_COEFFICIENTS[kernel]
            self.cells = build_cells(xs, w, h, self.q.size - 1)

    def compact_sums(self, x):
        """S(x) = sum_i w_i K((x - x_i) / h); nearby weight -1 where no point is in reach."""
        from calibbook._kernels.kde import compact_kernel_sums

        out, mass = np.empty_like(x), np.empty_like(x)
        compact_kernel_sums(self.xs, *self.cells, self.h, self.q, x, out, mass)
        # rounding leaves |noise| <~ 1e-12 of the nearby weight; a smaller sum is an exact zero
        out[out < _NOISE_FLOOR * mass] = 0.0
        return out

    def gaussian_log_sums(self, x):
        """(log S~(x), x_n) with log S(x) = log S~(x) - (x - x_n)^2 / (2 h^2), x_n the nearest."""
        from calibbook._kernels.kde import gaussian_log_sums

        out, nearest = np.empty_like(x), np.empty_like(x)
        gaussian_log_sums(self.xs, self.w, self.h, x, 37.0 + math.log(self.xs.size), out, nearest)
        return out, nearest


class KDECalibration(BaseCalibrator):
    r"""Calibration by kernel density estimation of the two class-conditional score densities.

    Bayes' rule with kernel estimates :math:`\hat f_0, \hat f_1` of the score
    densities of the two classes and their weighted frequencies
    :math:`\pi_0, \pi_1`:
    :math:`P(y = 1 \mid s) = \pi_1 \hat f_1(s) / (\pi_1 \hat f_1(s) + \pi_0 \hat f_0(s))`.
    :doc:`/book/06_density_calibration` derives it from histogram binning and
    reruns the paper's experiment.

    Which calibrator suits your data and classifier: the decision guide,
    :doc:`/book/which_calibrator`.

    Parameters
    ----------
    kernel : {"gaussian", "boxcar", "epanechnikov", "tricube"}, default="gaussian"
        Smoothing kernel K(u). The compact ones live on :math:`|u| \le 1`:
        boxcar 1/2, Epanechnikov :math:`\tfrac34 (1 - u^2)`, tricube
        :math:`\tfrac{70}{81} (1 - |u|^3)^3`;
        the Gaussian is the standard normal density. The bandwidth h scales u =
        (x - x_i) / h in every case (so h is the half-width of a compact kernel and
        the standard deviation of the Gaussian), as in the paper and in
        scikit-learn's ``KernelDensity``.
    bandwidth : {"silverman", "silverman_robust", "scott"} or float, default="silverman"
        A rule of thumb (see :func:`calibbook.calibrators.kde.bandwidth_rule`;
        ``"silverman"`` is the paper's h = 1.06 sigma N^(-1/5)) or a fixed positive
        bandwidth. The rules are AMISE-optimal constants for the Gaussian kernel; for a
        compact kernel the rule's value is multiplied by its equivalent-bandwidth factor
        (boxcar 1.740, Epanechnikov 2.214, tricube 2.610), so that all kernels
        smooth alike. The paper used the unscaled value with the boxcar kernel:
        pass ``bandwidth_rule(xs, w, "silverman")`` as a number to get it. A
        fixed bandwidth is in the scores' units (of their logits with
        ``logit_input``); a bandwidth below 1e-100 or above 1e100 on the scale the
        sums are taken on (the scores, or the standardised scores: see Notes) is
        taken as that bound.
    shared_bandwidth : bool, default=True
        True: one bandwidth for both classes, computed from all training scores
        (the Nadaraya-Watson estimator the paper uses). False: each class gets
        the rule applied to its own scores (h_0, h_1 of Eq. 5). A float bandwidth
        is used for both classes either way.
    reflect : bool, default=False
        Reflect the kernel mass that falls outside [0, 1] back inside (the
        reflection method of Silverman 1986, Section 2.10), removing the
        boundary bias of densities of probabilities. The scores must then lie in
        [0, 1].
    logit_input : bool, default=False
        Estimate the densities of logit(score) instead of the scores, which must
        then lie in [0, 1] (they are clipped to [1e-12, 1 - 1e-12] first, as in
        :class:`~calibbook.PlattScaling`). Use it when the scores are
        probabilities piled up near 0 and 1 (naive Bayes, boosted trees): a
        bandwidth rule fitted to such scores smooths the bulk and the tails
        alike. Cannot be combined with ``reflect``.
    algorithm : {"auto", "exact", "binned"}, default="auto"
        How the Gaussian kernel sums are evaluated (compact kernels are always
        exact). ``"exact"``: the sum over all training points, in log space,
        O(N M) in the worst case. ``"binned"``: linear binning on a grid of
        spacing delta <= h / 1000 (at most 2^21 grid points) and an FFT
        convolution at fit time, linear interpolation at predict time.
        ``"auto"``: binned when the class has more than 2000 training points
        (after reflection), exact otherwise. (Called ``method`` before calibbook
        0.2; ``method=`` still works, with a FutureWarning, until 0.3.)
    method : deprecated
        The old name of ``algorithm``.
    binned_tol : float, default=1e-4
        Guaranteed bound on the error of a binned prediction. Linear binning
        and linear interpolation each move S_t / h_t by at most
        W_t delta^2 / (8 h_t^3) (half the sup of the kernel's second derivative
        times delta^2 / 4, summed over the weights), so with
        E = delta^2 / 4 (W_1 / h_1^3 + W_0 / h_0^3) the binned probability is
        within ``binned_tol`` of the exact one wherever the binned
        S_1 / h_1 + S_0 / h_0 >= E (1 / binned_tol + 2). Queries below that
        level, or off the grid, are evaluated exactly.
    out_of_bounds : {"clip", "extrapolate"}, default="clip"
        ``"clip"``: a score below the smallest or above the largest training
        score (with positive weight) is predicted as that extreme score, as in
        :class:`~calibbook.IsotonicCalibration`. The clip applies to the scores
        as passed, before any logit, and also with ``reflect=True``.
        ``"extrapolate"``: evaluate Eq. 5 at the score itself (see *Far from
        the data* below).

    Attributes
    ----------
    bandwidth_ : ndarray of shape (2,)
        Bandwidths (h_0, h_1) used for class 0 and class 1, in the scores' units
        (of their logits with ``logit_input``; rounded to 0 or inf where they
        lie beyond the doubles, for scores near 5e-324 or 1e308).
    class_prior_ : ndarray of shape (2,)
        Weighted class frequencies (pi_0, pi_1).
    algorithm_ : str
        ``"exact"`` or ``"binned"``: how the Gaussian sums are evaluated.
    support_ : ndarray
        Sorted distinct training scores (with positive weight); their logits
        when ``logit_input=True``.
    score_range_ : ndarray of shape (2,)
        Smallest and largest training score with positive weight (as passed,
        before any logit): the bounds of ``out_of_bounds="clip"``.

    Warns
    -----
    calibbook.LowWeightWarning
        When ``sample_weight`` totals fewer than two cases per bandwidth (one
        bandwidth, or two with ``shared_bandwidth=False``). The rules count
        cases: below two cases their unbiased variance is undefined, and they
        read the weights as two cases (see
        :func:`calibbook.calibrators.kde.bandwidth_rule`). A fixed bandwidth
        uses the weights' proportions only, but warns alike: the fit rests on
        that few cases.

    Notes
    -----
    *Units.* The bandwidth rules are relative to the scores' spread, so with a
    rule ``fit(a * s + b).predict(a * t + b)`` equals ``fit(s).predict(t)`` for
    every a > 0 and b that keep the scores finite, to rounding. Scores (their
    logits with ``logit_input``) beyond 2^100 in magnitude, or with a standard
    deviation below 2^-100, are standardised before the fit (centred at their
    weighted median, divided by a power of two near their weighted standard
    deviation) and every kernel sum is taken on that scale, so finite scores of
    any magnitude (5e-324 to 1e308) give finite probabilities; scores of
    ordinary size are used as they are. Standardised scores beyond 1e100 from
    the centre are clipped there. A fixed bandwidth ties the map to the
    scores' units (a shift b leaves it unchanged, a scale a does not), and so
    do ``reflect`` and ``logit_input`` (the scores are probabilities).

    *Compact kernels* are evaluated exactly in O((N + M) log N): two binary
    searches per query find the window [x - h, x + h], and the kernel sum is a
    polynomial in x whose coefficients come from prefix sums of local moments
    (see ``calibbook._kernels.kde``); the result agrees with brute force to about
    1e-12 of the nearby weight.

    *Far from the data.* By default (``out_of_bounds="clip"``) a score outside
    the training range gets the estimate at the nearest extreme training score.
    Inside the range, and everywhere with ``"extrapolate"``: a compact kernel's
    densities both vanish when no training score lies within one bandwidth of
    x, and Eq. 5 is then 0/0. The estimator predicts the estimate at the
    nearest training score instead (the mean of the two when x is exactly
    halfway), the nearest point where Eq. 5 is defined. The Gaussian sums are
    computed as log-sum-exp around the nearest training score, so they never
    underflow and Eq. 5 is evaluated as it stands even at :math:`|x| = 10^6`
    (where it tends to the label of the extreme training score on that side).

    When every training score with positive weight is the same (after the logit,
    with ``logit_input=True``), the map is the constant weighted base rate
    ``class_prior_[1]``.

    Zero-weight rows are dropped. Integer weights give the same fit as repeated
    rows. Weights are frequencies: the rules of thumb read their total as the
    number of cases N (continuously, see
    :func:`calibbook.calibrators.kde.bandwidth_rule`), while Eq. 5 itself
    depends only on their proportions.

    The map is a ratio of two density estimates and is not monotone in general:
    it can follow a non-monotone calibration map (a bump or a valley), and it
    can change the AUC of the scores.

    See Also
    --------
    calibbook.DPMCalibration : The same Bayes rule with Dirichlet-process mixture densities.
    calibbook.HistogramBinning : The same Bayes rule with histogram densities.

    References
    ----------
    Naeini, Cooper & Hauskrecht, "Binary classifier calibration: non-parametric
    approach", 2014, Section 4; Silverman, "Density estimation for statistics
    and data analysis", 1986; Wand, "Fast computation of multivariate kernel
    estimators", JCGS 1994 (linear binning).

    Examples
    --------
    >>> from calibbook import KDECalibration
    >>> cal = KDECalibration(kernel="boxcar", bandwidth=1.0)
    >>> cal = cal.fit([0.0, 0.5, 1.0, 1.5], [0, 0, 1, 1])
    >>> # positive neighbours: 1/3, 2/4, 2/3
    >>> cal.predict([0.0, 0.75, 1.5]).round(3).tolist()
    [0.333, 0.5, 0.667]
    >>> # clipped to the training range [0, 1.5]
    >>> cal.predict([-5.0, 9.0]).round(3).tolist()
    [0.333, 0.667]
    """

    _parameter_constraints = {
        "kernel": [Options(*KERNELS)],
        "bandwidth": [Options(*BANDWIDTH_RULES), Interval(Real, 0, None, closed="neither")],
        "shared_bandwidth": ["boolean"],
        "reflect": ["boolean"],
        "logit_input": ["boolean"],
        "algorithm": [Options(*METHODS)],
        "method": [Options(*METHODS, "deprecated")],
        "binned_tol": [Interval(Real, 0, 1, closed="neither")],
        "out_of_bounds": [Options("clip", "extrapolate")],
    }

    def __init__(
        self,
        *,
        kernel="gaussian",
        bandwidth="silverman",
        shared_bandwidth=True,
        reflect=False,
        logit_input=False,
        algorithm="auto",
        binned_tol=1e-4,
        out_of_bounds="clip",
        method="deprecated",
    ):
        self.kernel = kernel
        self.bandwidth = bandwidth
        self.shared_bandwidth = shared_bandwidth
        self.reflect = reflect
        self.logit_input = logit_input
        self.algorithm = algorithm
        self.binned_tol = binned_tol
        self.out_of_bounds = out_of_bounds
        self.method = method

    method_ = renamed_attribute("method_", "algorithm_")

    @property
    def _requires_probabilities(self):
        return bool(self.reflect or self.logit_input)

    def _check_parameter_combinations(self):
        if self.reflect and self.logit_input:
            raise ValueError(
                "reflect=True and logit_input=True cannot be combined: reflection mirrors the "
                "density at the edges 0 and 1 of the scores, and logits have no edges."
            )

    @property
    def _units(self):
        """How the map follows the scores' units: "affine" with a rule (relative to the
        spread); None with a fixed bandwidth (in the scores' units: the map follows a shift
        of the scores, not a scaling) and for probabilities (``reflect``, ``logit_input``)."""
        if self._requires_probabilities or not isinstance(self.bandwidth, str):
            return None
        return "affine"

    def _bandwidths(self, z, w, classes, frame):
        """(h_0, h_1) on the standardised scale: a fixed bandwidth, one rule on all scores, or
        the rule per class; clipped to _H_RANGE."""
        if not isinstance(self.bandwidth, str):
            with np.errstate(over="ignore", under="ignore"):  # inf or 0: clipped below
                h = float(np.ldexp(float(self.bandwidth), -frame.exponent))
            return np.clip(np.array([h, h]), *_H_RANGE)
        pooled = bandwidth_rule(z, w, self.bandwidth, self.kernel)
        if self.shared_bandwidth:
            h = np.array([pooled, pooled])
        else:
            h = np.array(
                [bandwidth_rule(cz, cw, self.bandwidth, self.kernel) for cz, cw in classes]
            )
            h[h <= 0] = pooled  # a class whose scores do not vary borrows the pooled bandwidth
        # all scores equal: every bandwidth gives the same constant map, so any will do
        h[h <= 0] = 1.0
        return np.clip(h, *_H_RANGE)

    def _warn_low_weight(self, w):
        """LowWeightWarning when the weights total fewer than two cases per bandwidth."""
        ws, k = _scaled_weights(w)
        log_total = math.log(float(ws.sum())) + k * _LN2
        n_groups = 1 if self.shared_bandwidth else 2
        total = math.exp(min(log_total, 700.0))
        warn_low_total_weight(total, n_groups, "bandwidth", type(self).__name__)

    def _fit(self, scores, y, sample_weight):
        if sample_weight is None:
            ws = np.ones_like(scores)
        else:
            keep = sample_weight > 0
            scores, y, ws = scores[keep], y[keep], sample_weight[keep]
            self._warn_low_weight(ws)
        self.score_range_ = np.array([scores.min(), scores.max()])
        x = self._features(scores)
        order = np.argsort(x, kind="stable")
        x, ys, ws = x[order], y[order], ws[order]
        frame = _standard_frame(x, ws)
        z = _standardise(x, frame)
        pos = ys == 1.0
        h = self._bandwidths(z, ws, [(z[~pos], ws[~pos]), (z[pos], ws[pos])], frame)
        # the posterior uses the weights' ratios only: scaled by a power of two, no sum overflows;
        # weights below 1e-308 of the largest are raised to that (else they underflow to 0)
        ws = np.maximum(_scaled_weights(ws)[0], np.finfo(np.float64).tiny)
        weights = np.array([ws[~pos].sum(), ws[pos].sum()])

        self._frame = frame
        self._x_range = tuple(float(v) for v in self._features(self.score_range_))
        self.bandwidth_ = _to_user_units(h, frame)
        self.class_prior_ = weights / weights.sum()
        self.support_ = np.unique(x)
        self._z_support = np.unique(z)
        densities = []
        for mask, ht in zip((~pos, pos), h, strict=True):
            cz, cw = z[mask], ws[mask]
            if self.reflect:  # mirror images in 0 and 1 (of the scores): -x and 2 - x
                cx = x[mask][::-1]
                cz = np.concatenate([_standardise(-cx, frame), cz, _standardise(2.0 - cx, frame)])
                cw = np.concatenate([cw[::-1], cw, cw[::-1]])
            densities.append(_ClassDensity(cz, cw, float(ht), self.kernel))
        self._densities = densities
        self._choose_algorithm(max(d.xs.size for d in densities))
        return self

    def _choose_algorithm(self, n_points):
        algorithm = self.algorithm
        if self.method != "deprecated":
            warn_renamed("parameter", "method", "algorithm")
            algorithm = self.method
        if self.kernel != "gaussian":
            self.algorithm_ = "exact"
        elif algorithm == "auto":
            self.algorithm_ = "binned" if n_points > _AUTO_BINNED_ABOVE else "exact"
        else:
            self.algorithm_ = algorithm
        if self.algorithm_ == "binned":
            self._build_grid()

    # ----------------------------------------------------------------- gaussian, binned
    def _build_grid(self):
        from scipy.signal import fftconvolve

        from calibbook._kernels.kde import linear_binning

        dens = self._densities
        h_min, h_max = min(d.h for d in dens), max(d.h for d in dens)
        lo = min(d.xs[0] for d in dens) - 6.0 * h_max
        hi = max(d.xs[-1] for d in dens) + 6.0 * h_max
        n_grid = math.ceil((hi - lo) / (h_min / _GRID_POINTS_PER_BANDWIDTH)) + 1
        n_grid = min(_MAX_GRID, n_grid)
        delta = (hi - lo) / (n_grid - 1)
        grid_values = []
        error = 0.0
        for d in dens:
            counts = linear_binning(d.xs, d.w, lo, delta, n_grid)
            reach = min(n_grid - 1, math.ceil(40.0 * d.h / delta))  # exp(-800) == 0.0
            u = np.arange(-reach, reach + 1) * (delta / d.h)
            conv = fftconvolve(counts, np.exp(-0.5 * u * u), mode="same")
            grid_values.append(np.maximum(conv, 0.0) / d.h)
            error += delta**2 / 4.0 * d.w.sum() / d.h**3
        self._grid = (lo, delta, n_grid, grid_values[0], grid_values[1])
        self._grid_floor = error * (1.0 / self.binned_tol + 2.0)
        self.grid_spacing_ = float(_to_user_units(delta, self._frame))

    # ----------------------------------------------------------------- prediction
    def _posterior_gaussian_exact(self, x):
        d0, d1 = self._densities
        # Beyond 1e140 bandwidths from the data the posterior has long reached its limit;
        # clipping there keeps (distance / h)^2 finite for any double query.
        reach = 1e140 * min(d0.h, d1.h)
        x = np.clip(x, min(d0.xs[0], d1.xs[0]) - reach, max(d0.xs[-1], d1.xs[-1]) + reach)
        ls0, n0 = d0.gaussian_log_sums(x)
        ls1, n1 = d1.gaussian_log_sums(x)
        # z = log(S_0 / h_0) - log(S_1 / h_1); the quadratic terms are differenced in
        # factored form when h_0 == h_1, exact to rounding however far x lies
        if d0.h == d1.h:
            quad = (n1 - n0) * (2.0 * x - n0 - n1) / (2.0 * d0.h**2)
        else:
            quad = (x - n0) ** 2 / (2.0 * d0.h**2) - (x - n1) ** 2 / (2.0 * d1.h**2)
        log_a, log_b = ls1 - math.log(d1.h), ls0 - math.log(d0.h) - quad
        return expit(log_a - log_b)  # a / (a + b)

    def _posterior_gaussian_binned(self, x, clip=(-np.inf, np.inf)):
        """Binned posterior of x (features, not yet standardised) clipped to ``clip``; the exact
        sums off the grid or where the binned sums are too small for ``binned_tol`` (one
        compiled pass that also standardises, no temporaries)."""
        from calibbook._kernels.kde import binned_posterior

        lo, delta, n_grid, b_grid, a_grid = self._grid
        f = self._frame
        frame = (float(f.centre), bool(f.halve), float(f.f1), float(f.f2), _FAR)
        p = np.empty_like(x)
        floor = self._grid_floor
        bad = binned_posterior(x, *clip, frame, lo, delta, n_grid, a_grid, b_grid, floor, p)
        if bad.size:
            p[bad] = self._posterior_gaussian_exact(_standardise(np.clip(x[bad], *clip), f))
        return p

    def _posterior_compact(self, x, fallback=True):
        d0, d1 = self._densities
        a = d1.compact_sums(x) / d1.h
        b = d0.compact_sums(x) / d0.h
        total = a + b
        p = np.empty_like(x)
        ok = total > 0
        p[ok] = a[ok] / total[ok]
        if ok.all():
            return p
        if not fallback:  # a training score with no usable mass of its own (weights 1e11 apart)
            p[~ok] = self.class_prior_[1]
            return p
        # no training score within reach: use the estimate at the nearest training score
        xq = x[~ok]
        support = self._z_support
        k = np.searchsorted(support, xq)
        left = support[np.clip(k - 1, 0, support.size - 1)]
        right = support[np.clip(k, 0, support.size - 1)]
        p_left = self._posterior_compact(left, fallback=False)
        p_right = self._posterior_compact(right, fallback=False)
        d_left, d_right = np.abs(xq - left), np.abs(right - xq)
        nearer_right = np.where(d_right < d_left, p_right, 0.5 * (p_left + p_right))
        p[~ok] = np.where(d_left < d_right, p_left, nearer_right)
        return p

    def _predict(self, scores):
        if self._z_support.size == 1:  # constant training scores: the base rate
            return np.full(scores.shape, self.class_prior_[1])
        x = self._features(scores)
        # clipping the features is clipping the scores: the logit is increasing
        clip = self._x_range if self.out_of_bounds == "clip" else (-np.inf, np.inf)
        if self.kernel == "gaussian" and self.algorithm_ == "binned":
            return self._posterior_gaussian_binned(x, clip)  # clip, standardise, sums: one pass
        z = _standardise(np.clip(x, *clip), self._frame)
        if self.kernel != "gaussian":
            return self._posterior_compact(z)
        return self._posterior_gaussian_exact(z)
