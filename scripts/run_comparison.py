"""Run the full comparison of chapter 8 and write data/comparison_full.csv.

The protocol of Naeini & Cooper (ICDM 2016, Tables II and IV-VI) on the 40 benchmark data
sets: for each data set and base classifier (LR, SVM, NB), 10 x 10 stratified folds; every
calibrator of ``all_calibrators()`` and ``variant_calibrators()`` except ``DPM`` on raw
probabilities is fitted on the classifier's scores of the training folds and scored on the
test fold. DPM runs only on logits (``DPM-logit``), the input chapter 6 recommends: it is not
one of the ENIR paper's methods, and its variational fit costs more than all the others
together, so a second DPM would double the run. The per-split
results are cached (``$CALIBBOOK_CACHE``), so an interrupted run resumes.

Every test fold records the measures of ``calibbook.experiments.MEASURES``: the paper's five, the
Brier score and log-loss, the positional ECE and MCE of the authors' code, and the two estimators
that binning does not bias, the smooth ECE (``smECE``) and the debiased squared binned error
(``dCE2``: equal-mass bins, ten or half the test fold's rows if fewer). The CSV stores each
measure's mean over the 100 folds; for ``dCE2`` that is the mean of the signed per-fold
estimates, which stays unbiased and can be negative (take a root, if at all, of the mean only).

    .venv/bin/python scripts/run_comparison.py [--jobs 2] [--csv data/comparison_full.csv]

Beside the CSV it writes ``<csv>.json``: when and where the run was made, its wall time and
the versions of the software, which the chapter quotes.

``--jobs`` runs that many worker processes, each on its share of the data sets, with one
thread each (NumPy, BLAS and numba), so the results do not depend on the number of jobs.
"""

import argparse
import json
import os
import platform
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SINGLE_THREAD = {
    "OMP_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "NUMBA_NUM_THREADS": "1",
}


def run_share(names):
    """The protocol on some data sets (in a worker process), one line of progress per data set."""
    import time

    import pandas as pd

    from calibbook import experiments as ex

    calibrators = {**ex.all_calibrators(), **ex.variant_calibrators()}
    del calibrators["DPM"]  # see the module docstring
    frames = []
    for name in names:
        start = time.perf_counter()
        frames.append(
            ex.repeated_cv_protocol(
                [name],
                ["LR", "SVM", "NB"],
                calibrators,
                n_splits=10,
                n_repeats=10,
                random_state=0,
                disable=True,
            )
        )
        print(f"{name}: {time.perf_counter() - start:.0f} s", file=sys.stderr, flush=True)
    return pd.concat(frames, ignore_index=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--csv", type=Path, default=ROOT / "data" / "comparison_full.csv")
    parser.add_argument("--datasets", nargs="*", help="a subset of the 40 (default: all)")
    args = parser.parse_args(argv)
    os.environ.update(SINGLE_THREAD)  # inherited by the workers, read when they import numpy

    import pandas as pd

    from calibbook import experiments as ex
    from calibbook.datasets import benchmark_table

    sizes = benchmark_table().set_index("name").n_samples
    names = args.datasets or list(sizes.index)
    # deal the data sets out largest first, so that the shares take about the same time
    order = sorted(names, key=lambda n: -sizes[n])
    shares = [order[i :: args.jobs] for i in range(args.jobs)]
    started, start = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), time.perf_counter()
    with ProcessPoolExecutor(args.jobs) as pool:
        frames = list(pool.map(run_share, shares))
    summary = ex.fold_summary(pd.concat(frames, ignore_index=True))
    missing = set(ex.MEASURES) - set(summary.measure)
    if missing:  # a stale calibbook in the workers would silently drop the chapter's rows
        raise RuntimeError(f"the run recorded no {sorted(missing)}")
    summary.to_csv(args.csv, index=False, float_format="%.10g")
    provenance = {
        "started_utc": started,
        "wall_seconds": round(time.perf_counter() - start),
        "jobs": args.jobs,
        "cpu_count": os.cpu_count(),
        "machine": platform.processor() or platform.machine(),
        "python": platform.python_version(),
        "software": ex._cache.software_versions(),
        "load_average_after": os.getloadavg()[0],
    }
    args.csv.with_suffix(".json").write_text(json.dumps(provenance, indent=1) + "\n")
    print(f"wrote {args.csv}: {len(summary)} rows", file=sys.stderr)


if __name__ == "__main__":
    main()
