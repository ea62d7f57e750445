"""Prediction from the averaged map of ENIR: its knots, and the lookup through them."""

import numpy as np
from numba import njit

from calibbook._kernels.binning import COMPILED_LOOKUP_FROM, bin_index


@njit(cache=True)
def interpolate_knots(knots_x, knots_y, slopes, x):
    """The piecewise-linear map through the knots at ``x``, constant beyond the ends.

    One bucketed lookup (``bin_index``) finds each query's interval, whose precomputed
    slope ``slopes[j] = (knots_y[j + 1] - knots_y[j]) / (knots_x[j + 1] - knots_x[j])``
    gives ``knots_y[j] + slopes[j] * (x - knots_x[j])``: no division per query. This
    differs from dividing per query by rounding only (a few 1e-16 for values in [0, 1]).
    A slope that overflowed (knots a few subnormals apart) is +-inf: those intervals
    divide per query, which stays finite.
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
        elif np.isfinite(slopes[j]):
            out[i] = knots_y[j] + slopes[j] * (x[i] - knots_x[j])
        else:  # (x - x0) / (x1 - x0) is in [0, 1]: the product cannot overflow
            t = (x[i] - knots_x[j]) / (knots_x[j + 1] - knots_x[j])
            out[i] = knots_y[j] + (knots_y[j + 1] - knots_y[j]) * t
    return out


def knot_values(knots_x, knots_y, slopes, x):
    """:func:`interpolate_knots` for any number of queries, the same floats.

    From ``COMPILED_LOOKUP_FROM`` queries on the kernel; below, the same arithmetic in
    NumPy after NumPy's binary search, so that a prediction on a few scores compiles
    nothing (issue 31).
    """
    if x.shape[0] >= COMPILED_LOOKUP_FROM:
        return interpolate_knots(knots_x, knots_y, slopes, x)
    j = np.searchsorted(knots_x, x, side="right") - 1
    last = knots_x.shape[0] - 1
    out = np.where(j < 0, knots_y[0], knots_y[last])
    inner = np.flatnonzero((j >= 0) & (j < last))
    k, v = j[inner], x[inner]
    steep = ~np.isfinite(slopes[k])  # per query division, as the kernel
    k0, v0 = k[~steep], v[~steep]
    out[inner[~steep]] = knots_y[k0] + slopes[k0] * (v0 - knots_x[k0])
    k1, v1 = k[steep], v[steep]
    t = (v1 - knots_x[k1]) / (knots_x[k1 + 1] - knots_x[k1])
    out[inner[steep]] = knots_y[k1] + (knots_y[k1 + 1] - knots_y[k1]) * t
    return out


def piecewise_knots(values, starts, block_values):
    """Knots of the map that is ``block_values[b]`` on the runs of block b: one stretch per
    group of neighbouring blocks with equal values, given by its first and last score.

    Linear interpolation through (``knots_x``, ``knots_y``) equals linear interpolation
    through every run score with its block's value (inside a stretch both give its
    value; between stretches the neighbouring knots are the same two runs), and the step
    map through the first knot of each stretch (``first``) equals the step map through
    every run. O(blocks) in NumPy, once a fit.
    """
    n_blocks = block_values.shape[0]
    new = np.ones(n_blocks, np.bool_)
    new[1:] = block_values[1:] != block_values[:-1]
    head = np.flatnonzero(new)  # the first block of each stretch
    end = np.append(head[1:], n_blocks)  # one past its last block
    lo, hi = values[starts[head]], values[starts[end] - 1]
    v = block_values[head]
    two = hi > lo  # a stretch over one score has one knot
    at = np.cumsum(1 + two) - (1 + two)
    size = head.size + int(np.count_nonzero(two))
    knots_x, knots_y = np.empty(size), np.empty(size)
    first = np.zeros(size, np.bool_)
    knots_x[at], knots_y[at], first[at] = lo, v, True
    knots_x[at[two] + 1], knots_y[at[two] + 1] = hi[two], v[two]
    return knots_x, knots_y, first
