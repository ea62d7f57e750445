"""IsotonicCalibration against the cost of a sort, and against scikit-learn's IsotonicRegression.

Target (issue 18): fit <= 4 x ``np.sort`` of the scores at N = 1e6 and 1e7. Also, as before:
fit <= 0.7 x scikit-learn's fit, predict no slower than scikit-learn's (both unsorted input).
Data: bench_scaling's synthetic scores in [0, 1] (beta(0.7, 0.7), labels from an under-steep
sigmoid), as in data/speed_scaling.csv. The baseline and ours are timed in turns, one call each
per round, and the medians of the rounds are compared.
Run: python benchmarks/bench_isotonic.py [--sizes 1e6 1e7] [--repeats 5]
"""

import os
import platform

import numpy as np
from _timing import interleaved, parse_args
from bench_scaling import synthetic
from sklearn.isotonic import IsotonicRegression

from calibbook.calibrators.isotonic import IsotonicCalibration

SORT_TARGET = 4.0  # fit / np.sort at 1e6 and 1e7
SKLEARN_FIT_TARGET = 0.7


def measure(sizes, repeats):
    """Rows of the benchmark table (see benchmarks/run_all.py)."""
    rows = []
    for n in map(int, sizes):
        s, y = synthetic(n)
        ours = IsotonicCalibration()
        ref = IsotonicRegression(out_of_bounds="clip", y_min=0, y_max=1)
        t_sort, t_fit, t_ref_fit = interleaved(
            [lambda: np.sort(s), lambda: ours.fit(s, y), lambda: ref.fit(s, y)], repeats
        )
        t_pred, t_ref_pred = interleaved([lambda: ours.predict(s), lambda: ref.predict(s)], repeats)
        sort_applies = n in (10**6, 10**7)
        rows.append(
            {
                "method": "IsotonicCalibration",
                "n": n,
                "fit_s": t_fit,
                "predict_s": t_pred,
                "baseline": "np.sort of the scores",
                "baseline_fit_s": t_sort,
                "baseline_predict_s": None,
                "target": f"fit <= {SORT_TARGET:g}x np.sort at 1e6, 1e7" if sort_applies else "",
                "target_met": (t_fit <= SORT_TARGET * t_sort) if sort_applies else None,
            }
        )
        rows.append(
            {
                "method": "IsotonicCalibration",
                "n": n,
                "fit_s": t_fit,
                "predict_s": t_pred,
                "baseline": "sklearn IsotonicRegression",
                "baseline_fit_s": t_ref_fit,
                "baseline_predict_s": t_ref_pred,
                "target": f"fit <= {SKLEARN_FIT_TARGET:g}x, predict <= 1x sklearn",
                "target_met": bool(
                    t_fit <= SKLEARN_FIT_TARGET * t_ref_fit and t_pred <= t_ref_pred
                ),
            }
        )
    return rows


def main():
    args = parse_args(__doc__, [1e6, 1e7])
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores")
    print(
        f"{'N':>8} {'baseline':>28} {'fit s':>8} {'base fit s':>10} {'fit/base':>8} "
        f"{'pred s':>7} {'pred/base':>9} {'target met':>10}"
    )
    for row in measure(args.sizes, args.repeats):
        pred_ratio = (
            f"{row['predict_s'] / row['baseline_predict_s']:9.2f}"
            if row["baseline_predict_s"]
            else f"{'-':>9}"
        )
        print(
            f"{row['n']:>8.0e} {row['baseline']:>28} {row['fit_s']:8.4f} "
            f"{row['baseline_fit_s']:10.4f} {row['fit_s'] / row['baseline_fit_s']:8.2f} "
            f"{row['predict_s']:7.4f} {pred_ratio} {row['target_met']!s:>10}"
        )


if __name__ == "__main__":
    main()
