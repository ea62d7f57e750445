"""ENIR's scoring of the near-isotonic path: which models can matter, and their criteria.

ENIR (and ``NearIsotonicRegression``'s choice of lambda) score every model of the
mPAVA path by an information criterion. :class:`ScoredPath` runs the path and bounds
each model's fit in the same sweep; :func:`score_path_models` scores exactly only the
models whose bound leaves them a chance. Shared model averaging lives beside it, in
``_model_averaging``.
"""

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from calibbook.calibrators._model_averaging import information_criterion

if TYPE_CHECKING:  # near_isotonic imports this module
    from calibbook.calibrators.near_isotonic import NearIsotonicPath

__all__ = ["ScoredPath", "score_path_models"]


@dataclass(frozen=True)
class ScoredPath:
    """A near-isotonic path with its models grouped and their binned fits (internal).

    ``path`` is the :class:`NearIsotonicPath`; model t (lambda ``model_lam[t]``) is the
    fit after the fusing at the start and the stored merges before ``model_start[t + 1]``
    (``_kernels.neariso.models.group_events`` of the merges); ``df`` the blocks of each model
    and ``binned`` each model's goodness of fit with every block at its own mean, scored
    with ``score_sums`` (the path's sums, or centred ones for a Gaussian fit);
    ``final_heads`` the first run of each block of the last model and ``tol`` the path's
    scaled fusing tolerance.
    """

    path: "NearIsotonicPath"
    score_sums: np.ndarray
    model_start: np.ndarray
    model_lam: np.ndarray
    df: np.ndarray
    binned: np.ndarray
    final_heads: np.ndarray
    tol: float

    @classmethod
    def fit(cls, values, weights, sums, score_sums=None, score="bernoulli"):
        """The path of sorted runs, with its models' binnings scored in the same sweep.

        ``score``: "bernoulli", "gaussian" (on ``score_sums``) or None (no scores).
        """
        from calibbook._kernels.interpreted import for_size
        from calibbook._kernels.neariso.path import scored_path
        from calibbook.calibrators.near_isotonic import NearIsotonicPath  # it imports this module

        mode = {None: 0, "bernoulli": 1, "gaussian": 2}[score]
        separate = np.empty(0) if score_sums is None else score_sums
        # every argument given: the signature near_isotonic_path compiles, so one specialization
        out = for_size(scored_path, weights.size)(weights, sums, separate, mode, 1e-12, 1e-12)
        path = NearIsotonicPath(values, weights, sums, *out[:5])
        return cls(path, sums if score_sums is None else score_sums, *out[5:])

    def events_after(self, first_model):
        """The blocks of model ``first_model`` and the merges after it, over block indices.

        Returns (starts, block weights, block score sums, block sums of weight * score,
        block coefficients, left, right, coef, model) with left/right the block indices
        (a merged block keeps the index of its left part) and model the model of each
        later merge.
        """
        from calibbook._kernels.interpreted import for_size
        from calibbook._kernels.neariso.models import blocks_at

        path = self.path
        n_before = int(self.model_start[first_model + 1])
        # a block starts at a run that no merge took in by then: the last model's blocks,
        # split where the later merges took their right blocks in
        starts = np.sort(
            np.concatenate((self.final_heads, path.merge_right[n_before:], [path.scores.size]))
        )
        bw, bs, bx, coef = for_size(blocks_at, path.weights.size)(
            path.weights, path.sums, self.score_sums, path.scores, starts, self.tol
        )
        left = np.searchsorted(starts, path.merge_left[n_before:])
        right = np.searchsorted(starts, path.merge_right[n_before:])
        models = np.arange(first_model + 1, self.model_lam.size)
        model = np.repeat(models, np.diff(self.model_start[first_model + 1 :]))
        return starts, bw, bs, bx, coef, left, right, path.merge_coef[n_before:], model


def score_path_models(scored, criterion, *, gaussian=None, margin=75.0):
    """Information criterion of the models of a near-isotonic path that can matter.

    Model t is the fit at the t-th breakpoint ``scored.model_lam[t]`` (see
    ``_kernels.neariso.models.group_events``), with df = its number of blocks. Its
    log-likelihood is Bernoulli (responses in [0, 1], as ENIR) or, with
    ``gaussian=(ss, variance)``, Gaussian with that variance:
    -RSS / (2 variance) - n/2 log(2 pi variance). Then ``scored.score_sums`` must be
    the sums of the centred responses and ``ss`` their weighted sum of squares.

    Scoring all T models exactly would re-score every moving block at every
    breakpoint. Instead: the binned fit (each block at its own mean) bounds each
    model's log-likelihood from above, so it bounds the criterion from below, for all
    models in O(E), on the path's own sweep. Models whose bound is more than ``margin``
    above an exactly scored model cannot reach a relative likelihood of
    exp(-margin / 2) and get +inf; only the rest are scored exactly, in one replay of
    the merges from the first of them on. The lam = 0 model reproduces the (pooled)
    responses and gets +inf too, unless it is the only model. So does a model with a
    log-likelihood of -inf (a fitted 0 or 1 meeting a label it rules out).

    Returns
    -------
    df : int ndarray (T + 1,)
    criterion : float ndarray (T + 1,), smaller is better.
    blocks : tuple
        ``scored.events_after(t)`` for the first model t scored exactly (every model
        before it gets +inf, hence weight 0 in an average).
    """
    from calibbook._kernels.interpreted import for_size
    from calibbook._kernels.neariso.models import exact_fits

    df, n_models = scored.df, scored.model_lam.size
    n = scored.path.weights.sum()

    def score(fit, df):
        if gaussian is not None:  # fit is ss - RSS
            ss, variance = gaussian
            rss = np.maximum(ss - fit, 0.0)
            fit = -0.5 * rss / variance - 0.5 * n * np.log(2.0 * np.pi * variance)
        return information_criterion(fit, df, n, criterion)

    def exact(evaluate):
        first = int(np.argmax(evaluate))
        blocks = scored.events_after(first)
        _, bw, bs, _, coef, left, right, coef_after, model_after = blocks
        fitted = for_size(exact_fits, scored.path.weights.size)(
            bw,
            bs,
            coef,
            left,
            right,
            coef_after,
            model_after,
            first,
            scored.model_lam,
            scored.binned,
            evaluate,
            gaussian is not None,
        )
        return fitted, blocks

    bound = score(scored.binned, df)
    if n_models > 1:  # the lam = 0 model reproduces the data: leave it out
        bound[0] = np.inf
    best_bound = np.argmin(bound)
    # score every model that can be a candidate unless the best one falls more than
    # `margin` below its bound; in that rare case, a second replay scores the rest
    evaluate = bound <= bound[best_bound] + 2.0 * margin
    fitted, blocks = exact(evaluate)
    best = score(fitted[best_bound], df[best_bound])
    candidates = bound <= best + margin
    if np.any(candidates & ~evaluate):
        fitted, blocks = exact(candidates)
    out = np.full(n_models, np.inf)
    out[candidates] = score(fitted[candidates], df[candidates])
    out[np.isnan(out)] = np.inf  # -inf log-likelihood
    return df, out, blocks
