"""The near-isotonic path over sorted runs (the problem: see :mod:`calibbook._kernels.neariso`).

How :func:`scored_path` keeps the constant small (issue 18):

- neighbouring runs with equal means (most of them, with 0/1 labels) are fused in one
  pass before any queue, and not written out: they follow from the runs
  (:func:`.replay.fused_events`, :func:`.replay.fit_at`);
- the path splits into independent segments, the blocks of the isotonic regression
  (see :func:`_segments`), each solved alone in a queue and records that fit in cache;
  their merges are then interleaved by lambda (each segment's written where its blocks
  were, in memory already touched);
- the queue is a radix heap (lambda only grows; :mod:`.heap`), and each block's fields
  sit in one row of doubles and one of int32s;
- the models (the distinct lambdas) and each model's binned fit, the bound ENIR scores
  them by, are found in the same sweep.

The exact fits of the few models that can matter, and ENIR's average, then start from
the blocks of the first of those models (:func:`.models.blocks_at`) instead of replaying
every merge.
"""

import numpy as np
from numba import njit

from calibbook._kernels.bits import bits_float, float_bits
from calibbook._kernels.neariso.heap import _HELD, _bucket, _pop_min, _push, _radix_heap, _sift_down
from calibbook._kernels.neariso.models import _block_term

# Fields of a block's records (see _solve_segments): its doubles, and its int32 slots
_W, _S, _MEAN, _COEF, _OWN, _KEY = 0, 1, 2, 3, 4, 5  # _KEY: its live heap key, -1: none
_PRV, _NXT, _HEAD, _VIOL = 0, 1, 2, 3  # neighbours, first run, nu of (it, next)


@njit(cache=True)
def _merge_time(mean_h, coef_h, mean_g, coef_g, lam, tol):
    """When a block h meets its right neighbour g, or +inf if never (from lam on).

    A block's value is ``mean - lam * coef``, with ``coef`` = c_B = (nu_right - nu_left) / W_B.
    """
    gap = (mean_h - lam * coef_h) - (mean_g - lam * coef_g)  # p_h - p_g now
    if abs(gap) <= tol:
        return lam  # equal adjacent blocks are fused at once
    closing = coef_g - coef_h  # d(gap)/dlam = -(ch - cg)
    if gap * closing >= 0.0:
        return np.inf  # the gap does not shrink
    return lam - gap / closing


@njit(cache=True)
def _segments(pav_w, pav_s, pav_first, n_pav, block_viol, m, gap):
    """Split the blocks where no merge of the path can ever cross: (K + 1,) segment starts.

    The path ends at the isotonic regression, whose blocks (the ``n_pav`` blocks of pool
    adjacent violators: weights, sums, first block) are never merged with each other.
    Across the boundary between two of them, A < B, the last block of A has no violation
    on its right, so its value only rises with lam, up to mean(A); the first block of B
    only falls, down to mean(B). So their values stay at least mean(B) - mean(A) apart,
    and a boundary where that exceeds ``gap`` (far above the fusing tolerance and the
    rounding of the values) is never crossed: the path of each segment is found alone,
    in a cache-sized heap. Boundaries that do not qualify (closer means, or a violating
    pair, which cannot happen in exact arithmetic) are dropped.
    """
    starts = np.empty(n_pav + 2, np.int64)  # one more: no runs still make one empty segment
    n_segments = 0
    starts[0] = 0
    for t in range(1, n_pav):
        first = pav_first[t]
        step = pav_s[t] / pav_w[t] - pav_s[t - 1] / pav_w[t - 1]
        if step > gap and block_viol[first - 1] == 0:
            n_segments += 1
            starts[n_segments] = first
    n_segments += 1
    starts[n_segments] = m
    return starts[: n_segments + 1]


# The phases of scored_path and the set-up of a segment are inlined (inline="always") into
# their one caller before it is typed: the split costs no compile time (each would otherwise
# be compiled, cached and linked on its own). Compile time is also why integers passed to a
# kernel start as np.int64(0), not 0, and a node goes to the heap as the int32 it is stored
# as: numba compiles a callee once per argument type, and a literal 0 (Literal[int](0)) or
# an int64 node would be one more compilation.
@njit(cache=True, inline="always")
def _start_segment(rec, rec_int, SS, size, score):
    """Fill the derived fields of the records 0 .. size - 1 of a segment (their weights,
    sums, first runs and violation flags are set): mean, c, no heap key, neighbours and,
    when scored, the block's term. Returns the segment's binned fit at lam = 0."""
    gaussian = score == 2
    separate = SS.shape[0] > 0
    fit = 0.0
    for j in range(size):
        w, total = rec[j, _W], rec[j, _S]
        rec[j, _MEAN] = total / w
        rec[j, _COEF] = (rec_int[j, _VIOL] - (rec_int[j - 1, _VIOL] if j > 0 else 0)) / w
        rec[j, _KEY] = -1.0
        rec_int[j, _PRV], rec_int[j, _NXT] = j - 1, j + 1 if j + 1 < size else -1
        if score > 0:
            ss = SS[j] if separate else total
            rec[j, _OWN] = _block_term(ss, w, ss / w, gaussian)
            fit += rec[j, _OWN]
    return fit


@njit(cache=True)
def _segment_path(
    rec,
    rec_int,
    SS,
    size,
    tol,
    score,
    keys,
    nodes,
    meta,
    out_lam,
    out_left,
    out_right,
    out_coef,
    out_delta,
    n_out,
):
    """The near-isotonic path of the blocks 0 .. size - 1 of ``rec`` alone (a segment; see
    :func:`_segments`); ``SS``, if not empty, holds their separate score sums.

    Appends its merges, in lam order, from ``n_out`` on: lambda, the first runs of the two
    blocks, c of the merged block and (when scored) the change of the binned fit.
    Returns the new count and the segment's binned fit at lam = 0.

    A heap key is the bit pattern of a merge time (see :mod:`.heap`), and a block's live
    key the time itself (-1: none); an entry whose time is not its block's live key is
    stale. The loop's steps stay inline: helpers taking the arrays would add reference
    counting to every merge.
    """
    gaussian = score == 2
    separate = SS.shape[0] > 0
    fit = _start_segment(rec, rec_int, SS, size, score)
    # the radix heap of merge times, one live entry per block (its pair with the next one)
    last_bits = np.int64(0)
    for j in range(size - 1):
        t = _merge_time(
            rec[j, _MEAN], rec[j, _COEF], rec[j + 1, _MEAN], rec[j + 1, _COEF], 0.0, tol
        )
        if t < np.inf:
            rec[j, _KEY] = key = t if t > 0.0 else 0.0
            key_bits = float_bits(key)
            _push(keys, nodes, meta, _bucket(key_bits, last_bits), key_bits, np.int32(j))
    while meta[_HELD] > 0:
        bits, h, last_bits = _pop_min(keys, nodes, meta, last_bits)
        lam = bits_float(bits)  # pushed keys are at least lam, so lam never decreases
        if rec[h, _KEY] != lam:
            continue  # stale: the pair changed since this time was computed
        g = rec_int[h, _NXT]
        rec[g, _KEY] = -1.0  # g's pair is gone
        # h absorbs g; the pair to the right keeps g's order (values are equal now)
        w = rec[h, _W] + rec[g, _W]
        total = rec[h, _S] + rec[g, _S]
        viol = rec_int[g, _VIOL]
        q = rec_int[g, _NXT]
        p = rec_int[h, _PRV]
        mean_h = total / w
        coef_h = (viol - (rec_int[p, _VIOL] if p >= 0 else 0)) / w
        rec[h, _W], rec[h, _S], rec[h, _MEAN], rec[h, _COEF] = w, total, mean_h, coef_h
        rec_int[h, _VIOL], rec_int[h, _NXT] = viol, q
        if q >= 0:
            rec_int[q, _PRV] = h
        out_lam[n_out] = lam
        out_left[n_out] = rec_int[h, _HEAD]
        out_right[n_out] = rec_int[g, _HEAD]
        out_coef[n_out] = coef_h
        if score > 0:  # the merged block's term replaces theirs
            if separate:
                SS[h] += SS[g]
            ss = SS[h] if separate else total
            own = _block_term(ss, w, ss / w, gaussian)
            out_delta[n_out] = own - rec[h, _OWN] - rec[g, _OWN]
            rec[h, _OWN] = own
        n_out += 1
        # new times for (h, q) and, as h's slope changed, for (p, h)
        rec[h, _KEY] = -1.0
        if q >= 0:
            t = _merge_time(mean_h, coef_h, rec[q, _MEAN], rec[q, _COEF], lam, tol)
            if t < np.inf:
                rec[h, _KEY] = key = t if t > lam else lam
                key_bits = float_bits(key)
                _push(keys, nodes, meta, _bucket(key_bits, last_bits), key_bits, h)
        if p >= 0:
            rec[p, _KEY] = -1.0
            t = _merge_time(rec[p, _MEAN], rec[p, _COEF], mean_h, coef_h, lam, tol)
            if t < np.inf:
                rec[p, _KEY] = key = t if t > lam else lam
                key_bits = float_bits(key)
                _push(keys, nodes, meta, _bucket(key_bits, last_bits), key_bits, p)
    return n_out, fit


@njit(cache=True, inline="always")
def _pool(pav_w, pav_s, pav_first, top, w, s, first):
    """Push a block (weight, sum, first index) on the stack of pool adjacent violators, and
    pool the top two entries while they violate. Returns the new top."""
    top += 1
    pav_w[top], pav_s[top], pav_first[top] = w, s, first
    while top > 0 and pav_s[top - 1] * pav_w[top] >= pav_s[top] * pav_w[top - 1]:
        pav_w[top - 1] += pav_w[top]
        pav_s[top - 1] += pav_s[top]
        top -= 1
    return top


@njit(cache=True, inline="always")
def _fuse_runs(weights, sums, score_sums, separate, tol):
    """Blocks of neighbouring runs with equal means, fused at lam = 0, and the violation
    flags of the runs; pool adjacent violators over the blocks on the way, for the
    segments (see :func:`_segments`). One pass over the runs.

    Returns each block's weight, sum, score sum (when ``separate``), first run and
    violation flag (1 if block j > block j + 1), the runs' flags, the stack of pool
    adjacent violators (weights, sums, first blocks), the number of blocks and that of
    entries of the stack.
    """
    n = weights.shape[0]
    block_w = np.empty(n, np.float64)
    block_s = np.empty(n, np.float64)
    block_ss = np.empty(n if separate else 0, np.float64)
    block_head = np.empty(n, np.int32)
    block_viol = np.empty(n, np.int8)
    run_viol = np.empty(n, np.int8)
    pav_w = np.empty(n, np.float64)  # the stack of pool adjacent violators (only its
    pav_s = np.empty(n, np.float64)  # deepest entry is ever touched)
    pav_first = np.empty(n, np.int32)
    top = -1
    m = np.int64(0)
    head = 0  # the first run of block m
    w = s = ss = 0.0  # its weight, sum and score sum so far
    mean_next = sums[0] / weights[0] if n > 0 else 0.0
    for i in range(n):
        if i == head:
            w, s, ss = weights[i], sums[i], score_sums[i] if separate else 0.0
        else:
            w += weights[i]
            s += sums[i]
            if separate:
                ss += score_sums[i]
        mean = mean_next
        v = 0
        if i + 1 < n:
            mean_next = sums[i + 1] / weights[i + 1]
            v = 1 if mean > mean_next + tol else 0
        run_viol[i] = v
        if i + 1 == n or mean_next != mean:  # run i ends block m
            block_w[m], block_s[m], block_head[m], block_viol[m] = w, s, head, v
            if separate:
                block_ss[m] = ss
            top = _pool(pav_w, pav_s, pav_first, top, w, s, m)
            m += 1
            head = i + 1
    return (
        block_w,
        block_s,
        block_ss,
        block_head,
        block_viol,
        run_viol,
        pav_w,
        pav_s,
        pav_first,
        m,
        top + 1,
    )


@njit(cache=True, inline="always")
def _solve_segments(block_w, block_s, block_ss, block_head, block_viol, seg_start, tol, score, seg):
    """The path of each segment alone (:func:`_segment_path`), one after the other in the
    same records and heap, sized for the largest. Segment k's merges go to the arrays of
    ``seg`` (lam, left, right, c, change of the fit) after those of segment k - 1.

    Returns where each segment's merges end (after a 0), the first run of each block of
    the last model, and the binned fit at lam = 0.
    """
    seg_lam, seg_left, seg_right, seg_coef, seg_delta = seg
    separate = block_ss.shape[0] > 0
    n_segments = seg_start.shape[0] - 1
    largest = np.int64(0)
    for k in range(n_segments):
        largest = max(largest, seg_start[k + 1] - seg_start[k])
    # one segment at a time, in records of its blocks (a row of doubles, a row of int32s)
    # that stay in cache; plain arrays: an aligned 64-byte record and an int32 view of it
    # cost more compile time on a first fit than they saved (issue 31)
    rec = np.empty((largest, 8), np.float64)
    rec_int = np.empty((largest, 4), np.int32)
    local_ss = np.empty(largest if separate else 0, np.float64)
    keys, nodes, meta = _radix_heap(3 * largest)  # at most 3 entries a block: 1, then 2 a merge
    seg_events = np.empty(n_segments + 1, np.int64)
    seg_events[0] = 0
    final_heads = np.empty(seg_start[n_segments], np.int64)
    n_final = 0
    fit = 0.0
    for k in range(n_segments):
        j0, size = seg_start[k], seg_start[k + 1] - seg_start[k]
        for t in range(size):
            rec[t, _W], rec[t, _S] = block_w[j0 + t], block_s[j0 + t]
            rec_int[t, _HEAD], rec_int[t, _VIOL] = block_head[j0 + t], block_viol[j0 + t]
            if separate:
                local_ss[t] = block_ss[j0 + t]
        done, seg_fit = _segment_path(
            rec,
            rec_int,
            local_ss,
            size,
            tol,
            score,
            keys,
            nodes,
            meta,
            seg_lam,
            seg_left,
            seg_right,
            seg_coef,
            seg_delta,
            seg_events[k],
        )
        seg_events[k + 1] = done
        fit += seg_fit
        h = 0 if size > 0 else -1  # the segment's first block keeps its index to the end
        while h >= 0:
            final_heads[n_final] = rec_int[h, _HEAD]
            n_final += 1
            h = rec_int[h, _NXT]
    return seg_events, final_heads[:n_final], fit


@njit(cache=True, inline="always")
def _interleave(seg, seg_events, n_blocks, fit, scoring, rel_tol):
    """The segments' merges (``seg``, as :func:`_solve_segments` leaves them) in one lam
    order, from a heap of the segments keyed by their next merge, grouped into models on
    the way as :func:`.models.group_events` groups them. ``fit``: the binned fit at lam = 0.

    Returns the merges (lam, left, right, c) and the models (first merge, lam, number of
    blocks, binned fit), as :func:`scored_path` returns them.
    """
    seg_lam, seg_left, seg_right, seg_coef, seg_delta = seg
    n_segments = seg_events.shape[0] - 1
    n_merges = seg_events[n_segments]
    event_lam = np.empty(n_merges, np.float64)
    event_left = np.empty(n_merges, np.int64)
    event_right = np.empty(n_merges, np.int64)
    event_coef = np.empty(n_merges, np.float64)
    # at most one model a merge, and model 0 (np.zeros would touch every page)
    model_start = np.empty(n_merges + 2, np.int64)
    model_lam = np.empty(n_merges + 1, np.float64)
    model_blocks = np.empty(n_merges + 1, np.int64)
    model_fit = np.empty(n_merges + 1 if scoring else 0, np.float64)
    heap_lam = np.empty(n_segments, np.float64)
    heap_seg = np.empty(n_segments, np.int64)
    size = np.int64(0)
    for k in range(n_segments):
        if seg_events[k + 1] > seg_events[k]:
            heap_lam[size], heap_seg[size] = seg_lam[seg_events[k]], k
            size += 1
    for i in range(size // 2 - 1, -1, -1):
        _sift_down(heap_lam, heap_seg, size, i)
    nxt_event = seg_events[:-1].copy()
    n_events = 0
    blocks = n_blocks
    model = 0
    model_start[0] = 0
    model_lam[0] = 0.0
    last = 0.0
    while size > 0:
        k = heap_seg[0]
        e = nxt_event[k]
        lam = seg_lam[e]
        if lam > last * (1.0 + rel_tol) + rel_tol:  # a new model: close the last one
            model_blocks[model] = blocks
            if scoring:
                model_fit[model] = fit
            model += 1
            model_start[model] = n_events
            last = lam
        event_lam[n_events] = lam
        event_left[n_events] = seg_left[e]
        event_right[n_events] = seg_right[e]
        event_coef[n_events] = seg_coef[e]
        model_lam[model] = lam
        n_events += 1
        blocks -= 1
        if scoring:
            fit += seg_delta[e]
        e += 1
        nxt_event[k] = e
        if e < seg_events[k + 1]:
            heap_lam[0] = seg_lam[e]
        else:
            size -= 1
            heap_lam[0], heap_seg[0] = heap_lam[size], heap_seg[size]
        _sift_down(heap_lam, heap_seg, size, np.int64(0))
    model_blocks[model] = blocks
    if scoring:
        model_fit[model] = fit
    n_models = model + 1
    model_start[n_models] = n_events
    return (
        event_lam,
        event_left,
        event_right,
        event_coef,
        model_start[: n_models + 1],
        model_lam[:n_models],
        model_blocks[:n_models],
        model_fit[:n_models] if scoring else model_fit,
    )


@njit(cache=True)
def scored_path(weights, sums, score_sums, score=0, tol=1e-12, rel_tol=1e-12):
    """Merge events of the near-isotonic path over sorted runs, grouped into models.

    Parameters
    ----------
    weights, sums : float64 arrays (R,)
        Run weights (> 0) and weighted sums of the responses, sorted by score.
    score_sums : float64 array (R,) or (0,)
        The sums that score each model's binning (see ``_block_term``), when they are
        not ``sums`` (the centred sums of a Gaussian fit); empty: ``sums``.
    score : int
        0: no scores (``model_fit`` is empty); 1: Bernoulli log-likelihood; 2: Gaussian.
    tol : float
        Two adjacent block values closer than ``tol`` (times the response scale)
        count as equal and are fused.
    rel_tol : float
        Merges whose lambdas are this close (relative) form one model, as in
        :func:`.models.group_events`.

    Returns
    -------
    merge_lam : float64 (E,)
        Non-decreasing merge lambdas, after the fusing of neighbouring runs with equal
        means at lam = 0, which is left implicit (see :func:`.replay.fused_events`).
    merge_left, merge_right : int64 (E,)
        Head runs of the left and right blocks that merge; the merged block keeps
        the left head.
    merge_coef : float64 (E,)
        c of the merged block, constant over its life: its value at any lam until
        its next merge is S / W - lam * c.
    violations : int8 (R,)
        1 where run i > run i + 1 (beyond ``tol``), else 0: the violation flags of the
        runs, from which a block's c follows (see :func:`.replay.initial_coefficients`).
    model_start : int64 (T + 2,)
        First merge of each model, then E: model t is the fit after the fusing and the
        merges before ``model_start[t + 1]`` (``group_events(merge_lam, rel_tol)``,
        found on the way).
    model_lam : float64 (T + 1,)
        The lambda of each model (of its last event; 0 for model 0).
    model_blocks : int64 (T + 1,)
        Number of blocks of each model.
    model_fit : float64 (T + 1,)
        Goodness of fit of each model's binning, each block at its own mean (the sum
        of ``_block_term``; an upper bound on the model's own fit); empty if not scored.
    final_heads : int64 (B,)
        The first run of each block of the last model (the isotonic regression's blocks).
    tol : float
        The fusing tolerance, scaled to the responses.

    Notes
    -----
    Neighbouring runs with exactly equal means are fused in one pass first (they merge
    at lam = 0 in any order). The remaining blocks fall into independent segments
    (:func:`_segments`), whose paths (:func:`_segment_path`) are merged by lambda.
    Merges at one lambda may come out in another order than a single binary heap gives,
    which changes no model; sums over merges are rounded in another order (the lambdas
    and fits agree with a single heap's to about 1e-13 relative).
    """
    n = weights.shape[0]
    scoring = score > 0 and n > 0
    separate = scoring and score_sums.shape[0] == n
    scale = 0.0
    for i in range(n):
        scale = max(scale, abs(sums[i] / weights[i]))
    tol = tol * (1.0 + scale)
    # the fusing is not written out as merges: fused_events derives it from the runs
    (
        block_w,
        block_s,
        block_ss,
        block_head,
        block_viol,
        run_viol,
        pav_w,
        pav_s,
        pav_first,
        m,
        n_pav,
    ) = _fuse_runs(weights, sums, score_sums, separate, tol)
    seg_start = _segments(pav_w, pav_s, pav_first, n_pav, block_viol, m, 1e-9 * (1.0 + scale))
    # each segment's merges, in its lam order. They go where the blocks were: segment k
    # has at most (its blocks - 1) merges, so the merges of segments 0 .. k end before
    # its last block, and its own blocks are in the records by then (memory already
    # touched is cheaper to write than new pages; the stack is read out by now)
    seg = (block_w, block_head, pav_first, block_s, pav_w)  # lam, left, right, c, fit change
    seg_events, final_heads, fit = _solve_segments(
        block_w, block_s, block_ss, block_head, block_viol, seg_start, tol, score, seg
    )
    lam, left, right, coef, start, model_lam, blocks, model_fit = _interleave(
        seg, seg_events, m, fit, scoring, rel_tol
    )
    return (lam, left, right, coef, run_viol, start, model_lam, blocks, model_fit, final_heads, tol)


@njit(cache=True)
def near_isotonic_path(weights, sums, tol=1e-12):
    """Merges of the near-isotonic path over sorted runs (see :func:`scored_path`).

    Returns
    -------
    merge_lam, merge_left, merge_right, merge_coef, violations
        As :func:`scored_path` returns them.
    """
    out = scored_path(weights, sums, np.empty(0, np.float64), np.int64(0), tol, 1e-12)
    return out[0], out[1], out[2], out[3], out[4]
