"""Show that the book's tolerant checks still catch real changes to the package.

Each mutation below changes one line of calibbook in a way a careless edit could; the script
applies it, re-executes the chapters that use that code with nbval (tolerances applied by
book/conftest.py), records whether nbval failed, and restores the file. The checks are tight
enough when every mutation turns nbval red, and nbval is green for the real package.

    .venv/bin/python scripts/check_mutations.py            # every mutation, then the real package
    .venv/bin/python scripts/check_mutations.py --only enir-bic-2pi
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# name: (file, original text, mutated text, notebooks that use the code)
MUTATIONS = {
    # ENIR's BIC without its log(2 pi) term: a small change in every model's weight.
    "enir-bic-2pi": (
        "calibbook/calibrators/_model_averaging.py",
        "penalty = df * (np.log(n) + np.log(2.0 * np.pi))",
        "penalty = df * np.log(n)",
        [
            "book/05_near_isotonic_enir_bbq.ipynb",
            "book/08_comparison.ipynb",
            "book/appendix_comparison.ipynb",
        ],
    ),
    # Platt's smoothed targets (N+ + 1)/(N+ + 2) replaced by (N+ + 0.5)/(N+ + 1) for the positives.
    "platt-targets": (
        "calibbook/calibrators/platt.py",
        "t_pos, t_neg = (n_pos + 1.0) / (n_pos + 2.0), 1.0 / (n_neg + 2.0)",
        "t_pos, t_neg = (n_pos + 0.5) / (n_pos + 1.0), 1.0 / (n_neg + 2.0)",
        ["book/03_platt_scaling.ipynb", "book/appendix_platt.ipynb"],
    ),
    # Isotonic regression's linear interpolation replaced by the midpoint of the two knots.
    "isotonic-linear-midpoint": (
        "calibbook/_kernels/isotonic.py",
        "out[i] = knots_y[j] + (knots_y[j + 1] - knots_y[j]) * (v - x0) / span",
        "out[i] = 0.5 * (knots_y[j] + knots_y[j + 1])",
        [
            "book/04_isotonic_regression.ipynb",
            "book/07_probing.ipynb",
            "book/appendix_probing.ipynb",
        ],
    ),
}


def nbval(notebooks):
    """Run nbval as `make nbval` does; return (passed, number of failed cells)."""
    # A fresh experiment cache each run: chapter 8 must recompute, not read the last run's numbers.
    env = {
        **os.environ,
        "MPLBACKEND": "module://matplotlib_inline.backend_inline",
        "CALIBBOOK_CACHE": tempfile.mkdtemp(prefix="calibbook-mutation-"),
    }
    cmd = [
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        "-n",
        "2",
        "--dist",
        "loadfile",
        "--nbval-lax",
        "--nbval-current-env",
        "--nbval-sanitize-with",
        "book/nbval_sanitize.cfg",
        *notebooks,
    ]
    done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    failed = re.findall(r"^FAILED book/(\S+::Cell \d+)", done.stdout, re.M)
    return done.returncode == 0, failed


def tolerant(cell_id):
    """' (tolerance ...)' when the failed cell carries one: caught despite the tolerance."""
    notebook, _, number = cell_id.partition("::Cell")
    code_cells = [
        c
        for c in json.loads((ROOT / "book" / notebook).read_text())["cells"]
        if c["cell_type"] == "code"
    ]
    cell = code_cells[int(number)]  # nbval numbers the code cells only
    tolerance = cell["metadata"].get("calibbook", {}).get("tolerance")
    return f"  (despite its tolerance {tolerance})" if tolerance else ""


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--only", nargs="*", choices=sorted(MUTATIONS))
    args = parser.parse_args()
    chosen = args.only or sorted(MUTATIONS)
    ok = True
    for name in chosen:
        path, original, mutated, notebooks = MUTATIONS[name]
        source = (ROOT / path).read_text()
        assert source.count(original) == 1, (
            f"{name}: the line to mutate is not in {path} exactly once"
        )
        try:
            (ROOT / path).write_text(source.replace(original, mutated))
            passed, failed = nbval(notebooks)
        finally:
            (ROOT / path).write_text(source)
        print(
            f"{name:<28} nbval {'PASSED (not caught!)' if passed else 'failed: caught'}"
            + "".join(f"\n    {cell}{tolerant(cell)}" for cell in failed),
            flush=True,
        )
        ok &= not passed
    notebooks = sorted({nb for name in chosen for nb in MUTATIONS[name][3]})
    passed, failed = nbval(notebooks)
    print(f"{'real package':<28} nbval {'passed' if passed else 'FAILED in ' + ', '.join(failed)}")
    sys.exit(0 if ok and passed else 1)


if __name__ == "__main__":
    main()
