"""calibbook's ENIR and BBQ against netcal's, the implementations many users pick instead.

netcal needs torch, so it lives in its own virtual environment (``make bench-netcal`` builds
``.venv-netcal`` with netcal 1.4.0, the torch wheel PyPI serves, and calibbook) and this module
skips itself where ``import netcal`` fails. The rows put calibbook's method first and netcal's
as the baseline, so a ratio below 1 means calibbook is faster.
netcal's fits grow faster than N log N (its ENIR took 6.9 s at 1e4, its BBQ 146 s at 1e6 on
the machine of the issue-18 note), so the sizes here are this module's own, not run_all's.
Data: bench_scaling's synthetic scores. Fits and predictions are timed in turns.
Run: python benchmarks/bench_netcal.py [--repeats 5]
"""

import contextlib
import io
import os
import platform

from _timing import interleaved, parse_args
from bench_scaling import synthetic

from calibbook.calibrators.bbq import BBQ
from calibbook.calibrators.enir import ENIR

SIZES = {"ENIR": [1e3, 1e4], "BBQ": [1e3, 1e4, 1e5]}


def _netcal():
    """netcal's (ENIR, BBQ) classes, or None where netcal (or torch) does not import."""
    try:
        from netcal.binning import BBQ as NetcalBBQ
        from netcal.binning import ENIR as NetcalENIR
    except ImportError:
        return None
    return {"ENIR": NetcalENIR, "BBQ": NetcalBBQ}


def _quiet(func):
    """func with netcal's prints and progress bars silenced (they would flood the table)."""

    def call():
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            return func()

    return call


def versions():
    """The netcal and torch versions, for the note that reports the run."""
    import netcal
    import torch

    return f"netcal {netcal.__version__}, torch {torch.__version__}"


def measure(sizes, repeats):
    """Rows of the benchmark table (see benchmarks/run_all.py); [] without netcal."""
    theirs = _netcal()
    if theirs is None:
        print("netcal is not importable: skipped (make bench-netcal runs it in .venv-netcal)")
        return []
    print(versions())
    ours = {"ENIR": ENIR, "BBQ": BBQ}
    rows = []
    for method, method_sizes in SIZES.items():
        for n in map(int, method_sizes):
            s, y = synthetic(n)
            mine, other = ours[method](), theirs[method]()
            t_fit, t_other_fit = interleaved(
                [lambda: mine.fit(s, y), _quiet(lambda: other.fit(s, y))], repeats
            )
            t_pred, t_other_pred = interleaved(
                [lambda: mine.predict(s), _quiet(lambda: other.transform(s))], repeats
            )
            rows.append(
                {
                    "method": method,
                    "n": n,
                    "fit_s": t_fit,
                    "predict_s": t_pred,
                    "baseline": f"netcal {method}",
                    "baseline_fit_s": t_other_fit,
                    "baseline_predict_s": t_other_pred,
                    "target": "",
                    "target_met": None,
                }
            )
    return rows


def main():
    args = parse_args(__doc__, [])
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores")
    print(
        f"{'method':>6} {'N':>8} {'fit s':>9} {'netcal fit s':>12} {'fit ratio':>9} "
        f"{'pred s':>9} {'netcal pred s':>13} {'pred ratio':>10}"
    )
    for row in measure(args.sizes, args.repeats):
        print(
            f"{row['method']:>6} {row['n']:>8.0e} {row['fit_s']:9.4f} "
            f"{row['baseline_fit_s']:12.4f} {row['fit_s'] / row['baseline_fit_s']:9.2g} "
            f"{row['predict_s']:9.4f} {row['baseline_predict_s']:13.4f} "
            f"{row['predict_s'] / row['baseline_predict_s']:10.2g}"
        )


if __name__ == "__main__":
    main()
