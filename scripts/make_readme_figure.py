"""Draw the reliability diagram shown in README.md (book/images/reliability_readme.png).

Naive Bayes on the `satimage` benchmark, before and after isotonic calibration with
5-fold cross-fitting, on a held-out half. Run from the repository root:

    .venv/bin/python scripts/make_readme_figure.py
"""

from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # a file, never a window

import matplotlib.pyplot as plt
from sklearn.model_selection import train_test_split
from sklearn.naive_bayes import GaussianNB

from calibbook import (
    CalibratedClassifier,
    expected_calibration_error,
    load_benchmark,
    reliability_diagram,
)
from calibbook.plotting import use_style

OUT = Path(__file__).resolve().parents[1] / "book" / "images" / "reliability_readme.png"


def main():
    use_style()
    X, y = load_benchmark("satimage")
    X_fit, X_test, y_fit, y_test = train_test_split(X, y, test_size=0.5, stratify=y, random_state=0)
    raw = GaussianNB().fit(X_fit, y_fit).predict_proba(X_test)[:, 1]
    calibrated = CalibratedClassifier(GaussianNB(), method="isotonic", cv=5).fit(X_fit, y_fit)
    iso = calibrated.predict_proba(X_test)[:, 1]

    fig, ax = plt.subplots(figsize=(5.0, 4.2))
    models = {}
    for name, p in (("naive Bayes", raw), ("+ isotonic (5-fold)", iso)):
        models[f"{name}, ECE {expected_calibration_error(y_test, p):.3f}"] = p
    reliability_diagram(y_test, models, ax=ax)
    ax.set_title(f"satimage, held-out half ({y_test.size} cases)")
    fig.savefig(OUT, dpi=120, metadata={"Software": None})  # no version string: stable bytes
    plt.close(fig)
    print(f"wrote {OUT.relative_to(Path.cwd()) if OUT.is_relative_to(Path.cwd()) else OUT}")


if __name__ == "__main__":
    main()
