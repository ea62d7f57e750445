"""The priority queues of the near-isotonic path (see :mod:`.path`): binary min-heaps,
of the merge times within a segment and of the segments' next merges.

A segment's heap is small (its blocks; see :func:`.path._segments`) and stays in cache.
Until issue 31 it was a radix heap (keys that never fall below the last minimum taken out:
lambda only grows), a little faster at 1e7 scores but five kernels and three intrinsics to
compile on a first fit, for a path that is a fraction of ENIR's fit.
"""

from numba import njit


@njit(cache=True)
def _push(keys, values, size, key, value):
    """Add (key, value) to the binary min-heap of the first ``size`` entries; the new size."""
    i = size
    while i > 0:
        parent = (i - 1) >> 1
        if keys[parent] <= key:
            break
        keys[i], values[i] = keys[parent], values[parent]
        i = parent
    keys[i], values[i] = key, value
    return size + 1


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
