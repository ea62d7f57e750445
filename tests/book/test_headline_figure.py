"""The preface's headline figure (book/images/headline.svg) shows what its script computes.

scripts/make_headline_figure.py draws the reliability diagrams of naive Bayes on `ada` before
and after three calibrators. Here its data are recomputed without calibbook's binning (the
split and the classifier with scikit-learn, the bins and the ECE with NumPy), and the figure
is redrawn and compared with the committed SVG: the four curves and the panel titles (with
their ECEs) must be the ones committed. A change of the package that moves the figure fails
here; rerun the script and commit the new SVG.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "make_headline_figure.py"
SVG = ROOT / "book" / "images" / "headline.svg"


def _load_script():
    spec = importlib.util.spec_from_file_location("make_headline_figure", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def script():
    return _load_script()


@pytest.fixture(scope="module")
def data(script):
    return script.headline_data()


def _bins(y, p, n_bins):
    """Mean prediction, observed frequency and count of the non-empty equal-width bins."""
    index = np.minimum((p * n_bins).astype(int), n_bins - 1)  # the last bin is closed
    rows = []
    for k in range(n_bins):
        mask = index == k
        if mask.any():
            rows.append((p[mask].mean(), y[mask].mean(), mask.sum()))
    return np.array(rows).T


def test_the_plotted_arrays_match_an_independent_computation(script, data):
    from sklearn.model_selection import train_test_split
    from sklearn.naive_bayes import GaussianNB

    from calibbook import load_benchmark

    X, y = load_benchmark(script.DATASET)
    X_train, X_rest, y_train, y_rest = train_test_split(
        X, y, test_size=0.5, stratify=y, random_state=script.SEED
    )
    _, X_test, _, y_test = train_test_split(
        X_rest, y_rest, test_size=0.5, stratify=y_rest, random_state=script.SEED
    )
    np.testing.assert_array_equal(data["y_test"], y_test)
    raw = GaussianNB().fit(X_train, y_train).predict_proba(X_test)[:, 1]
    np.testing.assert_allclose(data["panels"][0]["prob"], raw, rtol=0, atol=1e-12)

    for panel in data["panels"]:
        p = panel["prob"]
        assert p.shape == y_test.shape and np.all((p >= 0) & (p <= 1)), panel["title"]
        mean, observed, count = _bins(y_test.astype(float), p, script.N_BINS)
        curve = panel["curve"]
        np.testing.assert_allclose(curve["mean_predicted"], mean, atol=1e-12)
        np.testing.assert_allclose(curve["observed"], observed, atol=1e-12)
        np.testing.assert_array_equal(curve["count"], count)
        ece = np.sum(count / y_test.size * np.abs(observed - mean))
        assert panel["ece"] == pytest.approx(ece, abs=1e-12), panel["title"]


def test_each_calibrator_brings_the_curve_to_the_diagonal(data):
    """What the caption says: the calibrated curves lie much nearer the diagonal."""
    raw, *calibrated = (panel["ece"] for panel in data["panels"])
    assert all(ece < raw / 4 for ece in calibrated), (raw, calibrated)


def _drawn(svg_text):
    """The four curves' paths and the panel titles of a headline SVG."""
    curves = re.findall(r'<g id="headline-curve-\d">\s*<path d="([^"]+)"', svg_text)
    titles = re.findall(r"<text[^>]*>([^<]*ECE[^<]*)</text>", svg_text)
    return curves, titles


def _points(path):
    """The coordinates of an SVG path, as one flat list of floats."""
    return [float(v) for v in re.findall(r"-?\d+(?:\.\d+)?(?:e-?\d+)?", path)]


def test_the_committed_svg_draws_these_curves(script, data, tmp_path):
    redrawn = script.draw(data, tmp_path / "headline.svg").read_text(encoding="utf-8")
    committed = SVG.read_text(encoding="utf-8")
    curves, titles = _drawn(redrawn)
    assert len(curves) == len(data["panels"]) and len(titles) == len(data["panels"])
    stale = "book/images/headline.svg is stale: run scripts/make_headline_figure.py"
    committed_curves, committed_titles = _drawn(committed)
    assert committed_titles == titles, stale
    # the points, to a hundredth of an SVG unit: another CPU may move a probability's last bits
    assert len(committed_curves) == len(curves), stale
    for old, new in zip(committed_curves, curves, strict=True):
        assert _points(old) == pytest.approx(_points(new), abs=0.01), stale
    assert SVG.stat().st_size < 100_000, "the headline figure should stay a small file"
