"""Every renamed public name still works for one release, warns, and is in CHANGELOG.md.

Each case calls the 0.2 name and the 0.1 name on the same data: the old one must raise a
FutureWarning that names the new one, and give the same result. The cases and the
changelog's table of renamed names must list the same renamings.
"""

import re
import warnings
from pathlib import Path

import numpy as np
import pytest

import calibbook
from calibbook.calibrators.dpm import DPGaussianMixture1D, quantile_responsibilities
from calibbook.calibrators.kde import bandwidth_rule
from calibbook.experiments import improvement_ci
from calibbook.experiments.estimator_study import run_study

CHANGELOG = Path(__file__).resolve().parents[2] / "CHANGELOG.md"

RNG = np.random.default_rng(3)
S = np.sort(RNG.uniform(0.01, 0.99, 400))
Y = (RNG.uniform(size=400) < S).astype(int)
W = np.ones_like(S)


def _fitted(cls, **params):
    return lambda: cls(**params).fit(S, Y)


def _study(**kwargs):
    from calibbook.experiments.estimator_study import calibration_maps

    maps = {"calibrated": calibration_maps()["calibrated"]}
    return run_study(maps, [50], n_rep=1, seed=1, n_resamples=20, **kwargs)


def _ci(**kwargs):
    import pandas as pd

    rows = [
        (d, "LR", m, 0, 0, "RMSE", v)
        for d, vals in {"a": (0.30, 0.35), "b": (0.20, 0.21), "c": (0.40, 0.45)}.items()
        for m, v in zip(["ENIR", "raw"], vals, strict=True)
    ]
    columns = ["dataset", "classifier", "method", "repeat", "fold", "measure", "value"]
    return improvement_ci(pd.DataFrame(rows, columns=columns), measures=["RMSE"], **kwargs)


# (changelog row: where, old, new) -> (call with the new name, call with the old name)
PARAMETERS = {
    ("calibration_intercept_slope", "level=", "confidence="): (
        lambda: calibbook.calibration_intercept_slope(Y, S, confidence=0.8),
        lambda: calibbook.calibration_intercept_slope(Y, S, level=0.8),
    ),
    ("consistency_bands", "level=", "confidence="): (
        lambda: calibbook.consistency_bands(S, confidence=0.8, n_resamples=50, random_state=0),
        lambda: calibbook.consistency_bands(S, level=0.8, n_resamples=50, random_state=0),
    ),
    ("reliability_diagram", "band_level=", "band_confidence="): None,  # draws; see below
    ("experiments.improvement_ci", "level=", "confidence="): (
        lambda: _ci(confidence=0.8),
        lambda: _ci(level=0.8),
    ),
    ("experiments.estimator_study.run_study", "band_level=", "band_confidence="): (
        lambda: _study(band_confidence=0.8),
        lambda: _study(band_level=0.8),
    ),
    ("KDECalibration", "method=", "algorithm="): (
        lambda: calibbook.KDECalibration(algorithm="binned").fit(S, Y).predict(S),
        lambda: calibbook.KDECalibration(method="binned").fit(S, Y).predict(S),
    ),
    ("calibrators.dpm.quantile_responsibilities", "w=", "sample_weight="): (
        lambda: quantile_responsibilities(S, sample_weight=W, n_components=3),
        lambda: quantile_responsibilities(S, w=W, n_components=3),
    ),
    ("calibrators.dpm.DPGaussianMixture1D.fit`, `.priors", "w=", "sample_weight="): (
        lambda: DPGaussianMixture1D(n_components=3).priors(S, sample_weight=W),
        lambda: DPGaussianMixture1D(n_components=3).priors(S, w=W),
    ),
    ("calibrators.kde.bandwidth_rule", "w=", "sample_weight="): (
        lambda: bandwidth_rule(S, sample_weight=W, rule="silverman"),
        lambda: bandwidth_rule(S, w=W, rule="silverman"),
    ),
}

# (changelog row) -> (fitted estimator factory, new attribute)
ATTRIBUTES = {
    ("KDECalibration", "method_", "algorithm_"): _fitted(calibbook.KDECalibration),
    ("HistogramBinning`, `BBQ", "bin_edges_", "thresholds_"): _fitted(calibbook.HistogramBinning),
    ("HistogramBinning`, `BBQ", "bin_estimates_", "step_values_"): _fitted(calibbook.BBQ),
    ("IsotonicCalibration", "block_values_", "step_values_"): _fitted(
        calibbook.IsotonicCalibration
    ),
    ("ENIR", "run_values_", "step_values_"): _fitted(calibbook.ENIR),
    ("NearIsotonicRegression", "fitted_values_", "step_values_"): _fitted(
        calibbook.NearIsotonicRegression
    ),
}


def _changelog_renames():
    text = CHANGELOG.read_text(encoding="utf-8")
    table = text.split("### Renamed", 1)[1].split("###", 1)[0]
    rows = re.findall(r"^\| `(.+?)` \| `(.+?)` \| `(.+?)` \|$", table, flags=re.M)
    return set(rows)


def _same(a, b):
    if hasattr(a, "_asdict"):
        a, b = a._asdict(), b._asdict()
    if isinstance(a, dict):
        assert a.keys() == b.keys()
        for k in a:
            _same(a[k], b[k])
    elif hasattr(a, "equals"):
        assert a.equals(b)
    else:
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


def test_the_changelog_lists_exactly_the_tested_renamings():
    assert _changelog_renames() == set(PARAMETERS) | set(ATTRIBUTES)


@pytest.mark.parametrize("row", [r for r in PARAMETERS if PARAMETERS[r] is not None], ids=str)
def test_an_old_keyword_warns_and_gives_the_same_result(row):
    new_call, old_call = PARAMETERS[row]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        expected = new_call()
    old, new = row[1].rstrip("="), row[2].rstrip("=")
    with pytest.warns(FutureWarning, match=f"'{old}' was renamed '{new}'"):
        got = old_call()
    _same(expected, got)


def test_reliability_diagram_band_level_warns():
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    with pytest.warns(FutureWarning, match="'band_level' was renamed 'band_confidence'"):
        calibbook.reliability_diagram(
            Y, S, ax=ax, consistency_bands=True, band_level=0.8, n_resamples=50, random_state=0
        )
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    plt.close(fig)
    assert "80% consistency band" in labels


@pytest.mark.parametrize("row", list(ATTRIBUTES), ids=str)
def test_an_old_attribute_warns_and_reads_the_new_one(row):
    fitted = ATTRIBUTES[row]()
    old, new = row[1], row[2]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        expected = getattr(fitted, new)
    with pytest.warns(FutureWarning, match=f"'{old}' was renamed '{new}'"):
        got = getattr(fitted, old)
    np.testing.assert_array_equal(np.asarray(got), np.asarray(expected))


def test_old_module_paths_import_with_a_warning():
    import importlib
    import sys

    for old, new in calibbook._MOVED.items():
        sys.modules.pop(f"calibbook.{old}", None)
        with pytest.warns(DeprecationWarning, match=f"calibbook.{old} moved to {new}"):
            module = importlib.import_module(f"calibbook.{old}")
        assert module is importlib.import_module(new)
