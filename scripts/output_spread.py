"""Measure how far the book's checked numbers move between arithmetic paths, and set tolerances.

The numbers that the checked cells (tag ``nbval-check-output``) print pass through SIMD kernels
(NumPy's runtime dispatch), BLAS kernels (OpenBLAS picks one per CPU) and numba's code generation
for the host CPU. Learners amplify last-bit differences, so the same pinned environment prints
slightly different numbers on another processor. This script measures that spread on one machine by
re-executing the notebooks under variants that force other arithmetic paths, and writes a tolerance
into each checked cell's metadata (``metadata["calibbook"]["tolerance"]``), which
``book/conftest.py`` applies when nbval compares outputs.

    # 1. execute every notebook under each variant (fresh kernels; outputs to _build/spread/)
    .venv/bin/python scripts/output_spread.py run
    # 2. compare the checked cells with the committed outputs; --write stores the tolerances
    .venv/bin/python scripts/output_spread.py compare [--write]

A tolerance covers twice the largest move measured for each number of the cell, as an absolute
``atol`` (never below one unit in the last printed digit: a value on a rounding boundary flips
that digit) or a relative ``rtol``, whichever is tighter for the cell's typical number (see
``fit_tolerance``). Cells whose numbers did not move under any variant keep no tolerance: they
are compared exactly. ``compare`` without ``--write`` only reports.
"""

import argparse
import json
import math
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BOOK = ROOT / "book"
OUT = ROOT / "_build" / "spread"

sys.path.insert(0, str(BOOK))
from conftest import checked_text, ignored_of, is_checked, numeric_tokens, skeleton  # noqa: E402


def optional_numpy_features():
    """NumPy's optional (dispatched) SIMD targets that this CPU has: what can be disabled."""
    code = (
        "from numpy._core import _multiarray_umath as m;"
        "print(' '.join(f for f in m.__cpu_dispatch__ if m.__cpu_features__.get(f)))"
    )
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()


def variants():
    """The arithmetic paths measured: name -> environment overrides."""
    npy = optional_numpy_features()
    out = {"asis": {}, "npy-baseline": {"NPY_DISABLE_CPU_FEATURES": npy}}
    for core in ("Haswell", "SkylakeX", "Zen", "Sandybridge"):
        out[f"blas-{core}"] = {"OPENBLAS_CORETYPE": core}
    # The oldest machine we can imitate: no optional NumPy SIMD, Sandybridge BLAS kernels and
    # numba code generated for a generic x86-64 (no AVX, no FMA).
    out["generic"] = {
        "NPY_DISABLE_CPU_FEATURES": npy,
        "OPENBLAS_CORETYPE": "Sandybridge",
        "NUMBA_CPU_NAME": "generic",
    }
    return out


def execute(notebook, env, out_dir, cache_dir):
    """Execute one notebook top to bottom in a fresh kernel with ``env``; save it to out_dir."""
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / notebook.name
    full_env = {
        **os.environ,
        **env,
        "CALIBBOOK_CACHE": str(cache_dir),
        "MPLBACKEND": "module://matplotlib_inline.backend_inline",
    }
    code = (
        "import sys, nbformat; from nbclient import NotebookClient;"
        "nb = nbformat.read(sys.argv[1], as_version=4);"
        "NotebookClient(nb, timeout=3600, kernel_name='python3', "
        "resources={'metadata': {'path': sys.argv[3]}}).execute();"
        "nbformat.write(nb, sys.argv[2])"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(notebook), str(target), str(BOOK)],
        env=full_env,
        capture_output=True,
        text=True,
        cwd=BOOK,
    )
    return notebook.name, done.returncode, done.stderr[-1500:]


def run(args):
    notebooks = (
        sorted(BOOK.glob("*.ipynb")) if not args.notebooks else [BOOK / n for n in args.notebooks]
    )
    chosen = (
        variants()
        if not args.variants
        else {k: v for k, v in variants().items() if k in args.variants}
    )
    jobs = [(nb, name, env) for name, env in chosen.items() for nb in notebooks]
    with ThreadPoolExecutor(args.jobs) as pool:
        futures = [
            pool.submit(execute, nb, env, OUT / name, OUT / name / "cache")
            for nb, name, env in jobs
        ]
        for (nb, name, _), fut in zip(jobs, futures, strict=True):
            _, rc, err = fut.result()
            print(f"{name:>16} {nb.name:<40} {'ok' if rc == 0 else 'FAILED'}", flush=True)
            if rc:
                print(err, file=sys.stderr)
    (OUT / "variants.json").write_text(json.dumps(chosen, indent=1))  # what each directory ran with


def checked_cells(path, ignore_from=None):
    """(index, cell, text) of each checked cell of a notebook.

    The text drops what the cell's ``ignore`` pattern (read from ``ignore_from``, the committed
    notebook, when given) says to ignore.
    """
    nb = json.loads(Path(path).read_text())
    meta = json.loads(Path(ignore_from or path).read_text())["cells"]
    out = []
    for i, c in enumerate(nb["cells"]):
        if is_checked(c):
            text, ignored = checked_text(c["outputs"]), ignored_of(meta[i])
            out.append((i, c, ignored.sub("", text) if ignored else text))
    return out


def last_digit_unit(token):
    """One unit in the last printed digit of a numeric token (1 for an integer)."""
    mantissa, _, exponent = token.lower().partition("e")
    decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
    return 10.0 ** (-decimals + (int(exponent) if exponent else 0))


def token_moves(ref_text, new_text):
    """|new - ref| for each number of a checked output, or None if the texts differ otherwise."""
    ref_tokens, new_tokens = numeric_tokens(ref_text), numeric_tokens(new_text)
    if skeleton(ref_text) != skeleton(new_text) or len(ref_tokens) != len(new_tokens):
        return None
    return [abs(float(a) - float(b)) for a, b in zip(ref_tokens, new_tokens, strict=True)]


def round_up(x, unit):
    """x rounded up to a whole number of units (printed without binary noise)."""
    return float(f"{math.ceil(x / unit - 1e-9) * unit:.12g}")


def slack(tolerance, ref_tokens):
    """The median slack a tolerance leaves a cell's numbers, in units of the last printed digit."""
    values = [abs(float(t)) for t in ref_tokens]
    units = [last_digit_unit(t) for t in ref_tokens]
    per_number = sorted(
        (tolerance.get("atol", 0) + tolerance.get("rtol", 0) * v) / u
        for v, u in zip(values, units, strict=True)
    )
    return per_number[len(per_number) // 2]


def fit_tolerance(ref_tokens, moves):
    """The tolerance of one cell from the largest move of each of its numbers.

    Two candidates cover every measured move twice over: an absolute one (atol) and a relative
    one (rtol, possible when no number that moved is 0). The one that leaves the typical number
    of the cell the least slack, counted in units of its last printed digit, is kept: a table
    whose big profits moved must not loosen its small error rates.
    """
    values = [abs(float(t)) for t in ref_tokens]
    units = [last_digit_unit(t) for t in ref_tokens]
    moved = [i for i, m in enumerate(moves) if m > 0]
    worst = max(moves)
    unit = min(units[i] for i in moved)
    candidates = [{"atol": round_up(max(2 * worst, unit), unit)}]
    if all(values[i] > 0 for i in moved):
        rtol = max(2 * moves[i] / values[i] for i in moved)
        candidates.append(
            {"rtol": round_up(rtol, 10.0 ** (math.floor(math.log10(rtol)) - 1))}
        )  # 2 digits

    return min(candidates, key=lambda c: slack(c, ref_tokens))


def source_at(rev, notebook):
    """Cell sources of a notebook at a git revision (empty if it did not exist)."""
    done = subprocess.run(
        ["git", "show", f"{rev}:book/{notebook.name}"], capture_output=True, text=True, cwd=ROOT
    )
    if done.returncode:
        return []
    return ["".join(c["source"]) for c in json.loads(done.stdout)["cells"]]


def compare(args):
    chosen = sorted(d.name for d in OUT.iterdir() if d.is_dir())
    report = {}
    notebooks = (
        sorted(BOOK.glob("*.ipynb")) if not args.notebooks else [BOOK / n for n in args.notebooks]
    )
    for notebook in notebooks:
        committed = checked_cells(notebook)
        # a cell whose code is unchanged since the baseline keeps its old tolerance where that is
        # the wider one: it covered moves measured against outputs computed on another CPU
        baseline = set(source_at(args.baseline, notebook)) if args.baseline else set()
        measured = {
            name: {i: t for i, _, t in checked_cells(OUT / name / notebook.name, notebook)}
            for name in chosen
            if (OUT / name / notebook.name).exists()
        }
        nb = json.loads(notebook.read_text())
        for index, cell, text in committed:
            moves, moved_in, broken = [0.0] * len(numeric_tokens(text)), [], []
            for name, cells in measured.items():
                result = token_moves(text, cells.get(index, ""))
                if result is None:
                    broken.append(name)
                    continue
                if max(result, default=0) > 0:
                    moved_in.append(name)
                moves = [max(a, b) for a, b in zip(moves, result, strict=True)]
            worst = max(moves, default=0.0)
            tolerance = fit_tolerance(numeric_tokens(text), moves) if worst > 0 else None
            key = f"{notebook.name}[{index}]"
            report[key] = {
                "max_abs_diff": worst,
                "moved_in": moved_in,
                "structure_differs_in": broken,
                "tolerance": tolerance,
            }
            if worst > 0 or broken or args.verbose:
                print(
                    f"{key:<36} max|diff| {worst:<9.3g} {json.dumps(tolerance):<18} moved in "
                    f"{','.join(moved_in) or '-'}"
                    + (f"  TEXT DIFFERS in {','.join(broken)}" if broken else "")
                )
            meta = nb["cells"][index]["metadata"]
            old = meta.get("calibbook", {})
            if "".join(cell["source"]) in baseline and "tolerance" in old and not broken:
                if tolerance is None or slack(old["tolerance"], numeric_tokens(text)) > slack(
                    tolerance, numeric_tokens(text)
                ):
                    tolerance, moved_in = (
                        old["tolerance"],
                        [*moved_in, "kept from " + args.baseline],
                    )
                    report[key]["tolerance"] = tolerance
            ours = {
                k: v for k, v in meta.pop("calibbook", {}).items() if k == "ignore"
            }  # set by hand
            if tolerance is not None:
                ours.update(
                    tolerance=tolerance,
                    measured={"max_abs_diff": float(f"{worst:.3g}"), "variants": moved_in},
                )
            if ours:
                meta["calibbook"] = ours
        if args.write:
            notebook.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n")
    (OUT / "report.json").write_text(json.dumps(report, indent=1))
    print(
        f"{sum(r['tolerance'] is not None for r in report.values())} of {len(report)} "
        f"checked cells moved under {len(chosen)} variants ({', '.join(chosen)})"
    )


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="command", required=True)
    p_run = sub.add_parser("run", help="execute the notebooks under each arithmetic variant")
    p_run.add_argument("--variants", nargs="*", help="names (default: all)")
    p_run.add_argument("--notebooks", nargs="*", help="file names in book/ (default: all)")
    p_run.add_argument("--jobs", type=int, default=2)
    p_cmp = sub.add_parser("compare", help="measure the spread of the checked cells")
    p_cmp.add_argument("--write", action="store_true", help="store the tolerances in the notebooks")
    p_cmp.add_argument(
        "--verbose", action="store_true", help="list the cells that did not move too"
    )
    p_cmp.add_argument("--notebooks", nargs="*", help="file names in book/ (default: all)")
    p_cmp.add_argument(
        "--baseline", help="git revision whose unchanged cells keep their wider tolerance"
    )
    args = parser.parse_args()
    {"run": run, "compare": compare}[args.command](args)


if __name__ == "__main__":
    main()
