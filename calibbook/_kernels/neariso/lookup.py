"""Prediction from the averaged map of ENIR: its knots, and the lookup through them."""

import numpy as np
from numba import njit

from calibbook._kernels.binning import bin_index


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
