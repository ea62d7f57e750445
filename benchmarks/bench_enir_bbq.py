"""Near-isotonic path + ENIR, and BBQ: fit times and peak memory against N.

Targets: path + ENIR fit at 1e5 under 1 s, at 1e6 under 10 s with peak
memory under 1 GB; BBQ fit at 1e6 under 2 s. When netcal is installed (optional,
never a dependency), its ENIR and BBQ are timed too and ratios printed.
Each size runs in a fresh process so that peak memory (ru_maxrss) is its own.
Run: python benchmarks/bench_enir_bbq.py [--sizes 1e4 1e5 1e6] [--repeats 3]
"""

import argparse
import json
import subprocess
import sys

CHILD = r"""
import json, resource, sys, time
import numpy as np
from calibbook.bbq import BBQ
from calibbook.enir import ENIR

n, repeats = int(float(sys.argv[1])), int(sys.argv[2])
rng = np.random.default_rng(0)
s = rng.uniform(size=n)
y = (rng.uniform(size=n) < 0.5 + 0.4 * np.sin(3 * np.pi * s)).astype(float)
ENIR().fit(s[:200], y[:200]); BBQ().fit(s[:200], y[:200])  # compile (cached)
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
out = {}
for name, make in [("ENIR", ENIR), ("BBQ", BBQ)]:
    times = []
    for _ in range(repeats):
        t = time.perf_counter(); cal = make().fit(s, y); times.append(time.perf_counter() - t)
    t = time.perf_counter(); cal.predict(s); out[name + "_predict"] = time.perf_counter() - t
    out[name] = float(np.median(times))
out["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
out["base_mb"] = base / 1024
try:
    import netcal.binning as nb
    for name, make in [("netcal_ENIR", nb.ENIR), ("netcal_BBQ", nb.BBQ)]:
        if n > (1e4 if name == "netcal_ENIR" else 1e6):
            continue  # netcal's ENIR does not finish 1e5 in minutes
        t = time.perf_counter(); make().fit(s, y); out[name] = time.perf_counter() - t
except ImportError:
    pass
print(json.dumps(out))
"""


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", nargs="+", type=float, default=[1e4, 1e5, 1e6])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    print(
        f"{'N':>8} {'ENIR fit s':>10} {'BBQ fit s':>9} {'ENIR pred s':>11} {'BBQ pred s':>10} "
        f"{'peak MB':>8} {'netcal ENIR/ours':>16} {'netcal BBQ/ours':>15}"
    )
    for n in args.sizes:
        res = json.loads(
            subprocess.run(
                [sys.executable, "-c", CHILD, str(n), str(args.repeats)],
                capture_output=True,
                text=True,
                check=True,
            ).stdout
        )
        ratio = lambda key, ours: f"{res[key] / res[ours]:.1f}" if key in res else "-"  # noqa: E731
        print(
            f"{n:>8.0e} {res['ENIR']:10.3f} {res['BBQ']:9.3f} {res['ENIR_predict']:11.3f} "
            f"{res['BBQ_predict']:10.3f} {res['peak_mb']:8.0f} {ratio('netcal_ENIR', 'ENIR'):>16} "
            f"{ratio('netcal_BBQ', 'BBQ'):>15}"
        )


if __name__ == "__main__":
    main()
