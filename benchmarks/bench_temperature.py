"""TemperatureScaling.fit against scikit-learn's temperature scaling, on the same data.

Target (issue 28): fit <= 1.5 x scikit-learn's fit at N = 1e6, with the same temperature to
1e-6 (relative; scikit-learn's bounded Brent search stops at about 1e-8). The baseline is
sklearn.calibration._TemperatureScaling, the model CalibratedClassifierCV(method="temperature")
fits: on decision values it takes the column z as the logits (-z, z), on probabilities the
columns (1 - p, p), as CalibratedClassifierCV passes them. Two cases: decision values (the
logits of bench_scaling's synthetic scores) and the probabilities themselves with
logit_input=True. The fits are timed in turns, one call each per round.
Run: python benchmarks/bench_temperature.py [--sizes 1e5 1e6] [--repeats 5]
"""

import os
import platform

import numpy as np
from _timing import interleaved, parse_args
from bench_scaling import synthetic

from calibbook import TemperatureScaling

TARGET = 1.5  # fit / scikit-learn's fit at 1e6


def _cases(n):
    """(label, our scores, scikit-learn's input, whether ours takes logit_input)."""
    s, y = synthetic(n)
    z = np.log(s) - np.log1p(-s)  # the decision values whose sigmoid is s
    return y, [
        ("decision values", z, z, False),
        ("probabilities", s, np.column_stack((1.0 - s, s)), True),
    ]


def measure(sizes, repeats):
    """Rows of the benchmark table (see benchmarks/run_all.py)."""
    from sklearn.calibration import _TemperatureScaling

    rows = []
    for n in map(int, sizes):
        y, cases = _cases(n)
        for label, ours_in, ref_in, logit_input in cases:
            ours, ref = TemperatureScaling(logit_input=logit_input), _TemperatureScaling()
            t_fit, t_ref = interleaved(
                [lambda: ours.fit(ours_in, y), lambda: ref.fit(ref_in, y)], repeats
            )
            t_pred, t_ref_pred = interleaved(
                [lambda: ours.predict(ours_in), lambda: ref.predict(ref_in)], repeats
            )
            # scikit-learn's slope on the logit: 2 beta_ on (-z, z), beta_ on (log 1-p, log p)
            slope = float(ref.beta_) * (1.0 if logit_input else 2.0)
            same = bool(np.isclose(1.0 / ours.temperature_, slope, rtol=1e-6, atol=0.0))
            applies = n == 10**6
            target = f"fit <= {TARGET:g}x sklearn at 1e6, same T to 1e-6"
            rows.append(
                {
                    "method": f"TemperatureScaling ({label})",
                    "n": n,
                    "fit_s": t_fit,
                    "predict_s": t_pred,
                    "baseline": "sklearn _TemperatureScaling",
                    "baseline_fit_s": t_ref,
                    "baseline_predict_s": t_ref_pred,
                    "target": target if applies else "same T to 1e-6",
                    "target_met": (t_fit <= TARGET * t_ref and same) if applies else same,
                }
            )
    return rows


def main():
    args = parse_args(__doc__, [1e5, 1e6])
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores")
    print(f"{'N':>8} {'case':>40} {'fit s':>8} {'sklearn s':>10} {'ratio':>6} {'met':>6}")
    for row in measure(args.sizes, args.repeats):
        print(
            f"{row['n']:>8.0e} {row['method']:>40} {row['fit_s']:8.4f} "
            f"{row['baseline_fit_s']:10.4f} {row['fit_s'] / row['baseline_fit_s']:6.2f} "
            f"{row['target_met']!s:>6}"
        )


if __name__ == "__main__":
    main()
