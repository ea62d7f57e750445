"""BBQ against IsotonicCalibration on the same data (the cost of one sort and one PAV pass).

Target (issue 18): BBQ fit <= 2.5 x IsotonicCalibration's fit at N = 1e6 (N^(1/3) / 10 to
10 N^(1/3) bins: 991 binnings, 5e5 bins, each scored with four or five lgamma calls).
Data: bench_scaling's synthetic scores, as in data/speed_scaling.csv. The two fits are timed
in turns, one call each per round, and the medians of the rounds are compared.
Run: python benchmarks/bench_bbq.py [--sizes 1e6 1e7] [--repeats 5]
"""

import os
import platform

from _timing import interleaved, parse_args
from bench_scaling import synthetic

from calibbook.calibrators.bbq import BBQ
from calibbook.calibrators.isotonic import IsotonicCalibration

TARGET = 2.5  # BBQ fit / IsotonicCalibration fit at 1e6


def measure(sizes, repeats):
    """Rows of the benchmark table (see benchmarks/run_all.py)."""
    rows = []
    for n in map(int, sizes):
        s, y = synthetic(n)
        bbq, iso = BBQ(), IsotonicCalibration()
        t_fit, t_iso_fit = interleaved([lambda: bbq.fit(s, y), lambda: iso.fit(s, y)], repeats)
        t_pred, t_iso_pred = interleaved([lambda: bbq.predict(s), lambda: iso.predict(s)], repeats)
        applies = n == 10**6
        rows.append(
            {
                "method": "BBQ",
                "n": n,
                "fit_s": t_fit,
                "predict_s": t_pred,
                "baseline": "IsotonicCalibration",
                "baseline_fit_s": t_iso_fit,
                "baseline_predict_s": t_iso_pred,
                "target": f"fit <= {TARGET:g}x IsotonicCalibration at 1e6" if applies else "",
                "target_met": (t_fit <= TARGET * t_iso_fit) if applies else None,
            }
        )
    return rows


def main():
    args = parse_args(__doc__, [1e6, 1e7])
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores")
    print(
        f"{'N':>8} {'BBQ fit s':>9} {'iso fit s':>9} {'fit ratio':>9} {'BBQ pred s':>10} "
        f"{'iso pred s':>10} {'target met':>10}"
    )
    for row in measure(args.sizes, args.repeats):
        print(
            f"{row['n']:>8.0e} {row['fit_s']:9.4f} {row['baseline_fit_s']:9.4f} "
            f"{row['fit_s'] / row['baseline_fit_s']:9.2f} {row['predict_s']:10.4f} "
            f"{row['baseline_predict_s']:10.4f} {row['target_met']!s:>10}"
        )


if __name__ == "__main__":
    main()
