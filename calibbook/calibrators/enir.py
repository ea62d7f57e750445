"""ENIR: an ensemble of near-isotonic regression models (Naeini & Cooper, ICDM 2016)."""

import numpy as np

from calibbook._utils.binning import sorted_runs
from calibbook._utils.deprecation import renamed_attribute
from calibbook._utils.params import Options
from calibbook._utils.weights import warn_low_total_weight
from calibbook.base import BaseCalibrator
from calibbook.calibrators._model_averaging import (
    CRITERIA,
    PRUNING_CONSTRAINTS,
    check_pruning,
    elbow_keep,
    information_criterion,
    pruning_alpha,
    relative_likelihoods,
)
from calibbook.calibrators._path_scoring import ScoredPath, score_path_models

# information_criterion, relative_likelihoods and elbow_keep live in _model_averaging,
# shared with BBQ; the API reference documents them here.
__all__ = ["ENIR", "elbow_keep", "information_criterion", "relative_likelihoods"]


class ENIR(BaseCalibrator):
    """Ensemble of near-isotonic regression models, averaged by an information criterion.

    The near-isotonic path (:func:`calibbook.near_isotonic_path`) gives one model per
    breakpoint lam_1 < ... < lam_T, from the nearly saturated fit to the isotonic
    regression. Each model is a binning of the scores (its blocks) and is scored by
    an information criterion with df = its number of blocks; the calibrated
    probability is the criterion-weighted average of the models' smoothed values.
    :doc:`/book/05_near_isotonic_enir_bbq` derives the path, the scoring and the
    average, and reruns the paper's experiments.

    Which calibrator suits your data and classifier: the decision guide,
    :doc:`/book/which_calibrator`.

    Parameters
    ----------
    criterion : {"bic", "aic", "aicc"}, default="bic"
        Score of each model (see
        :func:`calibbook.calibrators.enir.information_criterion`). AIC's penalty of 2
        per block is small next to the likelihood gain of fitting 0/1 labels
        closely, so with AIC the average leans on the many-block models near
        lam = 0 and overfits; BIC is the paper's choice. AICc is infinite for a model
        whose total weight is at most df + 1; where that holds for every model (three
        samples, say), ENIR takes the isotonic regression, the path's last model and
        the one with the fewest blocks, which is also the limit of the average as the
        total weight falls to that point.
    interpolation : {"linear", "step"}, default="linear"
        Between training scores: linear interpolation of the averaged values at the
        neighbouring training scores, or the value to the left. Linear is the
        default because the ENIR paper and the authors' code interpolate linearly
        (and so does :class:`~calibbook.NearIsotonicRegression`, whose path ENIR
        averages); :class:`~calibbook.IsotonicCalibration` defaults to ``"step"``,
        the isotonic regression of Zadrozny & Elkan, a step function.
    prune : {None, "elbow", "window"}, default=None
        Which models take part in the average. None: every model, with its
        relative likelihood as weight (the paper's Eq. 6). ``"elbow"``: the rule
        of the authors' reference code (:func:`calibbook.calibrators.enir.elbow_keep`), which
        keeps the best models up to the first small drop in relative likelihood.
        ``"window"``: Occam's window, models whose relative likelihood is at least
        ``prune_alpha``.
    prune_alpha : float or None, default=None
        The pruning threshold, in [0, 1); with ``prune="elbow"`` None means 0.005,
        the reference code's value for ENIR. Must be None when ``prune`` is None.

    Attributes
    ----------
    path_ : NearIsotonicPath
        The near-isotonic path of the training scores (see
        :class:`~calibbook.calibrators.near_isotonic.NearIsotonicPath`).
    model_lambdas_, model_df_, model_scores_, model_weights_ : ndarray (T,)
        The averaged models (the lam = 0 model excluded unless it is the only one),
        their blocks, criterion values and weights (summing to one).
    step_values_ : ndarray (R,)
        Averaged calibrated value at each distinct training score, ``path_.scores``
        (``run_values_`` before 0.2; the old name warns until 0.3).

    Notes
    -----
    Scores must be probabilities in [0, 1] (the smoothing prior of each bin is its
    mean score, as in the authors' code); pass decision values through a sigmoid
    first, as the paper does for SVMs. Each bin's value p is smoothed to
    :math:`(W p + e (1 - |o - e|)) / (W + 1 - |o - e|)`, with W its weight, o its fraction
    of positives and e its mean score, which keeps log-loss finite. Every float in
    [0, 1] is a valid score, subnormal ones and scores one ulp apart included.

    Sample weights are frequencies (:class:`~calibbook.LowWeightWarning`): the
    criteria's n is the total weight, and the fit moves continuously when all
    weights are scaled. As the total shrinks, each model's log-likelihood shrinks
    with it and the penalties decide (below 1 / (2 pi), BIC's penalty per block is
    negative and favours many blocks), and the smoothing pulls each block towards
    its mean score. Sample weights that total fewer than two cases per block of the
    model with the largest weight warn with :class:`~calibbook.LowWeightWarning`.

    Compiling ENIR's numba kernels takes several seconds on a fresh install. On fewer
    than 16384 scores, while they are neither compiled in the process nor cached on disk,
    ENIR runs their source as plain Python instead (0.06 s on 1000 scores), with the
    same results bit for bit; ``python -m calibbook.warmup`` compiles them once for all.

    See Also
    --------
    calibbook.near_isotonic_path : The path the models come from.
    calibbook.BBQ : The binning ensemble ENIR was compared with.
    calibbook.IsotonicCalibration : The last model of the path.

    References
    ----------
    Naeini & Cooper, "Binary classifier calibration using an ensemble of near
    isotonic regression models", ICDM 2016; Tibshirani, Hoefling & Tibshirani,
    "Nearly-isotonic regression", Technometrics 2011.

    Examples
    --------
    >>> import numpy as np
    >>> from calibbook import ENIR
    >>> rng = np.random.default_rng(0)
    >>> s = rng.uniform(size=500)
    >>> y = (rng.uniform(size=500) < s).astype(int)
    >>> cal = ENIR().fit(s, y)
    >>> bool(np.isclose(cal.model_weights_.sum(), 1.0))
    True
    """

    _requires_probabilities = True
    _MARGIN = 75.0  # criterion units: exp(-75 / 2) < 1e-16

    _ELBOW_ALPHA = 0.005  # ENIR/build.m of the authors' code

    _parameter_constraints = {
        "criterion": [Options(*CRITERIA)],
        "interpolation": [Options("linear", "step")],
        **PRUNING_CONSTRAINTS,
    }

    # the 0.1 names (CHANGELOG.md)
    run_values_ = renamed_attribute("run_values_", "step_values_")

    def __init__(self, *, criterion="bic", interpolation="linear", prune=None, prune_alpha=None):
        self.criterion = criterion
        self.interpolation = interpolation
        self.prune = prune
        self.prune_alpha = prune_alpha

    def _check_parameter_combinations(self):
        check_pruning(self.prune, self.prune_alpha)

    def _fit(self, scores, y, sample_weight):
        from calibbook._kernels.interpreted import for_size
        from calibbook._kernels.neariso.lookup import piecewise_knots
        from calibbook._kernels.neariso.models import model_average

        values, weights, positives = sorted_runs(scores, y, sample_weight)
        scored = ScoredPath.fit(values, weights, positives)
        # models that cannot reach a relative likelihood of 1e-16 are left unscored (+inf)
        df, scores_ic, blocks = score_path_models(scored, self.criterion, margin=self._MARGIN)
        if np.isfinite(scores_ic).any():
            alpha = pruning_alpha(self.prune, self.prune_alpha, self._ELBOW_ALPHA)
            model_weight = relative_likelihoods(scores_ic, self.prune, alpha)
        else:  # AICc with a total weight <= df + 1 for every model: the isotonic end
            model_weight = np.zeros(scores_ic.size)
            model_weight[-1] = 1.0
        if sample_weight is not None:  # the blocks of the model the average leans on most
            heaviest = int(df[np.argmax(model_weight)])
            warn_low_total_weight(scored.path.weights.sum(), heaviest, "block", "ENIR")
        # every model before the first one scored has weight 0: average from its blocks on
        starts, bw, bs, bx, coef, *events_after = blocks
        block_values = np.clip(
            for_size(model_average, values.size)(
                bw, bs, bx, coef, *events_after, scored.model_lam, model_weight
            ),
            0.0,
            1.0,
        )
        self._block_values = (starts, block_values)  # step_values_, when asked
        knots_x, knots_y, first = piecewise_knots(values, starts, block_values)
        slopes = np.zeros_like(knots_y)
        with np.errstate(over="ignore"):  # knots subnormals apart: inf, handled by the lookup
            slopes[:-1] = np.diff(knots_y) / np.diff(knots_x)  # knots_x strictly increases
        self._knots = (knots_x, knots_y, slopes, knots_x[first], knots_y[first])
        keep = model_weight > 0
        self.path_ = scored.path
        self.model_lambdas_ = scored.model_lam[keep]
        self.model_df_ = df[keep]
        self.model_scores_ = scores_ic[keep]
        self.model_weights_ = model_weight[keep]
        return self

    @property
    def step_values_(self):
        """Averaged calibrated value at each distinct training score (ndarray (R,)).

        Constant over each block of the first model that carries weight; expanded from
        those blocks when asked.
        """
        starts, block_values = self._block_values
        return np.repeat(block_values, np.diff(starts))

    def _predict(self, scores):
        """One bucketed lookup in the averaged map, stored once with a knot per end of each
        stretch of equal values (the same map as interpolating every run's value)."""
        from calibbook._kernels.isotonic import step_values
        from calibbook._kernels.neariso.lookup import knot_values

        knots_x, knots_y, slopes, step_x, step_y = self._knots
        if self.interpolation == "linear":
            return knot_values(knots_x, knots_y, slopes, scores)
        return step_values(step_x, step_y, scores)
