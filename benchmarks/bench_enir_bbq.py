"""ENIR against IsotonicCalibration on the same data: fit, predict and peak memory against N.

Targets (issue 18): ENIR fit <= 6 x IsotonicCalibration's fit at N = 1e6 and 1e7, and its
fit time grows at most 12 x from 1e6 to 1e7; ENIR predict <= 1.5 x IsotonicCalibration's
predict; ENIR at 1e7 below 1.5 GB peak resident memory, interpreter included.
Data: bench_scaling's synthetic scores (over-confident scores in [0, 1], labels drawn from
a flatter truth), as in data/speed_scaling.csv. Each size runs in fresh processes: one
times the two calibrators in turns (one call each per round, medians of --repeats rounds;
at 1e7 also ENIR at 1e6, in turns with ENIR at 1e7, so that the growth compares times
taken under the same load), another fits and predicts ENIR alone and reports its peak
memory (ru_maxrss). BBQ has its
own benchmark (bench_bbq.py). When netcal is installed (optional, never a dependency), its
ENIR is timed too, at N <= 1e4 (it does not finish 1e5 in minutes).
Run: python benchmarks/bench_enir_bbq.py [--sizes 1e5 1e6 1e7] [--repeats 5]
"""

import json
import os
import platform
import subprocess
import sys
from pathlib import Path

from _timing import parse_args

FIT_RATIO = 6.0  # ENIR fit / IsotonicCalibration fit, at 1e6 and 1e7
GROWTH = 12.0  # ENIR fit at 1e7 / ENIR fit at 1e6
PREDICT_RATIO = 1.5  # ENIR predict / IsotonicCalibration predict
PEAK_MB = 1.5 * 1024  # ENIR at 1e7, interpreter included
NETCAL_MAX_N = 10_000

TIMING = r"""
import json, sys, time
import numpy as np
sys.path.insert(0, sys.argv[3])
from bench_scaling import synthetic
from calibbook.calibrators.enir import ENIR
from calibbook.calibrators.isotonic import IsotonicCalibration

def interleaved(funcs, repeats):
    for func in funcs:  # warm-up (numba loads its cache)
        func()
    times = [[] for _ in funcs]
    for _ in range(repeats):
        for spent, func in zip(times, funcs):
            start = time.perf_counter()
            func()
            spent.append(time.perf_counter() - start)
    return [float(np.median(spent)) for spent in times]

n, repeats = int(float(sys.argv[1])), int(sys.argv[2])
s, y = synthetic(n)
enir, iso = ENIR(), IsotonicCalibration()
out = {}
out["fit"], out["iso_fit"] = interleaved([lambda: enir.fit(s, y), lambda: iso.fit(s, y)], repeats)
out["predict"], out["iso_predict"] = interleaved([lambda: enir.predict(s), lambda: iso.predict(s)],
                                                 repeats)
if n == 10**7:  # the growth from 1e6, timed in the same rounds
    s6, y6 = synthetic(10**6)
    out["fit"], out["fit_1e6"] = interleaved([lambda: enir.fit(s, y), lambda: ENIR().fit(s6, y6)],
                                             repeats)
if n <= int(sys.argv[4]):
    try:
        import netcal.binning as nb
    except ImportError:
        pass
    else:
        netcal = nb.ENIR()
        out["netcal_fit"], out["netcal_fit_ours"] = interleaved(
            [lambda: netcal.fit(s, y), lambda: enir.fit(s, y)], repeats)
print(json.dumps(out))
"""

MEMORY = r"""
import json, resource, sys
sys.path.insert(0, sys.argv[2])
from bench_scaling import synthetic
from calibbook.calibrators.enir import ENIR

s, y = synthetic(int(float(sys.argv[1])))
ENIR().fit(s, y).predict(s)
print(json.dumps({"peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""

HERE = str(Path(__file__).resolve().parent)


def _child(code, *args):
    """Run ``code`` in a fresh interpreter (the same one, same environment); its JSON line."""
    done = subprocess.run(
        [sys.executable, "-c", code, *map(str, args)], capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def measure(sizes, repeats):
    """Rows of the benchmark table (see benchmarks/run_all.py), one per N (and one per N
    that netcal's ENIR was timed at), with the peak memory (``peak_mb``). At 1e7, ENIR's
    fit is also timed at 1e6 in the same rounds, for the growth of the fit time
    (``fit_growth``); the 1e7 row's ``fit_s`` comes from those rounds."""
    rows = []
    for n in map(int, sizes):
        timing = _child(TIMING, n, repeats, HERE, NETCAL_MAX_N)
        peak_mb = _child(MEMORY, n, HERE)["peak_mb"]
        checks = {
            f"predict <= {PREDICT_RATIO:g}x": timing["predict"]
            <= PREDICT_RATIO * timing["iso_predict"]
        }
        if n in (10**6, 10**7):
            checks[f"fit <= {FIT_RATIO:g}x"] = timing["fit"] <= FIT_RATIO * timing["iso_fit"]
        growth = None
        if n == 10**7:
            checks["peak < 1.5 GB"] = peak_mb < PEAK_MB
            growth = timing["fit"] / timing["fit_1e6"]
            checks[f"fit 1e6 -> 1e7 <= {GROWTH:g}x"] = growth <= GROWTH
        rows.append(
            {
                "method": "ENIR",
                "n": n,
                "fit_s": timing["fit"],
                "predict_s": timing["predict"],
                "baseline": "IsotonicCalibration",
                "baseline_fit_s": timing["iso_fit"],
                "baseline_predict_s": timing["iso_predict"],
                "target": ", ".join(checks),
                "target_met": all(checks.values()),
                "peak_mb": peak_mb,
                "fit_growth": growth,
            }
        )
        if "netcal_fit" in timing:
            rows.append(
                {
                    "method": "ENIR",
                    "n": n,
                    "fit_s": timing["netcal_fit_ours"],
                    "predict_s": float("nan"),
                    "baseline": "netcal ENIR",
                    "baseline_fit_s": timing["netcal_fit"],
                    "baseline_predict_s": float("nan"),
                    "target": "",
                    "target_met": None,
                    "peak_mb": float("nan"),
                    "fit_growth": None,
                }
            )
    return rows


def main():
    args = parse_args(__doc__, [1e5, 1e6, 1e7])
    print(
        f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}; median of {args.repeats} rounds"
    )
    print(
        f"{'N':>8} {'baseline':>19} {'ENIR fit s':>10} {'base fit s':>10} {'fit ratio':>9} "
        f"{'pred ratio':>10} {'growth':>6} {'peak MB':>7}  target met"
    )
    for row in measure(args.sizes, args.repeats):
        growth = "" if row["fit_growth"] is None else f"{row['fit_growth']:.1f}"
        print(
            f"{row['n']:>8.0e} {row['baseline']:>19} {row['fit_s']:10.4f} "
            f"{row['baseline_fit_s']:10.4f} {row['fit_s'] / row['baseline_fit_s']:9.2f} "
            f"{row['predict_s'] / row['baseline_predict_s']:10.2f} {growth:>6} "
            f"{row['peak_mb']:7.0f}  {row['target_met']} ({row['target']})"
        )


if __name__ == "__main__":
    main()
