"""calibbook.distributed end to end: 1e8 (or 1e9) scored events, out of core, on one machine.

The events are generated block by block from a seeded model (a latent z ~ N(0, 1); the
true probability is sigmoid(1.5 z - 1); the classifier's overconfident score is
sigmoid(3 z - 0.5); the label is Bernoulli(true probability)), so no N-long array ever
exists. Two passes over the data, both on Dask's default local (threaded) scheduler:

1. reduce to weighted unique rows on a ScoreGrid and fit IsotonicCalibration, ENIR and
   PlattScaling(logit_input=True) on them;
2. predict block by block (``predict_distributed``, map_blocks) and reduce the predictions
   to metrics: ECE (10 equal-width bins), Brier score and the mean |p - true p|.

A second phase, at a size that fits in memory (1e7), times the in-memory fit against
``fit_distributed`` on the same rows (exact and on the grid) and checks the blockwise ECE
against ``calibbook.metrics``. Each phase runs in its own process, so its peak RSS
(getrusage, self + children) is its own. Besides wall time, the streamed phase records its
CPU time (user + system, all threads): on a shared machine the wall time depends on the
load, the CPU time much less.

Run: python benchmarks/bench_distributed.py [--n 1e8] [--chunk 4e6] [--cells 1048576]
     [--compare-n 1e7] [--quick] [--csv data/distributed_benchmark.csv]
(--events is another name for --n; --csv appends one row per measured quantity, tagged
with the run's start time, including the machine's load average, the CPU count, the nice
level and the library versions.)
"""

import argparse
import csv
import json
import os
import platform
import resource
import subprocess
import sys
import time

import numpy as np

SEED = 2026
N_BINS = 10  # ECE bins, as calibbook.metrics.expected_calibration_error's default


# --------------------------------------------------------------------------- the data
def sigmoid(x):
    return 0.5 * (1.0 + np.tanh(0.5 * x))  # no overflow warnings for large |x|


def make_block(index, size, seed=SEED):
    """Block ``index`` of the event stream: columns (score, label, true probability)."""
    rng = np.random.default_rng([seed, index])
    z = rng.standard_normal(size)
    out = np.empty((size, 3))
    out[:, 0] = sigmoid(3.0 * z - 0.5)
    out[:, 2] = sigmoid(1.5 * z - 1.0)
    out[:, 1] = rng.random(size) < out[:, 2]
    return out


def block_sizes(n, chunk):
    sizes = [chunk] * (n // chunk)
    return sizes + ([n % chunk] if n % chunk else [])


def event_stream(n, chunk):
    """Lazy dask columns (scores, labels, true probabilities), generated per block."""
    import dask.array as da
    from dask import delayed

    blocks = [
        da.from_delayed(delayed(make_block, pure=True)(i, size), shape=(size, 3), dtype=np.float64)
        for i, size in enumerate(block_sizes(n, chunk))
    ]
    events = da.concatenate(blocks)
    return events[:, 0], events[:, 1], events[:, 2]


def in_memory_stream(n, chunk):
    events = np.concatenate([make_block(i, size) for i, size in enumerate(block_sizes(n, chunk))])
    return (
        np.ascontiguousarray(events[:, 0]),
        np.ascontiguousarray(events[:, 1]),
        np.ascontiguousarray(events[:, 2]),
    )


# --------------------------------------------------------------------------- metrics, blockwise
def lazy_metrics(p, y, true_p):
    """Dask reductions of one prediction column.

    Per-bin sums for the ECE, Brier, mean |p - true p|.
    """
    import dask.array as da

    k = da.minimum((p * N_BINS).astype(np.int64), N_BINS - 1)  # bin [j/K, (j+1)/K), 1 in the last
    return {
        "count": da.bincount(k, minlength=N_BINS),
        "sum_p": da.bincount(k, weights=p, minlength=N_BINS),
        "sum_y": da.bincount(k, weights=y, minlength=N_BINS),
        "brier": ((p - y) ** 2).sum(),
        "abs_true": abs(p - true_p).sum(),
    }


def finish_metrics(sums, n):
    count = sums["count"]
    full = count > 0
    ece = np.sum(np.abs(sums["sum_y"][full] - sums["sum_p"][full])) / n  # sum_k n_k |o_k - e_k| / n
    return {
        "ece": float(ece),
        "brier": float(sums["brier"] / n),
        "mae_true": float(sums["abs_true"] / n),
    }


def peak_rss_mib():
    self_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    child_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return self_kib / 1024, child_kib / 1024


def cpu_seconds():
    """User + system CPU time of this process so far, all threads together."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def calibrators():
    from calibbook import ENIR, IsotonicCalibration, PlattScaling

    return {
        "isotonic": IsotonicCalibration(),
        "ENIR": ENIR(),
        "Platt": PlattScaling(logit_input=True),
    }


# --------------------------------------------------------------------------- phase 1: N rows
def phase_stream(n, chunk, cells):
    import dask

    from calibbook.distributed import ScoreGrid, aggregate, predict_distributed

    warm = make_block(0, 2000)
    for cal in calibrators().values():  # load the compiled kernels outside the timings
        cal.fit(warm[:, 0], warm[:, 1])
    start, cpu_start = time.perf_counter(), cpu_seconds()
    grid = ScoreGrid(cells, 0.0, 1.0)
    s, y, true_p = event_stream(n, chunk)
    rows = aggregate(s, y, grid=grid)
    t_aggregate = time.perf_counter() - start
    cpu_aggregate = cpu_seconds() - cpu_start
    fitted, t_fit = {}, {}
    for name, cal in calibrators().items():
        t0 = time.perf_counter()
        fitted[name] = cal.fit(*rows[:2], sample_weight=rows[2])
        t_fit[name] = time.perf_counter() - t0
    t0, cpu0 = time.perf_counter(), cpu_seconds()
    lazy = {"uncalibrated": lazy_metrics(s, y, true_p)}
    for name, cal in fitted.items():
        lazy[name] = lazy_metrics(predict_distributed(cal, s, grid=grid), y, true_p)
    (sums,) = dask.compute(lazy)
    t_predict = time.perf_counter() - t0
    cpu_predict = cpu_seconds() - cpu0
    metrics = {name: finish_metrics(v, n) for name, v in sums.items()}
    rss_self, rss_children = peak_rss_mib()
    return {
        "n": n,
        "chunk": chunk,
        "cells": cells,
        "unique_rows": int(rows[0].size),
        "total_weight": float(rows[2].sum()),
        "t_aggregate": t_aggregate,
        "t_fit": t_fit,
        "t_predict_metrics": t_predict,
        "t_total": time.perf_counter() - start,
        "cpu_aggregate": cpu_aggregate,
        "cpu_predict": cpu_predict,
        "cpu_total": cpu_seconds() - cpu_start,
        "isotonic_blocks": int(fitted["isotonic"].step_values_.size),
        "platt": [fitted["Platt"].a_, fitted["Platt"].b_],
        "metrics": metrics,
        "peak_rss_mib": rss_self,
        "peak_rss_children_mib": rss_children,
    }


# ------------------------------------------------------------------------ phase 2: fits in memory
def phase_compare(n, chunk, cells):
    import dask.array as da

    from calibbook import IsotonicCalibration
    from calibbook.distributed import ScoreGrid, fit_distributed
    from calibbook.metrics import expected_calibration_error

    s, y, true_p = in_memory_stream(n, chunk)
    # load the compiled kernels and dask outside the timings
    fit_distributed(
        IsotonicCalibration(),
        da.from_array(s[:1000], chunks=500),
        da.from_array(y[:1000], chunks=500),
    )
    t0 = time.perf_counter()
    memory = IsotonicCalibration().fit(s, y)
    t_memory = time.perf_counter() - t0
    S, Y = da.from_array(s, chunks=chunk), da.from_array(y, chunks=chunk)
    t0 = time.perf_counter()
    exact = fit_distributed(IsotonicCalibration(), S, Y)
    t_exact = time.perf_counter() - t0
    grid = ScoreGrid(cells, 0.0, 1.0)
    t0 = time.perf_counter()
    gridded = fit_distributed(IsotonicCalibration(), S, Y, grid=grid)
    t_grid = time.perf_counter() - t0
    p_memory = memory.predict(s)
    p_grid = gridded.predict(grid.quantize(s))
    mse_gap = float(np.mean((y - p_grid) ** 2) - np.mean((y - p_memory) ** 2))
    bound = float(2 * np.bincount(grid.cells(s), minlength=cells).max() / n)
    # the blockwise ECE of phase 1, checked against calibbook.metrics on these rows
    sums = {
        k: np.asarray(v.compute() if hasattr(v, "compute") else v)
        for k, v in lazy_metrics(S, Y, da.from_array(true_p, chunks=chunk)).items()
    }
    ece_blockwise = finish_metrics(sums, n)["ece"]
    rss_self, rss_children = peak_rss_mib()
    return {
        "n": n,
        "chunk": chunk,
        "cells": cells,
        "t_memory": t_memory,
        "t_exact": t_exact,
        "t_grid": t_grid,
        "max_diff_exact": float(np.abs(exact.predict(s) - p_memory).max()),
        "max_diff_grid": float(np.abs(p_grid - p_memory).max()),
        "mean_diff_grid": float(np.abs(p_grid - p_memory).mean()),
        "mse_gap_grid": mse_gap,
        "mse_gap_bound": bound,
        "ece_check": abs(ece_blockwise - expected_calibration_error(y, s)),
        "peak_rss_mib": rss_self,
        "peak_rss_children_mib": rss_children,
    }


# --------------------------------------------------------------------------- driver
def run_phase(args, phase, n):
    cmd = [
        sys.executable,
        __file__,
        "--phase",
        phase,
        "--n",
        str(n),
        "--chunk",
        str(args.chunk),
        "--cells",
        str(args.cells),
    ]
    t0 = time.perf_counter()
    out = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if out.returncode:
        sys.exit(f"phase {phase} failed:\n{out.stderr}")
    result = json.loads(out.stdout.strip().splitlines()[-1])
    result["t_process"] = time.perf_counter() - t0  # with interpreter start and imports
    return result


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--n",
        "--events",
        dest="n",
        type=float,
        default=1e8,
        help="events in the streamed run (default 1e8)",
    )
    parser.add_argument("--chunk", type=float, default=4e6, help="events per block (default 4e6)")
    parser.add_argument(
        "--cells", type=int, default=2**20, help="ScoreGrid cells on [0, 1] (default 2**20)"
    )
    parser.add_argument(
        "--compare-n", type=float, default=1e7, help="size of the in-memory comparison"
    )
    parser.add_argument(
        "--quick", action="store_true", help="1e6 streamed, 1e5 in memory, chunks of 2e5"
    )
    parser.add_argument(
        "--csv", help="append the measurements to this CSV file (one row per quantity)"
    )
    parser.add_argument("--phase", choices=["stream", "compare"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.quick:
        args.n, args.compare_n, args.chunk = 1e6, 1e5, 2e5
    args.n, args.chunk, args.compare_n = int(args.n), int(args.chunk), int(args.compare_n)

    if args.phase:  # child process: one phase, one JSON line
        func = phase_stream if args.phase == "stream" else phase_compare
        print(json.dumps(func(args.n, args.chunk, args.cells)))
        return

    import dask
    import numba

    import calibbook

    run_id = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    load_before = os.getloadavg()
    versions = (
        f"calibbook {calibbook.__version__}, python {platform.python_version()}, "
        f"numpy {np.__version__}, dask {dask.__version__}, numba {numba.__version__}"
    )
    print(
        f"{os.cpu_count()} CPUs, nice {os.nice(0)}, load average {load_before[0]:.2f} (1 min) "
        f"before the run; {versions}"
    )
    stream = run_phase(args, "stream", args.n)
    load_mid = os.getloadavg()
    compare = run_phase(args, "compare", args.compare_n)

    print(
        f"\nstreamed: {stream['n']:.0e} events in blocks of {stream['chunk']:.0e}, ScoreGrid of "
        f"{stream['cells']} cells on [0, 1] (half-cell {0.5 / stream['cells']:.2e})"
    )
    print(
        f"  reduced to {stream['unique_rows']} weighted rows "
        f"(total weight {stream['total_weight']:.0f})"
    )
    print(f"  pass 1, generate + reduce:       {stream['t_aggregate']:8.1f} s")
    for name, t in stream["t_fit"].items():
        print(f"  fit {name:<10} on the rows:     {t:8.2f} s")
    print(f"  pass 2, predict + metrics:       {stream['t_predict_metrics']:8.1f} s")
    print(
        f"  total wall time:                 {stream['t_total']:8.1f} s "
        f"({stream['t_process']:.1f} s with interpreter start and imports)"
    )
    print(
        f"  CPU time (user + system, all threads): pass 1 {stream['cpu_aggregate']:.1f} s, "
        f"pass 2 {stream['cpu_predict']:.1f} s, total {stream['cpu_total']:.1f} s"
    )
    print(
        f"  peak RSS: {stream['peak_rss_mib']:.0f} MiB "
        f"(children {stream['peak_rss_children_mib']:.0f} MiB)"
    )
    print(f"  {'':<13} {'ECE':>8} {'Brier':>8} {'|p - true p|':>13}")
    for name, m in stream["metrics"].items():
        print(f"  {name:<13} {m['ece']:8.5f} {m['brier']:8.5f} {m['mae_true']:13.6f}")
    print(f"\nin memory: {compare['n']:.0e} events, IsotonicCalibration")
    print(
        f"  in-memory fit {compare['t_memory']:.2f} s; "
        f"fit_distributed exact {compare['t_exact']:.2f} s "
        f"(x{compare['t_exact'] / compare['t_memory']:.1f}), on the grid {compare['t_grid']:.2f} s "
        f"(x{compare['t_grid'] / compare['t_memory']:.1f})"
    )
    print(
        f"  max |difference| exact {compare['max_diff_exact']:.1e}; "
        f"grid: max {compare['max_diff_grid']:.3f}, "
        f"mean {compare['mean_diff_grid']:.2e}; training MSE gap {compare['mse_gap_grid']:.2e} "
        f"<= bound {compare['mse_gap_bound']:.2e}"
    )
    print(
        f"  blockwise ECE - calibbook ECE: {compare['ece_check']:.1e}; "
        f"peak RSS {compare['peak_rss_mib']:.0f} MiB"
    )
    load_end = os.getloadavg()
    print(
        f"load average during the run: {load_mid[0]:.2f} after pass 1 and 2, "
        f"{load_end[0]:.2f} at the end"
    )

    if args.csv:
        cn = f"{compare['n']:.0e}".replace("e+0", "e").replace("e+", "e")  # 10000000 -> "1e7"
        rows = [
            ("events", stream["n"], "rows", "streamed, never materialised"),
            ("block size", stream["chunk"], "rows", "events generated per Dask block"),
            ("grid cells", stream["cells"], "cells", "ScoreGrid on [0, 1]"),
            (
                "reduced rows",
                stream["unique_rows"],
                "rows",
                "weighted (score, label) rows after the reduction",
            ),
            ("pass 1: generate and reduce", round(stream["t_aggregate"], 1), "s", "wall time"),
            *[
                (f"fit {k} on the reduced rows", round(v, 2), "s", "wall time")
                for k, v in stream["t_fit"].items()
            ],
            (
                "pass 2: predict and reduce to metrics",
                round(stream["t_predict_metrics"], 1),
                "s",
                "wall time",
            ),
            ("total", round(stream["t_total"], 1), "s", "wall time, both passes and the fits"),
            (
                "peak memory",
                round(stream["peak_rss_mib"]),
                "MiB",
                f"peak RSS of the process (children: {stream['peak_rss_children_mib']:.0f} MiB)",
            ),
            *[
                (f"ECE {k}", round(m["ece"], 5), "", "10 equal-width bins, all events")
                for k, m in stream["metrics"].items()
            ],
            *[
                (f"mean |p - true p| {k}", round(m["mae_true"], 6), "", "all events")
                for k, m in stream["metrics"].items()
            ],
            (f"in-memory isotonic fit, {cn} rows", round(compare["t_memory"], 2), "s", "wall time"),
            (
                f"fit_distributed isotonic, {cn} rows, exact",
                round(compare["t_exact"], 2),
                "s",
                "wall time",
            ),
            (
                f"fit_distributed isotonic, {cn} rows, grid",
                round(compare["t_grid"], 2),
                "s",
                "wall time",
            ),
            (
                "load average before the run",
                round(load_before[0], 2),
                "",
                f"{os.cpu_count()} CPUs, 1-minute average",
            ),
            ("load average after pass 2", round(load_mid[0], 2), "", "1-minute average"),
            ("load average at the end", round(load_end[0], 2), "", "1-minute average"),
            ("CPUs", os.cpu_count(), "", f"nice {os.nice(0)}; {versions}"),
            (
                "pass 1: generate and reduce, CPU time",
                round(stream["cpu_aggregate"], 1),
                "s",
                "user + system, all threads of the process",
            ),
            (
                "pass 2: predict and reduce to metrics, CPU time",
                round(stream["cpu_predict"], 1),
                "s",
                "user + system, all threads of the process",
            ),
            (
                "total, CPU time",
                round(stream["cpu_total"], 1),
                "s",
                "user + system, all threads of the process; both passes and the fits",
            ),
        ]
        new_file = not os.path.exists(args.csv)
        with open(args.csv, "a", newline="") as fh:  # append: one file collects several runs
            writer = csv.writer(fh)
            if new_file:
                writer.writerow(["run", "quantity", "value", "unit", "note"])
            writer.writerows((run_id, *row) for row in rows)
        print(f"appended run {run_id} to {args.csv}")


if __name__ == "__main__":
    main()
