"""HistogramBinning.fit against the sort floor (issue target: fit <= 1.5 x np.argsort).

Run: python benchmarks/bench_histogram_binning.py [--sizes 1e6 1e7] [--repeats 5]
Prints median seconds and ratios; asserts nothing.
"""

import numpy as np
from _timing import median_time, parse_args

from calibbook.calibrators.histogram_binning import HistogramBinning


def main():
    args = parse_args(__doc__, [1e6, 1e7])

    rng = np.random.default_rng(0)
    print(
        f"{'N':>10} {'strategy':>9} {'weights':>7} {'fit s':>8} {'sort s':>8} {'argsort s':>9} "
        f"{'fit/argsort':>11} {'fit/sort':>8} {'predict s':>9}"
    )
    for n in map(int, args.sizes):
        s = rng.uniform(size=n)
        y = (rng.uniform(size=n) < s).astype(np.float64)
        w = rng.integers(1, 4, size=n).astype(np.float64)
        t_sort = median_time(lambda: np.sort(s), args.repeats)
        t_argsort = median_time(lambda: np.argsort(s), args.repeats)
        for strategy, weights in [("quantile", None), ("quantile", w), ("uniform", None)]:
            cal = HistogramBinning(strategy=strategy)
            t_fit = median_time(lambda: cal.fit(s, y, sample_weight=weights), args.repeats)
            t_pred = median_time(lambda: cal.predict(s), args.repeats)
            print(
                f"{n:>10.0e} {strategy:>9} {'yes' if weights is not None else 'no':>7} "
                f"{t_fit:8.3f} {t_sort:8.3f} {t_argsort:9.3f} {t_fit / t_argsort:11.2f} "
                f"{t_fit / t_sort:8.2f} {t_pred:9.3f}"
            )


if __name__ == "__main__":
    main()
