"""Shared timing helper for the benchmark scripts (median wall time of repeats)."""

import argparse
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


def interleaved(funcs, repeats):
    """Median seconds of each function, timed in turns (one call of each per round)."""
    for func in funcs:  # warm-up (numba compiles or loads its cache)
        func()
    times = [[] for _ in funcs]
    for _ in range(repeats):
        for spent, func in zip(times, funcs, strict=True):
            start = time.perf_counter()
            func()
            spent.append(time.perf_counter() - start)
    return [float(np.median(spent)) for spent in times]


def parse_args(doc, default_sizes):
    """Command line shared by the benchmark scripts: --sizes and --repeats."""
    parser = argparse.ArgumentParser(description=doc)
    parser.add_argument("--sizes", nargs="+", type=float, default=default_sizes)
    parser.add_argument("--repeats", type=int, default=5)
    return parser.parse_args()
