"""calibbook: binary classifier calibration.

``import calibbook`` is deliberately light: submodules (and numba, scikit-learn,
matplotlib behind them) load on first use of a name, so a command-line tool or a
notebook pays only for what it touches.
"""

from importlib import import_module

__version__ = "0.1.0"

# public name -> submodule that defines it
_LAZY = {
    "BaseCalibrator": "calibbook.base",
    "HistogramBinning": "calibbook.histogram_binning",
    "PlattScaling": "calibbook.platt",
    "TemperatureScaling": "calibbook.platt",
    "IsotonicCalibration": "calibbook.isotonic",
    "CalibratedClassifier": "calibbook.calibrated_classifier",
    "NearIsotonicRegression": "calibbook.near_isotonic",
    "near_isotonic_path": "calibbook.near_isotonic",
    "ENIR": "calibbook.enir",
    "BBQ": "calibbook.bbq",
    "KDECalibration": "calibbook.kde",
    "DPMCalibration": "calibbook.dpm",
    "ProbingClassifier": "calibbook.probing",
    "calibration_report": "calibbook.metrics",
    "expected_calibration_error": "calibbook.metrics",
    "maximum_calibration_error": "calibbook.metrics",
    "reliability_curve": "calibbook.metrics",
    "brier_decomposition": "calibbook.metrics",
    "debiased_calibration_error": "calibbook.metrics",
    "ece_sweep": "calibbook.metrics",
    "calibration_intercept_slope": "calibbook.metrics",
    "spiegelhalter_test": "calibbook.metrics",
    "hosmer_lemeshow_test": "calibbook.metrics",
    "consistency_bands": "calibbook.metrics",
    "smooth_ece": "calibbook.metrics",
    "smooth_reliability_curve": "calibbook.metrics",
    "reliability_diagram": "calibbook.plotting",
    "make_circular": "calibbook.datasets",
    "load_benchmark": "calibbook.datasets",
    "benchmark_names": "calibbook.datasets",
}
_SUBMODULES = {
    "base",
    "metrics",
    "plotting",
    "datasets",
    "histogram_binning",
    "platt",
    "isotonic",
    "calibrated_classifier",
    "near_isotonic",
    "enir",
    "bbq",
    "kde",
    "dpm",
    "probing",
    "experiments",
    "guide",
    "distributed",
    "registry",
}

__all__ = sorted(_LAZY) + sorted(_SUBMODULES)


def __getattr__(name):
    if name in _SUBMODULES:
        return import_module(f"calibbook.{name}")
    if name in _LAZY:
        return getattr(import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'calibbook' has no attribute {name!r}")


def __dir__():
    return __all__
