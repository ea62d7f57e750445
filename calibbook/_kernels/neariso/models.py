"""The models of a near-isotonic path (one per distinct merge lambda): their grouping,
their scoring by goodness of fit, and ENIR's weighted average of them."""

import math

import numpy as np
from numba import njit

from calibbook._kernels.arrays import filled, zeroed


@njit(cache=True)
def _block_loglik(pos, neg, v):
    """Bernoulli log-likelihood of a block predicting v (clipped to [0, 1]); 0 log 0 = 0.

    ``math``'s logarithms: the C library's both compiled and interpreted
    (:mod:`calibbook._kernels.interpreted`)."""
    v = min(max(v, 0.0), 1.0)
    out = 0.0
    if pos > 0.0 and v < 1.0:  # log(1) = 0 adds nothing
        out += pos * math.log(v) if v > 0.0 else -np.inf
    if neg > 0.0 and v > 0.0:  # log1p(-0) = 0 adds nothing
        out += neg * math.log1p(-v) if v < 1.0 else -np.inf
    return out


@njit(cache=True)
def _block_term(S, W, v, gaussian):
    """A block's share of the fit's quality when it predicts v, larger is better.

    Bernoulli: its log-likelihood. Gaussian: v (2 S - W v), which is minus its
    squared error sum_i w_i (y_i - v)^2 up to sum_i w_i y_i^2, a constant of the data.
    Either way S / W, the block's mean, maximises it.
    """
    if gaussian:
        return v * (2.0 * S - W * v)
    return _block_loglik(S, W - S, v)


def model_breaks(event_lam, rel_tol):
    """The merges that start a new model, for non-decreasing ``event_lam`` (int64 indices).

    The rule of :func:`group_events`: walking the merges in order, merge k starts a new
    model when ``event_lam[k] > last * (1 + rel_tol) + rel_tol``, with ``last`` the lambda
    of the current model's first merge (0 for model 0). In NumPy: a merge that clears
    that bound over the merge before it clears it over ``last`` (which is no larger), so
    those merges are breaks; a stretch between them whose largest lambda stays under the
    bound of its first merge holds no other break, and only a stretch that drifts past it
    (a chain of close lambdas) is walked merge by merge.
    """
    n = event_lam.shape[0]
    if n == 0:
        return np.empty(0, np.int64)
    bound = 1.0 + rel_tol
    previous = np.concatenate(([0.0], event_lam[:-1]))
    sure = np.flatnonzero(event_lam > previous * bound + rel_tol)
    first = np.concatenate(([0], sure))
    stop = np.concatenate((sure, [n]))
    last = np.concatenate(([0.0], event_lam[sure]))
    drifts = (stop > first) & (event_lam[np.maximum(stop - 1, 0)] > last * bound + rel_tol)
    extra = []
    for g in np.flatnonzero(drifts):
        current = last[g]
        for k in range(first[g] + (g > 0), stop[g]):
            if event_lam[k] > current * bound + rel_tol:
                extra.append(k)
                current = event_lam[k]
    if not extra:
        return sure.astype(np.int64)
    return np.sort(np.concatenate((sure, extra))).astype(np.int64)


def group_events(event_lam, rel_tol):
    """Model index of each merge event, and the lambda of each model.

    Model t (t = 0, 1, ..., T) is the fit at the t-th distinct merge lambda, after
    all merges at that lambda (model 0: lam = 0, the pooled responses). Lambdas
    closer than ``rel_tol`` (relative) count as one breakpoint, so that rounding
    cannot split one breakpoint into near-duplicate models (:func:`model_breaks`).
    The lambda of a model is that of its last merge (0 for a model 0 without merges).
    """
    n = event_lam.shape[0]
    breaks = model_breaks(event_lam, rel_tol)
    starts = np.zeros(n, np.int64)
    starts[breaks] = 1
    event_model = np.cumsum(starts)
    ends = np.concatenate((breaks, [n]))  # one past each model's last merge
    model_lam = np.concatenate(([0.0], event_lam))[ends]  # its last merge's (0: none)
    return event_model, model_lam


@njit(cache=True)
def blocks_at(weights, path_sums, score_sums, values, starts, tol):
    """Sums over the runs of the blocks that start at ``starts`` (increasing; then R).

    A block's slope coefficient c = (nu_right - nu_left) / W follows from the violations
    of the runs at its ends: a block inherits the violation flag of its last run (see
    :func:`.path.scored_path`, whose scaled ``tol`` this must be).

    Returns
    -------
    block_weight, block_sum, block_score_sum, block_coef : float64 (B,)
        W, the sum of ``score_sums``, the sum of weight * score (``values``; zeros when
        ``values`` is empty) and c of each block.
    """
    n_blocks = starts.shape[0] - 1
    with_x = values.shape[0] == weights.shape[0]
    bw = zeroed(np.empty(n_blocks, np.float64))
    bs = zeroed(np.empty(n_blocks, np.float64))
    bx = zeroed(np.empty(n_blocks, np.float64))
    coef = np.empty(n_blocks, np.float64)
    left_viol = 0.0  # violation flag of the run before block b
    for b in range(n_blocks):
        first, end = starts[b], starts[b + 1]
        w = s = x = 0.0
        for r in range(first, end):
            w += weights[r]
            s += score_sums[r]
            if with_x:
                x += weights[r] * values[r]
        bw[b], bs[b], bx[b] = w, s, x
        right_viol = 0.0
        if b + 1 < n_blocks:
            right_viol = (
                1.0
                if path_sums[end - 1] / weights[end - 1] > (path_sums[end] / weights[end] + tol)
                else 0.0
            )
        coef[b] = (right_viol - left_viol) / w
        left_viol = right_viol
    return bw, bs, bx, coef


@njit(cache=True)
def _unlist(moving, where, n_moving, b):
    """Take b out of the moving list (swap with the last entry) if it is there."""
    i = where[b]
    if i >= 0:
        last = moving[n_moving - 1]
        moving[i] = last
        where[last] = i
        where[b] = -1
        n_moving -= 1
    return n_moving


@njit(cache=True)
def exact_fits(
    block_weight,
    block_sum,
    block_coef,
    left,
    right,
    coef_after,
    model_after,
    first_model,
    model_lam,
    model_fit,
    evaluate,
    gaussian=False,
):
    """Goodness of fit of the near-isotonic values of the models with ``evaluate[t]``.

    Starts from the blocks of model ``first_model`` (from :func:`blocks_at`) and replays
    the later merges: ``left``, ``right`` (block indices), ``coef_after`` and
    ``model_after`` are those events' fields. A block with c = 0 sits at its mean, where
    its term is already in ``model_fit`` (the binned fit of :func:`.path.scored_path`); only
    the blocks whose value moves with lam (c != 0, kept in a list) are re-scored:
    fit_t = model_fit[t] + sum over moving blocks of (term at their value - term at
    their mean). NaN for the models not evaluated.
    """
    n_blocks = block_weight.shape[0]
    n_after = left.shape[0]
    n_models = model_lam.shape[0]
    W = block_weight.copy()
    S = block_sum.copy()
    coef = block_coef.copy()
    moving = np.empty(n_blocks, np.int64)
    where = filled(np.empty(n_blocks, np.int64), -1)
    n_moving = np.int64(0)  # not a literal 0: one specialization of _unlist
    for b in range(n_blocks):
        if coef[b] != 0.0:
            moving[n_moving] = b
            where[b] = n_moving
            n_moving += 1
    fitted = filled(np.empty(n_models), np.nan)
    k = 0
    for t in range(first_model, n_models):
        while k < n_after and model_after[k] == t:
            h, g = left[k], right[k]
            n_moving = _unlist(moving, where, n_moving, h)
            n_moving = _unlist(moving, where, n_moving, g)
            W[h] += W[g]
            S[h] += S[g]
            coef[h] = coef_after[k]
            if coef[h] != 0.0:
                moving[n_moving] = h
                where[h] = n_moving
                n_moving += 1
            k += 1
        if evaluate[t]:
            total = model_fit[t]
            lam = model_lam[t]
            for i in range(n_moving):
                b = moving[i]
                mean = S[b] / W[b]
                total += _block_term(S[b], W[b], mean - lam * coef[b], gaussian) - _block_term(
                    S[b], W[b], mean, gaussian
                )
            fitted[t] = total
    return fitted


@njit(cache=True)
def model_average(
    block_weight,
    block_sum,
    block_score_sum,
    block_coef,
    left,
    right,
    coef_after,
    model_after,
    model_lam,
    model_weight,
):
    """Value of each block of the weighted average of the path's smoothed models.

    Each block's smoothed value (W p + e (1 - |o - e|)) / (W + 1 - |o - e|), with p
    its near-isotonic value, o = S / W its fraction of positives and e its mean
    score (the prior of the authors' code), is linear in lam over the block's life.
    So its weighted sum over the models it lives in needs only prefix sums of the
    model weights w_t and of w_t lam_t; a pass down the merge tree then adds up,
    for every block, the contributions of the blocks that contained it.

    The tree starts from the blocks of a model before which every model weight is 0
    (from :func:`blocks_at`; the events after it are ``left``, ``right``, ``coef_after``,
    ``model_after``): the blocks that died earlier lived in no weighted model and add
    exactly 0. O(B + events after).
    """
    n = block_weight.shape[0]
    n_events = left.shape[0]
    n_models = model_lam.shape[0]
    cum_w = zeroed(np.empty(n_models + 1, np.float64))
    cum_wl = zeroed(np.empty(n_models + 1, np.float64))
    for t in range(n_models):
        cum_w[t + 1] = cum_w[t] + model_weight[t]
        cum_wl[t + 1] = cum_wl[t] + model_weight[t] * model_lam[t]
    n_nodes = n + n_events
    W = np.empty(n_nodes, np.float64)
    S = np.empty(n_nodes, np.float64)
    X = np.empty(n_nodes, np.float64)
    coef = np.empty(n_nodes, np.float64)
    birth = zeroed(np.empty(n_nodes, np.int64))
    death = np.empty(n_nodes, np.int64)
    parent = np.empty(n_nodes, np.int64)
    for node in range(n_nodes):  # a loop compiles faster than np.full and -np.ones
        death[node] = n_models
        parent[node] = -1
    node_of = np.empty(n, np.int64)  # current node of each block
    for r in range(n):
        node_of[r] = r
        W[r], S[r], X[r], coef[r] = block_weight[r], block_sum[r], block_score_sum[r], block_coef[r]
    for k in range(n_events):
        a, b = node_of[left[k]], node_of[right[k]]
        node = n + k
        W[node], S[node], X[node] = W[a] + W[b], S[a] + S[b], X[a] + X[b]
        coef[node] = coef_after[k]
        birth[node] = model_after[k]
        death[a] = death[b] = model_after[k]
        parent[a] = parent[b] = node
        node_of[left[k]] = node
    acc = zeroed(np.empty(n_nodes, np.float64))
    for node in range(n_nodes - 1, -1, -1):  # parents have larger ids than children
        m = S[node] / W[node]
        e = X[node] / W[node]
        strength = 1.0 - abs(m - e)
        denom = W[node] + strength
        alpha = (W[node] * m + e * strength) / denom
        beta = -W[node] * coef[node] / denom
        lo, hi = birth[node], death[node]
        contrib = alpha * (cum_w[hi] - cum_w[lo]) + beta * (cum_wl[hi] - cum_wl[lo])
        acc[node] = contrib + (acc[parent[node]] if parent[node] >= 0 else 0.0)
    return acc[:n]
