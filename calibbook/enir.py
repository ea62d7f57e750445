"""ENIR: an ensemble of near-isotonic regression models (Naeini & Cooper, ICDM 2016)."""

import numbers

import numpy as np

from ._binning import sorted_runs
from ._validation import check_option
from .base import BaseCalibrator
from .near_isotonic import NearIsotonicPath, interpolate_runs

__all__ = ["ENIR", "information_criterion", "relative_likelihoods", "elbow_keep"]

CRITERIA = ("bic", "aic", "aicc")


def information_criterion(loglik, df, n, criterion):
    r"""-2 log L plus the penalty of ``criterion`` for ``df`` parameters and ``n`` samples.

    ``"bic"`` uses :math:`\mathrm{df}\,(\log n + \log 2\pi)`, the penalty of the
    authors' reference code (a Laplace approximation that keeps the :math:`2\pi`
    term); ``"aic"`` uses 2 df; ``"aicc"`` adds AIC's small-sample correction
    2 df (df + 1) / (n - df - 1), infinite when n - df - 1 <= 0. ENIR scores each
    model of the near-isotonic path this way (:doc:`/book/05_near_isotonic_enir_bbq`).

    Parameters
    ----------
    loglik : float or array-like
        Log-likelihood of each model.
    df : float or array-like
        Degrees of freedom (number of blocks) of each model.
    n : float
        Number of samples (total weight).
    criterion : {"bic", "aic", "aicc"}
        Which penalty; any other value is taken as ``"aicc"`` (ENIR validates it).

    Returns
    -------
    ndarray
        The criterion, smaller is better; broadcast over ``loglik`` and ``df``.

    References
    ----------
    Schwarz, "Estimating the dimension of a model", Annals of Statistics 6 (1978);
    Akaike, "A new look at the statistical model identification", IEEE TAC 19
    (1974); Hurvich & Tsai, "Regression and time series model selection in small
    samples", Biometrika 76 (1989); Naeini & Cooper, ICDM 2016, Section III-B.

    Examples
    --------
    >>> from calibbook.enir import information_criterion
    >>> float(information_criterion(-10.0, 2, 100, "aic"))
    24.0
    >>> round(float(information_criterion(-10.0, 2, 100, "bic")), 4)
    32.8861
    """
    df = np.asarray(df, dtype=np.float64)
    if criterion == "bic":
        penalty = df * (np.log(n) + np.log(2.0 * np.pi))
    elif criterion == "aic":
        penalty = 2.0 * df
    else:
        with np.errstate(divide="ignore"):
            extra = np.where(n - df - 1.0 > 0, 2.0 * df * (df + 1.0) / (n - df - 1.0), np.inf)
        penalty = 2.0 * df + extra
    return -2.0 * np.asarray(loglik) + penalty


PRUNING = ("window", "elbow")


def check_pruning(prune, prune_alpha):
    """Validate ENIR's and BBQ's ``prune`` and ``prune_alpha`` together."""
    if prune is not None:
        check_option(prune, "prune", PRUNING)
    a = prune_alpha
    if a is not None and (isinstance(a, bool) or not isinstance(a, numbers.Real) or not 0.0 <= a < 1.0):
        raise ValueError(f"prune_alpha must be None or a number in [0, 1); got {a!r}.")
    if prune == "window" and a is None:
        raise ValueError("prune='window' needs prune_alpha, the smallest relative likelihood kept.")
    if prune is None and a is not None:
        raise ValueError(
            f"prune_alpha={a!r} has no effect without prune; choose prune='window' (Occam's "
            "window) or prune='elbow' (the authors' elbow rule)."
        )


def pruning_alpha(prune, prune_alpha, elbow_default):
    """The threshold in force: ``elbow_default`` for the elbow rule when none is given."""
    return elbow_default if prune == "elbow" and prune_alpha is None else prune_alpha


def elbow_keep(rel, alpha):
    r"""Which models the authors' elbow rule keeps, given their relative likelihoods.

    The rule of ``elbow.m`` in the authors' BBQ and ENIR code: sort the relative
    likelihoods :math:`R_{(1)} \ge R_{(2)} \ge \dots`, step over ties at the top,
    then advance :math:`k` while the drop :math:`(R_{(k)} - R_{(k+1)}) / \sigma^2`
    exceeds ``alpha``, where :math:`\sigma^2` is the (population) variance of all the
    relative likelihoods; keep the models :math:`1, \dots, k - 1` of the sorted order,
    or the best one alone when :math:`k = 1`. So the models up to, but not including,
    the first one followed by a small drop are kept. Where every relative likelihood
    is equal (:math:`\sigma^2 = 0`, where the reference code fails), all are kept.

    Parameters
    ----------
    rel : array-like of shape (T,)
        Relative likelihoods in [0, 1], the best equal to 1.
    alpha : float
        The threshold on the scaled drop (0.001 in the authors' BBQ, 0.005 in ENIR).

    Returns
    -------
    ndarray of bool, shape (T,)

    References
    ----------
    The authors' code, github.com/pakdaman/calibration (``BBQ/elbow.m``,
    ``BBQ/build.m``, ``ENIR/.../build.m``); :doc:`/book/05_near_isotonic_enir_bbq`.

    Examples
    --------
    >>> from calibbook.enir import elbow_keep
    >>> elbow_keep([1.0, 0.5, 0.01, 0.009, 0.0], 0.01).tolist()  # the drop after 0.01 is small
    [True, True, False, False, False]
    """
    rel = np.asarray(rel, dtype=np.float64)
    keep = np.zeros(rel.size, dtype=bool)
    variance = rel.var()
    if rel.size < 2 or variance == 0.0:
        keep[:] = True
        return keep
    order = np.argsort(-rel, kind="stable")
    r = rel[order]
    k = 0  # 0-based position of R_(k)
    while k + 1 < r.size and r[k] == r[k + 1]:
        k += 1
    while k + 1 < r.size and (r[k] - r[k + 1]) / variance > alpha:
        k += 1
    keep[order[: max(k, 1)]] = True  # 1-based 1..k-1 is 0-based 0..k-1 exclusive of k
    return keep


def relative_likelihoods(scores, prune=None, prune_alpha=None):
    r"""Model weights proportional to :math:`\exp(-(\mathrm{IC}_t - \min_u \mathrm{IC}_u) / 2)`, summing to one.

    The weights with which ENIR and BBQ average their models
    (:doc:`/book/05_near_isotonic_enir_bbq`). Non-finite scores get weight 0.
    Pruning sets some models' weights to 0 before normalising:
    ``prune="window"`` drops relative likelihoods below ``prune_alpha`` (Occam's
    window); ``prune="elbow"`` keeps the models :func:`elbow_keep` keeps.

    Parameters
    ----------
    scores : array-like of shape (T,)
        Criterion value of each model (smaller is better), e.g. from
        :func:`calibbook.enir.information_criterion`.
    prune : {None, "window", "elbow"}, default=None
        No pruning, Occam's window, or the authors' elbow rule.
    prune_alpha : float or None, default=None
        The window's threshold, or the elbow's (required for both here; ENIR and
        BBQ supply their reference defaults).

    Returns
    -------
    ndarray of shape (T,)
        Non-negative weights summing to one.

    Raises
    ------
    ValueError
        If ``prune`` is unknown, or ``prune_alpha`` is missing or not in [0, 1).

    References
    ----------
    Madigan & Raftery, "Model selection and accounting for model uncertainty in
    graphical models using Occam's window", JASA 89 (1994); Naeini & Cooper,
    ICDM 2016, Eq. 6; the authors' code (``elbow.m``).

    Examples
    --------
    >>> from calibbook.enir import relative_likelihoods
    >>> relative_likelihoods([10.0, 10.0, float("inf")]).tolist()
    [0.5, 0.5, 0.0]
    >>> relative_likelihoods([0.0, 2.0 * 3.0]).round(4).tolist()  # exp(-3) relative to the best
    [0.9526, 0.0474]
    >>> relative_likelihoods([0.0, 2.0 * 3.0], prune="window", prune_alpha=0.1).tolist()
    [1.0, 0.0]
    """
    if prune is not None and prune_alpha is None:
        raise ValueError(f"prune={prune!r} needs prune_alpha.")
    check_pruning(prune, prune_alpha)
    scores = np.asarray(scores, dtype=np.float64)
    finite = np.isfinite(scores)
    rel = np.zeros_like(scores)
    rel[finite] = np.exp(-(scores[finite] - scores[finite].min()) / 2.0)  # max is exactly 1
    if prune == "window":
        rel[rel < prune_alpha] = 0.0
    elif prune == "elbow":
        rel[~elbow_keep(rel, prune_alpha)] = 0.0
    return rel / rel.sum()


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
        Score of each model (see :func:`calibbook.enir.information_criterion`). AIC's penalty of 2
        per block is small next to the likelihood gain of fitting 0/1 labels
        closely, so with AIC the average leans on the many-block models near
        lam = 0 and overfits; BIC is the paper's choice.
    interpolation : {"linear", "step"}, default="linear"
        Between training scores: linear interpolation of the averaged values at the
        neighbouring training scores (as the authors' code), or the value to the left.
    prune : {None, "elbow", "window"}, default=None
        Which models take part in the average. None: every model, with its
        relative likelihood as weight (the paper's Eq. 6). ``"elbow"``: the rule
        of the authors' reference code (:func:`calibbook.enir.elbow_keep`), which
        keeps the best models up to the first small drop in relative likelihood.
        ``"window"``: Occam's window, models whose relative likelihood is at least
        ``prune_alpha``.
    prune_alpha : float or None, default=None
        The pruning threshold; with ``prune="elbow"`` None means 0.005, the
        reference code's value for ENIR. Must be None when ``prune`` is None.

    Attributes
    ----------
    path_ : NearIsotonicPath
        The near-isotonic path of the training scores (see
        :class:`~calibbook.near_isotonic.NearIsotonicPath`).
    model_lambdas_, model_df_, model_scores_, model_weights_ : ndarray (T,)
        The averaged models (the lam = 0 model excluded unless it is the only one),
        their blocks, criterion values and weights (summing to one).
    run_values_ : ndarray (R,)
        Averaged calibrated value at each distinct training score.

    Notes
    -----
    Scores must be probabilities in [0, 1] (the smoothing prior of each bin is its
    mean score, as in the authors' code); pass decision values through a sigmoid
    first, as the paper does for SVMs. Each bin's value p is smoothed to
    :math:`(W p + e (1 - |o - e|)) / (W + 1 - |o - e|)`, with W its weight, o its fraction
    of positives and e its mean score, which keeps log-loss finite.

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

    def __init__(self, criterion="bic", interpolation="linear", prune=None, prune_alpha=None):
        self.criterion = criterion
        self.interpolation = interpolation
        self.prune = prune
        self.prune_alpha = prune_alpha

    def _check_params(self):
        check_option(self.criterion, "criterion", CRITERIA)
        check_option(self.interpolation, "interpolation", ("linear", "step"))
        check_pruning(self.prune, self.prune_alpha)

    def _fit(self, scores, y, sample_weight):
        from ._kernels.neariso import group_events, model_average, near_isotonic_path

        self._check_params()
        values, weights, positives = sorted_runs(scores, y, sample_weight)
        events = near_isotonic_path(weights, positives)
        event_model, lam = group_events(events[0], 1e-12)
        df, scores_ic = self._score_models(weights, positives, events, event_model, lam)
        model_weight = relative_likelihoods(
            scores_ic, self.prune, pruning_alpha(self.prune, self.prune_alpha, self._ELBOW_ALPHA)
        )
        self.run_values_ = np.clip(
            model_average(weights, positives, weights * values, *events[1:], event_model, lam, model_weight),
            0.0, 1.0,
        )
        keep = model_weight > 0
        self.path_ = NearIsotonicPath(values, weights, positives, *events)
        self.model_lambdas_ = lam[keep]
        self.model_df_ = df[keep]
        self.model_scores_ = scores_ic[keep]
        self.model_weights_ = model_weight[keep]
        return self

    def _score_models(self, weights, positives, events, event_model, lam):
        """Criterion of every model that can matter, from the log-likelihood of its fitted values.

        Scoring all T models exactly would re-score every moving block at every
        breakpoint. Instead: the binned log-likelihood (each block at its own
        fraction of positives) bounds each model's fitted log-likelihood from above,
        so it bounds the criterion from below, for all models in O(E). Models whose
        bound is more than ``_MARGIN`` above an exactly scored model cannot reach a
        relative likelihood of exp(-_MARGIN / 2) (< 1e-16) and get weight 0; only
        the rest are scored exactly. Models with infinite criterion (a fitted 0 or 1
        meeting a label it rules out) get weight 0 too, as in the authors' code.
        """
        from ._kernels.neariso import path_models

        n_models, n = lam.size, weights.sum()
        run = lambda evaluate: path_models(weights, positives, *events[1:], event_model, lam, evaluate)  # noqa: E731
        df, binned, _ = run(np.zeros(n_models, np.bool_))
        bound = information_criterion(binned, df, n, self.criterion)
        if n_models > 1:  # the lam = 0 model reproduces the data: leave it out
            bound[0] = np.inf
        first = np.zeros(n_models, np.bool_)
        first[np.argmin(bound)] = True
        _, _, fitted = run(first)
        best = information_criterion(fitted[first], df[first], n, self.criterion)[0]
        candidates = bound <= best + self._MARGIN
        _, _, fitted = run(candidates)
        scores_ic = np.full(n_models, np.inf)
        scores_ic[candidates] = information_criterion(fitted[candidates], df[candidates], n, self.criterion)
        scores_ic[np.isnan(scores_ic)] = np.inf  # -inf log-likelihood
        return df, scores_ic

    def _predict(self, scores):
        return interpolate_runs(self.path_.scores, self.run_values_, scores, self.interpolation)
