"""Numba kernels: pure functions over NumPy arrays, no validation, no Python objects.

Each kernel is compiled on first call (``cache=True`` keeps the machine code on
disk), never at ``import calibbook``.
"""
