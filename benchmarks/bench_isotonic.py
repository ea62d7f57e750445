"""IsotonicCalibration against scikit-learn's IsotonicRegression and the sort floor.

Targets: fit <= 0.7 x sklearn's fit at N = 1e6 and 1e7 (unsorted input);
predict at least as fast as sklearn's.
Run: python benchmarks/bench_isotonic.py [--sizes 1e6 1e7] [--repeats 5]
"""

import numpy as np
from _timing import median_time, parse_args
from sklearn.isotonic import IsotonicRegression

from calibbook.isotonic import IsotonicCalibration


def main():
    args = parse_args(__doc__, [1e6, 1e7])
    rng = np.random.default_rng(0)
    print(
        f"{'N':>8} {'case':>14} {'ours s':>8} {'sklearn s':>9} {'ours/sk':>7} "
        f"{'ours/argsort':>12} {'ours/sort':>9}"
    )
    for n in map(int, args.sizes):
        s = rng.uniform(size=n)
        y = (rng.uniform(size=n) < s).astype(np.float64)
        w = rng.integers(1, 4, size=n).astype(np.float64)
        t_sort = median_time(lambda: np.sort(s), args.repeats)
        t_argsort = median_time(lambda: np.argsort(s), args.repeats)
        for case, weights in [("fit", None), ("fit weighted", w)]:
            ours, ref = IsotonicCalibration(), IsotonicRegression(out_of_bounds="clip")
            t_ours = median_time(lambda: ours.fit(s, y, sample_weight=weights), args.repeats)
            t_ref = median_time(lambda: ref.fit(s, y, sample_weight=weights), args.repeats)
            print(
                f"{n:>8.0e} {case:>14} {t_ours:8.3f} {t_ref:9.3f} {t_ours / t_ref:7.2f} "
                f"{t_ours / t_argsort:12.2f} {t_ours / t_sort:9.2f}"
            )
        for interpolation in ("step", "linear"):
            ours = IsotonicCalibration(interpolation=interpolation).fit(s, y)
            t_ours = median_time(lambda: ours.predict(s), args.repeats)
            t_ref = median_time(lambda: ref.predict(s), args.repeats)
            print(
                f"{n:>8.0e} {'predict ' + interpolation:>14} {t_ours:8.3f} {t_ref:9.3f} "
                f"{t_ours / t_ref:7.2f}"
            )


if __name__ == "__main__":
    main()
