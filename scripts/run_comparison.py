"""Run the full comparison of chapter 8 and write data/comparison_full.csv.

The protocol of Naeini & Cooper (ICDM 2016, Tables II and IV-VI) on the 40 benchmark data
sets: for each data set and base classifier, 10 x 10 stratified folds; every calibrator of
``all_calibrators()`` and ``variant_calibrators()`` except ``DPM`` on raw probabilities is
fitted on the classifier's scores and scored on the test fold. For the paper's three
classifiers (LR, SVM, NB) the calibrators see the scores of the training folds themselves,
as in the paper. The learners that practitioners calibrate today (``Boost``: histogram
gradient boosting, ``RF``: a random forest, ``MLP``: a neural network) nearly reproduce
their training labels (a forest's training scores sit close to 0 and 1), so for them the
training folds are split once more (``holdout_calibration_protocol``, a third for the
calibrators, stratified), as Kull et al. (AISTATS 2017) and CalArena do.

DPM runs only on logits (``DPM-logit``), the input chapter 6 recommends: it is not
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


PAPER_CLASSIFIERS = ("LR", "SVM", "NB")  # calibrated on their training scores, as in the paper
HELD_OUT_CLASSIFIERS = ("Boost", "RF", "MLP")  # calibrated on a held-out third
CALIB_SIZE = 1 / 3


def run_share(task):
    """The protocol on some (data set, classifier) pairs, in a worker process; one line of
    progress per pair."""
    import time

    import pandas as pd

    from calibbook import experiments as ex

    calibrators = {**ex.all_calibrators(), **ex.variant_calibrators()}
    del calibrators["DPM"]  # see the module docstring
    settings = {"n_splits": 10, "n_repeats": 10, "random_state": 0, "disable": True}
    frames = []
    for name, clf in task:
        start = time.perf_counter()
        if clf in PAPER_CLASSIFIERS:
            frame = ex.repeated_cv_protocol([name], [clf], calibrators, **settings)
        else:
            frame = ex.holdout_calibration_protocol(
                [name], [clf], calibrators, calib_size=CALIB_SIZE, **settings
            )
        frames.append(frame)
        print(f"{name}/{clf}: {time.perf_counter() - start:.0f} s", file=sys.stderr, flush=True)
    return pd.concat(frames, ignore_index=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--csv", type=Path, default=ROOT / "data" / "comparison_full.csv")
    parser.add_argument("--datasets", nargs="*", help="a subset of the 40 (default: all)")
    parser.add_argument(
        "--classifiers",
        nargs="*",
        default=[*PAPER_CLASSIFIERS, *HELD_OUT_CLASSIFIERS],
        choices=[*PAPER_CLASSIFIERS, *HELD_OUT_CLASSIFIERS],
    )
    args = parser.parse_args(argv)
    os.environ.update(SINGLE_THREAD)  # inherited by the workers, read when they import numpy

    import pandas as pd

    from calibbook import experiments as ex
    from calibbook.datasets import benchmark_table

    sizes = benchmark_table().set_index("name").n_samples
    names = args.datasets or list(sizes.index)
    # deal the pairs out largest data set first, so that the shares take about the same time
    order = [(n, c) for n in sorted(names, key=lambda n: -sizes[n]) for c in args.classifiers]
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
        "protocol": {
            **{c: "repeated_cv (training scores)" for c in PAPER_CLASSIFIERS},
            **{
                c: f"holdout_calibration (calib_size={CALIB_SIZE:.4g})"
                for c in HELD_OUT_CLASSIFIERS
            },
        },
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
