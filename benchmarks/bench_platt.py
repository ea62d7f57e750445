"""PlattScaling.fit against its implementation before issue 18, and scikit-learn's sigmoid.

Target (issue 18): fit <= 0.5 x the time of the old fit at N = 1e6, with the same optimum to
1e-10 (relative, on a_ and b_); the old fit is a frozen copy of its compiled Newton kernel
(a scalar loop calling exp and log1p per row), kept here. scikit-learn's _SigmoidCalibration
(what CalibratedClassifierCV(method="sigmoid") fits) is reported beside it. Data:
bench_scaling's synthetic scores. The fits are timed in turns, one call each per round.
Run: python benchmarks/bench_platt.py [--sizes 1e5 1e6] [--repeats 5]
"""

import os
import platform

import numpy as np
from _timing import interleaved, parse_args
from bench_scaling import synthetic
from numba import njit

from calibbook.platt import PlattScaling, platt_targets

TARGET = 0.5  # fit / old fit at 1e6


@njit(cache=True)
def _old_objective(f, t, w, a, b):
    fval = ga = gb = haa = hab = hbb = 0.0
    for i in range(f.shape[0]):
        z = a * f[i] + b
        if z >= 0.0:
            e = np.exp(-z)
            fval += w[i] * (t[i] * z + np.log1p(e))
            p = e / (1.0 + e)
            q = 1.0 / (1.0 + e)
        else:
            e = np.exp(z)
            fval += w[i] * ((t[i] - 1.0) * z + np.log1p(e))
            p = 1.0 / (1.0 + e)
            q = e / (1.0 + e)
        d = w[i] * (t[i] - p)
        ga += f[i] * d
        gb += d
        h = w[i] * p * q
        haa += f[i] * f[i] * h
        hab += f[i] * h
        hbb += h
    return fval, ga, gb, haa, hab, hbb


@njit(cache=True)
def _old_newton(f, t, w, a, b, max_iter, grad_tol):
    total = 0.0
    for i in range(w.shape[0]):
        total += w[i]
    fval, ga, gb, haa, hab, hbb = _old_objective(f, t, w, a, b)
    for it in range(max_iter):
        if max(abs(ga), abs(gb)) < grad_tol * total:
            return a, b, it, True
        haa_r, hbb_r = haa + 1e-12 * total, hbb + 1e-12 * total
        det = haa_r * hbb_r - hab * hab
        da = -(hbb_r * ga - hab * gb) / det
        db = -(-hab * ga + haa_r * gb) / det
        size = max(abs(da), abs(db)) / (1.0 + abs(a) + abs(b))
        if size <= 1e-13:
            return a + da, b + db, it + 1, True
        if size <= 1e-6:
            a, b = a + da, b + db
            fval, ga, gb, haa, hab, hbb = _old_objective(f, t, w, a, b)
            continue
        slope = ga * da + gb * db
        step = 1.0
        while step >= 1e-10:
            na, nb = a + step * da, b + step * db
            nf, nga, ngb, nhaa, nhab, nhbb = _old_objective(f, t, w, na, nb)
            if nf < fval + 1e-4 * step * slope:
                break
            step *= 0.5
        if step < 1e-10:
            return a, b, it, max(abs(ga), abs(gb)) < 1e-6 * total
        a, b = na, nb
        fval, ga, gb, haa, hab, hbb = nf, nga, ngb, nhaa, nhab, nhbb
    return a, b, max_iter, max(abs(ga), abs(gb)) < grad_tol * total


def old_fit(f, y):
    """The fit before issue 18 (frozen copy): targets vector, weights of 1, compiled Newton."""
    w = np.ones_like(f)
    t, n_pos, n_neg = platt_targets(y, w)
    b0 = float(np.log((n_neg + 1.0) / (n_pos + 1.0)))
    return _old_newton(f, t, w, 0.0, b0, 100, 1e-10)[:2]


def measure(sizes, repeats):
    """Rows of the benchmark table (see benchmarks/run_all.py)."""
    from sklearn.calibration import _SigmoidCalibration

    rows = []
    for n in map(int, sizes):
        s, y = synthetic(n)
        ours, ref = PlattScaling(), _SigmoidCalibration()
        t_fit, t_old = interleaved([lambda: ours.fit(s, y), lambda: old_fit(s, y)], repeats)
        # scikit-learn apart: its BLAS threads may spin on after each call, beside the next
        t_ref, t_ref_pred = interleaved([lambda: ref.fit(s, y), lambda: ref.predict(s)], repeats)
        t_pred = interleaved([lambda: ours.predict(s)], repeats)[0]
        a, b = old_fit(s, y)
        same = bool(np.allclose([ours.a_, ours.b_], [a, b], rtol=1e-10, atol=0.0))
        applies = n == 10**6
        target = f"fit <= {TARGET:g}x old fit at 1e6, same optimum to 1e-10"
        rows.append(
            {
                "method": "PlattScaling",
                "n": n,
                "fit_s": t_fit,
                "predict_s": t_pred,
                "baseline": "PlattScaling before issue 18",
                "baseline_fit_s": t_old,
                "baseline_predict_s": None,
                "target": target if applies else "same optimum to 1e-10",
                "target_met": (t_fit <= TARGET * t_old and same) if applies else same,
            }
        )
        rows.append(
            {
                "method": "PlattScaling",
                "n": n,
                "fit_s": t_fit,
                "predict_s": t_pred,
                "baseline": "sklearn _SigmoidCalibration",
                "baseline_fit_s": t_ref,
                "baseline_predict_s": t_ref_pred,
                "target": "",
                "target_met": None,
            }
        )
    return rows


def main():
    args = parse_args(__doc__, [1e5, 1e6])
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores")
    print(f"{'N':>8} {'baseline':>30} {'fit s':>8} {'base fit s':>10} {'ratio':>6} {'met':>6}")
    for row in measure(args.sizes, args.repeats):
        print(
            f"{row['n']:>8.0e} {row['baseline']:>30} {row['fit_s']:8.4f} "
            f"{row['baseline_fit_s']:10.4f} {row['fit_s'] / row['baseline_fit_s']:6.2f} "
            f"{str(row['target_met']):>6}"
        )


if __name__ == "__main__":
    main()
