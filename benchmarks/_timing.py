"""Shared timing helper for the benchmark scripts (median wall time of repeats)."""

import time

import numpy as np


def median_time(func, repeats=5, warmup=1):
    """Median wall-clock seconds of ``func()`` over ``repeats`` runs after ``warmup`` runs."""
    for _ in range(warmup):
        func()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        func()
        times.append(time.perf_counter() - start)
    return float(np.median(times))
