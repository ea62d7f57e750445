"""ScalingBinning's fit against IsotonicCalibration's, and the authors' package's time.

Target (issue 30, acceptance 1): a fit at 1e6 scores within 3x of ``IsotonicCalibration``'s
fit, timed in the same run. Data: bench_scaling's synthetic scores in [0, 1] (fitted with
``logit_input=True``, the authors' input). The authors' ``PlattBinnerCalibrator`` (package
``uncertainty-calibration``, all steps on all the data) is timed where it is installed,
beside ours with ``split="none"``. Calls are timed in turns and the medians compared.
Run: python benchmarks/bench_scaling_binning.py [--sizes 1e6] [--repeats 5]
"""

import os
import platform

from _timing import interleaved, parse_args
from bench_scaling import synthetic

from calibbook.calibrators.isotonic import IsotonicCalibration
from calibbook.calibrators.scaling_binning import ScalingBinning

ISOTONIC_TARGET = 3.0


def _authors(s, y):
    try:
        import calibration
    except ImportError:
        return None
    return lambda: calibration.PlattBinnerCalibrator(s.size, 10).train_calibration(s, y)


def measure(sizes, repeats):
    """Rows of the benchmark table (see benchmarks/run_all.py)."""
    rows = []
    for n in map(int, sizes):
        s, y = synthetic(n)
        funcs = [
            lambda: IsotonicCalibration().fit(s, y),
            lambda: ScalingBinning(logit_input=True).fit(s, y),
            lambda: ScalingBinning(logit_input=True, split="none").fit(s, y),
        ]
        authors = _authors(s, y)
        times = interleaved(funcs + ([authors] if authors else []), repeats)
        t_iso, t_fit, t_none = times[:3]
        rows.append(
            {
                "method": "ScalingBinning",
                "n": n,
                "fit_s": t_fit,
                "predict_s": None,
                "baseline": "IsotonicCalibration fit",
                "baseline_fit_s": t_iso,
                "baseline_predict_s": None,
                "target": f"fit <= {ISOTONIC_TARGET:g}x IsotonicCalibration",
                "target_met": bool(t_fit <= ISOTONIC_TARGET * t_iso),
                "split_none_fit_s": t_none,
                "authors_fit_s": times[3] if authors else None,
            }
        )
    return rows


def main():
    args = parse_args(__doc__, [1e6])
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores")
    print(
        f"{'N':>8} {'iso fit s':>9} {'ScBin s':>8} {'ratio':>6} {'none s':>7} "
        f"{'authors s':>9} {'target met':>10}"
    )
    for row in measure(args.sizes, args.repeats):
        authors = row["authors_fit_s"]
        print(
            f"{row['n']:>8} {row['baseline_fit_s']:9.3f} {row['fit_s']:8.3f} "
            f"{row['fit_s'] / row['baseline_fit_s']:6.2f} {row['split_none_fit_s']:7.3f} "
            f"{'-' if authors is None else f'{authors:.3f}':>9} {row['target_met']!s:>10}"
        )


if __name__ == "__main__":
    main()
