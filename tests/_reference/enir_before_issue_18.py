"""ENIR's path, fit and predict as they were before issue 18 (commit 85531eb), frozen.

The oracle of tests/unit/test_enir_bbq.py (the fit) and tests/unit/test_near_isotonic.py (the
path): a heap with stale entries, three scoring passes over every merge, the average over the
whole merge tree, and linear interpolation through every run. The fast fit must agree with it.
Kept as it was, so do not tidy it.
"""

import numpy as np
from numba import njit

from calibbook.calibrators.enir import ENIR, information_criterion


@njit(cache=True)
def _old_heap_push(keys, heads, vers, size, key, head, ver):
    i = size
    keys[i], heads[i], vers[i] = key, head, ver
    while i > 0:
        parent = (i - 1) >> 1
        if keys[parent] <= keys[i]:
            break
        keys[parent], keys[i] = keys[i], keys[parent]
        heads[parent], heads[i] = heads[i], heads[parent]
        vers[parent], vers[i] = vers[i], vers[parent]
        i = parent
    return size + 1


@njit(cache=True)
def _old_heap_pop(keys, heads, vers, size):
    key, head, ver = keys[0], heads[0], vers[0]
    size -= 1
    keys[0], heads[0], vers[0] = keys[size], heads[size], vers[size]
    i = 0
    while True:
        left = 2 * i + 1
        if left >= size:
            break
        child = left
        if left + 1 < size and keys[left + 1] < keys[left]:
            child = left + 1
        if keys[i] <= keys[child]:
            break
        keys[child], keys[i] = keys[i], keys[child]
        heads[child], heads[i] = heads[i], heads[child]
        vers[child], vers[i] = vers[i], vers[child]
        i = child
    return key, head, ver, size


@njit(cache=True)
def _old_slope_coef(h, W, viol, prv):
    """c_B = (nu_right - nu_left) / W_B for the block with head h."""
    left = viol[prv[h]] if prv[h] >= 0 else 0.0
    return (viol[h] - left) / W[h]


@njit(cache=True)
def _old_merge_time(h, lam, W, S, viol, prv, nxt, tol):
    """When the block at h meets its right neighbour, or +inf if never (from lam on)."""
    g = nxt[h]
    ch = _old_slope_coef(h, W, viol, prv)
    cg = _old_slope_coef(g, W, viol, prv)
    gap = (S[h] / W[h] - lam * ch) - (S[g] / W[g] - lam * cg)  # p_h - p_g now
    if abs(gap) <= tol:
        return lam  # equal adjacent blocks are fused at once
    closing = cg - ch  # d(gap)/dlam = -(ch - cg)
    if gap * closing >= 0.0:
        return np.inf  # the gap does not shrink
    return lam - gap / closing


@njit(cache=True)
def _old_near_isotonic_path(weights, sums, tol=1e-12):
    """Merge events of the near-isotonic path over sorted runs.

    Parameters
    ----------
    weights, sums : float64 arrays (R,)
        Run weights (> 0) and weighted sums of the responses, sorted by score.
    tol : float
        Two adjacent block values closer than ``tol`` (times the response scale)
        count as equal and are fused.

    Returns
    -------
    event_lam : float64 (E,)
        Non-decreasing merge lambdas (0 for runs fused at the start).
    event_left, event_right : int64 (E,)
        Head runs of the left and right blocks that merge; the merged block keeps
        the left head.
    event_coef : float64 (E,)
        c of the merged block, constant over its life: its value at any lam until
        its next merge is S / W - lam * c.
    initial_coef : float64 (R,)
        c of each run as a block of its own at lam = 0.
    """
    n = weights.shape[0]
    W = weights.copy()
    S = sums.copy()
    prv = np.arange(-1, n - 1)
    nxt = np.arange(1, n + 1)
    nxt[n - 1] = -1
    viol = np.zeros(n, np.float64)
    ver = np.zeros(n, np.int64)
    alive = np.ones(n, np.bool_)
    scale = 0.0
    for i in range(n):
        scale = max(scale, abs(S[i] / W[i]))
    tol = tol * (1.0 + scale)
    for i in range(n - 1):
        if S[i] / W[i] > S[i + 1] / W[i + 1] + tol:
            viol[i] = 1.0

    cap = 4 * n + 4  # each merge pushes at most two events, plus the initial n
    keys = np.empty(cap, np.float64)
    heads = np.empty(cap, np.int64)
    vers = np.empty(cap, np.int64)
    size = 0
    for i in range(n - 1):
        t = _old_merge_time(i, 0.0, W, S, viol, prv, nxt, tol)
        if t < np.inf:
            size = _old_heap_push(keys, heads, vers, size, t, i, ver[i])

    event_lam = np.empty(max(n - 1, 0), np.float64)
    event_left = np.empty(max(n - 1, 0), np.int64)
    event_right = np.empty(max(n - 1, 0), np.int64)
    event_coef = np.empty(max(n - 1, 0), np.float64)
    initial_coef = np.empty(n, np.float64)
    for i in range(n):
        initial_coef[i] = _old_slope_coef(i, W, viol, prv)
    n_events = 0
    lam = 0.0
    while size > 0:
        t, h, v, size = _old_heap_pop(keys, heads, vers, size)
        if not alive[h] or ver[h] != v or nxt[h] < 0:
            continue  # stale: the pair changed since this time was computed
        lam = max(lam, t)
        g = nxt[h]
        event_lam[n_events] = lam
        event_left[n_events] = h
        event_right[n_events] = g
        n_events += 1
        # h absorbs g; the pair to the right keeps g's order (values are equal now)
        W[h] += W[g]
        S[h] += S[g]
        viol[h] = viol[g]
        nxt[h] = nxt[g]
        if nxt[h] >= 0:
            prv[nxt[h]] = h
        alive[g] = False
        ver[h] += 1
        event_coef[n_events - 1] = _old_slope_coef(h, W, viol, prv)
        if nxt[h] >= 0:
            t_new = _old_merge_time(h, lam, W, S, viol, prv, nxt, tol)
            if t_new < np.inf:
                size = _old_heap_push(keys, heads, vers, size, t_new, h, ver[h])
        p = prv[h]
        if p >= 0:
            ver[p] += 1  # h's slope changed, so the pair (p, h) needs a new time
            t_new = _old_merge_time(p, lam, W, S, viol, prv, nxt, tol)
            if t_new < np.inf:
                size = _old_heap_push(keys, heads, vers, size, t_new, p, ver[p])
    return (
        event_lam[:n_events],
        event_left[:n_events],
        event_right[:n_events],
        event_coef[:n_events],
        initial_coef,
    )


@njit(cache=True)
def _old_block_loglik(pos, neg, v):
    """Bernoulli log-likelihood of a block predicting v (clipped to [0, 1]); 0 log 0 = 0."""
    v = min(max(v, 0.0), 1.0)
    out = 0.0
    if pos > 0.0:
        out += pos * np.log(v) if v > 0.0 else -np.inf
    if neg > 0.0:
        out += neg * np.log1p(-v) if v < 1.0 else -np.inf
    return out


@njit(cache=True)
def _old_block_term(S, W, v, gaussian):
    """A block's share of the fit's quality when it predicts v, larger is better.

    Bernoulli: its log-likelihood. Gaussian: v (2 S - W v), which is minus its
    squared error sum_i w_i (y_i - v)^2 up to sum_i w_i y_i^2, a constant of the data.
    Either way S / W, the block's mean, maximises it.
    """
    if gaussian:
        return v * (2.0 * S - W * v)
    return _old_block_loglik(S, W - S, v)


@njit(cache=True)
def _old_group_events(event_lam, rel_tol):
    """Model index of each merge event, and the lambda of each model.

    Model t (t = 0, 1, ..., T) is the fit at the t-th distinct merge lambda, after
    all merges at that lambda (model 0: lam = 0, the pooled responses). Lambdas
    closer than ``rel_tol`` (relative) count as one breakpoint, so that rounding
    cannot split one breakpoint into near-duplicate models.
    """
    n_events = event_lam.shape[0]
    event_model = np.empty(n_events, np.int64)
    t = 0
    last = 0.0
    for k in range(n_events):
        if event_lam[k] > last * (1.0 + rel_tol) + rel_tol:
            t += 1
            last = event_lam[k]
        event_model[k] = t
    model_lam = np.zeros(t + 1, np.float64)
    for k in range(n_events):
        model_lam[event_model[k]] = event_lam[k]  # the last (largest) lambda of the group
    return event_model, model_lam


@njit(cache=True)
def _old_add_block(h, W, S, coef, moving, where, n_moving, static, binned, gaussian):
    """Count block h in the running sums: the moving list if its value moves, else `static`."""
    own = _old_block_term(S[h], W[h], S[h] / W[h], gaussian)
    if coef[h] != 0.0:
        moving[n_moving] = h
        where[h] = n_moving
        n_moving += 1
    else:
        static += own
    return n_moving, static, binned + own


@njit(cache=True)
def _old_path_models(
    weights,
    sums,
    event_left,
    event_right,
    event_coef,
    initial_coef,
    event_model,
    model_lam,
    evaluate,
    gaussian=False,
):
    """Number of blocks and goodness of fit of every model of the path.

    The goodness of fit is the sum of ``_block_term`` over the blocks: the Bernoulli
    log-likelihood (y in [0, 1]), or with ``gaussian`` minus the squared error up to
    the constant sum_i w_i y_i^2.

    Returns
    -------
    model_blocks : (T + 1,) number of blocks (df) of each model.
    binned_loglik : (T + 1,) goodness of fit with each block at its own mean
        (fraction of positives): the maximum over the model's binning, an upper
        bound on the next one. Kept up to date in O(1) per merge.
    fitted_loglik : (T + 1,) goodness of fit of the near-isotonic values themselves,
        for the models with ``evaluate[t]`` (NaN for the others). Blocks whose value
        moves with lam are re-scored at each evaluated model; the others keep their
        value S / W and sit in a running sum.
    """
    n = weights.shape[0]
    n_events = event_left.shape[0]
    n_models = model_lam.shape[0]
    W = weights.copy()
    S = sums.copy()
    coef = initial_coef.copy()
    moving = np.empty(n, np.int64)
    where = -np.ones(n, np.int64)
    n_moving = 0
    static = 0.0  # fitted log-likelihood of the blocks that do not move
    binned = 0.0  # binned log-likelihood of all blocks
    for h in range(n):
        n_moving, static, binned = _old_add_block(
            h, W, S, coef, moving, where, n_moving, static, binned, gaussian
        )
    model_blocks = np.empty(n_models, np.int64)
    binned_loglik = np.empty(n_models, np.float64)
    fitted_loglik = np.full(n_models, np.nan)
    blocks = n
    k = 0
    for t in range(n_models):
        while k < n_events and event_model[k] == t:
            h, g = event_left[k], event_right[k]
            for b in (h, g):  # take both old blocks out of the sums
                own = _old_block_term(S[b], W[b], S[b] / W[b], gaussian)
                binned -= own
                if where[b] >= 0:
                    last_b = moving[n_moving - 1]
                    moving[where[b]] = last_b
                    where[last_b] = where[b]
                    where[b] = -1
                    n_moving -= 1
                else:
                    static -= own
            W[h] += W[g]
            S[h] += S[g]
            coef[h] = event_coef[k]
            n_moving, static, binned = _old_add_block(
                h, W, S, coef, moving, where, n_moving, static, binned, gaussian
            )
            blocks -= 1
            k += 1
        model_blocks[t] = blocks
        binned_loglik[t] = binned
        if evaluate[t]:
            total = static
            lam = model_lam[t]
            for i in range(n_moving):
                b = moving[i]
                total += _old_block_term(S[b], W[b], S[b] / W[b] - lam * coef[b], gaussian)
            fitted_loglik[t] = total
    return model_blocks, binned_loglik, fitted_loglik


@njit(cache=True)
def _old_model_average(
    weights,
    sums,
    score_sums,
    event_left,
    event_right,
    event_coef,
    initial_coef,
    event_model,
    model_lam,
    model_weight,
):
    """Per-run value of the weighted average of the path's smoothed models.

    Each block's smoothed value (W p + e (1 - |o - e|)) / (W + 1 - |o - e|), with p
    its near-isotonic value, o = S / W its fraction of positives and e its mean
    score (the prior of the authors' code), is linear in lam over the block's life.
    So its weighted sum over the models it lives in needs only prefix sums of the
    model weights w_t and of w_t lam_t; a pass down the merge tree then adds up,
    for every run, the contributions of the blocks that contained it. O(R + T).
    """
    n = weights.shape[0]
    n_events = event_left.shape[0]
    n_models = model_lam.shape[0]
    cum_w = np.zeros(n_models + 1, np.float64)
    cum_wl = np.zeros(n_models + 1, np.float64)
    for t in range(n_models):
        cum_w[t + 1] = cum_w[t] + model_weight[t]
        cum_wl[t + 1] = cum_wl[t] + model_weight[t] * model_lam[t]
    n_nodes = n + n_events
    W = np.empty(n_nodes, np.float64)
    S = np.empty(n_nodes, np.float64)
    X = np.empty(n_nodes, np.float64)
    coef = np.empty(n_nodes, np.float64)
    birth = np.zeros(n_nodes, np.int64)
    death = np.full(n_nodes, n_models, np.int64)
    parent = -np.ones(n_nodes, np.int64)
    node_of = np.arange(n)  # current node of each block head
    for r in range(n):
        W[r], S[r], X[r], coef[r] = weights[r], sums[r], score_sums[r], initial_coef[r]
    for k in range(n_events):
        a, b = node_of[event_left[k]], node_of[event_right[k]]
        node = n + k
        W[node], S[node], X[node] = W[a] + W[b], S[a] + S[b], X[a] + X[b]
        coef[node] = event_coef[k]
        birth[node] = event_model[k]
        death[a] = death[b] = event_model[k]
        parent[a] = parent[b] = node
        node_of[event_left[k]] = node
    acc = np.zeros(n_nodes, np.float64)
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


def _old_score_path_models(weights, sums, events, event_model, model_lam, criterion, margin=75.0):
    n_models, n = model_lam.size, weights.sum()

    def run(evaluate):
        return _old_path_models(weights, sums, *events[1:], event_model, model_lam, evaluate)

    df, binned, _ = run(np.zeros(n_models, np.bool_))
    bound = information_criterion(binned, df, n, criterion)
    if n_models > 1:
        bound[0] = np.inf
    first = np.zeros(n_models, np.bool_)
    first[np.argmin(bound)] = True
    _, _, fitted = run(first)
    best = information_criterion(fitted[first], df[first], n, criterion)[0]
    candidates = bound <= best + margin
    _, _, fitted = run(candidates)
    out = np.full(n_models, np.inf)
    out[candidates] = information_criterion(fitted[candidates], df[candidates], n, criterion)
    out[np.isnan(out)] = np.inf
    return df, out


def old_enir(s, y, w=None, criterion="bic", prune=None, prune_alpha=None):
    """Today's fit before issue 18: (predict function, lambdas, df, scores, weights, run values)."""
    from calibbook._utils.binning import sorted_runs
    from calibbook.calibrators._model_averaging import pruning_alpha, relative_likelihoods

    values, weights, positives = sorted_runs(s, y, w)
    events = _old_near_isotonic_path(weights, positives)
    event_model, lam = _old_group_events(events[0], 1e-12)
    df, scores_ic = _old_score_path_models(weights, positives, events, event_model, lam, criterion)
    alpha = pruning_alpha(prune, prune_alpha, ENIR._ELBOW_ALPHA)
    model_weight = relative_likelihoods(scores_ic, prune, alpha)
    averaged = _old_model_average(
        weights, positives, weights * values, *events[1:], event_model, lam, model_weight
    )
    run_values = np.clip(averaged, 0.0, 1.0)
    keep = model_weight > 0

    def predict(q, interpolation="linear"):
        q = np.asarray(q, dtype=float)
        if interpolation == "linear":
            return np.interp(q, values, run_values)
        i = np.searchsorted(values, q, side="right") - 1
        return run_values[np.maximum(i, 0)]

    return (predict, lam[keep], df[keep], scores_ic[keep], model_weight[keep], run_values)


def _old_fit_at(w, sums, events, lam):
    """The fit at lam by replaying the old path's events (all of them, fusings included)."""
    return _replay(w, sums, *events, lam)


@njit(cache=True)
def _replay(w, sums, event_lam, event_left, event_right, event_coef, initial_coef, lam):
    n = w.size
    W, S, coef = w.copy(), sums.copy(), initial_coef.copy()
    nxt = np.arange(1, n + 1)
    nxt[n - 1] = -1
    for k in range(event_lam.size):
        if event_lam[k] > lam:
            break
        h, g = event_left[k], event_right[k]
        W[h] += W[g]
        S[h] += S[g]
        nxt[h] = nxt[g]
        coef[h] = event_coef[k]
    out = np.empty(n)
    h = 0
    while h >= 0:
        end = nxt[h] if nxt[h] >= 0 else n
        out[h:end] = S[h] / W[h] - lam * coef[h]
        h = nxt[h]
    return out
