"""VennAbers against IsotonicCalibration's fit, and against the venn-abers package.

Target (issue 30, acceptance 1): VennAbers' fit <= 3 x IsotonicCalibration's fit at N = 1e6,
timed in the same run. Also printed: the fit plus predicting N scores (the fast algorithm
makes each prediction two binary searches), and the venn-abers package (VennAbers.fit and
predict_proba) at the sizes it can do: its fit rescans the cumulative sum diagram at each
corner, O(N^2) at worst, so it runs at the --oracle-sizes only (default 1e4). Data:
bench_scaling's synthetic scores in [0, 1], as bench_isotonic. Timed in turns, medians.
Run: python benchmarks/bench_venn_abers.py [--sizes 1e6] [--repeats 5]
"""

import os
import platform

import numpy as np
from _timing import interleaved, parse_args
from bench_scaling import synthetic

from calibbook.calibrators.isotonic import IsotonicCalibration
from calibbook.calibrators.venn_abers import VennAbers

FIT_TARGET = 3.0  # VennAbers fit / IsotonicCalibration fit at 1e6
ORACLE_SIZES = (1e3, 1e4)


def measure(sizes, repeats):
    """Rows of the benchmark table: fit and predict against IsotonicCalibration's, same data."""
    rows = []
    for n in map(int, sizes):
        s, y = synthetic(n)
        ours, iso = VennAbers(), IsotonicCalibration()
        t_fit, t_iso = interleaved([lambda: ours.fit(s, y), lambda: iso.fit(s, y)], repeats)
        t_pred, t_iso_pred = interleaved([lambda: ours.predict(s), lambda: iso.predict(s)], repeats)
        applies = n == 10**6
        target = f"fit <= {FIT_TARGET:g}x IsotonicCalibration's fit at 1e6"
        rows.append(
            {
                "method": "VennAbers",
                "n": n,
                "fit_s": t_fit,
                "predict_s": t_pred,
                "baseline": "IsotonicCalibration",
                "baseline_fit_s": t_iso,
                "baseline_predict_s": t_iso_pred,
                "target": target if applies else "",
                "target_met": (t_fit <= FIT_TARGET * t_iso) if applies else None,
            }
        )
    return rows


def measure_oracle(sizes, repeats):
    """(n, ours fit + predict, venn-abers fit + predict) at sizes the package can do."""
    try:
        import venn_abers
    except ImportError:
        return []
    out = []
    for n in map(int, sizes):
        s, y = synthetic(n)
        two = np.column_stack([1 - s, s])

        def theirs():
            venn_abers.VennAbers().fit(two, y.astype(int)).predict_proba(two)

        t_ours, t_theirs = interleaved(
            [lambda: VennAbers().fit(s, y).predict(s), theirs], max(1, repeats // 2)
        )
        out.append((n, t_ours, t_theirs))
    return out


def main():
    args = parse_args(__doc__, [1e5, 1e6])
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores")
    print(
        f"{'N':>8} {'VA fit s':>9} {'iso fit s':>9} {'fit/iso':>8} {'VA pred s':>9} "
        f"{'iso pred s':>10} {'pred/iso':>8} {'target met':>10}"
    )
    for r in measure(args.sizes, args.repeats):
        print(
            f"{r['n']:>8.0e} {r['fit_s']:9.4f} {r['baseline_fit_s']:9.4f} "
            f"{r['fit_s'] / r['baseline_fit_s']:8.2f} {r['predict_s']:9.4f} "
            f"{r['baseline_predict_s']:10.4f} {r['predict_s'] / r['baseline_predict_s']:8.2f} "
            f"{r['target_met']!s:>10}"
        )
    print(f"\n{'N':>8} {'VA fit+pred s':>13} {'venn-abers s':>12} {'ratio':>8}")
    for n, t_ours, t_theirs in measure_oracle(ORACLE_SIZES, args.repeats):
        print(f"{n:>8.0e} {t_ours:13.4f} {t_theirs:12.4f} {t_theirs / t_ours:8.1f}")


if __name__ == "__main__":
    main()
