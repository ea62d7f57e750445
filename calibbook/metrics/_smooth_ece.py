r"""Smooth ECE and the smoothed reliability curve of Blasiok & Nakkiran.

The smooth ECE replaces the bins of the ECE by a Gaussian kernel. With
:math:`K_\sigma(t, f)` the :math:`N(f, \sigma^2)` density reflected at 0 and 1,
the smoothed residual and the smoothed density of the predictions are

.. math::

    \hat r(t) = \sum_i w_i (f_i - y_i) K_\sigma(t, f_i), \qquad
    \hat\delta(t) = \sum_i w_i K_\sigma(t, f_i),

and :math:`\mathrm{smECE}_\sigma = \int_0^1 |\hat r(t)|\,dt \,/ \int_0^1 \hat\delta(t)\,dt`,
the :math:`\hat\delta`-weighted mean of :math:`|\hat r / \hat\delta|`. The reliability
curve is the kernel average of the labels,
:math:`\hat\mu(t) = \sum_i w_i y_i K_\sigma(t, f_i) / \hat\delta(t)`, and
:math:`\hat r / \hat\delta = \bar f - \hat\mu` with :math:`\bar f(t)` the kernel
average of the predictions (close to t). The bandwidth is chosen automatically as the
fixed point :math:`\sigma = \mathrm{smECE}_\sigma`.

Everything follows relplot 1.0.3, the authors' package, down to its discretisation,
so that results agree with it to rounding error:

* the rows are spread over the grid :math:`i / (m - 1)` by linear interpolation with
  :math:`m = \lfloor \max(2000, \mathrm{round}(20 / \sigma)) / 2 \rfloor + 1` nodes
  (1001 for :math:`\sigma \ge 0.01`);
* the kernel is the Gaussian density sampled on that grid, mirrored once about each
  end node and cut at distance 1/2; the mirror does not repeat the end nodes, so the
  share of a row on node 0 or node m - 1 keeps only half its kernel mass in [0, 1]:
  predictions exactly at 0 or 1 weigh half as much as the others (for even m the
  kernel also sits half a node off centre, as relplot's does);
* the integrals are sums over :math:`\max(200, \mathrm{round}(10 / \sigma))` evenly
  spaced points, where the grid values are interpolated linearly; a constant
  :math:`10^{-4}` is added to :math:`\hat\delta` at each point, on the scale where a
  row of weight one adds the kernel density (relplot's guard against division by zero);
* "auto" is relplot's search: ten halvings of [0, 1] keeping the smallest
  :math:`\sigma = k / 1024` seen with :math:`\sigma \ge \mathrm{smECE}_\sigma`
  (midpoints below 0.001 count as too small), so the bandwidth is a multiple of
  1/1024, about 1/1024 above the exact fixed point at most.

The speed comes from doing each step once: one numba pass bins all rows (relplot
bins them four times per bandwidth tried with ``np.add.at``), the grid masses are
reused by every bandwidth of the search that shares the grid, and the convolution
skips kernel terms below :math:`e^{-50}` of the peak.
"""

from typing import NamedTuple

import numpy as np

from calibbook._kernels.smooth_ece import (
    grid_masses,
    interpolate_grid,
    interpolated_ratio,
    reflected_smooth,
)
from calibbook._utils.params import Integral, Interval, Options, Real, validate_params
from calibbook._utils.validation import check_probability_input

__all__ = ["SmoothReliabilityCurve", "smooth_ece", "smooth_reliability_curve"]

#: Added to the smoothed density at every evaluation point (relplot's ``smooth(eps=0.0001)``).
DENSITY_EPS = 1e-4
#: Fewest evaluation points of the smooth ECE's integral (relplot's ``smECE_mesh_pts``).
MIN_EVAL_POINTS = 200
#: Halvings of [0, 1] in the bandwidth search, and the bandwidth below which it stops looking.
SEARCH_STEPS = 10
SEARCH_FLOOR = 1e-3
#: Points of the reliability curve by default (relplot's ``plot_mesh_pts``).
CURVE_POINTS = 200
#: Smallest bandwidth accepted: the grid has about 10 / bandwidth nodes.
MIN_BANDWIDTH = 1e-5


class SmoothReliabilityCurve(NamedTuple):
    """The smoothed reliability curve evaluated on a grid of [0, 1]."""

    #: Points t where the curve is evaluated.
    grid: np.ndarray
    #: Kernel-smoothed frequency of positives at each point, an estimate of E[y | f = t].
    observed: np.ndarray
    #: Kernel density of the predictions at each point. It integrates to about 1 over [0, 1]
    #: for bandwidths up to about 0.15 (beyond, the kernel's cut at distance 1/2 shows),
    #: less half the share of the predictions exactly at 0 or 1 (see the module notes).
    density: np.ndarray
    #: The bandwidth sigma used.
    bandwidth: float


def _grid_nodes(sigma):
    """relplot's grid size for bandwidth sigma: 1001 down to 0.01, then about 10 / sigma."""
    return max(2000, round(20.0 / sigma)) // 2 + 1


def _eval_points(sigma):
    """relplot's number of evaluation points of the smooth ECE's integral."""
    return max(round(10.0 / sigma), MIN_EVAL_POINTS)


BANDWIDTH = [Options("auto"), Interval(Real, MIN_BANDWIDTH, None)]


def _validated(y_true, y_prob, sample_weight):
    """Labels, predictions and weights (an empty array for unit weights), and the total weight."""
    y, p, w = check_probability_input(y_true, y_prob, sample_weight)
    if sample_weight is None:
        return y, p, np.empty(0), float(p.shape[0])
    return y, p, w, float(w.sum())


class _SmoothECEAt:
    """smECE_sigma of one data set at any sigma, binning the rows once per grid size."""

    def __init__(self, y, p, w):
        self.y, self.p, self.w = y, p, w
        self.masses = {}

    def grid(self, m):
        if m not in self.masses:
            self.masses[m] = grid_masses(self.p, self.y, self.w, m, True)
        return self.masses[m]

    def __call__(self, sigma):
        mass, resid = self.grid(_grid_nodes(sigma))
        s_resid, s_mass = reflected_smooth(resid, mass, sigma)
        return interpolated_ratio(s_resid, s_mass, _eval_points(sigma), DENSITY_EPS)


def _search(at):
    """relplot's bandwidth search: (sigma, smECE_sigma) with sigma the bracket's upper end.

    The bracket starts as [0, 1] (relplot first tries sigma = 1 itself, which never
    passes: smECE_1 < 1 always) and is halved ten times; a midpoint below the floor, or
    one smaller than its smooth ECE, becomes the lower end, any other the upper end.
    """
    upper, lower = 1.0, 0.0
    value = None
    for _ in range(SEARCH_STEPS):
        mid = (upper + lower) / 2.0
        ece = None if mid < SEARCH_FLOOR else at(mid)
        if ece is None or mid < ece:
            lower = mid
        else:
            upper, value = mid, ece
    return upper, (at(upper) if value is None else value)


@validate_params({"bandwidth": BANDWIDTH, "return_bandwidth": ["boolean"]})
def smooth_ece(y_true, y_prob, *, bandwidth="auto", sample_weight=None, return_bandwidth=False):
    r"""Smooth expected calibration error (SmoothECE) of Blasiok & Nakkiran.

    The ECE of the kernel-smoothed residuals: with a Gaussian kernel of bandwidth
    :math:`\sigma` reflected at 0 and 1, :math:`\hat r(t) = \sum_i w_i (f_i - y_i)
    K_\sigma(t, f_i)` and :math:`\hat\delta(t) = \sum_i w_i K_\sigma(t, f_i)`,

    .. math:: \mathrm{smECE}_\sigma = \frac{\int_0^1 |\hat r(t)|\,dt}{\int_0^1 \hat\delta(t)\,dt}.

    It has no bins to choose, and with the automatic bandwidth (the fixed point
    :math:`\sigma = \mathrm{smECE}_\sigma`) it is a consistent calibration measure: within
    constant factors of the distance to the nearest perfectly calibrated predictor.
    Computed as relplot (the authors' package) computes it, to rounding error.
    :doc:`/book/appendix_estimators` measures its bias and spread against the
    binned ECE's.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Binary labels in {0, 1}.
    y_prob : array-like of shape (n,)
        Predicted probabilities of the positive class, in [0, 1].
    bandwidth : "auto" or float, default="auto"
        Kernel bandwidth :math:`\sigma`, at least 1e-5. "auto" is relplot's choice: the
        smallest multiple of 1/1024 (and at least 2/1024) with
        :math:`\sigma \ge \mathrm{smECE}_\sigma` found by its ten-step bisection, which is
        the fixed point rounded up to 1/1024.
    sample_weight : array-like of shape (n,), optional
        Non-negative weights: a row's kernel contributions are multiplied by its
        weight. Integer weights equal repeated rows; zero-weight rows are absent rows.
    return_bandwidth : bool, default=False
        Also return the bandwidth used.

    Returns
    -------
    float, or (float, float)
        The smooth ECE, in [0, 1]; with ``return_bandwidth`` the pair (smooth ECE,
        bandwidth).

    Raises
    ------
    ValueError
        If the inputs are empty, of different lengths, hold NaN or infinity, the labels
        are not binary, a probability lies outside [0, 1], a weight is negative or all
        weights are zero, or ``bandwidth`` is neither "auto" nor a number >= 1e-5.

    Notes
    -----
    The integrals are discretised as in relplot 1.0.3 (the module ``calibbook.metrics._smooth_ece``
    explains how):
    the rows are spread linearly over a grid of :math:`\max(2000, 20/\sigma)/2 + 1`
    nodes, the kernel is sampled on it, mirrored about the end nodes (predictions
    exactly at 0 or 1 keep half their mass) and cut at distance 1/2, the integrals are sums
    over :math:`\max(200, 10/\sigma)` points, and :math:`10^{-4}` is added to
    :math:`\hat\delta` at each point on the scale of unit weights. That constant makes
    the result depend on the scale of ``sample_weight`` by a relative
    :math:`\approx 10^{-4} / \sum_i w_i`; with weights that count rows it is exactly
    relplot's value on the repeated rows. The cost is one pass over the rows per grid
    size (one for every bandwidth >= 0.01) plus :math:`O(m \min(m, 20\sigma m))` per
    bandwidth tried.

    References
    ----------
    Blasiok & Nakkiran, "Smooth ECE: Principled reliability diagrams via kernel
    smoothing", ICLR 2024 (arXiv:2309.12236, 2023), and their package relplot 1.0.3;
    Blasiok, Gopalan, Hu & Nakkiran, "A unifying theory of distance from calibration",
    STOC 2023 (consistent calibration measures).

    See Also
    --------
    smooth_reliability_curve : The smoothed curve and density behind this number.

    Examples
    --------
    Every prediction is 0.7 and half the labels are positive, so the smoothed residual
    is 0.2 everywhere the density is; the search stops at the first multiple of 1/1024
    above 0.2:

    >>> from calibbook import smooth_ece
    >>> ece, sigma = smooth_ece([0, 1, 0, 1], [0.7] * 4, return_bandwidth=True)
    >>> round(ece, 4), sigma * 1024
    (0.2, 205.0)
    """
    sigma = bandwidth if bandwidth == "auto" else float(bandwidth)
    y, p, w, _ = _validated(y_true, y_prob, sample_weight)
    at = _SmoothECEAt(y, p, w)
    if sigma == "auto":
        sigma, ece = _search(at)
    else:
        ece = at(sigma)
    ece = float(ece)
    return (ece, sigma) if return_bandwidth else ece


def _curve_points(grid):
    if grid is None:
        return np.linspace(0.0, 1.0, CURVE_POINTS)
    if isinstance(grid, Integral):
        return np.linspace(0.0, 1.0, int(grid))
    try:
        t = np.array(grid, dtype=np.float64)  # a copy: the result must not alias the input
    except (TypeError, ValueError):
        raise ValueError(
            f"grid must be None, an integer >= 2 or an array of points in [0, 1]; got {grid!r}."
        ) from None
    if t.ndim != 1 or t.size == 0:
        raise ValueError(f"grid must be a non-empty 1-D array of points; got shape {t.shape}.")
    if not np.isfinite(t).all() or t.min() < 0.0 or t.max() > 1.0:
        raise ValueError("grid points must be finite and lie in [0, 1].")
    return t


@validate_params(
    {"bandwidth": BANDWIDTH, "grid": [None, Interval(Integral, 2, None), "array-like"]}
)
def smooth_reliability_curve(y_true, y_prob, *, bandwidth="auto", grid=None, sample_weight=None):
    r"""Smoothed reliability curve and prediction density (relplot's reliability diagram).

    The Nadaraya-Watson estimate of :math:`E[y \mid f = t]` with the reflected Gaussian
    kernel of :func:`smooth_ece`, and the kernel density of the predictions, at the
    points ``grid``. With the same bandwidth, :func:`smooth_ece` is the
    density-weighted mean of :math:`|\bar f(t) - \hat\mu(t)|`, where :math:`\bar f(t)`
    is the kernel average of the predictions (close to t).
    :doc:`/book/appendix_estimators` draws it beside the binned curve.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Binary labels in {0, 1}.
    y_prob : array-like of shape (n,)
        Predicted probabilities of the positive class, in [0, 1].
    bandwidth : "auto" or float, default="auto"
        Kernel bandwidth, as in :func:`smooth_ece` ("auto": the smooth ECE's own).
    grid : None, int or array-like, default=None
        Where to evaluate: None for 200 evenly spaced points on [0, 1] (relplot's
        mesh), an integer k >= 2 for k evenly spaced points, or the points themselves.
    sample_weight : array-like of shape (n,), optional
        Non-negative weights, as in :func:`smooth_ece`.

    Returns
    -------
    SmoothReliabilityCurve
        Named tuple ``(grid, observed, density, bandwidth)``: the points, the smoothed
        frequency of positives :math:`\hat\mu(t)` and the density :math:`\hat\delta(t) /
        \sum_i w_i` at each point, and the bandwidth.

    Raises
    ------
    ValueError
        As :func:`smooth_ece`, and if ``grid`` is not None, an integer >= 2 or a
        non-empty 1-D array of points in [0, 1].

    Notes
    -----
    As in relplot, :math:`\hat\mu(t) = \hat m(t) / (\hat\delta(t) + 10^{-4})` with
    :math:`\hat m(t) = \sum_i w_i y_i K_\sigma(t, f_i)`: far from every prediction,
    where :math:`\hat\delta` is below about :math:`10^{-3}`, the curve is pulled towards
    0. This is relplot's main line without its bootstrap (``prepare_rel_diagram(...,
    plot_confidence_band=False)``), whose curve averages 200 resampled fits.

    References
    ----------
    Blasiok & Nakkiran, "Smooth ECE: Principled reliability diagrams via kernel
    smoothing", ICLR 2024 (arXiv:2309.12236, 2023), and their package relplot 1.0.3.

    See Also
    --------
    smooth_ece : The calibration error that this curve draws.

    Examples
    --------
    With all predictions at 0.7 and half the labels positive, the curve is 0.5 near
    0.7, and the density there is that of a normal distribution with sd sigma:

    >>> import numpy as np
    >>> from calibbook import smooth_reliability_curve
    >>> curve = smooth_reliability_curve([0, 1] * 50, [0.7] * 100, grid=[0.7],
    ...                                  bandwidth=0.1)
    >>> round(float(curve.observed[0]), 4), round(float(curve.density[0]), 3)
    (0.5, 3.989)
    >>> round(float(1 / np.sqrt(2 * np.pi * 0.1**2)), 3)
    3.989
    """
    sigma = bandwidth if bandwidth == "auto" else float(bandwidth)
    t = _curve_points(grid)
    y, p, w, total = _validated(y_true, y_prob, sample_weight)
    if sigma == "auto":
        sigma, _ = _search(_SmoothECEAt(y, p, w))
    mass, positives = grid_masses(p, y, w, _grid_nodes(sigma), False)
    s_pos, s_mass = reflected_smooth(positives, mass, sigma)
    a_pos, a_mass = interpolate_grid(s_pos, t), interpolate_grid(s_mass, t)
    return SmoothReliabilityCurve(
        grid=t, observed=a_pos / (a_mass + DENSITY_EPS), density=a_mass / total, bandwidth=sigma
    )
