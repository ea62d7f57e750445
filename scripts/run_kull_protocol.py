"""Rerun the protocol of Kull, Silva Filho & Flach (AISTATS 2017) on the data sets we share.

Writes ``data/kull_protocol_rerun.csv`` (and ``.json`` beside it), which chapter 13
(``book/13_comparison_today.ipynb``) sets beside the authors' published results
(``data/papers/13_comparison_today_table_kull2017_results.csv``, their ``results_no_platt`` run).

Their protocol (``experiments/main.py`` and ``calib/utils/calibration.py`` of
``betacal/post-aistats2017``), as rerun here:

* the data sets of ``data/papers/13_comparison_today_table_kull2017_datasets.csv`` whose relation is
  ``same_task`` (the same data and the same binary task as one of our 40);
* ``--repeats`` repetitions (default 10) of stratified 5-fold cross-validation
  (repetition r shuffled with seed r);
* inside each training part, the base classifier is fitted on all of it (the "main"
  classifier), and a stratified 3-fold split fits three more copies, each on two thirds;
  every calibrator is fitted on the scores of its copy on the remaining third, its map is
  applied to the main classifier's test scores, and the test probability is the mean of
  the three calibrated probabilities (their default ``model_type='map-only'``);
* base classifiers with the scikit-learn defaults of 2017, which their run used, on the
  features standardised over the whole data set (as their ``Dataset.standardize_data``
  does, before the folds are drawn; a constant feature keeps the scale 1): ``GaussianNB``
  (NB), ``LogisticRegression(solver="liblinear")`` (LR; the default solver then),
  ``AdaBoostClassifier(n_estimators=200)`` (AdaBoost; today's scikit-learn has only the
  discrete SAMME algorithm, theirs defaulted to SAMME.R, and the authors' own AdaBoost is
  not rerun), ``SVC(gamma="auto")`` scored by the logistic sigmoid of its decision function
  (SVM; ``gamma="auto"``, 1 / n_features, was the default then),
  ``RandomForestClassifier(n_estimators=200)`` (RF) and ``MLPClassifier`` (MLP); the
  randomised ones seeded with the repetition's number;
* calibrators: ``raw`` (none), ``Beta`` (``BetaCalibration()``, their ``beta``), ``Beta-ab``
  (their ``beta_ab``), ``Platt-logit`` (``BetaCalibration(parameters="am")``, their
  ``beta_am``: the same map as ``PlattScaling(logit_input=True)``, fitted on the 0/1 labels
  as ``betacal`` does rather than on Platt's smoothed targets), ``Platt`` (a logistic
  regression on the score itself with plain 0/1 targets and no penalty: their ``sigmoid`` in
  the ``results_no_platt`` run, which dropped Platt's smoothed targets) and ``IsoRegC``
  (``IsotonicCalibration()``, their ``isotonic``);
* measures: log-loss (probabilities clipped to [1e-15, 1 - 1e-15]) and Brier score of the
  test fold; the CSV holds their means over the test folds.

    OPENBLAS_NUM_THREADS=1 .venv/bin/python scripts/run_kull_protocol.py [--jobs 1] [--repeats 10]

``--jobs`` runs that many worker processes, one (data set, classifier) pair at a time, one
thread each; the numbers do not depend on it.
"""

import argparse
import json
import os
import platform
import sys
import time
import warnings
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
CLASSIFIERS = ("NB", "LR", "AdaBoost", "SVM", "RF", "MLP")
METHODS = ("raw", "Beta", "Beta-ab", "Platt-logit", "Platt", "IsoRegC")
EPS = 1e-15


def shared_datasets():
    """Our names of the data sets that Kull et al. use in the same binary task."""
    import pandas as pd

    table = pd.read_csv(
        ROOT / "data" / "papers" / "13_comparison_today_table_kull2017_datasets.csv"
    )
    same = table[table["relation"] == "same_task"]
    return dict(zip(same["calibbook_dataset"], same["dataset"], strict=True))


def make_classifier(name, seed):
    """The authors' base classifier ``name`` with the scikit-learn defaults of 2017."""
    from sklearn.ensemble import AdaBoostClassifier, RandomForestClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.naive_bayes import GaussianNB
    from sklearn.neural_network import MLPClassifier
    from sklearn.svm import SVC

    return {
        "NB": lambda: GaussianNB(),
        "LR": lambda: LogisticRegression(solver="liblinear"),
        "AdaBoost": lambda: AdaBoostClassifier(n_estimators=200, random_state=seed),
        "SVM": lambda: SVC(gamma="auto"),
        "RF": lambda: RandomForestClassifier(n_estimators=200, random_state=seed),
        "MLP": lambda: MLPClassifier(random_state=seed),
    }[name]()


def scores_of(model, X):
    """predict_proba of the positive class, or expit of the SVC's decision function."""
    from scipy.special import expit

    if hasattr(model, "decision_function") and not hasattr(model, "predict_proba"):
        return expit(model.decision_function(X))
    if type(model).__name__ == "SVC":
        return expit(model.decision_function(X))
    return model.predict_proba(X)[:, 1]


class PlainSigmoid:
    """Their ``sigmoid`` of the results_no_platt run: p = expit(a s + b) by maximum
    likelihood on the 0/1 labels (no smoothed targets, no penalty)."""

    def fit(self, s, y):
        from sklearn.linear_model import LogisticRegression

        self.model_ = LogisticRegression(C=np.inf, max_iter=1000).fit(s[:, None], y)
        return self

    def predict(self, s):
        return self.model_.predict_proba(s[:, None])[:, 1]


class Identity:
    def fit(self, s, y):
        return self

    def predict(self, s):
        return s


def make_calibrators():
    from calibbook import BetaCalibration, IsotonicCalibration

    return {
        "raw": Identity(),
        "Beta": BetaCalibration(),
        "Beta-ab": BetaCalibration(parameters="ab"),
        "Platt-logit": BetaCalibration(parameters="am"),
        "Platt": PlainSigmoid(),
        "IsoRegC": IsotonicCalibration(),
    }


def run_pair(task):
    """All repetitions and folds of one (data set, classifier) pair."""
    dataset, classifier, repeats = task
    from sklearn.base import clone
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.model_selection import StratifiedKFold

    from calibbook.datasets import load_benchmark

    warnings.simplefilter("ignore", ConvergenceWarning)
    X, y = load_benchmark(dataset)
    sd = X.std(axis=0)
    X = (X - X.mean(axis=0)) / np.where(sd == 0, 1.0, sd)  # as their Dataset does
    start = time.perf_counter()
    rows = {(m, k): [] for m in METHODS for k in ("LogLoss", "Brier")}
    for rep in range(repeats):
        outer = StratifiedKFold(n_splits=5, shuffle=True, random_state=rep)
        for fold, (train, test) in enumerate(outer.split(X, y)):
            base = make_classifier(classifier, rep)
            main = clone(base).fit(X[train], y[train])
            s_test = scores_of(main, X[test])
            probs = {m: np.zeros(test.size) for m in METHODS}
            inner = StratifiedKFold(n_splits=3, shuffle=True, random_state=1000 * rep + fold)
            for fit_idx, cal_idx in inner.split(X[train], y[train]):
                fit_rows, cal_rows = train[fit_idx], train[cal_idx]
                copy = clone(base).fit(X[fit_rows], y[fit_rows])
                s_cal = scores_of(copy, X[cal_rows])
                for m, cal in make_calibrators().items():
                    cal.fit(s_cal, y[cal_rows])
                    probs[m] += cal.predict(s_test) / 3
            yt = y[test]
            for m in METHODS:
                p = np.clip(probs[m], EPS, 1 - EPS)
                rows[m, "LogLoss"].append(-np.mean(yt * np.log(p) + (1 - yt) * np.log(1 - p)))
                rows[m, "Brier"].append(np.mean((probs[m] - yt) ** 2))
    seconds = time.perf_counter() - start
    print(f"{dataset:>14} {classifier:>8}: {seconds:6.1f} s", file=sys.stderr, flush=True)
    return [
        {
            "dataset": dataset,
            "classifier": classifier,
            "method": m,
            "measure": k,
            "value": float(np.mean(v)),
            "sd": float(np.std(v, ddof=1)),
            "n_folds": len(v),
        }
        for (m, k), v in rows.items()
    ], seconds


def main(argv=None):
    import pandas as pd

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--csv", default=str(ROOT / "data" / "kull_protocol_rerun.csv"))
    parser.add_argument("--datasets", nargs="*", default=None)
    parser.add_argument("--classifiers", nargs="*", default=list(CLASSIFIERS))
    args = parser.parse_args(argv)

    datasets = args.datasets or list(shared_datasets())
    tasks = [(d, c, args.repeats) for d in datasets for c in args.classifiers]
    started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    t0 = time.perf_counter()
    if args.jobs > 1:
        with ProcessPoolExecutor(args.jobs) as pool:
            results = list(pool.map(run_pair, tasks))
    else:
        results = [run_pair(t) for t in tasks]
    wall = time.perf_counter() - t0
    frame = pd.DataFrame([row for rows, _ in results for row in rows])
    frame.to_csv(args.csv, index=False, float_format="%.10g")

    import scipy
    import sklearn

    import calibbook

    meta = {
        "started_utc": started,
        "wall_seconds": round(wall),
        "cpu_seconds_per_pair": {
            f"{d}/{c}": round(s, 1) for (d, c, _), (_, s) in zip(tasks, results, strict=True)
        },
        "jobs": args.jobs,
        "cpu_count": os.cpu_count(),
        "repeats": args.repeats,
        "outer_folds": 5,
        "inner_folds": 3,
        "datasets": {d: shared_datasets().get(d) for d in datasets},
        "classifiers": args.classifiers,
        "methods": list(METHODS),
        "machine": platform.machine(),
        "python": platform.python_version(),
        "software": {
            "calibbook": calibbook.__version__,
            "numpy": np.__version__,
            "scipy": scipy.__version__,
            "sklearn": sklearn.__version__,
        },
        "load_average_after": os.getloadavg()[0],
    }
    Path(args.csv).with_suffix(".json").write_text(json.dumps(meta, indent=1) + "\n")
    print(f"wrote {args.csv} ({len(frame)} rows) in {wall:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
