"""PlattScaling.fit against scikit-learn's sigmoid calibration (target: no slower at N = 1e6).

Run: python benchmarks/bench_platt.py [--sizes 1e5 1e6] [--repeats 5]
"""

import numpy as np
from _timing import median_time, parse_args
from sklearn.calibration import _SigmoidCalibration

from calibbook.platt import PlattScaling


def main():
    args = parse_args(__doc__, [1e5, 1e6])
    rng = np.random.default_rng(0)
    print(f"{'N':>8} {'ours s':>8} {'sklearn s':>9} {'ours/sk':>7} {'max |dp|':>9}")
    for n in map(int, args.sizes):
        f = rng.normal(size=n)
        y = (rng.uniform(size=n) < 1 / (1 + np.exp(-2 * f))).astype(np.float64)
        ours, ref = PlattScaling(), _SigmoidCalibration()
        t_ours = median_time(lambda: ours.fit(f, y), args.repeats)
        t_ref = median_time(lambda: ref.fit(f, y), args.repeats)
        diff = np.abs(ours.predict(f) - ref.predict(f)).max()
        print(f"{n:>8.0e} {t_ours:8.3f} {t_ref:9.3f} {t_ours / t_ref:7.2f} {diff:9.1e}")


if __name__ == "__main__":
    main()
