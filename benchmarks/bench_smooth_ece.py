"""calibbook's smooth ECE and smoothed reliability curve against relplot, the authors' package.

Target (issue 19): the smooth ECE with its automatic bandwidth in under 0.5 s at N = 1e6.
The curve is timed against relplot's main line without its bootstrap: the bandwidth search,
then ``KernelSmoother`` and ``kde`` on relplot's 200-point mesh (what ``prepare_rel_diagram``
computes for ``mu`` and ``density`` with ``plot_confidence_band=False``). The two agree to
rounding error (tests/unit/test_smooth_ece.py). relplot's rows are left out where it does not
import. Data: bench_scaling's synthetic scores. Calls are timed in turns, medians compared.
Run: python benchmarks/bench_smooth_ece.py [--sizes 1e4 1e5 1e6] [--repeats 5]
"""

import os
import platform

import numpy as np
from _timing import interleaved, parse_args
from bench_scaling import synthetic

from calibbook.metrics._smooth_ece import smooth_ece, smooth_reliability_curve

TARGET_S = 0.5  # smooth ECE at 1e6, seconds


def _relplot():
    """relplot's (smooth ECE, curve) functions, or None where relplot does not import."""
    try:
        from relplot.estimators import KernelSmoother
        from relplot.kernels import ReflectedGaussianKernel
        from relplot.metrics import smECE
    except ImportError:
        return None

    def curve(f, y):
        _, sigma = smECE(f, y, return_width=True)
        kernel = ReflectedGaussianKernel(sigma)
        t = np.linspace(0.0, 1.0, 200)
        mu = KernelSmoother(kernel).fit(f[:, None], y).predict(t[:, None])
        return t, mu, kernel.kde(f, t)

    return smECE, curve


def measure(sizes, repeats):
    """Rows of the benchmark table (see benchmarks/run_all.py)."""
    theirs = _relplot()
    if theirs is None:
        print("relplot is not importable: its timings are left out")
    rows = []
    for n in map(int, sizes):
        s, y = synthetic(n)
        ours = [lambda: smooth_ece(y, s), lambda: smooth_reliability_curve(y, s)]
        if theirs is None:
            t_ece, t_curve = interleaved(ours, repeats)
            t_their_ece = t_their_curve = None
        else:
            their_ece, their_curve = theirs
            t_ece, t_their_ece = interleaved([ours[0], lambda: their_ece(s, y)], repeats)
            t_curve, t_their_curve = interleaved([ours[1], lambda: their_curve(s, y)], repeats)
        applies = n == 10**6
        rows.append(
            {
                "method": "smooth ECE",
                "n": n,
                "fit_s": t_ece,
                "predict_s": t_curve,
                "baseline": "relplot smECE" if theirs is not None else "",
                "baseline_fit_s": t_their_ece,
                "baseline_predict_s": t_their_curve,
                "target": f"smooth ECE < {TARGET_S:g} s at 1e6" if applies else "",
                "target_met": (t_ece < TARGET_S) if applies else None,
            }
        )
    return rows


def _ratio(ours, theirs):
    return f"{ours / theirs:9.4f}" if theirs else f"{'-':>9}"


def main():
    args = parse_args(__doc__, [1e4, 1e5, 1e6])
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores")
    print(
        f"{'N':>8} {'smECE s':>9} {'relplot s':>9} {'ratio':>9} {'curve s':>9} "
        f"{'relplot s':>9} {'ratio':>9} {'target met':>10}"
    )
    for row in measure(args.sizes, args.repeats):
        their_ece, their_curve = row["baseline_fit_s"], row["baseline_predict_s"]
        print(
            f"{row['n']:>8.0e} {row['fit_s']:9.4f} "
            f"{their_ece if their_ece is not None else float('nan'):9.4f} "
            f"{_ratio(row['fit_s'], their_ece)} {row['predict_s']:9.4f} "
            f"{their_curve if their_curve is not None else float('nan'):9.4f} "
            f"{_ratio(row['predict_s'], their_curve)} {row['target_met']!s:>10}"
        )


if __name__ == "__main__":
    main()
