"""Fit and predict time of every calibrator against N, beside scikit-learn (Table VII, measured).

For each method and each N in --sizes, fits on N synthetic scores in [0, 1] and
predicts N scores; reports the median wall time of --repeats runs (fewer at large N
when one run is already long). A method whose fit exceeds --budget seconds is not
run at the next larger N (the next size would take about ten times as long).
Baselines on the same data: scikit-learn's IsotonicRegression and the sigmoid
calibrator that CalibratedClassifierCV(method="sigmoid") uses, and netcal's
ENIR/BBQ when netcal is installed (optional, never a dependency).

Prints a table with the ratio of each method's fit time to sklearn's isotonic fit,
and with --csv writes the measurements (the book's chapter 8 plots data/speed_scaling.csv).
Run: python benchmarks/bench_scaling.py [--sizes 1e3 1e4 1e5 1e6 1e7] [--csv data/speed_scaling.csv]
"""

import argparse
import os
import platform
import time
import warnings

import numpy as np


def methods():
    """name -> factory of an unfitted calibrator with fit(s, y) and a predict function."""
    from sklearn.isotonic import IsotonicRegression

    from calibbook.experiments import all_calibrators, recommended_calibrators

    out = {name: (lambda c=cal: _ours(c)) for name, cal in all_calibrators().items()}
    # the guide's time-budget box needs the logit form's own time, not Platt's
    platt_logit = recommended_calibrators()["Platt-logit"]
    out["Platt-logit"] = lambda: _ours(platt_logit)
    out["sklearn isotonic"] = lambda: _Wrap(
        IsotonicRegression(out_of_bounds="clip", y_min=0, y_max=1), "predict"
    )
    try:
        from sklearn.calibration import (
            _SigmoidCalibration,  # what CalibratedClassifierCV(method="sigmoid") fits
        )
    except ImportError:  # private name; skip the baseline rather than fail
        _SigmoidCalibration = None
    if _SigmoidCalibration is not None:
        out["sklearn sigmoid"] = lambda: _Wrap(_SigmoidCalibration(), "predict")
    try:
        import netcal.binning as nb

        out["netcal ENIR"] = lambda: _Wrap(nb.ENIR(), "transform")
        out["netcal BBQ"] = lambda: _Wrap(nb.BBQ(), "transform")
    except ImportError:
        pass
    return out


def versions(makers):
    """calibbook's, NumPy's and scikit-learn's versions, and netcal's and torch's if timed."""
    from importlib.metadata import version

    names = ["calibbook", "numpy", "scikit-learn"]
    if any(m.startswith("netcal") for m in makers):
        names += ["netcal", "torch"]
    return ", ".join(f"{name} {version(name)}" for name in names)


def _ours(cal):
    from sklearn.base import clone

    return _Wrap(clone(cal), "predict")


class _Wrap:
    """Uniform fit/predict over calibbook, scikit-learn and netcal objects."""

    def __init__(self, obj, predict_name):
        self.obj, self.predict_name = obj, predict_name

    def fit(self, s, y):
        self.obj.fit(s, y)
        return self

    def predict(self, s):
        return getattr(self.obj, self.predict_name)(s)


def synthetic(n, seed=0):
    """Scores in [0, 1] from an over-confident model, labels drawn from the true probability."""
    rng = np.random.default_rng(seed)
    s = rng.beta(0.7, 0.7, size=n)
    p = 1.0 / (1.0 + np.exp(-0.6 * np.log(s / (1.0 - s) + 1e-300)))  # under-steep true curve
    y = (rng.uniform(size=n) < p).astype(np.float64)
    return s, y


def timed(func, repeats, long_run=2.0):
    """Median seconds of func() over up to ``repeats`` runs; one run if the first is long."""
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        func()
        times.append(time.perf_counter() - t)
        if times[0] > long_run:
            break
    return float(np.median(times))


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", nargs="+", type=float, default=[1e3, 1e4, 1e5, 1e6, 1e7])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--budget", type=float, default=30.0, help="skip larger N after a fit this slow (s)"
    )
    parser.add_argument("--methods", nargs="+", default=None, help="subset of method names")
    parser.add_argument("--csv", default=None, help="write the measurements to this CSV file")
    args = parser.parse_args()
    warnings.filterwarnings("ignore")

    import pandas as pd

    makers = methods()
    if args.methods:
        unknown = set(args.methods) - set(makers)
        if unknown:
            raise SystemExit(f"unknown methods {sorted(unknown)}; choose from {sorted(makers)}")
        makers = {k: makers[k] for k in args.methods}
    s0, y0 = synthetic(500, seed=1)
    for make in makers.values():  # compile numba kernels (cached) outside the timings
        make().fit(s0, y0).predict(s0)

    rows, stopped = [], set()
    print(f"{'method':>18} {'N':>8} {'fit s':>9} {'predict s':>10} {'fit/sk-iso':>10}")
    for n in map(int, args.sizes):
        s, y = synthetic(n)
        ref_fit = None
        for name, make in makers.items():
            if name in stopped:
                continue
            holder = {}

            def fit():
                holder["m"] = make().fit(s, y)

            t_fit = timed(fit, args.repeats)
            t_pred = timed(lambda: holder["m"].predict(s), args.repeats)
            if name == "sklearn isotonic":
                ref_fit = t_fit
            rows.append({"method": name, "n": n, "fit_s": t_fit, "predict_s": t_pred})
            if t_fit > args.budget:
                stopped.add(name)
        for row in rows:
            if row["n"] == n:
                ratio = row["fit_s"] / ref_fit if ref_fit else float("nan")
                print(
                    f"{row['method']:>18} {n:>8.0e} {row['fit_s']:9.4f} "
                    f"{row['predict_s']:10.4f} {ratio:10.2f}",
                    flush=True,
                )
    if args.csv:
        frame = pd.DataFrame(rows)
        frame["machine"] = (
            f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"
        )
        frame["versions"] = versions(makers)
        frame.to_csv(args.csv, index=False, float_format="%.6g")
        print("wrote", args.csv)


if __name__ == "__main__":
    main()
