"""Calibration with Dirichlet-process mixture densities (Naeini, Cooper & Hauskrecht 2014, Sec. 4).

Bayes' rule (Eq. 4 of the paper) with each class-conditional score density
modelled by a one-dimensional Dirichlet-process Gaussian mixture, fitted by
variational inference with truncated stick-breaking. The variational updates and
the truncation are scikit-learn's (``BayesianGaussianMixture``), not the
accelerated variational DP mixture of Kurihara, Welling & Vlassis (2007) that
the paper used; see :class:`DPGaussianMixture1D`.
"""

import math
import warnings

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.exceptions import ConvergenceWarning

from calibbook._utils.deprecation import renamed_parameter
from calibbook._utils.maths import expit, weighted_mean_var
from calibbook._utils.params import (
    Integral,
    Interval,
    Options,
    Real,
    validate_parameters,
    validate_params,
)
from calibbook._utils.validation import check_sample_weight, check_scores
from calibbook._utils.weights import external_stacklevel, warn_low_total_weight
from calibbook.base import BaseCalibrator

# the robust standardisation and the rule-of-thumb variance are KDECalibration's
from calibbook.calibrators.kde import (
    _rule_statistics,
    _scaled_weights,
    _standard_frame,
    _standardise,
)

__all__ = ["DPGaussianMixture1D", "DPMCalibration", "quantile_responsibilities"]

_POSITIVE = Interval(Real, 0, None, closed="neither")
_NON_NEGATIVE = Interval(Real, 0, None)
#: The summary is used above this many times ``summary_size`` distinct scores.
_SUMMARY_FACTOR = 16


_LN2 = math.log(2.0)
#: A user-given covariance prior is clipped to this range on the scale of the fit (the
#: scores, or the standardised scores): beyond it the prior is flat or a point, and every
#: square in the updates stays finite.
_PRIOR_RANGE = (1e-100, 1e100)


def _weighted_quantile_cuts(xs, w, n_groups):
    """Interior cut values splitting sorted xs into n_groups groups of (nearly) equal weight.

    A cumulative weight within rounding of a target counts as equal to it (a tie: the cut
    falls after that score), so weights that differ only by rounding (normalised, rescaled)
    start from the groups of the exact weights; the slack is below a quarter of any weight.
    """
    cw = np.cumsum(w)
    targets = cw[-1] * np.arange(1, n_groups) / n_groups
    slack = min(4.0 * xs.size * np.finfo(np.float64).eps * cw[-1], 0.25 * float(w.min()))
    return xs[np.minimum(np.searchsorted(cw, targets + slack, side="right"), xs.size - 1)]


def _rule_variance(x, w):
    """The weighted sum of squares over max(W - 1, W / 2), as the bandwidth rules of
    KDECalibration: unbiased for W >= 2 (integer weights: the repeated rows), continuous in
    the total W, and the weights read as two cases below."""
    var, _, _, kx = _rule_statistics(x, w, robust=False)
    with np.errstate(over="ignore"):
        return float(np.ldexp(var, 2 * kx))


@renamed_parameter("w", "sample_weight")
@validate_params({"n_components": [Interval(Integral, 1, None)]})
def quantile_responsibilities(x, sample_weight, n_components):
    """Hard initial responsibilities: component j takes the j-th weighted quantile group.

    The variational fit of :class:`DPGaussianMixture1D` starts from these (deterministic,
    unlike k-means with random restarts). Assignment is by value: a score's group is the
    number of cut values at or below it, so tied scores share a group, and an integer weight
    acts as that many repeated rows. Groups may be empty when ties are heavy.
    (:doc:`/book/06_density_calibration`.)

    Parameters
    ----------
    x : array-like of shape (n,)
        The scores, finite.
    sample_weight : array-like of shape (n,)
        Their weights, finite and >= 0 with a positive sum.
    n_components : int
        The number of mixture components, at least 1.

    Returns
    -------
    ndarray of shape (n, n_components)
        One-hot rows: row i has a 1 in the column of score i's group.

    Raises
    ------
    ValueError
        If the lengths differ, a value is not finite, a weight is negative, every weight
        is 0, or ``n_components`` is smaller than 1.

    References
    ----------
    Blei & Jordan, "Variational inference for Dirichlet process mixtures", Bayesian
    Analysis 1 (2006); the quantile start is ours.

    Examples
    --------
    >>> import numpy as np
    >>> from calibbook.calibrators.dpm import quantile_responsibilities
    >>> quantile_responsibilities(np.array([0.1, 0.2, 0.8, 0.9]), np.ones(4), 2)
    array([[1., 0.],
           [1., 0.],
           [0., 1.],
           [0., 1.]])
    """
    w = sample_weight  # (called w before calibbook 0.2)
    x = check_scores(x, name="x")
    w = check_sample_weight(w, x.size)
    return _quantile_responsibilities(x, w, int(n_components))


def _label_statistics(x, w, labels, n_comp):
    """Statistics (nk, sd, sdd, centre) of hard assignments: sample i in component labels[i].

    Once per fit, so NumPy (bincount adds in row order, as a loop would) rather than one
    more kernel to compile on a first fit.
    """
    nk = np.bincount(labels, weights=w, minlength=n_comp)
    centre = np.bincount(labels, weights=w * x, minlength=n_comp)
    centre = np.divide(centre, nk, out=centre, where=nk > 0)
    d = x - centre[labels]
    wd = w * d
    sd = np.bincount(labels, weights=wd, minlength=n_comp)
    sdd = np.bincount(labels, weights=wd * d, minlength=n_comp)
    return nk, sd, sdd, centre


def _merge_ties(x, w):
    """The distinct values of x with positive weight, sorted, and the total weight of each.

    Exact for the fit: equal scores have equal responsibilities, so a tie of weights
    w_1, ..., w_m counts as one sample of weight w_1 + ... + w_m in every sum.
    """
    keep = w > 0
    x, w = x[keep], w[keep]
    if w.size and w.min() == w.max():  # equal weights (no weights): a plain sort suffices
        xs, ws = np.sort(x), w
    else:
        order = np.argsort(x, kind="stable")
        xs, ws = x[order], w[order]
    if xs.size == 0:
        return xs, ws
    starts = np.flatnonzero(np.r_[True, xs[1:] != xs[:-1]])
    return xs[starts], np.add.reduceat(ws, starts)


def _summary(x, w, size):
    """A summary of sorted distinct scores: groups of consecutive scores at their weighted mean.

    A new group starts wherever the cumulative weight (at a score's midpoint) enters the
    next of ``size`` equal-weight slots, or asinh((x - median) / IQR) enters the next
    slot of width 4 / size: groups are narrow where the data are dense (equal weight),
    near the median (IQR / (size / 4) wide) and in the tails (a width about 4 / size
    times the distance to the median, however heavy the tails).

    Returns
    -------
    (ndarray, ndarray)
        The groups' weighted means and total weights.
    """
    cw = np.cumsum(w)
    position = (cw - 0.5 * w) / cw[-1]
    by_weight = np.minimum((position * size).astype(np.int64), size - 1)
    q25, q50, q75 = x[np.minimum(np.searchsorted(position, [0.25, 0.5, 0.75]), x.size - 1)]
    scale = q75 - q25 if q75 > q25 else (x[-1] - x[0]) / 4
    with np.errstate(over="ignore"):  # |x - median| beyond the largest double: asinh = inf
        shape = np.clip(np.arcsinh((x - q50) / scale), -1e3, 1e3)  # asinh(max double) ~ 710
    by_shape = np.floor(shape * (size / 4)).astype(np.int64)
    new = (by_weight[1:] != by_weight[:-1]) | (by_shape[1:] != by_shape[:-1])
    starts = np.flatnonzero(np.r_[True, new])
    total = np.add.reduceat(w, starts)
    ends = np.r_[starts[1:], x.size] - 1
    # within the group's scores also after rounding (a group of one score is that score)
    return np.clip(np.add.reduceat(w * x, starts) / total, x[starts], x[ends]), total


def _quantile_responsibilities(x, w, n_components):
    order = np.argsort(x, kind="stable")
    cuts = _weighted_quantile_cuts(x[order], w[order], n_components)
    labels = np.searchsorted(cuts, x, side="right")
    resp = np.zeros((x.size, n_components))
    resp[np.arange(x.size), labels] = 1.0
    return resp


def _stopped_at(mixture):
    """Where a mixture's iterations stopped, for the ConvergenceWarning."""
    cap, value = getattr(mixture, "_iteration_cap", ("max_iter", mixture.max_iter))
    summary = getattr(mixture, "n_iter_summary_", 0)
    after = f", after {summary} on a summary of them" if summary else ""
    return f"{cap}={value} iterations on the scores{after}"


class DPGaussianMixture1D(BaseEstimator):
    """A 1-D Dirichlet-process Gaussian mixture fitted by variational inference (weighted).

    Priors use scikit-learn's names and defaults for
    ``BayesianGaussianMixture(weight_concentration_prior_type="dirichlet_process")``:
    ``weight_concentration_prior`` gamma (default 1 / n_components),
    ``mean_prior`` (default: the weighted mean), ``mean_precision_prior`` beta_0
    (default 1), ``degrees_of_freedom_prior`` nu_0 (default 1) and
    ``covariance_prior`` (default: the weighted unbiased variance, the sum of
    squared deviations over W - 1 for a total weight W >= 2; below two cases,
    where W - 1 would vanish or turn negative, the weights are read as two cases,
    so the prior is continuous in W). The parameters are in the units of ``x``
    (``reg_covar`` included, as in scikit-learn); :class:`calibbook.DPMCalibration`
    sets ``reg_covar`` relative to the scores' variance and standardises scores of
    extreme size before fitting its mixtures.

    The density is the **posterior predictive**: a mixture of Student-t
    densities, component k with nu_k degrees of freedom, location m_k and squared
    scale cov_k (1 + beta_k) / beta_k (Bishop 2006, Eq. 10.81 in one dimension),
    weighted by the expected stick-breaking weights E[pi_k] renormalised over the
    K components (scikit-learn's ``weights_``). It integrates to 1 and its tails
    decay polynomially, so log densities stay finite far from the data.
    :class:`calibbook.DPMCalibration` fits one per class;
    :doc:`/book/06_density_calibration` derives the updates and checks them
    against scikit-learn's ``BayesianGaussianMixture``.

    *Truncation.* As in scikit-learn, each of the K sticks, the last one
    included, keeps a Beta posterior,
    q(v_k) = Beta(1 + N_k, gamma + N_{k+1} + ... + N_K) with N_k the expected
    (weighted) number of points in component k, so q(v_K) = Beta(1 + N_K, gamma).
    Blei & Jordan (2006) instead fix v_K = 1, which gives component K all of
    the stick that the first K - 1 leave. Here E[log pi_K] includes
    E[log v_K] < 0, and the expected weights of the K components sum to less
    than one before they are renormalised (``weights_``).

    This is not the accelerated variational DP mixture of Kurihara, Welling &
    Vlassis (2007), which Naeini, Cooper & Hauskrecht (2014) used for their DPM
    calibrator. That method fixes the variational distributions of all
    components beyond the truncation level at their priors (keeping the
    process's infinite tail in the model) and caches statistics in kd-trees.

    Parameters
    ----------
    n_components : int, default=10
        Truncation level K of the stick-breaking representation.
    weight_concentration_prior : float > 0 or None, default=None
        The stick concentration gamma; None: 1 / n_components.
    mean_prior : float or None, default=None
        The prior mean of the component means; None: the weighted mean.
    mean_precision_prior, degrees_of_freedom_prior, covariance_prior : float > 0 or None
        beta_0, nu_0 and the covariance prior above; None: 1, 1 and the
        weighted unbiased variance (continuous in the total weight, above).
    reg_covar : float, default=1e-6
        Added to every component variance (in the squared units of ``x``).
    max_iter : int, default=500
        Maximum coordinate-ascent iterations (on the summary, when one is used).
    tol : float, default=1e-6
        Stop when the lower bound changes by less than ``tol``.
    summary_size : int or None, default=512
        With more than 16 * summary_size distinct scores, the iterations run
        first on a summary of the data: the sorted scores cut into groups of
        consecutive scores, each group a single score at its weighted mean that
        carries the group's weight. A group ends where the cumulative weight
        enters the next of summary_size equal-weight slots or
        asinh((x - median) / IQR) the next slot of width 4 / summary_size, so the
        groups are narrow where the data are dense, near the median and, relative
        to their distance from it, in the tails. At most ``max_iter`` iterations
        run on the summary, then on the data until the lower bound settles: at
        most ``max_iter`` iterations if it settled on the summary, else at most
        ``refine_iter``. The fit is a coordinate-ascent iterate of the data's own
        lower bound either way. None: every iteration on the data.
    refine_iter : int, default=20
        Maximum iterations on the data after a summary that ran out of iterations.

    Attributes
    ----------
    weights_ : ndarray of shape (K,)
        Expected mixing weights, renormalised to sum to one.
    means_, covariances_ : ndarray of shape (K,)
        Posterior means m_k and variances of the components.
    mean_precision_, degrees_of_freedom_ : ndarray of shape (K,)
        Posterior beta_k and nu_k.
    weight_concentration_ : tuple of two ndarray
        Parameters (a_k, b_k) of the Beta posteriors of the sticks.
    lower_bound_ : float
        Final value of the variational lower bound.
    n_iter_ : int
        Iterations run on the data.
    n_iter_summary_ : int
        Iterations run on the summary before them (0 when there is none).
    converged_ : bool
        Whether the data's lower bound settled within ``tol`` within the
        iterations allowed on the data.

    Notes
    -----
    Each iteration is one pass over the distinct scores (ties merged, their
    weights added: exact, since equal scores have equal responsibilities) that
    adds up the E step's weighted sufficient statistics and entropy block by
    block, without an array of shape (n, K); it costs O(n K) in numba.

    On large samples, the iterations on the summary follow the path that the
    same iterations take on the data: the groups are narrow wherever components
    sit, and the first M step is computed from the data. On the scores of
    ``benchmarks/bench_dpm.py`` (1e5 and 1e6 scores in [0, 1] and their logits,
    where 500 iterations on the data stop short of convergence), 500 on the
    summary and 20 on the data end 5e-6 to 3e-5 (relative) above the lower bound
    of 500 on the data, 60 to 250 times faster; on samples where the
    data's iterations converge, both settle on the same bound (issue 18). Below
    the threshold, which the book's examples all are, the fit is the plain
    coordinate ascent.

    References
    ----------
    Blei & Jordan, "Variational inference for Dirichlet process mixtures",
    Bayesian Analysis 1 (2006); Kurihara, Welling & Vlassis, "Accelerated
    variational Dirichlet process mixtures", NIPS 2006 (2007); Bishop, "Pattern
    recognition and machine learning", Springer (2006), Section 10.2.

    Examples
    --------
    >>> import numpy as np
    >>> from calibbook.calibrators.dpm import DPGaussianMixture1D
    >>> x = np.concatenate([np.full(50, -2.0), np.full(50, 2.0)])
    >>> x = x + np.linspace(-0.1, 0.1, 100)
    >>> mix = DPGaussianMixture1D(n_components=5).fit(x, np.ones(100))
    >>> density = np.exp(mix.log_density(np.array([-2.0, 0.0, 2.0])))
    >>> bool(density[0] > 10 * density[1] and density[2] > 10 * density[1])
    True
    """

    _parameter_constraints = {
        "n_components": [Interval(Integral, 1, None)],
        "weight_concentration_prior": [_POSITIVE, None],
        "mean_prior": [Interval(Real, None, None), None],
        "mean_precision_prior": [_POSITIVE, None],
        "degrees_of_freedom_prior": [_POSITIVE, None],
        "covariance_prior": [_POSITIVE, None],
        "reg_covar": [_NON_NEGATIVE],
        "max_iter": [Interval(Integral, 1, None)],
        "tol": [_NON_NEGATIVE],
        "summary_size": [Interval(Integral, 1, None), None],
        "refine_iter": [Interval(Integral, 1, None)],
    }

    def __init__(
        self,
        *,
        n_components=10,
        weight_concentration_prior=None,
        mean_prior=None,
        mean_precision_prior=None,
        degrees_of_freedom_prior=None,
        covariance_prior=None,
        reg_covar=1e-6,
        max_iter=500,
        tol=1e-6,
        summary_size=512,
        refine_iter=20,
    ):
        self.n_components = n_components
        self.weight_concentration_prior = weight_concentration_prior
        self.mean_prior = mean_prior
        self.mean_precision_prior = mean_precision_prior
        self.degrees_of_freedom_prior = degrees_of_freedom_prior
        self.covariance_prior = covariance_prior
        self.reg_covar = reg_covar
        self.max_iter = max_iter
        self.tol = tol
        self.summary_size = summary_size
        self.refine_iter = refine_iter

    @renamed_parameter("w", "sample_weight")
    def priors(self, x, sample_weight):
        """The prior hyper-parameters for scores ``x`` with weights ``w``.

        Parameters
        ----------
        x, sample_weight : ndarray of shape (n,)
            Scores and their positive weights (float64).

        Returns
        -------
        tuple of float
            (gamma, mean_0, beta_0, nu_0, cov_0), the defaults filled in from the data.
        """
        w = sample_weight  # (called w before calibbook 0.2)
        mean = weighted_mean_var(x, w)[0]
        var = _rule_variance(x, w)
        if not var > 0:  # constant data: any positive scale keeps the updates finite
            var = max(self.reg_covar, 1e-12)
        gamma = self.weight_concentration_prior
        if gamma is None:
            gamma = 1.0 / self.n_components
        mean0 = mean if self.mean_prior is None else self.mean_prior
        beta0 = 1.0 if self.mean_precision_prior is None else self.mean_precision_prior
        nu0 = 1.0 if self.degrees_of_freedom_prior is None else self.degrees_of_freedom_prior
        cov0 = var if self.covariance_prior is None else self.covariance_prior
        return float(gamma), float(mean0), float(beta0), float(nu0), float(cov0)

    @renamed_parameter("w", "sample_weight")
    def fit(self, x, sample_weight, resp=None):
        """Fit the mixture by coordinate-ascent variational inference.

        Parameters
        ----------
        x, sample_weight : ndarray of shape (n,)
            Scores and their positive weights (float64; not validated here:
            :class:`calibbook.DPMCalibration` validates its input).
        resp : ndarray of shape (n, n_components), optional
            Initial responsibilities (the first M step uses them); by default each
            component takes the scores between two weighted quantiles
            (:func:`quantile_responsibilities`).

        Returns
        -------
        self : DPGaussianMixture1D

        Raises
        ------
        ValueError
            If a constructor parameter is invalid.

        Warns
        -----
        sklearn.exceptions.ConvergenceWarning
            If the lower bound still changed by ``tol`` or more when the iterations
            allowed on the data ran out (``converged_`` is False), as scikit-learn's
            mixtures warn.
        """
        self._fit(sample_weight=sample_weight, x=x, resp=resp)
        if not self.converged_:
            warnings.warn(
                f"{type(self).__name__}: coordinate ascent stopped at {_stopped_at(self)}, "
                f"the lower bound still changing by tol={self.tol:g} or more. Increase "
                "max_iter (or refine_iter after a summary) or tol.",
                ConvergenceWarning,
                stacklevel=external_stacklevel(),
            )
        return self

    def _fit(self, x, sample_weight, resp=None):
        """:meth:`fit` without the ConvergenceWarning (DPMCalibration words its own)."""
        w = sample_weight
        from calibbook._kernels import dpm as kernels

        validate_parameters(self)
        x = np.ascontiguousarray(x, dtype=np.float64)
        w = np.ascontiguousarray(w, dtype=np.float64)
        gamma, mean0, beta0, nu0, cov0 = self.priors(x, w)
        n_comp = int(self.n_components)
        xu, wu = _merge_ties(x, w)
        if resp is None:
            cuts = _weighted_quantile_cuts(xu, wu, n_comp)
            labels = np.searchsorted(cuts, xu, side="right")
            stats = _label_statistics(xu, wu, labels, n_comp)
        else:
            resp = np.ascontiguousarray(resp, dtype=np.float64)
            stats = kernels.responsibility_statistics(x, w, resp)
        a, b, beta, mean, nu, cov = (np.empty(n_comp) for _ in range(6))
        priors = (gamma, mean0, beta0, nu0, cov0, float(self.reg_covar))
        kernels.m_step(*stats, *priors, a, b, beta, mean, nu, cov)
        n_summary = 0
        if self.summary_size is not None and xu.size > _SUMMARY_FACTOR * self.summary_size:
            xg, wg = _summary(xu, wu, int(self.summary_size))
            n_summary, _, summary_converged = kernels.coordinate_ascent(
                xg, wg, a, b, beta, mean, nu, cov, *priors, int(self.max_iter), float(self.tol)
            )
            max_iter = int(self.max_iter if summary_converged else self.refine_iter)
        else:
            max_iter = int(self.max_iter)
        self._iteration_cap = ("max_iter" if max_iter == self.max_iter else "refine_iter", max_iter)
        n_iter, bound, converged = kernels.coordinate_ascent(
            xu, wu, a, b, beta, mean, nu, cov, *priors, max_iter, float(self.tol)
        )
        self.n_iter_summary_ = int(n_summary)
        self.weight_concentration_ = (a, b)
        self.mean_precision_, self.means_ = beta, mean
        self.degrees_of_freedom_, self.covariances_ = nu, cov
        self.n_iter_, self.lower_bound_ = int(n_iter), float(bound)
        self.converged_ = bool(converged)
        tmp = b / (a + b)
        weights = a / (a + b) * np.concatenate([[1.0], np.cumprod(tmp[:-1])])
        self.weights_ = np.maximum(weights / weights.sum(), 1e-300)
        return self

    def log_density(self, x):
        """Log posterior-predictive density at ``x`` (finite everywhere).

        Parameters
        ----------
        x : ndarray of shape (m,)

        Returns
        -------
        ndarray of shape (m,)
        """
        from calibbook._kernels.dpm import student_t_mixture_logpdf

        scale2 = self.covariances_ * (1.0 + self.mean_precision_) / self.mean_precision_
        out = np.empty(x.shape[0])
        student_t_mixture_logpdf(
            np.ascontiguousarray(x, dtype=np.float64),
            self.weights_,
            self.means_,
            scale2,
            self.degrees_of_freedom_,
            out,
        )
        return out


class DPMCalibration(BaseCalibrator):
    r"""Calibration by Bayes' rule with Dirichlet-process mixture class densities.

    :math:`P(y = 1 \mid s) = \pi_1 f_1(s) / (\pi_1 f_1(s) + \pi_0 f_0(s))`, where
    :math:`\pi_t` are the weighted class frequencies and :math:`f_t` the
    posterior-predictive densities of a one-dimensional Dirichlet-process Gaussian
    mixture fitted to the scores of class t (see
    :class:`calibbook.calibrators.dpm.DPGaussianMixture1D`). :doc:`/book/06_density_calibration`
    derives the method and reruns the paper's experiment.

    Which calibrator suits your data and classifier: the decision guide,
    :doc:`/book/which_calibrator`.

    Parameters
    ----------
    n_components : int, default=10
        Truncation level K of the stick-breaking representation (an upper bound
        on the number of components; unused ones keep weight near zero).
    weight_concentration_prior : float or None, default=None
        Concentration gamma of the Beta(1, gamma) sticks; None: 1 / n_components
        (scikit-learn's default). Larger values favour more components.
    mean_prior, mean_precision_prior, degrees_of_freedom_prior, covariance_prior : float or None
        Normal-Gamma prior of each component (scikit-learn's parametrisation);
        None: the class's weighted mean, 1, 1 and the class's weighted unbiased
        variance (of the logit of the scores when ``logit_input=True``; below a
        class weight of two cases, the variance of its weights read as two
        cases, see :class:`calibbook.calibrators.dpm.DPGaussianMixture1D`). A
        given ``mean_prior`` or ``covariance_prior`` is in the scores' units
        (squared units for the covariance).
    reg_covar : float, default=1e-6
        Added to every component variance, **relative to the spread**: in units
        of the weighted variance of all training scores (of their logits with
        ``logit_input``). scikit-learn adds an absolute ``reg_covar``, which
        swamps scores that vary by 1e-3 or less (calibbook 0.1 did too).
    max_iter : int, default=500
        Maximum coordinate-ascent iterations per class (on its summary, when one is used).
    tol : float, default=1e-6
        Stop when the lower bound changes by less than ``tol``.
    summary_size : int or None, default=512
        With more than 16 * summary_size distinct scores in a class, the
        iterations run first on a summary of its scores, then on the scores
        (see :class:`calibbook.calibrators.dpm.DPGaussianMixture1D`); None: never.
    refine_iter : int, default=20
        Maximum iterations on a class's scores after a summary that ran out of
        iterations (after one that settled: ``max_iter``).
    logit_input : bool, default=False
        Model the densities of logit(score) (the scores must then be in [0, 1];
        they are clipped to [1e-12, 1 - 1e-12] first, as in
        :class:`~calibbook.PlattScaling`). Bayes' rule is invariant to the change
        of variable (the Jacobian cancels), but Gaussian components fit the
        unbounded logit scale better than the bounded probability scale.
    out_of_bounds : {"clip", "extrapolate"}, default="clip"
        ``"clip"``: a score below the smallest or above the largest training
        score (with positive weight) is predicted as that extreme score, as in
        :class:`~calibbook.IsotonicCalibration`. The clip applies to the scores
        as passed, before any logit. ``"extrapolate"``: evaluate the density
        ratio at the score itself. Far from the data that ratio says which
        class's mixture has the heavier Student-t tail, not where the positives
        are, so it can swing anywhere in [0, 1].

    Attributes
    ----------
    mixtures_ : list of two DPGaussianMixture1D
        Fitted mixtures of class 0 and class 1 (``weights_``, ``means_``,
        ``covariances_``, ``degrees_of_freedom_``, ``mean_precision_``,
        ``lower_bound_``, ``n_iter_``, ``n_iter_summary_``).
    class_prior_ : ndarray of shape (2,)
        Weighted class frequencies (pi_0, pi_1).
    score_range_ : ndarray of shape (2,)
        Smallest and largest training score with positive weight (as passed,
        before any logit): the bounds of ``out_of_bounds="clip"``.
    score_centre_, score_scale_ : float
        The mixtures model z = (s - ``score_centre_``) / ``score_scale_`` (of
        the logits with ``logit_input``): 0 and 1 for scores of ordinary size
        (see Notes); otherwise the weighted median of the training scores and
        the power of two nearest below their weighted standard deviation
        (``score_scale_`` is inf where that power exceeds the largest double;
        the fit uses the exponent).

    Warns
    -----
    sklearn.exceptions.ConvergenceWarning
        When a class's coordinate ascent stops at its iteration cap
        (``max_iter``, or ``refine_iter`` after a summary that used up
        ``max_iter``) with the lower bound still changing by ``tol`` or more, as
        scikit-learn's mixtures warn. The default ``tol`` is strict (scikit-learn's
        is 1e-3): on a thousand scores or more the defaults often stop at the cap.
    calibbook.LowWeightWarning
        When ``sample_weight`` totals fewer than two cases per class mixture
        (under 4): the groups are the two class mixtures, whose default
        covariance priors need two cases each.

    Notes
    -----
    *Units.* The default priors and ``reg_covar`` are relative to the scores'
    spread, so ``fit(a * s + b).predict(a * t + b)`` equals
    ``fit(s).predict(t)`` for every a > 0 and b that keep the scores finite (to
    rounding). Scores beyond 2^100 in magnitude, or with a standard deviation
    below 2^-100, are standardised before the fit (z above), so that finite
    scores of any magnitude (5e-324 to 1e308) give finite probabilities;
    standardised scores beyond 1e100 from the centre are clipped there. Scores
    of ordinary size are used as they are (``score_centre_`` 0,
    ``score_scale_`` 1). A ``mean_prior`` or ``covariance_prior`` in the
    scores' units, or ``logit_input``, ties the map to those units.

    *Weights* are frequencies: the total weight sets how much the data outweigh
    the priors, and the map moves continuously with it (no formula divides by
    W - 1).

    Initialisation is deterministic: component j starts with the scores between
    the (j / K)-th and ((j + 1) / K)-th weighted quantiles of its class, so the
    fit needs no random state. Each coordinate-ascent iteration is one pass over
    the distinct scores, O(N K) in numba; above 16 * ``summary_size`` distinct
    scores in a class, the iterations run on a summary of them first, then on the
    scores. Posterior probabilities are computed as a sigmoid of the difference
    of log densities, and the Student-t tails keep that difference finite, so the
    output is never NaN, even at :math:`|s| = 10^6` with ``"extrapolate"``.

    When every training score with positive weight is the same (after the logit,
    with ``logit_input=True``), the scores carry no information: the map is the
    constant weighted base rate ``class_prior_[1]``, whatever ``out_of_bounds``
    says. Zero-weight rows are dropped; integer weights give the same fit as
    repeated rows.

    The variational approximation is scikit-learn's truncation of Blei &
    Jordan's stick-breaking (the last stick keeps a Beta(1 + N_K, gamma)
    posterior), not the accelerated variant of Kurihara, Welling & Vlassis that
    the paper used (see :class:`calibbook.calibrators.dpm.DPGaussianMixture1D`). The map is a
    ratio of two densities and is not monotone in general: it can follow a
    non-monotone calibration map, and it can change the AUC.

    References
    ----------
    Naeini, Cooper & Hauskrecht (2014), Section 4; Blei & Jordan, "Variational
    inference for Dirichlet process mixtures", Bayesian Analysis 2006; Kurihara,
    Welling & Vlassis, "Accelerated variational Dirichlet process mixtures",
    NIPS 2007; Bishop, "Pattern recognition and machine learning", 2006, Ch. 10.

    See Also
    --------
    calibbook.KDECalibration : The same Bayes rule with kernel density estimates.

    Examples
    --------
    >>> import numpy as np
    >>> from calibbook import DPMCalibration
    >>> rng = np.random.default_rng(0)
    >>> s = np.concatenate([rng.normal(-1, 1, 200), rng.normal(1, 1, 200)])
    >>> y = np.repeat([0, 1], 200)
    >>> cal = DPMCalibration().fit(s, y)
    >>> p = cal.predict([-3.0, 0.0, 3.0])
    >>> bool(p[0] < 0.1 and 0.3 < p[1] < 0.7 and p[2] > 0.9)
    True
    >>> # clipped to the data
    >>> bool(cal.predict([1e6])[0] == cal.predict([s.max()])[0])
    True
    """

    _parameter_constraints = {
        **DPGaussianMixture1D._parameter_constraints,
        "logit_input": ["boolean"],
        "out_of_bounds": [Options("clip", "extrapolate")],
    }

    def __init__(
        self,
        *,
        n_components=10,
        weight_concentration_prior=None,
        mean_prior=None,
        mean_precision_prior=None,
        degrees_of_freedom_prior=None,
        covariance_prior=None,
        reg_covar=1e-6,
        max_iter=500,
        tol=1e-6,
        summary_size=512,
        refine_iter=20,
        logit_input=False,
        out_of_bounds="clip",
    ):
        self.n_components = n_components
        self.weight_concentration_prior = weight_concentration_prior
        self.mean_prior = mean_prior
        self.mean_precision_prior = mean_precision_prior
        self.degrees_of_freedom_prior = degrees_of_freedom_prior
        self.covariance_prior = covariance_prior
        self.reg_covar = reg_covar
        self.max_iter = max_iter
        self.tol = tol
        self.summary_size = summary_size
        self.refine_iter = refine_iter
        self.logit_input = logit_input
        self.out_of_bounds = out_of_bounds

    @property
    def _units(self):
        """How the map follows the scores' units: "affine" with the default priors (all
        relative to the spread); None with a ``mean_prior`` or ``covariance_prior`` (in the
        scores' units) or with ``logit_input``."""
        if self._requires_probabilities or self.mean_prior is not None:
            return None
        return None if self.covariance_prior is not None else "affine"

    def _mixture_params(self, z, w, frame):
        """The mixtures' parameters on the standardised scale z = (s - centre) / scale."""
        mixture_params = DPGaussianMixture1D().get_params()
        params = {k: v for k, v in self.get_params().items() if k in mixture_params}
        ws = _scaled_weights(w)[0]  # (w itself when of ordinary size: not to be changed)
        p = ws / ws.sum()
        pooled_var = float(np.dot(p, (z - np.dot(p, z)) ** 2))
        params["reg_covar"] = float(self.reg_covar) * pooled_var  # relative to the spread
        if self.mean_prior is not None:
            params["mean_prior"] = float(_standardise(np.array([float(self.mean_prior)]), frame)[0])
        if self.covariance_prior is not None:
            with np.errstate(over="ignore", under="ignore"):
                cov0 = np.ldexp(float(self.covariance_prior), -2 * frame.exponent)
            params["covariance_prior"] = float(np.clip(cov0, *_PRIOR_RANGE))
        return params

    def _fit_mixture(self, params, z, w):
        """One class's mixture (a hook: the benchmark swaps in its frozen fit)."""
        return DPGaussianMixture1D(**params)._fit(z, w)

    def _fit(self, scores, y, sample_weight):
        w = np.ones_like(scores) if sample_weight is None else sample_weight
        keep = w > 0
        scores, y, w = scores[keep], y[keep], w[keep]
        if sample_weight is not None:
            ws, k = _scaled_weights(w)
            total = math.exp(min(math.log(float(ws.sum())) + k * _LN2, 700.0))
            warn_low_total_weight(total, 2, "class mixture", type(self).__name__)
        self.score_range_ = np.array([scores.min(), scores.max()])
        x = self._features(scores)
        order = np.argsort(x, kind="stable")
        frame = _standard_frame(x[order], w[order], always=True)
        z = _standardise(x, frame)
        params = self._mixture_params(z, w, frame)
        mixtures = [self._fit_mixture(params, z[y == label], w[y == label]) for label in (0, 1)]
        ws = _scaled_weights(w)[0]  # the class frequencies without overflow
        weights = np.array([ws[y == 0].sum(), ws[y == 1].sum()])
        self._frame = frame
        self.score_centre_ = frame.centre
        with np.errstate(over="ignore"):
            self.score_scale_ = float(np.ldexp(1.0, frame.exponent))
        self.mixtures_ = mixtures
        self.class_prior_ = weights / weights.sum()
        self._warn_not_converged()
        return self

    def _warn_not_converged(self):
        stalled = [
            f"class {label} ({_stopped_at(m)})"
            for label, m in enumerate(self.mixtures_)
            if not getattr(m, "converged_", True)
        ]
        if stalled:
            warnings.warn(
                f"{type(self).__name__}: coordinate ascent did not converge for "
                f"{' and '.join(stalled)}: the lower bound still changed by tol={self.tol:g} "
                "or more. Increase max_iter (or refine_iter after a summary) or tol.",
                ConvergenceWarning,
                stacklevel=external_stacklevel(),
            )

    def log_class_densities(self, scores):
        """Log densities (log f_0, log f_1) of the scores (of their logits with ``logit_input``).

        The densities are evaluated where asked: ``out_of_bounds`` applies to
        ``predict`` only. They are the mixtures' densities on the standardised
        scale, divided by ``score_scale_``; beyond 1e100 scales from
        ``score_centre_`` they are evaluated at that distance.

        Parameters
        ----------
        scores : array-like of shape (n,)

        Returns
        -------
        ndarray of shape (n, 2)

        Raises
        ------
        sklearn.exceptions.NotFittedError
            If ``fit`` has not been called.
        ValueError
            If the scores are invalid.
        """
        from sklearn.utils.validation import check_is_fitted

        check_is_fitted(self)
        x = self._features(check_scores(scores, probabilities=self._requires_probabilities))
        z = _standardise(x, self._frame)
        log_scale = self._frame.exponent * _LN2
        return np.column_stack([m.log_density(z) - log_scale for m in self.mixtures_])

    def _predict(self, scores):
        lo, hi = self.score_range_
        if self._features(lo) == self._features(hi):  # constant training scores: the base rate
            return np.full(scores.shape, self.class_prior_[1])
        if self.out_of_bounds == "clip":
            scores = np.clip(scores, lo, hi)
        z = _standardise(self._features(scores), self._frame)
        log_f0, log_f1 = (m.log_density(z) for m in self.mixtures_)
        with np.errstate(divide="ignore"):  # a class prior that underflows to 0
            log_p0, log_p1 = np.log(self.class_prior_)
        return expit((log_p1 + log_f1) - (log_p0 + log_f0))
