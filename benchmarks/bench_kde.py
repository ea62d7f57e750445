"""KDECalibration: compact kernels (exact) and the Gaussian (exact, binned) against scikit-learn.

Task: N training scores (two classes), N query scores; time fit + predict.
Issue target: compact kernels (exact) under 1 s at N = 1e5.
The scikit-learn reference is the same Eq. 5 computed with two ``KernelDensity``
fits (one per class, the same bandwidth) and ``score_samples`` on the queries.

Run: python benchmarks/bench_kde.py [--sizes 1e4 1e5] [--max-exact 2e4] [--repeats 3]
The O(N M) Gaussian paths (ours exact, scikit-learn) run only for N <= --max-exact.
Prints median seconds, ratios and the max abs error of binned vs exact; asserts nothing.
"""

import argparse

import numpy as np
from _timing import median_time
from scipy.special import expit
from sklearn.neighbors import KernelDensity

from calibbook.kde import KDECalibration


def sklearn_eq5(s, y, q, h):
    """P(z=1 | q) from two sklearn KernelDensity fits (gaussian, bandwidth h)."""
    log_joint = []
    for label in (0, 1):
        xs = s[y == label][:, None]
        kd = KernelDensity(kernel="gaussian", bandwidth=h).fit(xs)
        log_joint.append(kd.score_samples(q[:, None]) + np.log(xs.shape[0] / s.size))
    return expit(log_joint[1] - log_joint[0])


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", nargs="+", type=float, default=[1e4, 1e5])
    parser.add_argument("--max-exact", type=float, default=2e4)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()

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

        binned = KDECalibration(method="binned")
        t_binned = median_time(lambda: run(binned), args.repeats)
        p_binned = run(binned)
        h = float(binned.bandwidth_[0])
        if n <= args.max_exact:
            exact = KDECalibration(method="exact")
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
