"""calibration_report when a measure is undefined, and with several models (issue 28).

An extra column whose function refuses the data is NaN, with a warning that names the
column and the function's reason; every other column equals its function called
directly. With a mapping of models, an invalid model is named in the error.
"""

import numpy as np
import pytest

pytest.importorskip("pandas")

from calibbook.metrics import (
    EXTRA_COLUMNS,
    REPORT_COLUMNS,
    calibration_intercept_slope,
    calibration_report,
    ece_sweep,
    smooth_ece,
)

# separable: every positive above every negative, so the calibration slope is infinite
Y = np.array([0, 0, 0, 1, 1, 1])
P = np.array([0.1, 0.2, 0.3, 0.7, 0.8, 0.9])


def test_an_undefined_extra_column_is_nan_with_a_warning_and_the_rest_stands():
    with pytest.raises(ValueError, match="separate the classes"):
        calibration_intercept_slope(Y, P)  # the function itself refuses these data
    with pytest.warns(UserWarning) as got:
        report = calibration_report(Y, P, extra="all")
    messages = [str(w.message) for w in got]
    assert any(
        m.startswith("calibration_report: intercept, slope undefined, reported as NaN")
        and "separate the classes" in m
        for m in messages
    )
    assert any(m.startswith("calibration_report: dCE2 undefined") for m in messages)  # 6 rows
    assert np.isnan(report["dCE2"])
    assert list(report.index) == list(REPORT_COLUMNS) + list(EXTRA_COLUMNS)
    assert np.isnan(report["intercept"]) and np.isnan(report["slope"])
    assert report["smECE"] == pytest.approx(smooth_ece(Y, P), rel=1e-12)
    assert report["ECE_sweep"] == pytest.approx(ece_sweep(Y, P), rel=1e-12)
    assert report[list(REPORT_COLUMNS)].equals(calibration_report(Y, P))


def test_an_undefined_column_of_one_model_names_it():
    rng = np.random.default_rng(3)
    p = rng.uniform(size=200)
    y = (rng.uniform(size=p.size) < p).astype(int)
    y6 = np.concatenate([Y, y])
    models = {"separable": np.concatenate([P, np.where(y == 1, 0.95, 0.05)]), "noisy": [*P, *p]}
    with pytest.warns(UserWarning, match=r"slope undefined for y_prob\['separable'\]"):
        report = calibration_report(y6, models, extra=["slope"])
    assert np.isnan(report.loc["separable", "slope"])
    expected = calibration_intercept_slope(y6, models["noisy"]).slope
    assert report.loc["noisy", "slope"] == pytest.approx(expected, rel=1e-12)


def test_a_model_of_the_wrong_length_is_named():
    with pytest.raises(ValueError, match=r"y_prob\['short'\]: Inconsistent numbers of samples"):
        calibration_report(Y, {"full": P, "short": P[:4]})
    with pytest.raises(ValueError, match=r"y_prob\['outside'\]: y_prob must lie in \[0, 1\]"):
        calibration_report(Y, {"full": P, "outside": P + 1})
