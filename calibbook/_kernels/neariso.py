"""The exact solution path of near-isotonic regression (Tibshirani, Hoefling & Tibshirani 2011).

Problem, for sorted runs with weights w_i and weighted sums s_i (means y_i = s_i / w_i):

    minimise  1/2 sum_i w_i (p_i - y_i)^2 + lam * sum_i (p_i - p_{i+1})_+ .

Between merges each block B (a maximal set of adjacent runs with a common value)
satisfies W_B p_B = S_B - lam (nu_right - nu_left), where nu = 1 for a pair of
adjacent blocks in decreasing order (a violation) and 0 otherwise. So

    p_B(lam) = m_B - lam c_B,   m_B = S_B / W_B,   c_B = (nu_right - nu_left) / W_B,

exactly, with no accumulated rounding. Blocks never split as lam grows; two adjacent
blocks merge when their values meet. A priority queue of candidate merge times gives
the whole path in O(R log R) for R runs, and the merges are recorded as events (O(R)
memory).

How :func:`scored_path` keeps the constant small (issue 18):

- neighbouring runs with equal means (most of them, with 0/1 labels) are fused in one
  pass before any queue, and not written out: they follow from the runs
  (:func:`fused_events`, :func:`fit_at`);
- the path splits into independent segments, the blocks of the isotonic regression
  (see :func:`_segments`), each solved alone in a queue and records that fit in cache;
  their merges are then interleaved by lambda (each segment's written where its blocks
  were, in memory already touched);
- the queue is a radix heap (lambda only grows), and each block's fields sit in one
  64-byte record;
- the models (the distinct lambdas) and each model's binned fit, the bound ENIR scores
  them by, are found in the same sweep.

The exact fits of the few models that can matter, and ENIR's average, then start from
the blocks of the first of those models (:func:`blocks_at`) instead of replaying every
merge.
"""

import numpy as np
from numba import njit, types
from numba.extending import intrinsic

from calibbook._kernels.binning import bin_index

# A radix heap (Ahuja, Mehlhorn, Orlin & Tarjan 1990) holds the merge times. It needs
# keys that never fall below the last minimum taken out, which holds here: lambda only grows.
# The keys are non-negative doubles, whose bit patterns (as int64) sort as the doubles do.
# Bucket 0 holds the keys equal to the last minimum; bucket i > 0 the keys whose highest bit
# differing from it is bit i - 1. Taking a minimum empties bucket 0, or else refills it from
# the first non-empty bucket, whose entries all move to lower buckets; so an entry moves at
# most 64 times, a few times in practice, and every access is sequential in its bucket.
# The buckets are lists of chunks of one pool. Entries are not deleted: an entry is stale
# when its block's current key differs from it.
# ``meta`` holds the bookkeeping in one array (fewer array arguments make cheaper calls):
_CHUNK = 256
_BUCKETS = 65
_HEADS = 0  # meta[_HEADS + i]: the chunk being filled of bucket i (-1: empty bucket)
_FILLS = _BUCKETS  # meta[_FILLS + i]: entries in that chunk
_FREE_TOP = 2 * _BUCKETS  # meta[_FREE_TOP]: number of free chunks
_HELD = _FREE_TOP + 1  # meta[_HELD]: entries held
_NEXT = _HELD + 1  # meta[_NEXT + c]: the chunk after chunk c in its bucket; then the free stack


@njit(cache=True)
def _radix_heap(n_entries):
    """An empty radix heap for up to ``n_entries`` entries: (pool keys, pool nodes, meta)."""
    n_chunks = n_entries // _CHUNK + 2 * _BUCKETS
    meta = np.empty(_NEXT + 2 * n_chunks, np.int64)
    meta[_HEADS:_HEADS + _BUCKETS] = -1
    meta[_FILLS:_FILLS + _BUCKETS] = 0
    meta[_FREE_TOP] = n_chunks
    meta[_HELD] = 0
    free = _NEXT + n_chunks
    for c in range(n_chunks):
        meta[free + c] = c
    return np.empty(n_chunks * _CHUNK, np.int64), np.empty(n_chunks * _CHUNK, np.int32), meta


@intrinsic
def _leading_zeros(typingctx, x):
    """Number of leading zero bits of an int64 (64 for 0): LLVM's ctlz."""
    if x != types.int64:
        return None

    def codegen(context, builder, signature, args):
        return builder.ctlz(args[0], context.get_constant(types.boolean, False))

    return types.int64(types.int64), codegen


@njit(cache=True)
def _bucket(bits, last):
    """The radix-heap bucket of a key, given the last minimum (both as int64 bit patterns):
    0 if they are equal, else 1 + the highest bit in which they differ."""
    return 64 - _leading_zeros(bits ^ last)


@njit(cache=True)
def _place(keys, nodes, meta, i, bits, node):
    """Append (bits, node) to bucket i (the count of entries held is the caller's)."""
    c = meta[_HEADS + i]
    fill = meta[_FILLS + i]
    if c < 0 or fill == _CHUNK:
        n_chunks = (meta.shape[0] - _NEXT) // 2
        top = meta[_FREE_TOP] - 1
        meta[_FREE_TOP] = top
        new = meta[_NEXT + n_chunks + top]
        meta[_NEXT + new] = c
        meta[_HEADS + i] = c = new
        fill = 0
    keys[c * _CHUNK + fill] = bits
    nodes[c * _CHUNK + fill] = node
    meta[_FILLS + i] = fill + 1


@njit(cache=True)
def _push(keys, nodes, meta, i, bits, node):
    """Append (bits, node) to bucket i."""
    _place(keys, nodes, meta, i, bits, node)
    meta[_HELD] += 1


@njit(cache=True)
def _free_chunk(meta, c):
    n_chunks = (meta.shape[0] - _NEXT) // 2
    meta[_NEXT + n_chunks + meta[_FREE_TOP]] = c
    meta[_FREE_TOP] += 1


@njit(cache=True)
def _pop_min(keys, nodes, meta, last):
    """Take out an entry with the smallest key: (its bits, its node, the new last minimum)."""
    if meta[_HEADS] < 0:  # refill bucket 0 from the first non-empty bucket
        i = 1
        while meta[_HEADS + i] < 0:
            i += 1
        first, first_fill = meta[_HEADS + i], meta[_FILLS + i]
        meta[_HEADS + i] = -1
        low = keys[first * _CHUNK]
        c, fill = first, first_fill
        while c >= 0:
            for k in range(c * _CHUNK, c * _CHUNK + fill):
                low = min(low, keys[k])
            c, fill = meta[_NEXT + c], _CHUNK
        last = low
        c, fill = first, first_fill
        while c >= 0:
            for k in range(c * _CHUNK, c * _CHUNK + fill):  # each to a lower bucket
                _place(keys, nodes, meta, _bucket(keys[k], last), keys[k], nodes[k])
            nxt = meta[_NEXT + c]
            _free_chunk(meta, c)  # read out: back to the pool
            c, fill = nxt, _CHUNK
    c = meta[_HEADS]
    meta[_FILLS] -= 1
    k = c * _CHUNK + meta[_FILLS]
    if meta[_FILLS] == 0:
        meta[_HEADS] = meta[_NEXT + c]
        meta[_FILLS] = _CHUNK
        _free_chunk(meta, c)
    meta[_HELD] -= 1
    return keys[k], nodes[k], last


# Fields of a block's 64-byte record (see _records): doubles, then int32 slots
_W, _S, _MEAN, _COEF, _OWN, _KEY = 0, 1, 2, 3, 4, 5  # _KEY: its live heap key, -1: none
_PRV, _NXT, _HEAD, _VIOL = 12, 13, 14, 15  # neighbours, first run, nu of (it, next)


@njit(cache=True)
def _records(n):
    """An uninitialised (n, 8) float64 array whose rows start on 64-byte boundaries (a
    cache line each), and the same memory as an (n, 16) int32 array."""
    buf = np.empty(8 * n + 8, np.float64)
    off = ((64 - buf.ctypes.data % 64) % 64) // 8
    flat = buf[off:off + 8 * n]
    return flat.reshape((n, 8)), flat.view(np.int32).reshape((n, 16))


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
def _sift_down(keys, values, size, i):
    """Restore a binary min-heap of ``keys`` (with ``values`` alongside) below entry i."""
    key, value = keys[i], values[i]
    while True:
        child = 2 * i + 1
        if child >= size:
            break
        if child + 1 < size and keys[child + 1] < keys[child]:
            child += 1
        if key <= keys[child]:
            break
        keys[i], values[i] = keys[child], values[child]
        i = child
    if size > 0:
        keys[i], values[i] = key, value


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
    starts = np.empty(n_pav + 1, np.int64)
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
    return starts[:n_segments + 1]


@njit(cache=True)
def _segment_path(rec, rec_int, SS, size, tol, score, keys, nodes, meta, out_lam, out_left,
                  out_right, out_coef, out_delta, n_out):
    """The near-isotonic path of the blocks 0 .. size - 1 of ``rec`` alone (a segment; see
    :func:`_segments`); ``SS``, if not empty, holds their separate score sums.

    Appends its merges, in lam order, from ``n_out`` on: lambda, the first runs of the two
    blocks, c of the merged block and (when scored) the change of the binned fit.
    Returns the new count and the segment's binned fit at lam = 0.
    """
    scoring = score > 0
    gaussian = score == 2
    separate = SS.shape[0] > 0
    fit = 0.0
    for j in range(size):
        w, total = rec[j, _W], rec[j, _S]
        rec[j, _MEAN] = total / w
        rec[j, _COEF] = (rec_int[j, _VIOL] - (rec_int[j - 1, _VIOL] if j > 0 else 0)) / w
        rec[j, _KEY] = -1.0
        rec_int[j, _PRV], rec_int[j, _NXT] = j - 1, j + 1 if j + 1 < size else -1
        if scoring:
            ss = SS[j] if separate else total
            rec[j, _OWN] = _block_term(ss, w, ss / w, gaussian)
            fit += rec[j, _OWN]

    # the radix heap of merge times, one live entry per block (its pair with the next one)
    key_float = np.zeros(1, np.float64)
    key_bits = key_float.view(np.int64)  # a double's bit pattern through this view
    last_bits = 0
    for j in range(size - 1):
        t = _merge_time(rec[j, _MEAN], rec[j, _COEF], rec[j + 1, _MEAN], rec[j + 1, _COEF],
                        0.0, tol)
        if t < np.inf:
            key_float[0] = rec[j, _KEY] = t if t > 0.0 else 0.0
            _push(keys, nodes, meta, _bucket(key_bits[0], last_bits), key_bits[0], j)
    lam = 0.0
    while meta[_HELD] > 0:
        bits, h, last_bits = _pop_min(keys, nodes, meta, last_bits)
        key_bits[0] = bits
        if rec[h, _KEY] != key_float[0]:
            continue  # stale: the pair changed since this time was computed
        lam = key_float[0]  # pushed keys are at least lam, so lam never decreases
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
        if scoring:
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
                key_float[0] = rec[h, _KEY] = t if t > lam else lam
                _push(keys, nodes, meta, _bucket(key_bits[0], last_bits), key_bits[0], h)
        if p >= 0:
            rec[p, _KEY] = -1.0
            t = _merge_time(rec[p, _MEAN], rec[p, _COEF], mean_h, coef_h, lam, tol)
            if t < np.inf:
                key_float[0] = rec[p, _KEY] = t if t > lam else lam
                _push(keys, nodes, meta, _bucket(key_bits[0], last_bits), key_bits[0], p)
    return n_out, fit


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
        :func:`group_events`.

    Returns
    -------
    merge_lam : float64 (E,)
        Non-decreasing merge lambdas, after the fusing of neighbouring runs with equal
        means at lam = 0, which is left implicit (see :func:`fused_events`).
    merge_left, merge_right : int64 (E,)
        Head runs of the left and right blocks that merge; the merged block keeps
        the left head.
    merge_coef : float64 (E,)
        c of the merged block, constant over its life: its value at any lam until
        its next merge is S / W - lam * c.
    violations : int8 (R,)
        1 where run i > run i + 1 (beyond ``tol``), else 0: the violation flags of the
        runs, from which a block's c follows (see :func:`initial_coefficients`).
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

    n_max = max(n - 1, 0)
    model_start = np.empty(n_max + 2, np.int64)
    model_lam = np.empty(n_max + 1, np.float64)  # (np.zeros would touch every page)
    model_blocks = np.empty(n_max + 1, np.int64)
    model_fit = np.empty(n_max + 1 if scoring else 0, np.float64)

    # blocks of neighbouring runs with equal means, fused at lam = 0 (indices j < m), and
    # pool adjacent violators over them on the way, for the segments (see _segments).
    # The fusing is not written out as merges: fused_events derives it from the runs.
    block_w = np.empty(n, np.float64)
    block_s = np.empty(n, np.float64)
    block_head = np.empty(n, np.int32)
    block_viol = np.empty(n, np.int8)  # 1 if block j > block j + 1 (a violating pair)
    block_ss = np.empty(n if separate else 0, np.float64)
    run_viol = np.empty(n, np.int8)  # the same for runs
    pav_w = np.empty(n, np.float64)  # the stack of pool adjacent violators (only its
    pav_s = np.empty(n, np.float64)  # deepest entry is ever touched)
    pav_first = np.empty(n, np.int32)
    top = -1
    m = 0
    # the block being built (its weight, sum, score sum, first run, violation flag) and
    # the violation flag of the block before it
    cur_w = cur_s = cur_ss = 0.0
    cur_head = cur_viol = 0
    prev_mean = 0.0
    mean_next = sums[0] / weights[0] if n > 0 else 0.0
    for i in range(n + 1):
        if i == n or not (i > 0 and mean_next == prev_mean):
            if i > 0:  # the block is complete: store it, push it on the stack
                block_w[m], block_s[m], block_head[m], block_viol[m] = (cur_w, cur_s,
                                                                        cur_head, cur_viol)
                if separate:
                    block_ss[m] = cur_ss
                top += 1
                pav_w[top], pav_s[top], pav_first[top] = cur_w, cur_s, m
                while top > 0 and pav_s[top - 1] * pav_w[top] >= pav_s[top] * pav_w[top - 1]:
                    pav_w[top - 1] += pav_w[top]
                    pav_s[top - 1] += pav_s[top]
                    top -= 1
                m += 1
            if i == n:
                break
            cur_w, cur_s, cur_head = weights[i], sums[i], i
            if separate:
                cur_ss = score_sums[i]
        else:
            cur_w += weights[i]
            cur_s += sums[i]
            if separate:
                cur_ss += score_sums[i]
        mean = mean_next
        v = 0
        if i + 1 < n:
            mean_next = sums[i + 1] / weights[i + 1]
            v = 1 if mean > mean_next + tol else 0
        run_viol[i] = v
        cur_viol = v
        prev_mean = mean

    # independent segments, each with its own path in lam order, merged by lam at the end
    seg_start = _segments(pav_w, pav_s, pav_first, top + 1, block_viol, m,
                          1e-9 * (1.0 + scale))
    n_segments = seg_start.shape[0] - 1
    largest = 0
    for k in range(n_segments):
        largest = max(largest, seg_start[k + 1] - seg_start[k])
    # one segment at a time in one 64-byte record a block (see _records): in cache
    rec, rec_int = _records(largest)
    local_ss = np.empty(largest if separate else 0, np.float64)
    keys, nodes, meta = _radix_heap(3 * largest)  # at most 3 entries a block: 1, then 2 a merge
    # each segment's merges, in its lam order. They go where the blocks were: segment k
    # has at most (its blocks - 1) merges, so the merges of segments 0 .. k end before
    # its last block, and its own blocks are in the records by then (memory already
    # touched is cheaper to write than new pages)
    seg_lam = block_w
    seg_coef = block_s
    seg_left = block_head
    seg_right = pav_first  # the stack is read out by now
    seg_delta = pav_w
    seg_events = np.empty(n_segments + 1, np.int64)
    seg_events[0] = 0
    final_heads = np.empty(m, np.int64)  # the first run of each block at the end
    n_final = 0
    fit = 0.0
    for k in range(n_segments):
        j0, size = seg_start[k], seg_start[k + 1] - seg_start[k]
        for t in range(size):
            rec[t, _W], rec[t, _S] = block_w[j0 + t], block_s[j0 + t]
            rec_int[t, _HEAD], rec_int[t, _VIOL] = block_head[j0 + t], block_viol[j0 + t]
            if separate:
                local_ss[t] = block_ss[j0 + t]
        done, seg_fit = _segment_path(rec, rec_int, local_ss, size, tol, score, keys, nodes,
                                      meta, seg_lam, seg_left, seg_right, seg_coef, seg_delta,
                                      seg_events[k])
        seg_events[k + 1] = done
        fit += seg_fit
        h = 0  # the segment's first block keeps its index to the end
        while h >= 0:
            final_heads[n_final] = rec_int[h, _HEAD]
            n_final += 1
            h = rec_int[h, _NXT]

    # merge the segments' events by lam (a heap of segments keyed by their next merge)
    n_merges = seg_events[n_segments]
    event_lam = np.empty(n_merges, np.float64)
    event_left = np.empty(n_merges, np.int64)
    event_right = np.empty(n_merges, np.int64)
    event_coef = np.empty(n_merges, np.float64)
    n_events = 0
    heap_lam = np.empty(n_segments, np.float64)
    heap_seg = np.empty(n_segments, np.int64)
    size = 0
    for k in range(n_segments):
        if seg_events[k + 1] > seg_events[k]:
            heap_lam[size], heap_seg[size] = seg_lam[seg_events[k]], k
            size += 1
    for i in range(size // 2 - 1, -1, -1):
        _sift_down(heap_lam, heap_seg, size, i)
    nxt_event = seg_events[:-1].copy()
    blocks = m
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
        _sift_down(heap_lam, heap_seg, size, 0)
    model_blocks[model] = blocks
    if scoring:
        model_fit[model] = fit
    n_models = model + 1
    model_start[n_models] = n_events
    return (event_lam, event_left, event_right, event_coef, run_viol, model_start[:n_models + 1],
            model_lam[:n_models], model_blocks[:n_models],
            model_fit[:n_models] if scoring else model_fit, final_heads[:n_final], tol)


@njit(cache=True)
def initial_coefficients(weights, violations):
    """c of each run as a block of its own at lam = 0: (nu_right - nu_left) / w."""
    n = weights.shape[0]
    out = np.empty(n, np.float64)
    left = 0
    for i in range(n):
        v = violations[i]
        out[i] = 0.0 if v == left else (v - left) / weights[i]
        left = v
    return out


@njit(cache=True)
def near_isotonic_path(weights, sums, tol=1e-12):
    """Merges of the near-isotonic path over sorted runs (see :func:`scored_path`).

    Returns
    -------
    merge_lam, merge_left, merge_right, merge_coef, violations
        As :func:`scored_path` returns them.
    """
    out = scored_path(weights, sums, np.empty(0, np.float64), 0, tol, 1e-12)
    return out[0], out[1], out[2], out[3], out[4]


@njit(cache=True)
def _fuse_equal(weights, sums, violations, W, S, coef, nxt, left, right, fused_coef):
    """Fuse neighbouring runs with exactly equal means, as :func:`scored_path` does first.

    Fills each block's weight, sum and c at its first run (``W``, ``S``, ``coef``) and
    the first run of the next block (``nxt``, -1 for the last), and records each fusing
    in ``left``, ``right``, ``fused_coef`` (when they are not empty): the block's first
    run, the run taken in, c of the block after it. Returns the number of fusings.
    """
    n = weights.shape[0]
    record = left.shape[0] > 0
    k = 0
    prev_mean = np.nan
    left_viol = 0  # the violation flag before the block
    h = 0
    for i in range(n):
        mean = sums[i] / weights[i]
        v = violations[i]
        if mean == prev_mean:
            W[h] += weights[i]
            S[h] += sums[i]
            c = 0.0 if v == left_viol else (v - left_viol) / W[h]
            coef[h] = c
            if record:
                left[k], right[k], fused_coef[k] = h, i, c
            k += 1
        else:
            if i > 0:
                nxt[h] = i
            left_viol = violations[i - 1] if i > 0 else 0
            h = i
            W[h], S[h] = weights[i], sums[i]
            coef[h] = 0.0 if v == left_viol else (v - left_viol) / W[h]
        prev_mean = mean
    if n > 0:
        nxt[h] = -1
    return k


@njit(cache=True)
def fused_events(weights, sums, violations):
    """The fusing of neighbouring runs with equal means at lam = 0, as merge events.

    The path's merges start with these, in run order (:func:`scored_path` leaves them
    implicit): lambda 0, the block's first run, the run taken in, c of the block after.
    """
    n = weights.shape[0]
    W = np.empty(n, np.float64)
    S = np.empty(n, np.float64)
    coef = np.empty(n, np.float64)
    nxt = np.empty(n, np.int64)
    left = np.empty(max(n - 1, 1), np.int64)
    right = np.empty(max(n - 1, 1), np.int64)
    fused_coef = np.empty(max(n - 1, 1), np.float64)
    k = _fuse_equal(weights, sums, violations, W, S, coef, nxt, left, right, fused_coef)
    return np.zeros(k, np.float64), left[:k], right[:k], fused_coef[:k]


@njit(cache=True)
def fit_at(weights, sums, violations, merge_lam, merge_left, merge_right, merge_coef, lam):
    """Fitted value of every run at ``lam``: fuse the runs with equal means, then replay
    the merges with merge_lam <= lam."""
    n = weights.shape[0]
    W = np.empty(n, np.float64)
    S = np.empty(n, np.float64)
    coef = np.empty(n, np.float64)
    nxt = np.empty(n, np.int64)
    none = np.empty(0, np.int64)
    _fuse_equal(weights, sums, violations, W, S, coef, nxt, none, none, np.empty(0))
    for k in range(merge_lam.shape[0]):
        if merge_lam[k] > lam:
            break
        h, g = merge_left[k], merge_right[k]
        W[h] += W[g]
        S[h] += S[g]
        nxt[h] = nxt[g]
        coef[h] = merge_coef[k]
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
    if pos > 0.0 and v < 1.0:  # log(1) = 0 adds nothing
        out += pos * np.log(v) if v > 0.0 else -np.inf
    if neg > 0.0 and v > 0.0:  # log1p(-0) = 0 adds nothing
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
def blocks_at(weights, path_sums, score_sums, values, starts, tol):
    """Sums over the runs of the blocks that start at ``starts`` (increasing; then R).

    A block's slope coefficient c = (nu_right - nu_left) / W follows from the violations
    of the runs at its ends: a block inherits the violation flag of its last run (see
    :func:`scored_path`, whose scaled ``tol`` this must be).

    Returns
    -------
    block_weight, block_sum, block_score_sum, block_coef : float64 (B,)
        W, the sum of ``score_sums``, the sum of weight * score (``values``; zeros when
        ``values`` is empty) and c of each block.
    """
    n_blocks = starts.shape[0] - 1
    with_x = values.shape[0] == weights.shape[0]
    bw = np.zeros(n_blocks, np.float64)
    bs = np.zeros(n_blocks, np.float64)
    bx = np.zeros(n_blocks, np.float64)
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
            right_viol = 1.0 if path_sums[end - 1] / weights[end - 1] > (
                path_sums[end] / weights[end] + tol) else 0.0
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
def interpolate_knots(knots_x, knots_y, slopes, x):
    """The piecewise-linear map through the knots at ``x``, constant beyond the ends.

    One bucketed lookup (``bin_index``) finds each query's interval, whose precomputed
    slope ``slopes[j] = (knots_y[j + 1] - knots_y[j]) / (knots_x[j + 1] - knots_x[j])``
    gives ``knots_y[j] + slopes[j] * (x - knots_x[j])``: no division per query. This
    differs from dividing per query by rounding only (a few 1e-16 for values in [0, 1]).
    """
    counts = bin_index(knots_x, x)
    last = knots_x.shape[0] - 1
    out = np.empty(x.shape[0], np.float64)
    for i in range(x.shape[0]):
        j = counts[i] - 1  # knots_x[j] <= x[i] < knots_x[j + 1]
        if j < 0:
            out[i] = knots_y[0]
        elif j >= last:
            out[i] = knots_y[last]
        else:
            out[i] = knots_y[j] + slopes[j] * (x[i] - knots_x[j])
    return out


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
