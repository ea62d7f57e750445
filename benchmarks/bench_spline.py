"""SplineCalibration against IsotonicCalibration and Lucena's splinecalib.

Target (issue 30, acceptance 1): a fit with a fixed penalty at N = 1e6 within 3 x
``IsotonicCalibration``'s fit timed in the same run. The fit with the penalty chosen by
cross-validation (5 folds x 25 penalties, warm-started) is excepted and reported beside it,
as is splinecalib's fit (its default: random knots, the unity prior, 17 penalties on one
fold) where it is installed, at the smallest size only (it is slow).
Data: bench_scaling's synthetic scores in [0, 1]. Timed in turns, medians of the rounds.
Run: python benchmarks/bench_spline.py [--sizes 1e5 1e6] [--repeats 3]
"""

import os
import platform
import time
import warnings

from _timing import interleaved, parse_args
from bench_scaling import synthetic

from calibbook.calibrators.isotonic import IsotonicCalibration
from calibbook.calibrators.spline import SplineCalibration

TARGET = 3.0  # fixed-penalty fit / isotonic fit at 1e6


def splinecalib_time(s, y):
    """Seconds of one splinecalib fit (None if it is not installed)."""
    try:
        import splinecalib
    except ImportError:
        return None
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        splinecalib.SplineCalib().fit(s, y)
    return time.perf_counter() - start


def measure(sizes, repeats):
    """Rows: the fixed-penalty fit and the cross-validated one, against isotonic's fit."""
    rows = []
    for i, n in enumerate(map(int, sizes)):
        s, y = synthetic(n)
        fixed = SplineCalibration(penalty=1.0)
        iso = IsotonicCalibration()
        t_fixed, t_iso = interleaved([lambda: fixed.fit(s, y), lambda: iso.fit(s, y)], repeats)
        predicts = [lambda: fixed.predict(s), lambda: iso.predict(s)]
        t_pred, t_iso_pred = interleaved(predicts, repeats)
        (t_cv,) = interleaved([lambda: SplineCalibration().fit(s, y)], 1)
        base = {
            "n": n,
            "baseline": "IsotonicCalibration",
            "baseline_fit_s": t_iso,
            "baseline_predict_s": t_iso_pred,
            "splinecalib_s": splinecalib_time(s, y) if i == 0 else None,
        }
        applies = n == 10**6
        rows.append(
            {
                **base,
                "method": "SplineCalibration(penalty=1.0)",
                "fit_s": t_fixed,
                "predict_s": t_pred,
                "target": f"fit <= {TARGET:g}x IsotonicCalibration's fit at 1e6" if applies else "",
                "target_met": (t_fixed <= TARGET * t_iso) if applies else None,
            }
        )
        rows.append(
            {
                **base,
                "method": "SplineCalibration (penalty by 5-fold CV, excepted)",
                "fit_s": t_cv,
                "predict_s": t_pred,
                "target": "",
                "target_met": None,
            }
        )
    return rows


def main():
    args = parse_args(__doc__, [1e5, 1e6])
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores")
    print(
        f"{'N':>8} {'fixed s':>8} {'iso s':>8} {'fixed/iso':>9} {'CV s':>8} "
        f"{'splinecalib s':>13} {'target met':>10}"
    )
    rows = measure(args.sizes, args.repeats)
    for fixed, cv in zip(rows[::2], rows[1::2], strict=True):
        ref = f"{fixed['splinecalib_s']:13.3f}" if fixed["splinecalib_s"] else f"{'-':>13}"
        print(
            f"{fixed['n']:>8.0e} {fixed['fit_s']:8.4f} {fixed['baseline_fit_s']:8.4f} "
            f"{fixed['fit_s'] / fixed['baseline_fit_s']:9.2f} {cv['fit_s']:8.3f} {ref} "
            f"{fixed['target_met']!s:>10}"
        )


if __name__ == "__main__":
    main()
