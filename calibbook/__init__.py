"""calibbook: binary classifier calibration.

``import calibbook`` is deliberately light: submodules (and numba, scikit-learn,
matplotlib behind them) load on first use of a name, so a command-line tool or a
notebook pays only for what it touches.
"""

import importlib.abc
import importlib.util
import sys
import warnings
from importlib import import_module

__version__ = "0.2.0.dev0"

_CALIBRATOR_MODULES = (
    "histogram_binning",
    "platt",
    "isotonic",
    "near_isotonic",
    "enir",
    "bbq",
    "kde",
    "dpm",
    "scaling_binning",
    "beta",
)
# 0.1 module paths -> 0.2 ones (see CHANGELOG.md)
_MOVED = {m: f"calibbook.calibrators.{m}" for m in _CALIBRATOR_MODULES} | {
    "calibrated_classifier": "calibbook.meta.calibrated_classifier",
    "probing": "calibbook.meta.probing",
    "guide": "calibbook.experiments.guide",
}

# public name -> submodule that defines it
_LAZY = {
    "BaseCalibrator": "calibbook.base",
    "InvalidParameterError": "calibbook._utils.params",
    "LowWeightWarning": "calibbook._utils.weights",
    "HistogramBinning": "calibbook.calibrators.histogram_binning",
    "PlattScaling": "calibbook.calibrators.platt",
    "TemperatureScaling": "calibbook.calibrators.platt",
    "IsotonicCalibration": "calibbook.calibrators.isotonic",
    "CalibratedClassifier": "calibbook.meta.calibrated_classifier",
    "NearIsotonicRegression": "calibbook.calibrators.near_isotonic",
    "near_isotonic_path": "calibbook.calibrators.near_isotonic",
    "ENIR": "calibbook.calibrators.enir",
    "BBQ": "calibbook.calibrators.bbq",
    "KDECalibration": "calibbook.calibrators.kde",
    "DPMCalibration": "calibbook.calibrators.dpm",
    "ScalingBinning": "calibbook.calibrators.scaling_binning",
    "QuadraticScaling": "calibbook.calibrators.quadratic",
    "CenteredIsotonicCalibration": "calibbook.calibrators.isotonic",
    "VennAbers": "calibbook.calibrators.venn_abers",
    "BetaCalibration": "calibbook.calibrators.beta",
    "SplineCalibration": "calibbook.calibrators.spline",
    "ProbingClassifier": "calibbook.meta.probing",
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
    "corp_reliability": "calibbook.metrics",
    "corp_decomposition": "calibbook.metrics",
    "corp_consistency_bands": "calibbook.metrics",
    "corp_confidence_bands": "calibbook.metrics",
    "bootstrap_ci": "calibbook.metrics",
    "reliability_diagram": "calibbook.plotting",
    "make_circular": "calibbook.datasets",
    "load_benchmark": "calibbook.datasets",
    "benchmark_names": "calibbook.datasets",
}
# subpackages and public modules reachable as attributes of the package
_SUBMODULES = {
    "base",
    "registry",
    "calibrators",
    "meta",
    "metrics",
    "plotting",
    "datasets",
    "distributed",
    "experiments",
}
# every public module, for the API reference (its test checks each one is documented)
_PUBLIC_MODULES = sorted(
    {"base", "registry", "metrics", "plotting", "datasets", "distributed", "experiments"}
    | {f"calibrators.{m}" for m in _CALIBRATOR_MODULES}
    | {"meta.calibrated_classifier", "meta.probing"}
    | {"experiments.guide", "experiments.estimator_study"}
)

__all__ = sorted(_LAZY) + sorted(_SUBMODULES)


def __getattr__(name):
    if name in _SUBMODULES:
        return import_module(f"calibbook.{name}")
    if name in _LAZY:
        return getattr(import_module(_LAZY[name]), name)
    if name in _MOVED:
        return _import_moved(name)
    raise AttributeError(f"module 'calibbook' has no attribute {name!r}")


def __dir__():
    return __all__


def _import_moved(old):
    """The module at its new path, with a warning naming it (old paths work until 0.3)."""
    new = _MOVED[old]
    warnings.warn(
        f"calibbook.{old} moved to {new} in calibbook 0.2; the old path goes in 0.3. "
        "Import public names from calibbook itself (from calibbook import ENIR).",
        DeprecationWarning,
        stacklevel=3,
    )
    return import_module(new)


class _MovedModuleFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Lets ``import calibbook.platt`` (a 0.1 path) load ``calibbook.calibrators.platt``."""

    def find_spec(self, fullname, path=None, target=None):
        prefix, _, old = fullname.partition(".")
        if prefix == "calibbook" and old in _MOVED:
            return importlib.util.spec_from_loader(fullname, self)
        return None

    def create_module(self, spec):
        return _import_moved(spec.name.partition(".")[2])

    def exec_module(self, module):
        pass


sys.meta_path.append(_MovedModuleFinder())
