"""QuadraticScaling and CenteredIsotonicCalibration against IsotonicCalibration's fit.

Target (issue 30, acceptance 1): a fit at N = 1e6 within 3x of ``IsotonicCalibration``'s fit
timed in the same run. Also QuadraticScaling against its oracle, statsmodels' binomial GLM on
(1, z, z^2) (IRLS), where statsmodels is installed. Data: bench_scaling's synthetic scores in
[0, 1] (beta(0.7, 0.7), labels from an under-steep sigmoid); QuadraticScaling fits their
logits (``logit_input=True``). The functions are timed in turns, one call each per round, and
the medians of the rounds are compared.
Run: python benchmarks/bench_quadratic_cir.py [--sizes 1e6] [--repeats 5]
"""

import os
import platform

import numpy as np
from _timing import interleaved, parse_args
from bench_scaling import synthetic

from calibbook import CenteredIsotonicCalibration, IsotonicCalibration, QuadraticScaling
from calibbook._utils.maths import clipped_logit

TARGET = 3.0  # fit / IsotonicCalibration's fit at 1e6


def _statsmodels_fit(s, y):
    try:
        import statsmodels.api as sm
    except ImportError:
        return None
    z = clipped_logit(s)
    design = np.column_stack([np.ones_like(z), z, z * z])
    return lambda: sm.GLM(y, design, family=sm.families.Binomial()).fit()


def measure(sizes, repeats):
    """Rows of the benchmark table."""
    rows = []
    for n in map(int, sizes):
        s, y = synthetic(n)
        funcs = {
            "IsotonicCalibration": lambda: IsotonicCalibration().fit(s, y),
            "QuadraticScaling": lambda: QuadraticScaling(logit_input=True).fit(s, y),
            "CenteredIsotonicCalibration": lambda: CenteredIsotonicCalibration().fit(s, y),
        }
        oracle = _statsmodels_fit(s, y)
        if oracle is not None:
            funcs["statsmodels GLM (oracle)"] = oracle
        times = dict(zip(funcs, interleaved(list(funcs.values()), repeats), strict=True))
        base = times.pop("IsotonicCalibration")
        for method, t in times.items():
            ours = method != "statsmodels GLM (oracle)"
            applies = ours and n == 10**6
            rows.append(
                {
                    "method": method,
                    "n": n,
                    "fit_s": t,
                    "predict_s": None,
                    "baseline": "IsotonicCalibration",
                    "baseline_fit_s": base,
                    "baseline_predict_s": None,
                    "target": f"fit <= {TARGET:g}x IsotonicCalibration at 1e6" if applies else "",
                    "target_met": (t <= TARGET * base) if applies else None,
                }
            )
    return rows


def main():
    args = parse_args(__doc__, [1e6])
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores")
    print(f"{'N':>8} {'method':>30} {'fit s':>8} {'/ isotonic':>10} {'target met':>10}")
    for row in measure(args.sizes, args.repeats):
        ratio = row["fit_s"] / row["baseline_fit_s"]
        met = "-" if row["target_met"] is None else str(row["target_met"])
        print(f"{row['n']:>8.0e} {row['method']:>30} {row['fit_s']:8.4f} {ratio:10.2f} {met:>10}")


if __name__ == "__main__":
    main()
