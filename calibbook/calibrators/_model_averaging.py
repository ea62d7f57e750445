"""Model averaging shared by ENIR and BBQ: information criteria, relative likelihoods, pruning.

Both ensembles score a family of step maps (ENIR: the models of the near-isotonic
path; BBQ: equal-frequency binnings), turn the scores into relative likelihoods and
average the maps with those weights, optionally after pruning the weak models
(:doc:`/book/05_near_isotonic_enir_bbq`). The public names are re-exported by
:mod:`calibbook.calibrators.enir`, where the API reference documents them.
"""

import numpy as np

from calibbook._utils.params import Interval, Options, Real, validate_params

__all__ = [
    "CRITERIA",
    "PRUNING",
    "PRUNING_CONSTRAINTS",
    "check_pruning",
    "elbow_keep",
    "information_criterion",
    "pruning_alpha",
    "relative_likelihoods",
]

#: The information criteria a model can be scored by.
CRITERIA = ("bic", "aic", "aicc")
#: The pruning rules: Occam's window and the elbow rule of the authors' code.
PRUNING = ("window", "elbow")
#: Constraints of the ``prune`` and ``prune_alpha`` parameters of ENIR and BBQ.
PRUNING_CONSTRAINTS = {
    "prune": [Options(*PRUNING), None],
    "prune_alpha": [Interval(Real, 0, 1, closed="left"), None],
}


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
    >>> from calibbook.calibrators.enir import information_criterion
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


def check_pruning(prune, prune_alpha):
    """Check that ``prune`` and ``prune_alpha`` make sense together.

    Each value on its own is checked by the estimators' ``_parameter_constraints``
    (``prune`` one of :data:`PRUNING` or None, ``prune_alpha`` None or in [0, 1));
    this checks the combination.

    Raises
    ------
    ValueError
        If ``prune="window"`` comes without ``prune_alpha``, or ``prune_alpha``
        without ``prune``.
    """
    if prune == "window" and prune_alpha is None:
        raise ValueError("prune='window' needs prune_alpha, the smallest relative likelihood kept.")
    if prune is None and prune_alpha is not None:
        raise ValueError(
            f"prune_alpha={prune_alpha!r} has no effect without prune; choose prune='window' "
            "(Occam's window) or prune='elbow' (the authors' elbow rule)."
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
    >>> from calibbook.calibrators.enir import elbow_keep
    >>> # the drop after 0.01 is small
    >>> elbow_keep([1.0, 0.5, 0.01, 0.009, 0.0], 0.01).tolist()
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


@validate_params(PRUNING_CONSTRAINTS)
def relative_likelihoods(scores, prune=None, prune_alpha=None):
    r"""Model weights proportional to :math:`\exp(-(\mathrm{IC}_t - \min_u \mathrm{IC}_u) / 2)`.

    The weights, summing to one, with which ENIR and BBQ average their models
    (:doc:`/book/05_near_isotonic_enir_bbq`). Non-finite scores get weight 0.
    Pruning sets some models' weights to 0 before normalising:
    ``prune="window"`` drops relative likelihoods below ``prune_alpha`` (Occam's
    window); ``prune="elbow"`` keeps the models :func:`elbow_keep` keeps.

    Parameters
    ----------
    scores : array-like of shape (T,)
        Criterion value of each model (smaller is better), e.g. from
        :func:`calibbook.calibrators.enir.information_criterion`.
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
        If ``prune`` is unknown, ``prune_alpha`` is missing or not in [0, 1), or no
        score is finite.

    References
    ----------
    Madigan & Raftery, "Model selection and accounting for model uncertainty in
    graphical models using Occam's window", JASA 89 (1994); Naeini & Cooper,
    ICDM 2016, Eq. 6; the authors' code (``elbow.m``).

    Examples
    --------
    >>> from calibbook.calibrators.enir import relative_likelihoods
    >>> relative_likelihoods([10.0, 10.0, float("inf")]).tolist()
    [0.5, 0.5, 0.0]
    >>> # exp(-3) relative to the best
    >>> relative_likelihoods([0.0, 2.0 * 3.0]).round(4).tolist()
    [0.9526, 0.0474]
    >>> relative_likelihoods([0.0, 2.0 * 3.0], prune="window", prune_alpha=0.1).tolist()
    [1.0, 0.0]
    """
    if prune is not None and prune_alpha is None:
        raise ValueError(f"prune={prune!r} needs prune_alpha.")
    check_pruning(prune, prune_alpha)
    scores = np.asarray(scores, dtype=np.float64)
    finite = np.isfinite(scores)
    if not finite.any():
        raise ValueError(
            "every model's criterion is infinite or NaN, so no model has a relative likelihood "
            "(AICc, for one, is infinite when the total weight is at most df + 1)."
        )
    rel = np.zeros_like(scores)
    rel[finite] = np.exp(-(scores[finite] - scores[finite].min()) / 2.0)  # max is exactly 1
    if prune == "window":
        rel[rel < prune_alpha] = 0.0
    elif prune == "elbow":
        rel[~elbow_keep(rel, prune_alpha)] = 0.0
    return rel / rel.sum()
