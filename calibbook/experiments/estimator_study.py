r"""Which calibration-error estimator to trust: a simulation study with known truths.

Predictions :math:`p` are drawn from a known density :math:`g` on [0, 1] and labels from
:math:`y \mid p \sim \mathrm{Bernoulli}(f(p))`, with a known calibration map :math:`f`.
Every quantity an estimator aims at is then a number that quadrature gives exactly:

* the **true ECE** :math:`\int_0^1 |f(p) - p|\, g(p)\, dp` and the **true squared error**
  :math:`\int_0^1 (f(p) - p)^2 g(p)\, dp` (:func:`true_ece`, :func:`true_squared_error`);
* the **binned** population error that a binned estimator with K fixed bins converges to,
  :math:`\sum_k P_k |E[f(p) \mid k] - E[p \mid k]|` (squared for the l2 estimators), with
  equal-width bins or bins at the quantiles of :math:`g` (:func:`binned_error`);
* the **smooth ECE** of the population, the kernel-smoothed residual of the population at
  the bandwidth that is its own fixed point (:func:`smooth_ece_target`);
* the population **calibration intercept and slope** (Cox's recalibration model fitted to
  the population) and the drift :math:`E[(f(p) - p)(1 - 2p)]` of Spiegelhalter's
  statistic (:func:`calibration_test_targets`): a test's power tends to 1 with N exactly when its
  population counterpart departs from the null.

:func:`run_study` draws the replications and applies the estimators and tests of
:mod:`calibbook.metrics` to each; :func:`summarise_study` reduces them to bias, spread,
error and rejection rates. ``scripts/run_estimator_study.py`` runs the full study, and
:doc:`/book/appendix_estimators` reads it.
"""

from __future__ import annotations

import functools
import itertools
import zlib

import numpy as np

from calibbook._utils.deprecation import renamed_parameter
from calibbook._utils.optional import require
from calibbook._utils.params import (
    Integral,
    Interval,
    Options,
    Real,
    check_random_state,
    validate_params,
)

__all__ = [
    "DENSITY_SHAPE",
    "MAP_PARAMETERS",
    "binned_error",
    "calibration_maps",
    "calibration_test_targets",
    "draw_sample",
    "population_targets",
    "prediction_density",
    "run_study",
    "smooth_ece_target",
    "summarise_study",
    "true_ece",
    "true_squared_error",
]

#: Strengths of the miscalibrated maps, the slopes b of ``expit(b logit p)`` of the
#: over- and under-confident maps and the amplitude a of ``p + a sin(3.5 pi p)``.
MAP_PARAMETERS = {"over_slope": 0.7, "under_slope": 1.4, "wiggle": 0.12}

#: Beta shape parameters of the default prediction density (mean 1/3, none at 0 or 1).
DENSITY_SHAPE = (2.0, 4.0)

# midpoints of the grid on which the population smooth ECE is integrated
_SMOOTH_GRID = 20_000
# Gauss-Legendre nodes of the tests' population expectations
_GAUSS_NODES = 2000
# the estimators computed in every replication, with their kind
_ECE, _SQUARED, _PVALUE, _COVERAGE, _AUX = "ECE", "squared", "p-value", "coverage", "auxiliary"


# ---------------------------------------------------------------------------
# the known world: maps and density
# ---------------------------------------------------------------------------
def _expit(x):
    return 0.5 * (1.0 + np.tanh(0.5 * x))  # 1 / (1 + exp(-x)) without overflow


def _identity(p):
    return np.array(p, dtype=np.float64)


def _logistic_map(p, slope):
    p = np.asarray(p, dtype=np.float64)
    with np.errstate(divide="ignore"):
        x = np.log(p) - np.log1p(-p)
    return _expit(slope * x)


def _wiggle_map(p, amplitude):
    p = np.asarray(p, dtype=np.float64)
    return p + amplitude * np.sin(3.5 * np.pi * p)


@validate_params(
    {
        "over_slope": [None, Interval(Real, 0.0, 1.0, closed="neither")],
        "under_slope": [None, Interval(Real, 1.0, None, closed="neither")],
        # above 1/4 the non-monotone map would leave [0, 1]
        "wiggle": [None, Interval(Real, 0.0, 0.25, closed="right")],
    }
)
def calibration_maps(over_slope=None, under_slope=None, wiggle=None):
    r"""The four calibration maps :math:`f(p) = P(y = 1 \mid p)` of the study.

    * ``"calibrated"``: :math:`f(p) = p`;
    * ``"over-confident"``: :math:`f(p) = \operatorname{expit}(b \operatorname{logit} p)`
      with b < 1: the truth is less extreme than the prediction (Cox slope b);
    * ``"under-confident"``: the same with b > 1;
    * ``"non-monotone"``: :math:`f(p) = p + a \sin(3.5 \pi p)`, which decreases where
      :math:`3.5 \pi a \cos(3.5 \pi p) < -1`, hence somewhere for a > 1/(3.5 pi) ~ 0.091; it
      stays in [0, 1] for a <= 1/4 and crosses the diagonal at 2/7, 4/7 and 6/7, away from
      the edges of 5, 10, 15 or 20 equal-width bins (a crossing on a bin edge would let
      that binning lose nothing, by luck); f(1) = 1 - a.

    Parameters
    ----------
    over_slope, under_slope, wiggle : float, optional
        b of the over-confident map (in (0, 1)), b of the under-confident map (> 1) and
        the amplitude a (in (0, 1/4]); by default those of :data:`MAP_PARAMETERS`.

    Returns
    -------
    dict
        Name to a vectorised function from predictions to true probabilities.

    Raises
    ------
    ValueError
        If a strength is outside its range.

    References
    ----------
    Cox, "Two further applications of a model for binary regression", Biometrika 45
    (1958) (the logistic recalibration family).

    See Also
    --------
    calibbook.datasets.calibration_map : Stronger distortions used elsewhere in the book.

    Examples
    --------
    >>> from calibbook.experiments.estimator_study import calibration_maps
    >>> maps = calibration_maps()
    >>> list(maps)
    ['calibrated', 'over-confident', 'under-confident', 'non-monotone']
    >>> f_over, f_under = maps["over-confident"], maps["under-confident"]
    >>> round(float(f_over(0.1)), 3), round(float(f_under(0.1)), 3)
    (0.177, 0.044)

    A prediction of 0.1 comes true 17.7% of the time when over-confident
    (:math:`\operatorname{expit}(0.7 \operatorname{logit} 0.1)`), 4.4% when under-confident.

    :doc:`/book/appendix_estimators` draws them.
    """
    over = MAP_PARAMETERS["over_slope"] if over_slope is None else float(over_slope)
    under = MAP_PARAMETERS["under_slope"] if under_slope is None else float(under_slope)
    amp = MAP_PARAMETERS["wiggle"] if wiggle is None else float(wiggle)
    return {
        "calibrated": _identity,
        "over-confident": functools.partial(_logistic_map, slope=over),
        "under-confident": functools.partial(_logistic_map, slope=under),
        "non-monotone": functools.partial(_wiggle_map, amplitude=amp),
    }


@validate_params(
    {
        "a": [None, Interval(Real, 0.0, None, closed="neither")],
        "b": [None, Interval(Real, 0.0, None, closed="neither")],
    }
)
def prediction_density(a=None, b=None):
    """The density of the predictions: a Beta distribution (default Beta(2, 4)).

    Beta(2, 4) has mean 1/3 and no mass at 0 or 1: most predictions are low, few are above
    0.7, as for a classifier of a minority class. Equal-width bins are then uneven in
    count, and equal-mass bins differ from them.

    Parameters
    ----------
    a, b : float, optional
        The shape parameters; by default :data:`DENSITY_SHAPE`.

    Returns
    -------
    scipy.stats.rv_continuous frozen distribution
        With ``pdf``, ``ppf`` and ``rvs``.

    Raises
    ------
    ValueError
        If a shape parameter is not positive.

    References
    ----------
    Naeini, Cooper & Hauskrecht, "Obtaining well calibrated probabilities using Bayesian
    binning", AAAI 2015 (simulations with a known prediction density and calibration map).

    Examples
    --------
    >>> from calibbook.experiments.estimator_study import prediction_density
    >>> round(float(prediction_density().mean()), 4)
    0.3333

    :doc:`/book/appendix_estimators` uses it.
    """
    from scipy import stats

    a = DENSITY_SHAPE[0] if a is None else float(a)
    b = DENSITY_SHAPE[1] if b is None else float(b)
    return stats.beta(a, b)


@validate_params(
    {"calibration_map": ["callable"], "n": [Interval(Integral, 1, None)], "rng": ["random_state"]}
)
def draw_sample(calibration_map, density, n, rng):
    """Predictions from ``density`` and labels from ``Bernoulli(calibration_map(p))``.

    Parameters
    ----------
    calibration_map : callable
        Vectorised map from predictions to true probabilities.
    density : frozen scipy distribution on [0, 1]
        The predictions' distribution.
    n : int
        Sample size.
    rng : numpy.random.Generator, int, None or numpy.random.RandomState
        Source of randomness (the predictions first, then one uniform per label). A
        Generator is used, and advanced, as it is; a seed, None or a RandomState gives a
        new one, as every ``random_state`` of calibbook does.

    Returns
    -------
    p : ndarray of shape (n,)
        Predictions.
    y : ndarray of shape (n,), int64
        Labels.

    Raises
    ------
    ValueError
        If ``n`` is not a positive integer.

    References
    ----------
    Naeini, Cooper & Hauskrecht, AAAI 2015 (simulations with a known calibration map).

    Examples
    --------
    >>> import numpy as np
    >>> from calibbook.experiments.estimator_study import (
    ...     calibration_maps, draw_sample, prediction_density)
    >>> p, y = draw_sample(calibration_maps()["calibrated"], prediction_density(), 5,
    ...                    np.random.default_rng(0))
    >>> p.shape, y.dtype.name
    ((5,), 'int64')

    :doc:`/book/appendix_estimators` draws its replications with it.
    """
    rng = check_random_state(rng)
    p = np.asarray(density.rvs(size=int(n), random_state=rng), dtype=np.float64)
    y = (rng.random(int(n)) < calibration_map(p)).astype(np.int64)
    return p, y


# ---------------------------------------------------------------------------
# truths by quadrature
# ---------------------------------------------------------------------------
def _crossings(calibration_map, lo=0.0, hi=1.0, points=4001):
    """The points in (lo, hi) where f(p) - p changes sign (breakpoints for quad)."""
    from scipy.optimize import brentq

    t = np.linspace(lo, hi, points)[1:-1]
    d = calibration_map(t) - t
    if not d.any():  # calibrated: nothing to split at
        return []
    out = []
    for i in np.flatnonzero(np.sign(d[:-1]) * np.sign(d[1:]) < 0):
        out.append(brentq(lambda s: float(calibration_map(s) - s), t[i], t[i + 1], xtol=1e-14))
    out.extend(t[d == 0.0])
    return sorted(out)


def _pdf(density):
    """A fast scalar density function (the frozen distribution's ``pdf`` costs ~50 us a call)."""
    import math

    from scipy import stats

    dist = getattr(density, "dist", None)
    if isinstance(dist, type(stats.beta)) and not density.kwds and len(density.args) == 2:
        a, b = (float(v) for v in density.args)
        log_norm = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)

        def pdf(s):
            if s <= 0.0 or s >= 1.0:
                return float(density.pdf(s))  # the limits at the ends
            return math.exp(log_norm + (a - 1.0) * math.log(s) + (b - 1.0) * math.log1p(-s))

        return pdf
    return density.pdf


def _quad(func, lo, hi, breaks=()):
    from scipy import integrate

    inner = [b for b in breaks if lo < b < hi]
    value, _ = integrate.quad(
        func, lo, hi, points=inner or None, limit=500, epsabs=1e-13, epsrel=1e-11
    )
    return value


def true_ece(calibration_map, density):
    r"""The true expected calibration error :math:`\int_0^1 |f(p) - p|\, g(p)\, dp`.

    Parameters
    ----------
    calibration_map : callable
        The map f.
    density : frozen scipy distribution on [0, 1]
        The density g of the predictions.

    Returns
    -------
    float
        The integral, by adaptive quadrature (scipy's ``quad``) split at the points where
        f crosses the diagonal.

    References
    ----------
    Naeini, Cooper & Hauskrecht, AAAI 2015 (the ECE); Kumar, Liang & Ma, "Verified
    uncertainty calibration", NeurIPS 2019 (the population calibration error).

    Examples
    --------
    >>> from calibbook.experiments.estimator_study import (
    ...     calibration_maps, prediction_density, true_ece)
    >>> maps, g = calibration_maps(), prediction_density()
    >>> true_ece(maps["calibrated"], g)
    0.0
    >>> round(true_ece(maps["over-confident"], g), 4)
    0.0498

    :doc:`/book/appendix_estimators` measures the estimators against it.
    """
    breaks, pdf = _crossings(calibration_map), _pdf(density)
    return float(_quad(lambda s: abs(float(calibration_map(s)) - s) * pdf(s), 0.0, 1.0, breaks))


def true_squared_error(calibration_map, density):
    r"""The true squared calibration error :math:`\int_0^1 (f(p) - p)^2 g(p)\, dp`.

    Parameters
    ----------
    calibration_map : callable
        The map f.
    density : frozen scipy distribution on [0, 1]
        The density g of the predictions.

    Returns
    -------
    float
        The integral (scipy's ``quad``).

    References
    ----------
    Kumar, Liang & Ma, "Verified uncertainty calibration", NeurIPS 2019 (the l2
    calibration error).

    Examples
    --------
    >>> from calibbook.experiments.estimator_study import (
    ...     calibration_maps, prediction_density, true_squared_error)
    >>> f, g = calibration_maps()["over-confident"], prediction_density()
    >>> round(true_squared_error(f, g) ** 0.5, 4)
    0.0555

    :doc:`/book/appendix_estimators` measures the debiased estimator against it.
    """
    pdf = _pdf(density)
    return float(_quad(lambda s: (float(calibration_map(s)) - s) ** 2 * pdf(s), 0.0, 1.0))


def _bin_edges(density, n_bins, strategy):
    """Equal-width edges, or the density's quantiles (``binned_error`` checked ``strategy``)."""
    if strategy == "uniform":
        return np.linspace(0.0, 1.0, n_bins + 1)
    edges = density.ppf(np.linspace(0.0, 1.0, n_bins + 1))
    edges[0], edges[-1] = 0.0, 1.0
    return edges


@functools.lru_cache(maxsize=4096)
def _binned_cached(calibration_map, density, n_bins, strategy, squared):
    edges = _bin_edges(density, n_bins, strategy)
    breaks, pdf = _crossings(calibration_map), _pdf(density)
    total = 0.0
    for lo, hi in itertools.pairwise(edges):
        mass = _quad(pdf, lo, hi)
        if mass <= 0.0:
            continue
        gap = _quad(lambda s: (float(calibration_map(s)) - s) * pdf(s), lo, hi, breaks)
        total += gap * gap / mass if squared else abs(gap)
    return float(total)


#: The binnings of :func:`binned_error`.
_TARGET_STRATEGIES = ("uniform", "quantile")


@validate_params(
    {
        "calibration_map": ["callable"],
        "n_bins": [Interval(Integral, 1, None)],
        "strategy": [Options(*_TARGET_STRATEGIES)],
        "squared": ["boolean"],
    }
)
def binned_error(calibration_map, density, n_bins, strategy="uniform", squared=False):
    r"""The population binned calibration error, the limit of a binned estimator with K bins.

    With bins :math:`B_k` (equal width, or cut at the quantiles :math:`G^{-1}(k/K)` of the
    prediction density), :math:`P_k = \int_{B_k} g`, :math:`\bar p_k = E[p \mid B_k]` and
    :math:`\bar f_k = E[f(p) \mid B_k]`,

    .. math::

        \mathrm{ECE}_K = \sum_k P_k |\bar f_k - \bar p_k|, \qquad
        \mathrm{CE}^2_K = \sum_k P_k (\bar f_k - \bar p_k)^2 .

    By Jensen's inequality both are at most their unbinned counterparts,
    :func:`true_ece` and :func:`true_squared_error`: averaging over a bin can cancel
    gaps of opposite sign and shrinks squared gaps.

    Parameters
    ----------
    calibration_map : callable
        The map f.
    density : frozen scipy distribution on [0, 1]
        The density g of the predictions.
    n_bins : int
        Number of bins K.
    strategy : {"uniform", "quantile"}, default "uniform"
        Equal-width bins, or equal-mass bins at the population quantiles.
    squared : bool, default False
        Return :math:`\mathrm{CE}^2_K` instead of :math:`\mathrm{ECE}_K`.

    Returns
    -------
    float
        The population quantity (scipy's ``quad`` per bin; cached).

    Raises
    ------
    ValueError
        If ``n_bins`` is not a positive integer or ``strategy`` is unknown.

    References
    ----------
    Kumar, Liang & Ma, "Verified uncertainty calibration", NeurIPS 2019 (the binned
    error as a lower bound); Roelofs, Cain, Shlens & Mozer, "Mitigating bias in calibration
    error estimation", AISTATS 2022.

    Examples
    --------
    >>> from calibbook.experiments.estimator_study import (
    ...     binned_error, calibration_maps, prediction_density, true_ece)
    >>> f, g = calibration_maps()["non-monotone"], prediction_density()
    >>> coarse, fine = binned_error(f, g, 2), binned_error(f, g, 20)
    >>> round(coarse, 4), round(fine, 4), round(true_ece(f, g), 4)
    (0.0095, 0.0774, 0.0786)

    Two equal-width bins average the wiggle's gaps of both signs nearly away; twenty come
    close to the true ECE, from below.

    :doc:`/book/appendix_estimators` measures the binned estimators against it.
    """
    # cached per (map, density) object: the study asks for the same targets many times
    return _binned_cached(calibration_map, density, int(n_bins), strategy, bool(squared))


def _reflected_smooth(values, sigma):
    """The reflected Gaussian smoothing of midpoint values on [0, 1] (midpoint rule).

    ``values`` are a function's values at the M midpoints (i + 1/2) / M; returns, at the
    same points, the integral of the function times the Gaussian density of sd ``sigma``
    reflected once about 0 and once about 1, by FFT convolution.
    """
    from scipy.signal import fftconvolve

    m = values.shape[0]
    dx = 1.0 / m
    reach = min(int(np.ceil(12.0 * sigma / dx)), m)
    offsets = np.arange(-reach, reach + 1) * dx
    kernel = np.exp(-0.5 * (offsets / sigma) ** 2) * dx / (sigma * np.sqrt(2.0 * np.pi))
    extended = np.concatenate((values[::-1], values, values[::-1]))
    return fftconvolve(extended, kernel, mode="same")[m : 2 * m]


def smooth_ece_at(calibration_map, density, bandwidth, grid=_SMOOTH_GRID):
    r"""The population smooth ECE at a fixed bandwidth.

    :math:`\int_0^1 |r(t)|\,dt / \int_0^1 \delta(t)\,dt` with
    :math:`r(t) = \int_0^1 (p - f(p)) g(p) K_\sigma(t, p)\,dp` and
    :math:`\delta(t) = \int_0^1 g(p) K_\sigma(t, p)\,dp`, where :math:`K_\sigma` is the
    Gaussian kernel reflected at 0 and 1 (midpoint rule on ``grid`` points, FFT
    convolution).
    """
    t = (np.arange(grid) + 0.5) / grid
    g = density.pdf(t)
    residual = _reflected_smooth((t - calibration_map(t)) * g, bandwidth)
    mass = _reflected_smooth(g, bandwidth)
    return float(np.sum(np.abs(residual)) / np.sum(mass))


@validate_params({"calibration_map": ["callable"], "grid": [Interval(Integral, 1000, None)]})
def smooth_ece_target(calibration_map, density, grid=_SMOOTH_GRID):
    r"""The population smooth ECE at its fixed-point bandwidth, and that bandwidth.

    The population counterpart of :func:`calibbook.metrics.smooth_ece`: the smoothed
    residual of the population and its smooth ECE,

    .. math::

        r_\sigma(t) = \int_0^1 (p - f(p))\, g(p)\, K_\sigma(t, p)\, dp,

    .. math::

        \mathrm{smECE}_\sigma = \frac{\int_0^1 |r_\sigma(t)|\, dt}
                                     {\int_0^1 \int_0^1 g(p) K_\sigma(t, p)\, dp\, dt},

    with :math:`K_\sigma` the Gaussian kernel of sd :math:`\sigma` reflected at 0 and 1,
    at the bandwidth :math:`\sigma^*` with :math:`\sigma^* = \mathrm{smECE}_{\sigma^*}`.
    :math:`\mathrm{smECE}_\sigma` falls as :math:`\sigma` grows (more smoothing cancels
    more), so the fixed point is unique; it is 0 for a calibrated map.

    Parameters
    ----------
    calibration_map : callable
        The map f.
    density : frozen scipy distribution on [0, 1]
        The density g of the predictions.
    grid : int, default 20000
        Midpoints of the integration grid (the kernel integrals are midpoint sums,
        computed by FFT convolution).

    Returns
    -------
    (float, float)
        :math:`\mathrm{smECE}_{\sigma^*}` and :math:`\sigma^*` (Brent's method).

    Raises
    ------
    ValueError
        If ``grid`` is below 1000.

    Notes
    -----
    The sample estimator rounds its bandwidth up to a multiple of 1/1024 and integrates
    on relplot's grids (see :func:`calibbook.metrics.smooth_ece`); both differences are
    far below the Monte-Carlo error of the study. A calibrated map has
    :math:`r_\sigma \equiv 0` for every bandwidth: the target is then 0.

    References
    ----------
    Blasiok & Nakkiran, "Smooth ECE: Principled reliability diagrams via kernel
    smoothing", ICLR 2024.

    Examples
    --------
    >>> from calibbook.experiments.estimator_study import (
    ...     calibration_maps, prediction_density, smooth_ece_target)
    >>> over = calibration_maps()["over-confident"]
    >>> value, sigma = smooth_ece_target(over, prediction_density())
    >>> round(value, 4), round(sigma, 4)
    (0.0488, 0.0488)

    :doc:`/book/appendix_estimators` measures the smooth ECE against it.
    """
    from scipy.optimize import brentq

    grid = int(grid)
    t = (np.arange(grid) + 0.5) / grid
    if np.allclose(calibration_map(t), t, rtol=0.0, atol=1e-15):
        return 0.0, 0.0
    lo, hi = 20.0 / grid, 0.5
    at_lo = smooth_ece_at(calibration_map, density, lo, grid)
    if at_lo <= lo:  # a miscalibration below the grid's resolution
        return at_lo, lo
    sigma = brentq(
        lambda s: smooth_ece_at(calibration_map, density, s, grid) - s,
        lo,
        hi,
        xtol=1e-10,
        rtol=1e-10,
    )
    return smooth_ece_at(calibration_map, density, sigma, grid), float(sigma)


@functools.lru_cache(maxsize=4)
def _gauss_legendre(n):
    from scipy.special import roots_legendre

    return roots_legendre(n)


def calibration_test_targets(calibration_map, density):
    r"""The population counterparts of the calibration tests.

    * **Cox intercept and slope**: the logistic recalibration model
      :math:`\operatorname{logit} P(y = 1) = a + b \operatorname{logit} p` fitted to the
      population (the solution of its score equations :math:`E[(f(p) - \operatorname{expit}
      (a + b x))(1, x)] = 0`, :math:`x = \operatorname{logit} p`), and the intercept with the
      slope fixed at 1 (:math:`E[f(p) - \operatorname{expit}(a + x)] = 0`). The sample
      estimates converge to them.
    * **Spiegelhalter drift** :math:`d = E[(f(p) - p)(1 - 2p)]` and the null variance
      :math:`v_0 = E[(1 - 2p)^2 p (1 - p)]`: Spiegelhalter's Z grows like
      :math:`\sqrt{N}\, d / \sqrt{v_0}`, so its power tends to 1 exactly when d != 0.

    Parameters
    ----------
    calibration_map : callable
        The map f.
    density : frozen scipy distribution on [0, 1]
        The density g of the predictions.

    Returns
    -------
    dict
        ``intercept``, ``slope`` (Cox's model), ``intercept_offset`` (slope fixed at 1),
        ``spiegelhalter_drift`` and ``spiegelhalter_null_variance``.

    References
    ----------
    Cox, "Two further applications of a model for binary regression", Biometrika 45
    (1958); Spiegelhalter, "Probabilistic prediction in patient management and clinical
    trials", Statistics in Medicine 5 (1986).

    Examples
    --------
    >>> from calibbook.experiments.estimator_study import (
    ...     calibration_maps, prediction_density, calibration_test_targets)
    >>> over = calibration_maps()["over-confident"]
    >>> t = calibration_test_targets(over, prediction_density())
    >>> round(t["slope"], 6), round(t["intercept"], 6)
    (0.7, 0.0)

    The over-confident map is Cox's model itself, so the fit recovers its slope.
    :doc:`/book/appendix_estimators` reads the tests' power against these.
    """
    from scipy.optimize import brentq

    # Gauss-Legendre nodes on (0, 1): the integrands are smooth inside, and the density
    # weights damp the logit's growth at the ends
    nodes, weights = _gauss_legendre(_GAUSS_NODES)
    s = 0.5 * (nodes + 1.0)
    w = 0.5 * weights * density.pdf(s)
    f, x = calibration_map(s), np.log(s) - np.log1p(-s)
    offset = brentq(lambda a: float(w @ (f - _expit(a + x))), -20.0, 20.0, xtol=1e-13)
    a, b = offset, 1.0
    for _ in range(100):  # Newton on the score equations of the logistic fit
        q = _expit(a + b * x)
        r, h = w * (f - q), w * q * (1.0 - q)
        score = np.array([r.sum(), r @ x])
        info = np.array([[h.sum(), h @ x], [h @ x, h @ (x * x)]])
        step = np.linalg.solve(info, score)
        a, b = a + step[0], b + step[1]
        if np.abs(step).max() < 1e-13:
            break
    drift = float(w @ ((f - s) * (1.0 - 2.0 * s)))
    null_var = float(w @ ((1.0 - 2.0 * s) ** 2 * s * (1.0 - s)))
    return {
        "intercept": float(a),
        "slope": float(b),
        "intercept_offset": float(offset),
        "spiegelhalter_drift": float(drift),
        "spiegelhalter_null_variance": float(null_var),
    }


def population_targets(maps, density, bin_counts=(5, 10, 15, 20), debiased_bins=15):
    """Every population quantity of the study, one row per map.

    Parameters
    ----------
    maps : dict
        Name to calibration map.
    density : frozen scipy distribution on [0, 1]
        The density of the predictions.
    bin_counts : sequence of int, default (5, 10, 15, 20)
        The K of the binned targets.
    debiased_bins : int, default 15
        Bins (equal mass) of the squared-error estimators.

    Returns
    -------
    pandas.DataFrame
        Indexed by map: ``true ECE``, ``true CE2`` (squared error), ``ECE uniform K=k`` and
        ``ECE quantile K=k`` (binned targets), ``CE2 quantile K=...``, ``smooth ECE``,
        ``smooth bandwidth`` and the entries of :func:`calibration_test_targets`.

    References
    ----------
    Kumar, Liang & Ma, NeurIPS 2019; Blasiok & Nakkiran, ICLR 2024; Cox, Biometrika
    1958; Spiegelhalter, Statistics in Medicine 1986.

    Examples
    --------
    >>> from calibbook.experiments.estimator_study import (
    ...     calibration_maps, population_targets, prediction_density)
    >>> maps = calibration_maps()
    >>> table = population_targets(
    ...     {"calibrated": maps["calibrated"]}, prediction_density(),
    ...     bin_counts=(10,))
    >>> row = table.loc["calibrated"]
    >>> float(row["true ECE"]), float(row["slope"])
    (0.0, 1.0)

    :doc:`/book/appendix_estimators` shows this table.
    """
    pd = require("pandas", "experiments")

    rows = {}
    for name, f in maps.items():
        row = {"true ECE": true_ece(f, density), "true CE2": true_squared_error(f, density)}
        for k in bin_counts:
            for strategy in ("uniform", "quantile"):
                row[f"ECE {strategy} K={k}"] = binned_error(f, density, k, strategy)
        row[f"CE2 quantile K={debiased_bins}"] = binned_error(
            f, density, debiased_bins, "quantile", squared=True
        )
        row["smooth ECE"], row["smooth bandwidth"] = smooth_ece_target(f, density)
        row.update(calibration_test_targets(f, density))
        rows[name] = row
    return pd.DataFrame(rows).T.rename_axis("map")


# ---------------------------------------------------------------------------
# the replications
# ---------------------------------------------------------------------------
def _rng(seed, name, n, rep):
    """The generator of one replication: the same for a (seed, map, N, rep) in any slice."""
    return np.random.default_rng([int(seed), zlib.crc32(name.encode()), int(n), int(rep)])


def _replicate(
    f, density, n, rng, bin_counts, debiased_bins, band_bins, band_confidence, n_resamples
):
    """One replication: (estimator, kind, value, sweep bins) for every estimator and test."""
    from calibbook import metrics as m

    p, y = draw_sample(f, density, n, rng)
    out = []
    for k in bin_counts:
        for strategy in ("uniform", "quantile"):
            value = m.expected_calibration_error(y, p, n_bins=k, strategy=strategy)
            out.append((f"ECE {strategy} K={k}", _ECE, value))
    value, b = m.ece_sweep(y, p, return_n_bins=True)
    out.append(("ECE sweep", _ECE, value))
    out.append(("sweep bins", _AUX, float(b)))
    value, sigma = m.smooth_ece(y, p, return_bandwidth=True)
    out.append(("smooth ECE", _ECE, value))
    out.append(("smooth bandwidth", _AUX, sigma))
    label = f"K={debiased_bins}"
    plug_in = m.brier_decomposition(y, p, n_bins=debiased_bins, strategy="quantile")
    out.append((f"CE2 plug-in {label}", _SQUARED, plug_in["reliability"]))
    debiased = m.debiased_calibration_error(y, p, n_bins=debiased_bins, strategy="quantile")
    out.append((f"CE2 debiased {label}", _SQUARED, debiased))
    out.append((f"sqrt debiased {label}", _ECE + " (l2)", float(np.sqrt(max(debiased, 0.0)))))
    out.append(("Spiegelhalter", _PVALUE, _pvalue(lambda: m.spiegelhalter_test(y, p).pvalue)))
    out.append(
        (
            "Hosmer-Lemeshow",
            _PVALUE,
            _pvalue(lambda: m.hosmer_lemeshow_test(y, p, n_groups=10).pvalue),
        )
    )
    try:
        cox = m.calibration_intercept_slope(y, p)
        intercept, slope = cox.intercept_pvalue, cox.slope_pvalue
    except ValueError:  # separation: no finite slope (never seen at these sizes)
        intercept = slope = np.nan
    out.append(("intercept", _PVALUE, intercept))
    out.append(("slope", _PVALUE, slope))
    if n_resamples:
        bands = m.consistency_bands(
            p,
            n_bins=band_bins,
            confidence=band_confidence,
            n_resamples=n_resamples,
            random_state=rng,
        )
        observed = m.reliability_curve(y, p, n_bins=band_bins)["observed"]
        inside = (bands.lower <= observed.to_numpy()) & (observed.to_numpy() <= bands.upper)
        out.append(("band coverage", _COVERAGE, float(inside.mean())))
        out.append(("band all inside", _COVERAGE, float(inside.all())))
    return out, int(b)


def _pvalue(test):
    try:
        return float(test())
    except ValueError:  # a degenerate sample (never seen at these sizes)
        return np.nan


@renamed_parameter("band_level", "band_confidence")
@validate_params(
    {
        "maps": [dict],
        "sizes": ["array-like"],
        "n_rep": [Interval(Integral, 1, None)],
        "seed": [Interval(Integral, 0, None)],
        "bin_counts": ["array-like"],
        "debiased_bins": [Interval(Integral, 1, None)],
        "band_bins": [Interval(Integral, 1, None)],
        "band_confidence": [Interval(Real, 0.0, 1.0, closed="neither")],
        "n_resamples": [Interval(Integral, 0, None)],
        "first_rep": [Interval(Integral, 0, None)],
    }
)
def run_study(
    maps,
    sizes,
    n_rep,
    seed=2024,
    *,
    density=None,
    bin_counts=(5, 10, 15, 20),
    debiased_bins=15,
    band_bins=10,
    band_confidence=0.9,
    n_resamples=1000,
    first_rep=0,
):
    """Replicate every estimator and test on samples from known calibration maps.

    For each map, size N and replication r, draws N predictions from ``density`` and
    labels from the map, then computes: the binned ECE with equal-width and equal-mass
    bins for each K in ``bin_counts``; the ECE sweep (equal mass, with its number of
    bins); the smooth ECE (with its bandwidth); the plug-in and the debiased squared
    binned error on ``debiased_bins`` equal-mass bins, and the clipped root of the
    debiased one; the p-values of Spiegelhalter's test, the Hosmer-Lemeshow test (10
    groups, no degrees of freedom removed), and the Wald tests of the calibration
    intercept and slope; and, if ``n_resamples``, whether each of the ``band_bins``
    equal-width bins' observed frequency falls inside its consistency band.

    Parameters
    ----------
    maps : dict
        Name to calibration map (see :func:`calibration_maps`).
    sizes : sequence of int
        Sample sizes N.
    n_rep : int
        Replications per map and size.
    seed : int, default 2024
        Root seed. Replication r of map m at size N uses the generator seeded with
        ``(seed, crc32(m), N, r)``, so any slice of the study (fewer maps, sizes or
        replications, or ``first_rep``) reproduces the full study's values exactly.
    density : frozen scipy distribution, optional
        Density of the predictions; :func:`prediction_density` by default.
    bin_counts : sequence of int, default (5, 10, 15, 20)
        The K of the binned ECEs.
    debiased_bins : int, default 15
        Equal-mass bins of the squared-error estimators (Kumar et al.'s default).
    band_bins : int, default 10
        Equal-width bins of the consistency bands.
    band_confidence : float, default 0.9
        Confidence of the consistency bands, in (0, 1) (their ``confidence``). (Called
        ``band_level`` before calibbook 0.2; the old name warns until 0.3.)
    n_resamples : int, default 1000
        Redrawn label sets per band; 0 skips the bands.
    first_rep : int, default 0
        Index of the first replication (to run a study in pieces).

    Returns
    -------
    pandas.DataFrame
        One row per map, N, replication and estimator: ``map``, ``n``, ``rep``,
        ``estimator``, ``kind`` (``"ECE"``, ``"ECE (l2)"``, ``"squared"``, ``"p-value"``,
        ``"coverage"`` or ``"auxiliary"``), ``value``, ``target`` (the estimator's own
        population target: the binned error of its bins, that of the b* bins the sweep
        chose, the population smooth ECE; NaN for tests) and ``truth`` (the unbinned
        error on the estimator's scale: the true ECE, the true squared error, or its root).

    Raises
    ------
    ValueError
        If ``n_rep`` is not a positive integer, a size is below 20, or another parameter
        is outside its range.

    References
    ----------
    Kumar, Liang & Ma, NeurIPS 2019; Roelofs, Cain, Shlens & Mozer, AISTATS 2022;
    Blasiok & Nakkiran, ICLR 2024; Bröcker & Smith, Weather and Forecasting 22 (2007);
    Cox, Biometrika 1958; Spiegelhalter, Statistics in Medicine 1986; Hosmer &
    Lemeshow, Communications in Statistics 1980.

    Examples
    --------
    >>> from calibbook.experiments.estimator_study import calibration_maps, run_study
    >>> maps = calibration_maps()
    >>> df = run_study({"calibrated": maps["calibrated"]}, [200], n_rep=2, n_resamples=0)
    >>> sorted(df.kind.unique())
    ['ECE', 'ECE (l2)', 'auxiliary', 'p-value', 'squared']
    >>> df.groupby("rep").size().tolist()
    [19, 19]

    :doc:`/book/appendix_estimators` runs a slice of it live and reads the full study.
    """
    pd = require("pandas", "experiments")

    if min(sizes) < 20:  # the content of a sequence argument: checked here, not declared
        raise ValueError(f"every size must be at least 20; got {list(sizes)!r}.")
    density = prediction_density() if density is None else density
    columns = {
        "map": [],
        "n": [],
        "rep": [],
        "estimator": [],
        "kind": [],
        "value": [],
        "target": [],
        "truth": [],
    }
    for name, f in maps.items():
        ece, sq = true_ece(f, density), true_squared_error(f, density)
        truth = {_ECE: ece, _SQUARED: sq, _ECE + " (l2)": np.sqrt(sq)}
        targets = {
            f"ECE {s} K={k}": binned_error(f, density, k, s)
            for k in bin_counts
            for s in ("uniform", "quantile")
        }
        sq_target = binned_error(f, density, debiased_bins, "quantile", squared=True)
        targets[f"CE2 plug-in K={debiased_bins}"] = sq_target
        targets[f"CE2 debiased K={debiased_bins}"] = sq_target
        targets[f"sqrt debiased K={debiased_bins}"] = np.sqrt(sq_target)
        targets["smooth ECE"], targets["smooth bandwidth"] = smooth_ece_target(f, density)
        for n in sizes:
            for rep in range(first_rep, first_rep + int(n_rep)):
                rng = _rng(seed, name, n, rep)
                rows, b = _replicate(
                    f,
                    density,
                    int(n),
                    rng,
                    bin_counts,
                    debiased_bins,
                    band_bins,
                    band_confidence,
                    n_resamples,
                )
                for estimator, kind, value in rows:
                    if estimator == "ECE sweep":
                        target = binned_error(f, density, b, "quantile")
                    elif kind == _COVERAGE:
                        target = band_confidence if estimator == "band coverage" else np.nan
                    else:
                        target = targets.get(estimator, np.nan)
                    columns["map"].append(name)
                    columns["n"].append(int(n))
                    columns["rep"].append(rep)
                    columns["estimator"].append(estimator)
                    columns["kind"].append(kind)
                    columns["value"].append(float(value))
                    columns["target"].append(float(target))
                    columns["truth"].append(float(truth.get(kind, np.nan)))
    return pd.DataFrame(columns)


@validate_params({"alpha": [Interval(Real, 0.0, 1.0, closed="neither")]})
def summarise_study(results, alpha=0.05):
    """Bias, spread, error and rejection rates of :func:`run_study`'s replications.

    Parameters
    ----------
    results : pandas.DataFrame
        The output of :func:`run_study` (or several concatenated).
    alpha : float, default 0.05
        Level of the tests: a p-value below it rejects.

    Returns
    -------
    pandas.DataFrame
        One row per map, N and estimator: ``n_rep`` (replications with a value),
        ``mean``, ``sd``, ``q10``, ``q50``, ``q90`` of the value (for a test: of the
        rejection indicator, whose mean is the rejection rate), ``se`` (the Monte-Carlo
        standard error of the mean), ``target`` and ``truth`` (their mean over the
        replications), ``bias`` (mean - target), ``bias_truth`` (mean - truth),
        ``rmse_truth`` (root mean squared distance to the truth) and ``rmse_se`` (its
        Monte-Carlo standard error, by the delta method: the standard error of the mean
        squared error over twice the root).

    Raises
    ------
    ValueError
        If ``alpha`` is not in (0, 1).

    References
    ----------
    Morris, White & Crowther, "Using simulation studies to evaluate statistical methods",
    Statistics in Medicine 38 (2019) (bias, empirical SE, Monte-Carlo SE).

    Examples
    --------
    >>> from calibbook.experiments.estimator_study import (
    ...     calibration_maps, run_study, summarise_study)
    >>> df = run_study({"calibrated": calibration_maps()["calibrated"]}, [200], n_rep=3,
    ...                n_resamples=0)
    >>> summary = summarise_study(df)
    >>> int(summary.set_index("estimator").loc["Spiegelhalter", "n_rep"])
    3

    :doc:`/book/appendix_estimators` draws and tabulates it.
    """
    df = results.copy()
    tests = df["kind"] == _PVALUE
    df.loc[tests, "value"] = np.where(
        df.loc[tests, "value"].isna(), np.nan, (df.loc[tests, "value"] < alpha).astype(float)
    )
    df["sq_err"] = (df["value"] - df["truth"]) ** 2
    keys = ["map", "n", "estimator", "kind"]
    grouped = df.dropna(subset=["value"]).groupby(keys, sort=False)
    out = grouped.agg(
        n_rep=("value", "size"),
        mean=("value", "mean"),
        sd=("value", "std"),
        q10=("value", lambda v: v.quantile(0.1)),
        q50=("value", "median"),
        q90=("value", lambda v: v.quantile(0.9)),
        target=("target", "mean"),
        truth=("truth", "mean"),
        mse_truth=("sq_err", "mean"),
        sd_sq_err=("sq_err", "std"),
    ).reset_index()
    out["se"] = out["sd"] / np.sqrt(out["n_rep"])
    out["bias"] = out["mean"] - out["target"]
    out["bias_truth"] = out["mean"] - out["truth"]
    out["rmse_truth"] = np.sqrt(out.pop("mse_truth"))
    # delta method: the standard error of a mean of squared errors, through the square root
    with np.errstate(divide="ignore", invalid="ignore"):
        out["rmse_se"] = out.pop("sd_sq_err") / np.sqrt(out["n_rep"]) / (2 * out["rmse_truth"])
    return out
