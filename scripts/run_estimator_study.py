"""Run the full estimator study (book/appendix_estimators.ipynb); write data/estimator_study.csv.

The simulation of ``calibbook.experiments.estimator_study``: the four calibration maps of
``calibration_maps()`` under the Beta(2, 4) prediction density, test-set sizes from 100 to
100 000, and every estimator and test of the study in each replication. The CSV holds the
summary (``summarise_study``): one row per map, size and estimator with the mean, the
standard deviation, quantiles, the Monte-Carlo standard error, the estimator's own target
and the true error.

    nice -n 19 .venv/bin/python scripts/run_estimator_study.py [--reps 400] [--jobs 1]

Beside the CSV it writes ``<csv>.json``: when and where the run was made, its settings, its
wall time and the versions of the software, which the chapter quotes. Each replication has
its own seed, ``(seed, crc32(map), N, rep)``, so the results do not depend on ``--jobs`` and
any slice of the study reproduces the full run's replications exactly.
"""

import argparse
import json
import os
import platform
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SINGLE_THREAD = {
    "OMP_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "NUMBA_NUM_THREADS": "1",
}
SIZES = [100, 300, 1_000, 3_000, 10_000, 30_000, 100_000]


def run_cell(task):
    """One map at one size (in a worker process), with a line of progress."""
    name, n, reps, seed = task
    from calibbook.experiments import estimator_study as es

    start = time.perf_counter()
    maps = es.calibration_maps()
    frame = es.run_study({name: maps[name]}, [n], n_rep=reps, seed=seed)
    print(f"{name} N={n}: {time.perf_counter() - start:.0f} s", file=sys.stderr, flush=True)
    return frame


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=400, help="replications per map and size")
    parser.add_argument("--sizes", type=int, nargs="*", default=SIZES)
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--csv", type=Path, default=ROOT / "data" / "estimator_study.csv")
    args = parser.parse_args(argv)
    os.environ.update(SINGLE_THREAD)  # inherited by the workers, read when they import numpy

    import pandas as pd

    from calibbook.experiments import _cache
    from calibbook.experiments import estimator_study as es

    names = list(es.calibration_maps())
    # the largest sizes first, so that the workers finish together
    tasks = [
        (name, n, args.reps, args.seed) for n in sorted(args.sizes, reverse=True) for name in names
    ]
    started, start = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), time.perf_counter()
    cpu_start = time.process_time()
    if args.jobs == 1:
        frames = [run_cell(task) for task in tasks]
    else:
        with ProcessPoolExecutor(args.jobs) as pool:
            frames = list(pool.map(run_cell, tasks))
    results = pd.concat(frames, ignore_index=True)
    summary = es.summarise_study(results)
    order = {name: i for i, name in enumerate(names)}
    summary = summary.sort_values(
        ["map", "n"], key=lambda c: c.map(order) if c.name == "map" else c, kind="stable"
    )
    summary.to_csv(args.csv, index=False, float_format="%.8g")
    provenance = {
        "started_utc": started,
        "wall_seconds": round(time.perf_counter() - start),
        "cpu_seconds_main_process": round(time.process_time() - cpu_start),
        "jobs": args.jobs,
        "replications": args.reps,
        "sizes": sorted(args.sizes),
        "seed": args.seed,
        "density": f"Beta{es.DENSITY_SHAPE}",
        "map_parameters": es.MAP_PARAMETERS,
        "nice": os.nice(0),
        "cpu_count": os.cpu_count(),
        "machine": platform.processor() or platform.machine(),
        "python": platform.python_version(),
        "software": _cache.software_versions(),
        "load_average_after": os.getloadavg()[0],
    }
    args.csv.with_suffix(".json").write_text(json.dumps(provenance, indent=1) + "\n")
    print(f"wrote {args.csv}: {len(summary)} rows", file=sys.stderr)


if __name__ == "__main__":
    main()
