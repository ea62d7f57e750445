"""BetaCalibration's fit against IsotonicCalibration's fit, and against the betacal package.

Target (issue 30, acceptance 1): fit <= 3 x IsotonicCalibration's fit at N = 1e6, both timed
in the same run, in turns (one call each per round; the medians are compared). betacal (the
authors' package: scikit-learn's L-BFGS logistic regression on ln s and -ln(1 - s)) is timed
beside them when it is installed, with fewer rounds (it is the slowest), and the largest
difference between its probabilities and ours is printed (betacal stops L-BFGS at its
default tolerance, so about 1e-3 is expected; tests/unit/test_beta.py runs it to its optimum).
Data: bench_scaling's synthetic scores in [0, 1].
Run: python benchmarks/bench_beta.py [--sizes 1e5 1e6] [--repeats 5]
"""

import os
import platform
import warnings

import numpy as np
from _timing import interleaved, parse_args
from bench_scaling import synthetic

from calibbook.calibrators.beta import BetaCalibration
from calibbook.calibrators.isotonic import IsotonicCalibration

TARGET = 3.0  # fit / IsotonicCalibration's fit at 1e6


def _betacal_row(n, s, y, ours, t_fit, t_pred, repeats):
    try:
        import betacal
    except ImportError:
        return None
    ref = betacal.BetaCalibration()
    with warnings.catch_warnings():  # betacal switches every warning off, for good
        t_ref, t_ref_pred = interleaved(
            [lambda: ref.fit(s, y), lambda: ref.predict(s)], max(1, repeats // 3)
        )
        gap = float(np.max(np.abs(ref.predict(s) - ours.predict(s))))
    return {
        "method": "BetaCalibration",
        "n": n,
        "fit_s": t_fit,
        "predict_s": t_pred,
        "baseline": f"betacal (max |dp| {gap:.1e})",
        "baseline_fit_s": t_ref,
        "baseline_predict_s": t_ref_pred,
        "target": "",
        "target_met": None,
    }


def measure(sizes, repeats):
    """Rows of the benchmark table (see benchmarks/run_all.py)."""
    rows = []
    for n in map(int, sizes):
        s, y = synthetic(n)
        ours, iso = BetaCalibration(), IsotonicCalibration()
        t_fit, t_iso = interleaved([lambda: ours.fit(s, y), lambda: iso.fit(s, y)], repeats)
        t_pred, t_iso_pred = interleaved([lambda: ours.predict(s), lambda: iso.predict(s)], repeats)
        applies = n == 10**6
        rows.append(
            {
                "method": "BetaCalibration",
                "n": n,
                "fit_s": t_fit,
                "predict_s": t_pred,
                "baseline": "IsotonicCalibration",
                "baseline_fit_s": t_iso,
                "baseline_predict_s": t_iso_pred,
                "target": f"fit <= {TARGET:g}x IsotonicCalibration's fit at 1e6" if applies else "",
                "target_met": (t_fit <= TARGET * t_iso) if applies else None,
            }
        )
        row = _betacal_row(n, s, y, ours, t_fit, t_pred, repeats)
        if row is not None:
            rows.append(row)
    return rows


def main():
    args = parse_args(__doc__, [1e5, 1e6])
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores")
    print(f"{'N':>8} {'baseline':>34} {'fit s':>8} {'base fit s':>10} {'ratio':>6} {'met':>6}")
    for row in measure(args.sizes, args.repeats):
        print(
            f"{row['n']:>8.0e} {row['baseline']:>34} {row['fit_s']:8.4f} "
            f"{row['baseline_fit_s']:10.4f} {row['fit_s'] / row['baseline_fit_s']:6.2f} "
            f"{row['target_met']!s:>6}"
        )


if __name__ == "__main__":
    main()
