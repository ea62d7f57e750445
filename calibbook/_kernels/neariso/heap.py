"""The priority queues of the near-isotonic path (see :mod:`.path`): a radix heap of the
merge times within a segment, and a binary heap's sift to interleave the segments."""

import numpy as np
from numba import njit

from calibbook._kernels.bits import leading_zeros

# A radix heap (Ahuja, Mehlhorn, Orlin & Tarjan 1990) holds the merge times. It needs
# keys that never fall below the last minimum taken out, which holds here: lambda only grows.
# The keys are non-negative doubles, whose bit patterns (as int64, :func:`.bits.float_bits`)
# sort as the doubles do.
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
    for b in range(_BUCKETS):
        meta[_HEADS + b] = -1
        meta[_FILLS + b] = 0
    meta[_FREE_TOP] = n_chunks
    meta[_HELD] = 0
    free = _NEXT + n_chunks
    for c in range(n_chunks):
        meta[free + c] = c
    return np.empty(n_chunks * _CHUNK, np.int64), np.empty(n_chunks * _CHUNK, np.int32), meta


@njit(cache=True)
def _bucket(bits, last):
    """The radix-heap bucket of a key, given the last minimum (both as int64 bit patterns):
    0 if they are equal, else 1 + the highest bit in which they differ."""
    return 64 - leading_zeros(bits ^ last)


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
