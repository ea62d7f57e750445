"""Kernels run by the Python interpreter, for a first fit too small to be worth compiling.

Compiling ENIR's kernels takes seconds on a fresh install; running their source as plain
Python on a thousand scores takes a few hundredths of one. :func:`for_size` chooses: the
compiled kernel when it is compiled in this process already or found in numba's cache on
disk (loading it is cheap), or when the problem is large; otherwise :func:`python_version`,
the same source run by the interpreter, its callee kernels likewise. Same source, same
floating-point operations in the same order: the results are identical (the tests compare
both, bit for bit), so which one ran is never visible in a result.

A kernel run this way may only use what means the same in Python and in numba: scalar
arithmetic, indexing, loops, ``math`` functions (``np.log`` of a scalar runs NumPy's own
SIMD code in Python, the C library's in numba; ``math.log`` is the C library's in both, but
``math.lgamma`` is CPython's own in Python and the C library's in numba),
``np.empty`` and array methods. An intrinsic carries its Python meaning in
``python_equivalent`` (see :func:`with_python_equivalent`).
"""

import types
from contextlib import contextmanager

from numba.core.dispatcher import Dispatcher

# Below this many runs (or rows) a kernel that would have to be compiled is interpreted.
# ENIR's whole first fit as Python: 0.06 s on 1000 distinct scores, 0.2 s on 10^4; compiled,
# 1 ms after about 6 s of compilation. The same bound as the compiled lookups'
# (``_kernels.binning.COMPILED_LOOKUP_FROM``): below it, ENIR's first fit and prediction
# compile nothing. 0: compile always (see :func:`compiling`, the warm-up's setting).
INTERPRET_BELOW = 1 << 14

_python = {}


def with_python_equivalent(python):
    """Decorator for an intrinsic: ``python`` is what it computes, for :func:`python_version`."""

    def attach(intrinsic):
        intrinsic.python_equivalent = python
        return intrinsic

    return attach


def python_version(kernel):
    """``kernel``'s source as a plain Python function, calling its callees' Python versions."""
    if kernel in _python:
        return _python[kernel]
    source = kernel.py_func
    scope = dict(source.__globals__)  # its module's globals, with the kernels swapped
    function = types.FunctionType(
        source.__code__, scope, source.__name__, source.__defaults__, source.__closure__
    )
    function.__doc__ = source.__doc__
    _python[kernel] = function
    for name in source.__code__.co_names:
        value = scope.get(name)
        if isinstance(value, Dispatcher):
            scope[name] = python_version(value)
        elif hasattr(value, "python_equivalent"):
            scope[name] = value.python_equivalent
    return function


def _compiled_or_cached(kernel):
    """Whether ``kernel`` is compiled in this process or has entries in numba's cache.

    numba's index of the cache (read with its private ``_load_index``) is empty when it is
    missing, written by another numba or for another version of the kernel's source. If
    numba renames it, this says False and small problems are interpreted, which changes
    no result.
    """
    if kernel.signatures:
        return True
    try:
        return bool(kernel._cache._cache_file._load_index())
    except AttributeError:
        return False


def for_size(kernel, n):
    """The kernel to call on a problem of ``n`` runs: compiled, or as Python when it would
    have to be compiled for fewer than :data:`INTERPRET_BELOW` runs."""
    if n >= INTERPRET_BELOW or _compiled_or_cached(kernel):
        return kernel
    return python_version(kernel)


@contextmanager
def compiling():
    """Within it, :func:`for_size` gives the compiled kernel whatever the size: the warm-up
    fills numba's cache with small problems."""
    global INTERPRET_BELOW
    saved, INTERPRET_BELOW = INTERPRET_BELOW, 0
    try:
        yield
    finally:
        INTERPRET_BELOW = saved
