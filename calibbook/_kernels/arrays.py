"""Array helpers inlined into the kernels that use them.

numba's own ``np.zeros`` and ``np.full`` compile a fill routine per dtype and shape, a tenth
of a second each on a first fit with an empty cache; a loop over ``np.empty`` costs nothing
extra to compile and runs as fast.
"""

from numba import njit


@njit(cache=True, inline="always")
def zeroed(a):
    """``a`` (1-D) filled with zeros, returned: ``zeroed(np.empty(n, dtype))``."""
    for i in range(a.shape[0]):
        a[i] = 0
    return a


@njit(cache=True, inline="always")
def filled(a, value):
    """``a`` (1-D) filled with ``value``, returned: ``filled(np.empty(n, dtype), value)``."""
    for i in range(a.shape[0]):
        a[i] = value
    return a
