"""Every benchmark in one run, as one table: method, N, times, ratio to the baseline, target.

Each ``benchmarks/bench_*.py`` that defines ``measure(sizes, repeats)`` contributes rows with
the keys ``method, n, fit_s, predict_s, baseline, baseline_fit_s, baseline_predict_s, target,
target_met``; every ratio is against a baseline timed in the same run, on the same data.
The table is printed and written to ``--csv`` (default ``_build/bench.csv``). ``make bench``
then refreshes ``data/speed_scaling.csv`` with ``bench_scaling.py`` and re-executes chapter 8,
whose speed figure and the decision guide's read that file.

Run: python benchmarks/run_all.py [--quick] [--csv _build/bench.csv]
"""

import argparse
import importlib.util
import os
import platform
import sys
import traceback
from pathlib import Path

HERE = Path(__file__).resolve().parent
# (sizes, repeats): the sizes; --quick for a smoke run
FULL = {"sizes": [1e5, 1e6, 1e7], "repeats": 5}
QUICK = {"sizes": [1e4, 1e5], "repeats": 3}


def benchmark_modules():
    """The bench_*.py modules that define measure(), by file name."""
    sys.path.insert(0, str(HERE))
    found = {}
    for path in sorted(HERE.glob("bench_*.py")):
        spec = importlib.util.spec_from_file_location(path.stem, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        if hasattr(module, "measure"):
            found[path.stem] = module
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, few repeats")
    parser.add_argument("--csv", type=Path, default=HERE.parent / "_build" / "bench.csv")
    parser.add_argument("--only", nargs="*", help="bench modules to run (default: all)")
    args = parser.parse_args()

    import pandas as pd

    setting = QUICK if args.quick else FULL
    print(
        f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}; sizes {setting['sizes']}, "
        f"median of {setting['repeats']} repeats",
        flush=True,
    )
    rows, failed = [], []
    for name, module in benchmark_modules().items():
        if args.only and name not in args.only:
            continue
        print(f"-- {name}", flush=True)
        try:  # one broken benchmark must not cost the others' measurements
            new = [
                {"benchmark": name, **row}
                for row in module.measure(setting["sizes"], setting["repeats"])
            ]
        except Exception:
            traceback.print_exc()
            failed.append(name)
            continue
        rows += new
        for row in new:  # as they come: a long run shows its progress
            print(f"   {row['method']} n={row['n']:g}: target met = {row['target_met']}")
    table = pd.DataFrame(rows)
    if table.empty:
        raise SystemExit("no benchmark defines measure()")
    table["fit_ratio"] = table["fit_s"] / table["baseline_fit_s"]
    table["predict_ratio"] = table["predict_s"] / table["baseline_predict_s"]
    table["target_met"] = table["target_met"].map({True: "met", False: "NOT met", None: "-"})
    columns = [
        "method",
        "n",
        "fit_s",
        "predict_s",
        "baseline",
        "fit_ratio",
        "predict_ratio",
        "target",
        "target_met",
    ]
    with pd.option_context("display.width", 160, "display.max_colwidth", 40):
        print(table[columns].to_string(index=False, float_format=lambda v: f"{v:.3g}"))
    args.csv.parent.mkdir(parents=True, exist_ok=True)
    table.to_csv(args.csv, index=False, float_format="%.6g")
    print("wrote", args.csv)
    if failed:
        raise SystemExit(f"benchmarks that failed (traceback above): {', '.join(failed)}")


if __name__ == "__main__":
    main()
