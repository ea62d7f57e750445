"""Measures of calibration and discrimination for binary probabilistic predictions.

scikit-learn already provides AUC, accuracy, the Brier score and the log-loss;
this package reuses them and adds what it lacks. Each family lives in a private
module; this facade is the public path to all of them:

- binned errors (``_binned``): ECE and MCE of Naeini, Cooper & Hauskrecht,
  reliability curves with binomial intervals, Murphy's Brier decomposition;
- estimators beyond the binned ECE (``_binned_estimators``, ``_smooth_ece``):
  the debiased squared error, the ECE sweep, the smooth ECE;
- tests and bands (``_calibration_tests``, ``_consistency_bands``): calibration
  intercept and slope, Spiegelhalter's and Hosmer-Lemeshow's tests, consistency
  bands;
- the one-call report of the papers' measures (``_report``);
- CORP reliability curves, their bands and score decompositions (``_corp``), and
  bootstrap confidence intervals of any scalar measure (``_bootstrap``).
"""

from calibbook.metrics._binned import (
    ERROR_STRATEGIES,  # noqa: F401 (the binnings the ECE accepts)
    brier_decomposition,
    expected_calibration_error,
    maximum_calibration_error,
    reliability_curve,
)
from calibbook.metrics._binned_estimators import debiased_calibration_error, ece_sweep
from calibbook.metrics._bootstrap import bootstrap_ci
from calibbook.metrics._calibration_tests import (
    calibration_intercept_slope,
    hosmer_lemeshow_test,
    spiegelhalter_test,
)
from calibbook.metrics._consistency_bands import consistency_bands
from calibbook.metrics._corp import (
    corp_confidence_bands,
    corp_consistency_bands,
    corp_decomposition,
    corp_reliability,
)
from calibbook.metrics._report import (  # noqa: F401 (the report's columns)
    EXTRA_COLUMNS,
    REPORT_COLUMNS,
    calibration_report,
)
from calibbook.metrics._smooth_ece import smooth_ece, smooth_reliability_curve

__all__ = [
    "bootstrap_ci",
    "brier_decomposition",
    "calibration_intercept_slope",
    "calibration_report",
    "consistency_bands",
    "corp_confidence_bands",
    "corp_consistency_bands",
    "corp_decomposition",
    "corp_reliability",
    "debiased_calibration_error",
    "ece_sweep",
    "expected_calibration_error",
    "hosmer_lemeshow_test",
    "maximum_calibration_error",
    "reliability_curve",
    "smooth_ece",
    "smooth_reliability_curve",
    "spiegelhalter_test",
]
