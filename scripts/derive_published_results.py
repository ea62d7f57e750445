"""Derive data/papers/13_comparison_today_table_{kull2017_*,calarena_binary}.csv from the
authors' committed results.

The published comparisons are not in this repository; fetch them first (git clones or bare
mirrors both work) and pass their paths:

    python scripts/derive_published_results.py \
        --betacal PATH/TO/betacal/post-aistats2017 --calarena PATH/TO/probkit/CalArena \
        --out data/papers

Every file is read at a pinned commit with ``git show COMMIT:PATH`` (the commits below), so
the output does not depend on what the clones have checked out.  Only the standard library
is used.  data/README.md describes each output file.

Kull, Silva Filho & Flach (betacal/post-aistats2017, the extended experiments of the AISTATS
2017 paper): for every base classifier the authors committed, per variant (``results`` =
Platt's target smoothing in the logistic calibrator, ``results_no_platt`` = plain logistic
calibration, the later run), the per-dataset mean and sd over 10 x 5-fold CV of the log-loss
and Brier score of the six methods (files ``main_loss[None, 'beta', 'beta_ab', 'beta_am',
'isotonic', 'sigmoid'].csv`` and ``main_brier[...]``), and the average rank of each method
over the 41 data sets, recomputed exactly as the authors' ``table_to_latex`` does
(scipy.stats.rankdata of the per-dataset means, ties averaged, rank 1 = lowest) and checked
against the "rank" row that their run log (``main_*.txt``) printed.

CalArena (probkit/CalArena): for each binary benchmark (tabrepo-binary, tabarena-binary,
cv-binary) the 20 binary methods of the README (the CB-* ablation files of tabrepo-binary
are left out), inner-joined on (dataset, model, cal_size, test_size) as the repository's
``utils.load_benchmark_results`` does, and for the Brier score and the log-loss: the mean
win rate as the point estimate of ``utils.compute_winrates`` (per experiment, the share of
the 19 other methods whose score is strictly greater; averaged over experiments), the
average rank (ties averaged, rank 1 = lowest score), the mean score, the number of
experiments and of datasets.  ``figure_position`` is the left-to-right position of the
method in the committed leaderboard figure figures/binary_winrates.png (read off the image;
the Base-model is the dash-dotted line, not a bar, hence empty).
"""

from __future__ import annotations

import argparse
import csv
import io
import math
import os
import re
import subprocess

KULL_REPO = "betacal/post-aistats2017"
KULL_COMMIT = "102156214f3a159164f39831dbc4c3b271e4fdbe"
CALARENA_REPO = "probkit/CalArena"
CALARENA_COMMIT = "a0afa1544d4b5890017649779bbee2cda432dbb4"

# --------------------------------------------------------------------------- Kull et al.
KULL_VARIANTS = ("results_no_platt", "results")
KULL_CLASSIFIERS = {  # directory -> (short name, base classifier in their main.py)
    "nbayes": ("NB", "GaussianNB()"),
    "logistic": ("LR", "LogisticRegression()"),
    "adao": ("AdaBoost-own", "their AdaBoostClassifier(n_estimators=200)"),
    "adas": ("AdaBoost-sklearn", "sklearn AdaBoostClassifier(n_estimators=200)"),
    "svm": ("SVM", "SVC() scored by expit(decision_function)"),
    "forest": ("RF", "RandomForestClassifier(n_estimators=200)"),
    "mlp": ("MLP", "MLPClassifier()"),
}
KULL_LOG = {
    "nbayes": "main_nb05.txt",
    "logistic": "main_lr.txt",
    "adao": "main_boosting05.txt",
    "adas": "main_boosting_scikit.txt",
    "svm": "main_svm.txt",
    "forest": "main_rf.txt",
    "mlp": "main_mlp.txt",
}
KULL_METHODS = ("None", "beta", "beta_ab", "beta_am", "isotonic", "sigmoid")
# beta_am (a = b) is c + a logit(s): Platt scaling on the logit of the score
KULL_LABEL = {
    "None": "raw",
    "beta": "Beta",
    "beta_ab": "Beta-ab",
    "beta_am": "Platt-logit",
    "isotonic": "IsoRegC",
    "sigmoid": "Platt",
}
KULL_MEASURE = {"loss": "log_loss", "brier": "brier"}
KULL_FILE = "main_{m}[None, 'beta', 'beta_ab', 'beta_am', 'isotonic', 'sigmoid'].csv"
# The AISTATS-era run (results/{nbayes,logistic,adao,adas}, byte-identical to the files of
# betacal/aistats2017) names the columns beta05 (m fixed at 0.5: "ab") and beta2 (a = b: "am");
# the file name, written later, already says beta_ab and beta_am in the same column order.
KULL_OLD_NAMES = {"beta05": "beta_ab", "beta2": "beta_am"}

# Kull et al.'s 41 data sets -> calibbook benchmark (calibbook.datasets.benchmark_names()).
# relation: same_task (same underlying data and the same binary task, up to a label swap,
# which changes neither log-loss nor Brier score of these calibrators); same_data (same
# underlying data, another binarisation: they take the majority class vs the rest);
# related (a different copy or version of related data). Empty: we do not have it.
KULL_DATASETS = {
    "abalone": ("abalone19", "same_data"),
    "autos": ("", ""),
    "balance-scale": ("", ""),
    "car": ("car", "same_data"),
    "cleveland": ("", ""),
    "credit-approval": ("australian", "related"),
    "dermatology": ("dermatology", "same_data"),
    "diabetes": ("pima", "same_task"),
    "ecoli": ("ecoli", "same_data"),
    "flare": ("flare", "same_data"),
    "german": ("", ""),
    "glass": ("glass", "same_task"),
    "heart-statlog": ("", ""),
    "hepatitis": ("hepatitis", "same_task"),
    "horse": ("", ""),
    "ionosphere": ("ionosphere", "same_task"),
    "iris": ("iris", "same_data"),
    "landsat-satellite": ("satimage", "same_data"),
    "letter": ("", ""),
    "libras-movement": ("", ""),
    "lung-cancer": ("", ""),
    "mfeat-karhunen": ("", ""),
    "mfeat-morphological": ("", ""),
    "mfeat-zernike": ("", ""),
    "mushroom": ("", ""),
    "optdigits": ("digits", "related"),
    "page-blocks": ("page_blocks", "same_task"),
    "pendigits": ("", ""),
    "scene-classification": ("", ""),
    "segment": ("segment", "same_data"),
    "shuttle": ("shuttle", "same_data"),
    "sonar": ("", ""),
    "spambase": ("", ""),
    "tic-tac": ("", ""),
    "vehicle": ("vehicle", "same_data"),
    "vowel": ("vowel", "same_data"),
    "waveform-5000": ("", ""),
    "wdbc": ("breast_cancer", "same_task"),
    "wpbc": ("", ""),
    "yeast": ("yeast", "same_data"),
    "zoo": ("", ""),
}

# --------------------------------------------------------------------------- CalArena
CALARENA_BENCHMARKS = ("tabrepo-binary", "tabarena-binary", "cv-binary")
# the 20 binary methods of the README, with the calibbook calibrator that is the same map
CALARENA_LABEL = {
    "Base-model": "raw",
    "Hist-uniform": "Hist-uniform",
    "Hist-quantile": "Hist",
    "Scaling-Binning": "ScBin",
    "BBQ": "BBQ",
    "Isotonic": "IsoRegC",
    "CIR": "CIR",
    "Venn-Abers": "VA",
    "TS": "Temp-logit",
    "ETS": "",
    "Platt-probs": "Platt",
    "Platt-logits": "Platt-logit",
    "Quadratic": "Quad",
    "Beta": "Beta",
    "Spline": "Spline",
    "CDF-Spline": "",
    "Kernel": "",
    "XGBoost": "",
    "LightGBM": "",
    "CatBoost": "",
}
# left to right in figures/binary_winrates.png (sorted by the mean of the three win rates)
CALARENA_FIGURE = (
    "Hist-quantile",
    "Hist-uniform",
    "Scaling-Binning",
    "BBQ",
    "Platt-probs",
    "Kernel",
    "XGBoost",
    "LightGBM",
    "CDF-Spline",
    "Isotonic",
    "TS",
    "Venn-Abers",
    "CIR",
    "ETS",
    "CatBoost",
    "Spline",
    "Beta",
    "Platt-logits",
    "Quadratic",
)
CALARENA_METRICS = {"logloss": "log_loss", "brier": "brier"}
# the CalArena methods that are Kull et al.'s (None, beta, beta_am = Platt on logits,
# isotonic, sigmoid = Platt on probabilities); beta_ab has no CalArena counterpart
CALARENA_KULL_SUBSET = ("Base-model", "Beta", "Platt-logits", "Isotonic", "Platt-probs")


def git_show(root: str, commit: str, path: str) -> str:
    """The text of ``path`` at ``commit`` in the clone or bare mirror ``root``."""
    out = subprocess.run(
        ["git", "-C", root, "show", f"{commit}:{path}"], check=True, capture_output=True
    )
    return out.stdout.decode("utf-8")


def rankdata(values: list[float]) -> list[float]:
    """Ranks 1..n, ties averaged (scipy.stats.rankdata's default)."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2.0 + 1.0
        i = j + 1
    return ranks


def write_csv(path: str, header: list[str], rows: list[list]) -> None:
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(header)
        w.writerows(rows)


def printed_ranks(log: str, measure: str) -> list[float] | None:
    """The "rank" row the authors' run printed for the six-method table of ``measure``."""
    # the first method list printed is the full six-method one (remove_list starts with [])
    key = {"loss": "LOSS", "brier": "BRIER"}[measure]
    m = re.search(r"^\[None, ", log, flags=re.M)
    if m is None:
        return None
    start = m.start()
    sec = log.find(f"-{key}-", start)
    if sec < 0:
        return None
    m = re.search(r"^rank((?: & [0-9.]+)+)\\\\", log[sec:], flags=re.M)
    return [float(v) for v in m.group(1).split(" & ")[1:]] if m else None


def kull(root: str, out: str) -> None:
    results, ranks = [], []
    for variant in KULL_VARIANTS:
        for cdir, (cname, _) in KULL_CLASSIFIERS.items():
            try:
                log = git_show(root, KULL_COMMIT, f"experiments/{variant}/{cdir}/{KULL_LOG[cdir]}")
            except subprocess.CalledProcessError:
                log = ""
            for m, measure in KULL_MEASURE.items():
                path = f"experiments/{variant}/{cdir}/" + KULL_FILE.format(m=m)
                rows = list(csv.reader(io.StringIO(git_show(root, KULL_COMMIT, path))))
                # three header rows (aggregate, value, method) and a "dataset" row
                assert rows[0][1:] == ["mean"] * 6 + ["std"] * 6, rows[0]
                cols = [KULL_OLD_NAMES.get(c, c) for c in rows[2][1:]]
                assert cols == list(KULL_METHODS) * 2, rows[2]
                assert rows[3][0] == "dataset"
                data = [r for r in rows[4:] if r and r[0]]
                means = []
                for r in data:
                    ds = r[0]
                    mu = [float(v) for v in r[1:7]]
                    means.append(mu)
                    assert ds in KULL_DATASETS, ds
                    # the numbers as the authors' CSV writes them (12 significant digits)
                    for k, meth in enumerate(KULL_METHODS):
                        results.append([variant, cname, ds, meth, measure, r[1 + k], r[7 + k]])
                n = len(means)
                avg = [0.0] * 6
                for mu in means:
                    for k, rk in enumerate(rankdata(mu)):
                        avg[k] += rk / n
                printed = printed_ranks(log, m)
                for k, meth in enumerate(KULL_METHODS):
                    pr = "" if printed is None else f"{printed[k]:.2f}"
                    if printed is not None and abs(printed[k] - avg[k]) >= 0.006:
                        # the CSV keeps 12 significant digits, the log ranked the full
                        # floats: a near-tie can become a tie (or not); say so, and allow
                        # at most a couple of such flips
                        print(
                            f"{variant}/{cdir} {m} {meth}: printed {printed[k]:.2f}, "
                            f"recomputed {avg[k]:.4f}"
                        )
                        assert abs(printed[k] - avg[k]) < 2.0 / n, (variant, cdir, m)
                    ranks.append(
                        [variant, cname, measure, meth, KULL_LABEL[meth], f"{avg[k]:.4f}", n, pr]
                    )
    write_csv(
        os.path.join(out, "13_comparison_today_table_kull2017_results.csv"),
        ["variant", "classifier", "dataset", "method", "measure", "mean", "sd"],
        results,
    )
    write_csv(
        os.path.join(out, "13_comparison_today_table_kull2017_datasets.csv"),
        ["dataset", "calibbook_dataset", "relation"],
        [[ds, b, rel] for ds, (b, rel) in sorted(KULL_DATASETS.items())],
    )
    write_csv(
        os.path.join(out, "13_comparison_today_table_kull2017_ranks.csv"),
        [
            "variant",
            "classifier",
            "measure",
            "method",
            "calibbook_label",
            "average_rank",
            "n_datasets",
            "printed_rank",
        ],
        ranks,
    )


def calarena(root: str, out: str) -> None:
    rows_out = []
    keys = ("dataset", "model", "cal_size", "test_size")
    every = list(CALARENA_LABEL)
    means = {}
    for bench in CALARENA_BENCHMARKS:
        tables = {}
        for meth in every:
            text = git_show(root, CALARENA_COMMIT, f"results/{bench}/{meth}.csv")
            tables[meth] = {tuple(r[k] for k in keys): r for r in csv.DictReader(io.StringIO(text))}
        common = set.intersection(*(set(t) for t in tables.values()))
        exps = sorted(common)
        n_ds = len({e[0] for e in exps})
        for method_set, methods in (("all20", every), ("kull5", list(CALARENA_KULL_SUBSET))):
            for metric, measure in CALARENA_METRICS.items():
                wins = {m: 0.0 for m in methods}
                rsum = {m: 0.0 for m in methods}
                ssum = {m: 0.0 for m in methods}
                miss = {m: 0 for m in methods}
                for e in exps:
                    txt = [tables[m][e][f"{m}_{metric}"] for m in methods]
                    v = [float(t) if t.strip() else math.nan for t in txt]
                    for i, m in enumerate(methods):
                        # a missing score (NaN) neither beats nor is beaten, as pandas' gt
                        # in compute_winrates (x > nan and nan > x are both False)
                        wins[m] += sum(1 for j, x in enumerate(v) if j != i and x > v[i]) / (
                            len(methods) - 1
                        )
                        if math.isnan(v[i]):
                            miss[m] += 1
                        else:
                            ssum[m] += v[i]
                    # for the rank a missing score counts as the worst
                    finite = [math.inf if math.isnan(x) else x for x in v]
                    for m, rk in zip(methods, rankdata(finite), strict=True):
                        rsum[m] += rk
                n = len(exps)
                for m in methods:
                    pos = (
                        CALARENA_FIGURE.index(m) + 1
                        if m in CALARENA_FIGURE and method_set == "all20"
                        else ""
                    )
                    mean = repr(ssum[m] / (n - miss[m])) if n > miss[m] else ""
                    wr, ar = wins[m] / n, rsum[m] / n
                    means.setdefault((method_set, measure, m), []).append((wr, ar))
                    rows_out.append(
                        [
                            method_set,
                            bench,
                            measure,
                            m,
                            CALARENA_LABEL[m],
                            f"{wr:.4f}",
                            f"{ar:.4f}",
                            mean,
                            n,
                            miss[m],
                            n_ds,
                            pos,
                        ]
                    )
    # the figure's criterion: the mean of the three benchmarks' win rates
    for (method_set, measure, m), v in means.items():
        assert len(v) == len(CALARENA_BENCHMARKS)
        pos = CALARENA_FIGURE.index(m) + 1 if m in CALARENA_FIGURE and method_set == "all20" else ""
        rows_out.append(
            [
                method_set,
                "mean_of_three",
                measure,
                m,
                CALARENA_LABEL[m],
                f"{sum(x[0] for x in v) / len(v):.4f}",
                f"{sum(x[1] for x in v) / len(v):.4f}",
                "",
                "",
                "",
                "",
                pos,
            ]
        )
    write_csv(
        os.path.join(out, "13_comparison_today_table_calarena_binary.csv"),
        [
            "method_set",
            "benchmark",
            "measure",
            "method",
            "calibbook_label",
            "winrate",
            "average_rank",
            "mean_score",
            "n_experiments",
            "n_missing",
            "n_datasets",
            "figure_position",
        ],
        rows_out,
    )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--betacal", help=f"clone or bare mirror of {KULL_REPO}")
    p.add_argument("--calarena", help=f"clone or bare mirror of {CALARENA_REPO}")
    p.add_argument("--out", default=os.path.join("data", "papers"))
    a = p.parse_args()
    if a.betacal:
        kull(a.betacal, a.out)
    if a.calarena:
        calarena(a.calarena, a.out)


if __name__ == "__main__":
    main()
