"""Comparison experiments: protocols, Demšar's statistics and the paper's tables.

Three layers, each a submodule usable on its own; every public name is importable from
``calibbook.experiments`` itself.

* **Protocols** (:mod:`calibbook.experiments.protocols`) -- :func:`repeated_cv_protocol`
  (the ENIR paper's: repeated stratified k-fold, the base classifier *and* every
  calibrator fitted on the training folds, evaluated on the test fold) and
  :func:`holdout_calibration_protocol` (Niculescu-Mizil & Caruana: the calibrators see a
  separate calibration split the base classifier never saw), with the calibrators they
  compare (from ``calibbook.registry``) and the base classifiers. Both return a tidy
  :class:`pandas.DataFrame` with columns ``dataset, classifier, method, repeat, fold,
  measure, value`` and cache their results on disk, one CSV file per (data set,
  classifier), keyed by a hash of everything that determines the numbers (including
  calibbook's own source code); the cache lives in the user's cache directory (see
  :func:`repeated_cv_protocol`'s ``cache_dir``), never inside the package.
* **Statistics** (:mod:`calibbook.experiments.statistics`; Demšar, JMLR 2006) --
  :func:`average_ranks`, :func:`friedman_test` (Friedman chi-square and Iman--Davenport F),
  :func:`holm_test` (step-down comparisons with a control fixed in advance),
  :func:`nemenyi_critical_difference` with :func:`rank_difference_se` (its tie-corrected
  standard error), :func:`best_group` (the methods no test separates from the best) and
  :func:`group_exclusion_rate` (a simulation of how often that group drops a tied method).
* **Tables** (:mod:`calibbook.experiments.tables`) -- :func:`rank_table` (Tables IV--VI of
  Naeini & Cooper, ICDM 2016, with significance marks), :func:`improvement_ci` (their
  Table II) and :func:`fit_time_table` (measured counterpart of their Table VII).

Beside them, :mod:`calibbook.experiments.estimator_study` is the simulation study of the
estimator appendix (:doc:`/book/appendix_estimators`: which calibration-error estimator to
trust at which sample size); its names stay in that submodule, since they concern the
measures rather than the calibrators.

The measures below are the vocabulary the three layers share, so they are defined here,
before the layers are imported.
"""

#: Measures computed on every test fold. The first seven are those of
#: :func:`calibbook.metrics.calibration_report` (ECE and MCE with equal-width bins); ``ECE_pos``
#: and ``MCE_pos`` use the positional groups of the authors' evaluation code. ``smECE`` is the
#: smooth ECE (:func:`calibbook.metrics.smooth_ece`, automatic bandwidth) and ``dCE2`` the
#: debiased squared binned error (:func:`calibbook.metrics.debiased_calibration_error`, equal-mass
#: bins, as many as for the ECE but at most half the test rows), kept signed and squared so
#: that its mean over folds stays an unbiased estimate.
MEASURES = (
    "AUC",
    "ACC",
    "RMSE",
    "ECE",
    "MCE",
    "Brier",
    "LogLoss",
    "ECE_pos",
    "MCE_pos",
    "smECE",
    "dCE2",
)
#: Measures for which a larger value is better; all the others are errors.
HIGHER_IS_BETTER = frozenset({"AUC", "ACC"})
#: Extra measure: seconds spent in the calibrator's ``fit`` (not a quality measure).
FIT_TIME = "FitTime"

# The layers import the measures above from this package, so they come after them.
# estimator_study keeps its names to itself (F401)
from calibbook.experiments import estimator_study, protocols, statistics, tables  # noqa: E402, F401
from calibbook.experiments.protocols import *  # noqa: E402, F403
from calibbook.experiments.statistics import *  # noqa: E402, F403
from calibbook.experiments.tables import *  # noqa: E402, F403

__all__ = ["MEASURES", "HIGHER_IS_BETTER", *protocols.__all__, *statistics.__all__, *tables.__all__]
