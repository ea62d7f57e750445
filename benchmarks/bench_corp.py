"""CORP decomposition against a brute force with scikit-learn, and against IsotonicCalibration.

Target (issue 30, acceptance 1 applied to the measure): ``corp_decomposition`` at N = 1e6
within 3x of ``IsotonicCalibration``'s fit in the same run; the brute force (scikit-learn's
``IsotonicRegression`` fit and predict, then the per-row mean scores) is the oracle's time.
Data: bench_scaling's synthetic scores in [0, 1]. Timed in turns, medians compared.
Run: python benchmarks/bench_corp.py [--sizes 1e6] [--repeats 5]
"""

import os
import platform

import numpy as np
from _timing import interleaved, parse_args
from bench_scaling import synthetic
from sklearn.isotonic import IsotonicRegression

from calibbook import IsotonicCalibration, corp_decomposition

TARGET = 3.0  # corp_decomposition / IsotonicCalibration fit


def brute_force(s, y):
    """The three mean Brier scores the slow way: sklearn's isotonic fit, row by row."""
    c = IsotonicRegression(out_of_bounds="clip").fit(s, y).predict(s)
    r = y.mean()
    mean, mean_c, mean_r = np.mean((s - y) ** 2), np.mean((c - y) ** 2), np.mean((r - y) ** 2)
    return mean - mean_c, mean_r - mean_c, mean_r


def main():
    args = parse_args(__doc__, [1e6])
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores")
    print(f"{'N':>8} {'corp s':>8} {'iso fit s':>9} {'sklearn s':>9} {'corp/iso':>8} {'met':>5}")
    for n in map(int, args.sizes):
        s, y = synthetic(n)
        iso = IsotonicCalibration()
        t_corp, t_iso, t_sk = interleaved(
            [lambda: corp_decomposition(y, s), lambda: iso.fit(s, y), lambda: brute_force(s, y)],
            args.repeats,
        )
        d = corp_decomposition(y, s)
        assert np.allclose((d.mcb, d.dsc, d.unc), brute_force(s, y), rtol=0, atol=1e-12)
        ratio = t_corp / t_iso
        print(f"{n:8d} {t_corp:8.4f} {t_iso:9.4f} {t_sk:9.4f} {ratio:8.2f} {ratio <= TARGET!s:>5}")


if __name__ == "__main__":
    main()
