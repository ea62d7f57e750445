"""KDECalibration: predict against scikit-learn's isotonic predict; kernels against KernelDensity.

Target (issue 18): KDECalibration's predict (default: the Gaussian kernel, binned above 2000
training points) <= 2 x scikit-learn's IsotonicRegression predict, on bench_scaling's synthetic
scores (as in data/speed_scaling.csv), N training and N query scores; the two are timed in
turns, one call each per round. ``measure`` gives those rows.

The table of the command line also times fit + predict of every kernel (compact kernels exact;
earlier target: under 1 s at N = 1e5). The scikit-learn reference there is the same Eq. 5
computed with two ``KernelDensity`` fits (one per class, the same bandwidth) and
``score_samples`` on the queries; the O(N M) Gaussian paths (ours exact, scikit-learn) run
only for N <= --max-exact.
Run: python benchmarks/bench_kde.py [--sizes 1e4 1e5] [--max-exact 2e4] [--repeats 3]
"""

import argparse
import os
import platform

import numpy as np
from _timing import interleaved, median_time
from bench_scaling import synthetic
from scipy.special import expit
from sklearn.neighbors import KernelDensity

from calibbook.calibrators.kde import KDECalibration


def sklearn_eq5(s, y, q, h):
    """P(z=1 | q) from two sklearn KernelDensity fits (gaussian, bandwidth h)."""
    log_joint = []
    for label in (0, 1):
        xs = s[y == label][:, None]
        kd = KernelDensity(kernel="gaussian", bandwidth=h).fit(xs)
        log_joint.append(kd.score_samples(q[:, None]) + np.log(xs.shape[0] / s.size))
    return expit(log_joint[1] - log_joint[0])


TARGET = 2.0  # predict / scikit-learn's isotonic predict


def measure(sizes, repeats):
    """Rows of the benchmark table (see benchmarks/run_all.py)."""
    from sklearn.isotonic import IsotonicRegression

    rows = []
    for n in map(int, sizes):
        s, y = synthetic(n)
        ours = KDECalibration()
        ref = IsotonicRegression(out_of_bounds="clip", y_min=0, y_max=1)
        t_fit, t_ref_fit = interleaved([lambda: ours.fit(s, y), lambda: ref.fit(s, y)], repeats)
        t_pred, t_ref_pred = interleaved([lambda: ours.predict(s), lambda: ref.predict(s)], repeats)
        rows.append(
            {
                "method": f"KDECalibration ({ours.algorithm_})",
                "n": n,
                "fit_s": t_fit,
                "predict_s": t_pred,
                "baseline": "sklearn IsotonicRegression",
                "baseline_fit_s": t_ref_fit,
                "baseline_predict_s": t_ref_pred,
                "target": f"predict <= {TARGET:g}x sklearn isotonic predict",
                "target_met": t_pred <= TARGET * t_ref_pred,
            }
        )
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", nargs="+", type=float, default=[1e4, 1e5])
    parser.add_argument("--max-exact", type=float, default=2e4)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()

    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores")
    print(f"{'N':>8} {'method':>26} {'predict s':>9} {'sk-iso predict s':>16} {'ratio':>6}")
    for row in measure(args.sizes, max(args.repeats, 5)):
        print(
            f"{row['n']:>8.0e} {row['method']:>26} {row['predict_s']:9.4f} "
            f"{row['baseline_predict_s']:16.4f} "
            f"{row['predict_s'] / row['baseline_predict_s']:6.2f}"
        )

    rng = np.random.default_rng(0)
    print(
        f"{'N':>8} {'method':>22} {'fit+predict s':>13} {'vs sklearn':>10} {'max|p - exact|':>14}"
    )
    for n in map(int, args.sizes):
        s = rng.standard_t(5, size=n)
        y = (rng.uniform(size=n) < 1 / (1 + np.exp(-1.5 * s))).astype(np.float64)
        q = rng.standard_t(5, size=n)

        def run(cal):
            return cal.fit(s, y).predict(q)

        for kernel in ("boxcar", "epanechnikov", "tricube"):
            cal = KDECalibration(kernel=kernel)
            t = median_time(lambda: run(cal), args.repeats)
            print(f"{n:>8.0e} {kernel + ' (exact)':>22} {t:13.3f} {'':>10} {'':>14}")

        binned = KDECalibration(algorithm="binned")
        t_binned = median_time(lambda: run(binned), args.repeats)
        p_binned = run(binned)
        h = float(binned.bandwidth_[0])
        if n <= args.max_exact:
            exact = KDECalibration(algorithm="exact")
            t_exact = median_time(lambda: run(exact), 1)
            p_exact = run(exact)
            t_sk = median_time(lambda: sklearn_eq5(s, y, q, h), 1, warmup=0)
            p_sk = sklearn_eq5(s, y, q, h)
            err = np.abs(p_binned - p_exact).max()
            print(
                f"{n:>8.0e} {'gaussian exact':>22} {t_exact:13.3f} {t_exact / t_sk:10.3f} "
                f"{0.0:14.1e}"
            )
            print(
                f"{n:>8.0e} {'gaussian binned':>22} {t_binned:13.3f} {t_binned / t_sk:10.4f} "
                f"{err:14.1e}"
            )
            print(
                f"{n:>8.0e} {'sklearn KernelDensity':>22} {t_sk:13.3f} {1.0:10.3f} "
                f"{np.abs(p_sk - p_exact).max():14.1e}"
            )
        else:
            print(f"{n:>8.0e} {'gaussian binned':>22} {t_binned:13.3f} {'':>10} {'':>14}")


if __name__ == "__main__":
    main()
