"""The exact solution path of near-isotonic regression (Tibshirani, Hoefling & Tibshirani 2011).

Problem, for sorted runs with weights w_i and weighted sums s_i (means y_i = s_i / w_i):

    minimise  1/2 sum_i w_i (p_i - y_i)^2 + lam * sum_i (p_i - p_{i+1})_+ .

Between merges each block B (a maximal set of adjacent runs with a common value)
satisfies W_B p_B = S_B - lam (nu_right - nu_left), where nu = 1 for a pair of
adjacent blocks in decreasing order (a violation) and 0 otherwise. So

    p_B(lam) = m_B - lam c_B,   m_B = S_B / W_B,   c_B = (nu_right - nu_left) / W_B,

exactly, with no accumulated rounding. Blocks never split as lam grows; two adjacent
blocks merge when their values meet. A heap of candidate merge times gives the whole
path in O(R log R) for R runs, and the merges are recorded as events (O(R) memory).
"""

import numpy as np
from numba import njit


@njit(cache=True)
def _sift_up(keys, nodes, pos, i):
    """Move heap entry i up to its place; ``pos[node]`` follows each entry."""
    key, node = keys[i], nodes[i]
    while i > 0:
        parent = (i - 1) >> 1
        if keys[parent] <= key:
            break
        keys[i], nodes[i] = keys[parent], nodes[parent]
        pos[nodes[i]] = i
        i = parent
    keys[i], nodes[i] = key, node
    pos[node] = i


@njit(cache=True)
def _sift_down(keys, nodes, pos, size, i):
    """Move heap entry i down to its place."""
    key, node = keys[i], nodes[i]
    while True:
        child = 2 * i + 1
        if child >= size:
            break
        if child + 1 < size and keys[child + 1] < keys[child]:
            child += 1
        if key <= keys[child]:
            break
        keys[i], nodes[i] = keys[child], nodes[child]
        pos[nodes[i]] = i
        i = child
    keys[i], nodes[i] = key, node
    pos[node] = i


@njit(cache=True)
def _heap_set(keys, nodes, pos, size, node, key):
    """Give ``node`` the merge time ``key`` (+inf: take it out of the heap); the new size."""
    i = pos[node]
    if key == np.inf:
        if i < 0:
            return size
        pos[node] = -1
        size -= 1
        if i < size:  # the last entry fills the hole
            keys[i], nodes[i] = keys[size], nodes[size]
            pos[nodes[i]] = i
            if i > 0 and keys[i] < keys[(i - 1) >> 1]:
                _sift_up(keys, nodes, pos, i)
            else:
                _sift_down(keys, nodes, pos, size, i)
        return size
    if i < 0:
        keys[size], nodes[size] = key, node
        _sift_up(keys, nodes, pos, size)
        return size + 1
    old = keys[i]
    keys[i] = key
    if key < old:
        _sift_up(keys, nodes, pos, i)
    else:
        _sift_down(keys, nodes, pos, size, i)
    return size


@njit(cache=True)
def _merge_time(h, g, lam, mean, coef, tol):
    """When the block h meets its right neighbour g, or +inf if never (from lam on).

    A block's value is ``mean - lam * coef``, with ``coef`` = c_B = (nu_right - nu_left) / W_B.
    """
    ch, cg = coef[h], coef[g]
    gap = (mean[h] - lam * ch) - (mean[g] - lam * cg)  # p_h - p_g now
    if abs(gap) <= tol:
        return lam  # equal adjacent blocks are fused at once
    closing = cg - ch  # d(gap)/dlam = -(ch - cg)
    if gap * closing >= 0.0:
        return np.inf  # the gap does not shrink
    return lam - gap / closing


@njit(cache=True)
def scored_path(weights, sums, score_sums, gaussian, tol=1e-12, rel_tol=1e-12):
    """Merge events of the near-isotonic path over sorted runs, grouped into models.

    Parameters
    ----------
    weights, sums : float64 arrays (R,)
        Run weights (> 0) and weighted sums of the responses, sorted by score.
    score_sums : float64 array (R,) or (0,)
        Sums that score each model's binning (see ``_block_term``): ``sums`` for a
        Bernoulli fit, the centred sums for a Gaussian one; empty to skip the scores.
    gaussian : bool
        Which goodness of fit ``model_fit`` holds.
    tol : float
        Two adjacent block values closer than ``tol`` (times the response scale)
        count as equal and are fused.
    rel_tol : float
        Merges whose lambdas are this close (relative) form one model, as in
        :func:`group_events`.

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
    event_model : int64 (E,), model_lam : float64 (T + 1,)
        ``group_events(event_lam, rel_tol)``, computed on the way.
    model_blocks : int64 (T + 1,)
        Number of blocks of each model.
    model_fit : float64 (T + 1,)
        Goodness of fit of each model's binning, each block at its own mean (the sum
        of ``_block_term``; an upper bound on the model's own fit); empty without
        ``score_sums``.

    Notes
    -----
    Runs with exactly equal means are fused in one pass first (they merge at lam = 0
    in any order). The remaining blocks keep each one entry in an indexed heap: the
    merge time of the block and its right neighbour, updated in place when it changes,
    so no stale entries pile up. Merges at one lambda may come out in a different order
    than a heap of stale entries gives, which changes no model.
    """
    n = weights.shape[0]
    scoring = score_sums.shape[0] == n and n > 0
    scale = 0.0
    for i in range(n):
        scale = max(scale, abs(sums[i] / weights[i]))
    tol = tol * (1.0 + scale)

    n_max = max(n - 1, 0)
    event_lam = np.empty(n_max, np.float64)
    event_left = np.empty(n_max, np.int64)
    event_right = np.empty(n_max, np.int64)
    event_coef = np.empty(n_max, np.float64)
    event_model = np.empty(n_max, np.int64)
    initial_coef = np.empty(n, np.float64)
    model_lam = np.zeros(n_max + 1, np.float64)
    model_blocks = np.empty(n_max + 1, np.int64)
    model_fit = np.empty(n_max + 1 if scoring else 0, np.float64)

    # blocks of runs with exactly equal means, fused at lam = 0 (compact indices j < m)
    head = np.empty(n, np.int64)
    W = np.empty(n, np.float64)
    S = np.empty(n, np.float64)
    viol = np.empty(n, np.float64)  # 1 if block j > block j + 1 (a violating pair)
    SS = np.empty(n if scoring else 0, np.float64)
    m = 0
    n_events = 0
    left_viol = 0.0
    for i in range(n):
        mean = sums[i] / weights[i]
        v = 1.0 if i + 1 < n and mean > sums[i + 1] / weights[i + 1] + tol else 0.0
        initial_coef[i] = (v - left_viol) / weights[i]
        left_viol = v
        if m > 0 and S[m - 1] / W[m - 1] == mean:
            j = m - 1
            W[j] += weights[i]
            S[j] += sums[i]
            viol[j] = v
            if scoring:
                SS[j] += score_sums[i]
            event_lam[n_events] = 0.0
            event_left[n_events] = head[j]
            event_right[n_events] = i
            event_coef[n_events] = (v - (viol[j - 1] if j > 0 else 0.0)) / W[j]
            event_model[n_events] = 0
            n_events += 1
        else:
            head[m], W[m], S[m], viol[m] = i, weights[i], sums[i], v
            if scoring:
                SS[m] = score_sums[i]
            m += 1

    mean = np.empty(m, np.float64)
    coef = np.empty(m, np.float64)
    for j in range(m):
        mean[j] = S[j] / W[j]
        coef[j] = (viol[j] - (viol[j - 1] if j > 0 else 0.0)) / W[j]
    own = np.empty(m if scoring else 0, np.float64)  # each block's term at its own mean
    fit = 0.0
    if scoring:
        for j in range(m):
            own[j] = _block_term(SS[j], W[j], SS[j] / W[j], gaussian)
            fit += own[j]
    prv = np.arange(-1, m - 1).astype(np.int32)
    nxt = np.arange(1, m + 1).astype(np.int32)
    if m > 0:
        nxt[m - 1] = -1
    keys = np.empty(max(m - 1, 0), np.float64)
    nodes = np.empty(max(m - 1, 0), np.int32)
    pos = np.full(m, -1, np.int32)
    size = 0
    for j in range(m - 1):
        t = _merge_time(j, j + 1, 0.0, mean, coef, tol)
        if t < np.inf:
            keys[size], nodes[size] = t, j
            pos[j] = size
            size += 1
    for i in range(size // 2 - 1, -1, -1):  # heapify
        _sift_down(keys, nodes, pos, size, i)

    blocks = m
    model = 0
    last = 0.0
    lam = 0.0
    while size > 0:
        h = nodes[0]
        lam = max(lam, keys[0])
        if lam > last * (1.0 + rel_tol) + rel_tol:  # a new model: close the last one
            model_blocks[model] = blocks
            if scoring:
                model_fit[model] = fit
            model += 1
            last = lam
        g = nxt[h]
        size = _heap_set(keys, nodes, pos, size, g, np.inf)  # g's pair is gone
        # h absorbs g; the pair to the right keeps g's order (values are equal now)
        W[h] += W[g]
        S[h] += S[g]
        viol[h] = viol[g]
        q = nxt[g]
        nxt[h] = q
        if q >= 0:
            prv[q] = h
        p = prv[h]
        mean[h] = S[h] / W[h]
        coef[h] = (viol[h] - (viol[p] if p >= 0 else 0.0)) / W[h]
        blocks -= 1
        event_lam[n_events] = lam
        event_left[n_events] = head[h]
        event_right[n_events] = head[g]
        event_coef[n_events] = coef[h]
        event_model[n_events] = model
        model_lam[model] = lam
        n_events += 1
        if scoring:
            fit -= own[h]
            fit -= own[g]
            SS[h] += SS[g]
            own[h] = _block_term(SS[h], W[h], SS[h] / W[h], gaussian)
            fit += own[h]
        t_new = _merge_time(h, q, lam, mean, coef, tol) if q >= 0 else np.inf
        size = _heap_set(keys, nodes, pos, size, h, t_new)
        if p >= 0:  # h's slope changed, so the pair (p, h) needs a new time
            size = _heap_set(keys, nodes, pos, size, p, _merge_time(p, h, lam, mean, coef, tol))
    model_blocks[model] = blocks
    if scoring:
        model_fit[model] = fit
    n_models = model + 1
    return (event_lam[:n_events], event_left[:n_events], event_right[:n_events],
            event_coef[:n_events], initial_coef, event_model[:n_events], model_lam[:n_models],
            model_blocks[:n_models], model_fit[:n_models] if scoring else model_fit)


@njit(cache=True)
def near_isotonic_path(weights, sums, tol=1e-12):
    """Merge events of the near-isotonic path over sorted runs (see :func:`scored_path`).

    Returns
    -------
    event_lam, event_left, event_right, event_coef, initial_coef
        As :func:`scored_path` returns them.
    """
    out = scored_path(weights, sums, np.empty(0, np.float64), False, tol, 1e-12)
    return out[0], out[1], out[2], out[3], out[4]


@njit(cache=True)
def fit_at(weights, sums, event_lam, event_left, event_right, event_coef, initial_coef, lam):
    """Fitted value of every run at ``lam``: replay the merges with event_lam <= lam."""
    n = weights.shape[0]
    W = weights.copy()
    S = sums.copy()
    coef = initial_coef.copy()
    nxt = np.arange(1, n + 1)
    nxt[n - 1] = -1
    for k in range(event_lam.shape[0]):
        if event_lam[k] > lam:
            break
        h, g = event_left[k], event_right[k]
        W[h] += W[g]
        S[h] += S[g]
        nxt[h] = nxt[g]
        coef[h] = event_coef[k]
    out = np.empty(n, np.float64)
    h = 0
    while h >= 0:
        end = nxt[h] if nxt[h] >= 0 else n
        v = S[h] / W[h] - lam * coef[h]
        for r in range(h, end):
            out[r] = v
        h = nxt[h]
    return out


@njit(cache=True)
def _block_loglik(pos, neg, v):
    """Bernoulli log-likelihood of a block predicting v (clipped to [0, 1]); 0 log 0 = 0."""
    v = min(max(v, 0.0), 1.0)
    out = 0.0
    if pos > 0.0:
        out += pos * np.log(v) if v > 0.0 else -np.inf
    if neg > 0.0:
        out += neg * np.log1p(-v) if v < 1.0 else -np.inf
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


@njit(cache=True)
def group_events(event_lam, rel_tol):
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
def blocks_at(weights, path_sums, score_sums, values, event_right, n_before, tol=1e-12):
    """The blocks of the path after its first ``n_before`` merge events, summed over their runs.

    A run starts a block unless one of those events merged it into the block on its left
    (``event_right``). A block's slope coefficient c = (nu_right - nu_left) / W follows
    from the violations of the runs at its ends: a block inherits the violation flag of
    its last run (see :func:`scored_path`, whose ``tol`` this must be).

    Returns
    -------
    starts : int64 (B + 1,)
        First run of each block, then R.
    block_weight, block_sum, block_score_sum, block_coef : float64 (B,)
        W, the sum of ``score_sums``, the sum of weight * score (``values``; zeros when
        ``values`` is empty) and c of each block.
    """
    n = weights.shape[0]
    is_start = np.ones(n, np.bool_)
    for k in range(n_before):
        is_start[event_right[k]] = False
    n_blocks = 0
    for r in range(n):
        n_blocks += is_start[r]
    scale = 0.0
    for i in range(n):
        scale = max(scale, abs(path_sums[i] / weights[i]))
    tol = tol * (1.0 + scale)
    with_x = values.shape[0] == n
    starts = np.empty(n_blocks + 1, np.int64)
    bw = np.zeros(n_blocks, np.float64)
    bs = np.zeros(n_blocks, np.float64)
    bx = np.zeros(n_blocks, np.float64)
    coef = np.empty(n_blocks, np.float64)
    b = -1
    left_viol = 0.0  # violation flag of the run before block b
    for r in range(n):
        if is_start[r]:
            if b >= 0:
                left_viol = 1.0 if path_sums[r - 1] / weights[r - 1] > (
                    path_sums[r] / weights[r] + tol) else 0.0
                coef[b] = left_viol - coef[b]  # nu_right - nu_left, divided below
            b += 1
            starts[b] = r
            coef[b] = left_viol
        bw[b] += weights[r]
        bs[b] += score_sums[r]
        if with_x:
            bx[b] += weights[r] * values[r]
    if b >= 0:
        coef[b] = 0.0 - coef[b]  # the last block has no right neighbour
    for j in range(n_blocks):
        coef[j] /= bw[j]
    starts[n_blocks] = n
    return starts, bw, bs, bx, coef


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
def exact_fits(block_weight, block_sum, block_coef, left, right, coef_after, model_after,
               first_model, model_lam, model_fit, evaluate, gaussian=False):
    """Goodness of fit of the near-isotonic values of the models with ``evaluate[t]``.

    Starts from the blocks of model ``first_model`` (from :func:`blocks_at`) and replays
    the later merges: ``left``, ``right`` (block indices), ``coef_after`` and
    ``model_after`` are those events' fields. A block with c = 0 sits at its mean, where
    its term is already in ``model_fit`` (the binned fit of :func:`scored_path`); only
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
    where = np.full(n_blocks, -1, np.int64)
    n_moving = 0
    for b in range(n_blocks):
        if coef[b] != 0.0:
            moving[n_moving] = b
            where[b] = n_moving
            n_moving += 1
    fitted = np.full(n_models, np.nan)
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
                total += (_block_term(S[b], W[b], mean - lam * coef[b], gaussian)
                          - _block_term(S[b], W[b], mean, gaussian))
            fitted[t] = total
    return fitted


@njit(cache=True)
def model_average(block_weight, block_sum, block_score_sum, block_coef, left, right, coef_after,
                  model_after, model_lam, model_weight):
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
    node_of = np.arange(n)  # current node of each block
    for r in range(n):
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


@njit(cache=True)
def piecewise_knots(values, starts, block_values):
    """Knots of the map that is ``block_values[b]`` on the runs of block b: one stretch per
    group of neighbouring blocks with equal values, given by its first and last score.

    Linear interpolation through (``knots_x``, ``knots_y``) equals linear interpolation
    through every run score with its block's value (inside a stretch both give its
    value; between stretches the neighbouring knots are the same two runs), and the step
    map through the first knot of each stretch (``first``) equals the step map through
    every run.
    """
    n_blocks = block_values.shape[0]
    knots_x = np.empty(2 * n_blocks, np.float64)
    knots_y = np.empty(2 * n_blocks, np.float64)
    first = np.empty(2 * n_blocks, np.bool_)
    k = 0
    b = 0
    while b < n_blocks:
        v = block_values[b]
        end = b + 1
        while end < n_blocks and block_values[end] == v:
            end += 1
        lo, hi = values[starts[b]], values[starts[end] - 1]
        knots_x[k], knots_y[k], first[k] = lo, v, True
        k += 1
        if hi > lo:
            knots_x[k], knots_y[k], first[k] = hi, v, False
            k += 1
        b = end
    return knots_x[:k], knots_y[:k], first[:k]
