"""Bit-level intrinsics for the kernels: a float64's bit pattern and back, and leading zeros.

Each carries its Python meaning (``python_equivalent``), so that a kernel using it can also
run as Python (:mod:`calibbook._kernels.interpreted`).
"""

import numpy as np
from numba import types
from numba.extending import intrinsic

from calibbook._kernels.interpreted import with_python_equivalent


@with_python_equivalent(lambda x: 64 - int(x).bit_length() if x >= 0 else 0)
@intrinsic
def leading_zeros(typingctx, x):
    """Number of leading zero bits of an int64 (64 for 0): LLVM's ctlz."""
    if x != types.int64:
        return None

    def codegen(context, builder, signature, args):
        return builder.ctlz(args[0], context.get_constant(types.boolean, False))

    return types.int64(types.int64), codegen


@with_python_equivalent(lambda x: np.float64(x).view(np.int64))
@intrinsic
def float_bits(typingctx, x):
    """The bit pattern of a float64 as an int64."""
    if x != types.float64:
        return None

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], context.get_value_type(types.int64))

    return types.int64(types.float64), codegen


@with_python_equivalent(lambda bits: np.int64(bits).view(np.float64))
@intrinsic
def bits_float(typingctx, bits):
    """The float64 whose bit pattern is an int64: the inverse of :func:`float_bits` (a bitcast,
    which vectorises)."""
    if bits != types.int64:
        return None

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], context.get_value_type(types.float64))

    return types.float64(types.int64), codegen
