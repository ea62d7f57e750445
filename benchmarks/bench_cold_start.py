"""Cold start: the first fit + predict of every calibrator in a new process, with an empty and a
warm numba cache, beside scikit-learn's import + first isotonic fit timed in the same run.

Each measurement is a fresh interpreter. It makes 1000 synthetic scores (bench_scaling's), then
times (a) the import of the calibrator's class (calibbook, scikit-learn and the class's module)
and (b) its first ``fit`` + ``predict`` on those scores, where numba compiles or loads the
kernels. The baseline process times ``import sklearn.isotonic`` plus the first
``IsotonicRegression`` fit + predict on the same scores. "Empty cache": ``NUMBA_CACHE_DIR`` is
a new empty folder (a fresh install); "warm": one folder filled first by
``python -m calibbook.warmup`` (whose own time is printed). The three processes of a calibrator
(baseline, empty cache, warm cache) run in turns, --repeats rounds, and each calibrator's
medians are compared with the median of its own baseline processes: the speed of a shared
machine drifts over a run by more than the margins of the targets.

Targets (issue 31), on (b) over the baseline: empty cache, ENIR within 3x and every other
calibrator within 2x; warm cache, every calibrator within 1.2x. The import (a) is printed
beside them, and so is (a) + (b) over the baseline, the whole wait of a new process.

The compile time of each kernel (exclusive of the kernels it calls, which are timed on their
own) comes from numba's compile events in the empty-cache processes; --kernels-csv writes it.
Run: python benchmarks/bench_cold_start.py [--repeats 3] [--only enir bbq] [--kernels-csv F]
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
N_SCORES = 1000
EMPTY_TARGET = {"enir": 3.0}  # others: DEFAULT_EMPTY_TARGET
DEFAULT_EMPTY_TARGET = 2.0
WARM_TARGET = 1.2


def _child(name):
    """Body of one measured process: print its timings and compile events as JSON."""
    import time

    sys.path.insert(0, str(HERE))
    from bench_scaling import synthetic

    s, y = synthetic(N_SCORES)
    if name == "sklearn":
        start = time.perf_counter()
        from sklearn.isotonic import IsotonicRegression

        imported = time.perf_counter()
        IsotonicRegression(out_of_bounds="clip").fit(s, y).predict(s)
        done = time.perf_counter()
        print(json.dumps({"import_s": imported - start, "first_s": done - imported}))
        return
    if name == "import":
        start = time.perf_counter()
        import calibbook  # noqa: F401

        print(json.dumps({"import_s": time.perf_counter() - start, "first_s": 0.0}))
        return
    start = time.perf_counter()
    from calibbook.registry import calibrator_entry

    cls = calibrator_entry(name).cls
    imported = time.perf_counter()
    from numba.core import event  # numba loads with the class module's first kernel import

    frames, kernels = [], []

    class _Exclusive(event.Listener):
        """Compile time of each calibbook kernel less that of the calibbook kernels it calls."""

        def on_start(self, ev):
            if ev.data["dispatcher"].py_func.__module__.startswith("calibbook."):
                frames.append([time.perf_counter(), 0.0])

        def on_end(self, ev):
            func = ev.data["dispatcher"].py_func
            if func.__module__.startswith("calibbook."):
                begun, inner = frames.pop()
                spent = time.perf_counter() - begun
                if frames:
                    frames[-1][1] += spent
                module = func.__module__.removeprefix("calibbook._kernels.")
                kernels.append((f"{module}.{func.__name__}", spent - inner))

    event.register("numba:compile", _Exclusive())
    first_start = time.perf_counter()
    cls().fit(s, y).predict(s)
    done = time.perf_counter()
    print(
        json.dumps(
            {"import_s": imported - start, "first_s": done - first_start, "kernels": kernels}
        )
    )


def _run(name, cache_dir):
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache_dir), "OPENBLAS_NUM_THREADS": "1"}
    env.pop("NUMBA_DISABLE_JIT", None)
    out = subprocess.run(
        [sys.executable, __file__, "--child", name],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def _run_empty(name):
    with tempfile.TemporaryDirectory(prefix="numba-empty-") as empty:
        return _run(name, empty)


def _medians(runs):
    """Median import and first-fit times of several processes, and their compile events."""
    return {
        "import_s": float(np.median([r["import_s"] for r in runs])),
        "first_s": float(np.median([r["first_s"] for r in runs])),
        "whole_s": float(np.median([r["import_s"] + r["first_s"] for r in runs])),
        "kernels": [k for r in runs for k in r.get("kernels", [])],
        "compiled": int(np.median([len(r.get("kernels", [])) for r in runs])),
    }


def measure(sizes=None, repeats=3, only=None, kernel_rows=None):
    """Rows of the benchmark table (``sizes`` is ignored: the problem is 1000 scores).

    ``kernel_rows``, when a list, receives (kernel, calibrator, seconds) of every compile in
    the empty-cache processes.
    """
    from calibbook.registry import calibrator_names

    names = [n for n in calibrator_names() if not only or n in only]
    repeats = max(1, min(int(repeats), 3))
    label = "sklearn import + first isotonic fit + predict"
    rows, baselines = [], []
    with tempfile.TemporaryDirectory(prefix="numba-warm-") as warm_dir:
        env = {**os.environ, "NUMBA_CACHE_DIR": warm_dir, "OPENBLAS_NUM_THREADS": "1"}
        out = subprocess.run(
            [sys.executable, "-m", "calibbook.warmup", "--quiet"],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        print(out.stdout.strip(), flush=True)
        for name in names:
            turns = [
                (_run("sklearn", warm_dir), _run_empty(name), _run(name, warm_dir))
                for _ in range(repeats)
            ]
            baseline_s = _medians([t[0] for t in turns])["whole_s"]
            baselines.append(baseline_s)
            empty, warm = _medians([t[1] for t in turns]), _medians([t[2] for t in turns])
            if kernel_rows is not None:
                kernel_rows.extend((kernel, name, sec) for kernel, sec in empty["kernels"])
            for cache, run, target in (
                ("empty", empty, EMPTY_TARGET.get(name, DEFAULT_EMPTY_TARGET)),
                ("warm", warm, WARM_TARGET),
            ):
                rows.append(
                    {
                        "method": f"{name} first fit+predict, {cache} cache",
                        "n": N_SCORES,
                        "fit_s": run["first_s"],
                        "predict_s": None,
                        "import_s": run["import_s"],
                        "whole_s": run["whole_s"],
                        "kernels_compiled": run["compiled"],
                        "baseline": label,
                        "baseline_fit_s": baseline_s,
                        "baseline_predict_s": None,
                        "target": f"first fit+predict <= {target:g}x baseline",
                        "target_met": bool(run["first_s"] <= target * baseline_s),
                    }
                )
            print(
                f"{name:>18}: empty {empty['first_s']:6.2f} s ({empty['compiled']:3d} kernels)"
                f"  warm {warm['first_s']:5.2f} s ({warm['compiled']} compiled)"
                f"  import {empty['import_s']:.2f} s  baseline {baseline_s:.2f} s",
                flush=True,
            )
        calibbook_import = _medians([_run("import", warm_dir) for _ in range(repeats)])["import_s"]
    rows.append(
        {
            "method": "import calibbook",
            "n": 0,
            "fit_s": calibbook_import,
            "predict_s": None,
            "baseline": label,
            "baseline_fit_s": float(np.median(baselines)),
            "baseline_predict_s": None,
            "target": "",
            "target_met": None,
        }
    )
    return rows


def kernel_table(kernel_rows):
    """Median compile seconds of each kernel over the processes that compiled it."""
    import pandas as pd

    frame = pd.DataFrame(kernel_rows, columns=["kernel", "calibrator", "seconds"])
    return (
        frame.groupby("kernel")
        .agg(seconds=("seconds", "median"), calibrators=("calibrator", lambda c: len(set(c))))
        .sort_values("seconds", ascending=False)
        .reset_index()
    )


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--repeats", type=int, default=3, help="processes per measurement")
    parser.add_argument("--only", nargs="*", help="calibrator names (default: all registered)")
    parser.add_argument("--kernels-csv", type=Path, help="write each kernel's compile time")
    args = parser.parse_args()
    if args.child:
        _child(args.child)
        return
    from calibbook.registry import calibrator_names

    unknown = sorted(set(args.only or ()) - set(calibrator_names()))
    if unknown:
        parser.error(f"--only: unknown calibrators {unknown}; choose from {calibrator_names()}")

    import pandas as pd

    kernel_rows = []
    rows = measure(repeats=args.repeats, only=args.only, kernel_rows=kernel_rows)
    table = pd.DataFrame(rows)
    table["ratio"] = table["fit_s"] / table["baseline_fit_s"]
    table["whole_ratio"] = table["whole_s"] / table["baseline_fit_s"]
    columns = ["method", "fit_s", "ratio", "import_s", "whole_ratio", "target", "target_met"]
    with pd.option_context("display.width", 160, "display.max_colwidth", 50):
        print(table[columns].to_string(index=False, float_format=lambda v: f"{v:.3g}"))
    kernels = kernel_table(kernel_rows)
    print(f"\ncompile time of each kernel (median s; {len(kernels)} kernels), the 25 longest:")
    print(kernels.head(25).to_string(index=False, float_format=lambda v: f"{v:.3f}"))
    print(f"sum over kernels: {kernels['seconds'].sum():.1f} s")
    if args.kernels_csv:
        args.kernels_csv.parent.mkdir(parents=True, exist_ok=True)
        kernels.to_csv(args.kernels_csv, index=False, float_format="%.4f")
        print("wrote", args.kernels_csv)


if __name__ == "__main__":
    main()
