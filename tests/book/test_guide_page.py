"""The decision guide's page (book/which_calibrator.ipynb) shows what the data imply; the rules
themselves are tested in tests/unit/test_guide.py."""

import json
from pathlib import Path

from tests._support.notebooks import glued_values

ROOT = Path(__file__).resolve().parents[2]


def test_the_guide_page_shows_what_the_data_imply():
    # The page's recommendations are glued from the computation when the notebook runs; if
    # data/comparison_full.csv or data/speed_scaling.csv changed and the page was not
    # re-executed, its stored recommendations would be stale. Recompute them from the files.
    from calibbook.experiments.guide import book_recommendations

    recs = book_recommendations(
        ROOT / "data" / "comparison_full.csv", ROOT / "data" / "speed_scaling.csv"
    )
    glued = glued_values(json.loads((ROOT / "book" / "which_calibrator.ipynb").read_text()))
    keys = {
        "keep the ranking": "rank",
        "small calibration sets": "small",
        "larger calibration sets": "large",
        "tight time budget": "fast",
        "reliable bins": "bins",
    }
    classifiers = list(recs.columns.get_level_values(0).unique())
    assert classifiers == ["LR", "SVM", "NB", "Boost", "RF", "MLP"]
    compared = 0
    for situation, key in keys.items():
        for clf in classifiers:
            for kind, column in [("rec", "method"), ("why", "evidence")]:
                stored = glued[f"{kind}_{key}_{clf}"]
                assert stored == repr(recs.loc[situation, (clf, column)]), (situation, clf, kind)
                compared += 1
    assert compared == 60
