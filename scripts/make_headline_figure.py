"""Draw the headline figure of the preface (book/images/headline.svg).

Gaussian naive Bayes on the `ada` benchmark (census income, as in chapters 3 and 11), split
as chapter 3 splits it: a training half, a calibration quarter and a test quarter, stratified
and seeded. The figure shows the reliability diagram of the classifier's test-set
probabilities, then of the same probabilities after three calibrators fitted on the
calibration quarter: Platt scaling on the logit (chapter 3), isotonic regression (chapter 4)
and beta calibration (chapter 10). Run from the repository root:

    .venv/bin/python scripts/make_headline_figure.py

``headline_data()`` returns every plotted array; tests/book/test_headline_figure.py checks it
against an independent computation and checks that the committed SVG draws these curves.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # a file, never a window

import matplotlib.pyplot as plt
import numpy as np
from sklearn.model_selection import train_test_split
from sklearn.naive_bayes import GaussianNB

from calibbook import (
    BetaCalibration,
    IsotonicCalibration,
    PlattScaling,
    expected_calibration_error,
    load_benchmark,
    reliability_curve,
    reliability_diagram,
)
from calibbook.plotting import histogram_axes, use_style

OUT = Path(__file__).resolve().parents[1] / "book" / "images" / "headline.svg"
DATASET = "ada"
SEED = 0
N_BINS = 10
# (panel title, calibrator or None for the classifier's own probabilities)
PANELS = (
    ("naive Bayes, uncalibrated", None),
    ("+ Platt scaling (logit)", lambda: PlattScaling(logit_input=True)),
    ("+ isotonic regression", IsotonicCalibration),
    ("+ beta calibration", BetaCalibration),
)


def split(X, y, seed=SEED):
    """Training half, calibration quarter and test quarter, stratified (as in chapter 3)."""
    X_train, X_rest, y_train, y_rest = train_test_split(
        X, y, test_size=0.5, stratify=y, random_state=seed
    )
    X_cal, X_test, y_cal, y_test = train_test_split(
        X_rest, y_rest, test_size=0.5, stratify=y_rest, random_state=seed
    )
    return X_train, y_train, X_cal, y_cal, X_test, y_test


def headline_data(seed=SEED):
    """Everything the figure draws.

    Returns a dict with ``y_test`` (the test labels) and ``panels``: one dict per panel with
    ``title``, ``prob`` (the test-set probabilities), ``ece`` (10 equal-width bins) and
    ``curve`` (the columns of :func:`calibbook.reliability_curve` that the diagram plots:
    ``mean_predicted``, ``observed`` and ``count`` of its non-empty bins).
    """
    X, y = load_benchmark(DATASET)
    X_train, y_train, X_cal, y_cal, X_test, y_test = split(X, y, seed)
    model = GaussianNB().fit(X_train, y_train)
    cal_prob = model.predict_proba(X_cal)[:, 1]
    test_prob = model.predict_proba(X_test)[:, 1]
    panels = []
    for title, make in PANELS:
        prob = test_prob if make is None else make().fit(cal_prob, y_cal).predict(test_prob)
        prob = np.asarray(prob, dtype=float)
        curve = reliability_curve(y_test, prob, n_bins=N_BINS, strategy="uniform")
        panels.append(
            {
                "title": title,
                "prob": prob,
                "ece": float(expected_calibration_error(y_test, prob, n_bins=N_BINS)),
                "curve": {
                    key: np.asarray(curve[key], dtype=float)
                    for key in ("mean_predicted", "observed", "count")
                },
            }
        )
    return {"y_test": np.asarray(y_test), "panels": panels}


def draw(data, path=OUT):
    """Write the figure of ``headline_data()`` to ``path`` (SVG, text kept as text)."""
    use_style()
    with plt.rc_context({"svg.fonttype": "none", "svg.hashsalt": "calibbook-headline"}):
        fig, axes = plt.subplots(1, len(data["panels"]), figsize=(9.0, 2.6), layout="constrained")
        for i, (ax, panel) in enumerate(zip(axes, data["panels"], strict=True)):
            color = "C3" if i == 0 else "C0"
            reliability_diagram(data["y_test"], panel["prob"], ax=ax, n_bins=N_BINS, color=color)
            # the curve's line carries an id, so that the test can find it in the SVG
            ax.containers[-1].lines[0].set_gid(f"headline-curve-{i}")
            # the histogram along the bottom shows where the predictions lie; its scale
            # would crowd four small panels
            twin = histogram_axes(ax)
            twin.set_yticks([])
            twin.set_ylabel("")
            ax.set_title(f"{panel['title']}\nECE {panel['ece']:.3f}", fontsize=11)
            ax.set_xlabel("")
            ax.set_ylabel("observed frequency" if i == 0 else "", fontsize=10)
            ax.set_xticks([0, 0.5, 1])
            ax.set_yticks([0, 0.5, 1])
            if i:
                ax.set_yticklabels([])
        fig.supxlabel("mean predicted probability", fontsize=10)
        # no date or version string: the same data give the same bytes
        fig.savefig(path, format="svg", metadata={"Date": None, "Creator": None})
        plt.close(fig)
    return path


def main():
    path = draw(headline_data())
    print(f"wrote {path} ({path.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
