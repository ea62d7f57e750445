"""The one-call report of the measures used throughout the founding papers."""

import warnings
from collections.abc import Mapping

import numpy as np

from calibbook._utils.optional import require
from calibbook._utils.params import Choices, Options, validate_params
from calibbook._utils.validation import check_probability_input
from calibbook._utils.weights import external_stacklevel
from calibbook.metrics._binned import (
    _ERROR_PARAMETERS,
    expected_calibration_error,
    maximum_calibration_error,
)
from calibbook.metrics._binned_estimators import debiased_calibration_error, ece_sweep
from calibbook.metrics._calibration_tests import (
    calibration_intercept_slope,
    hosmer_lemeshow_test,
    spiegelhalter_test,
)
from calibbook.metrics._smooth_ece import smooth_ece

__all__ = ["EXTRA_COLUMNS", "REPORT_COLUMNS", "calibration_report"]


REPORT_COLUMNS = ("AUC", "ACC", "RMSE", "ECE", "MCE", "Brier", "LogLoss")

#: The optional columns of :func:`calibration_report`: name -> (function, field of its
#: result or None), each function with its own defaults (bins of the debiased error and
#: the sweep: equal mass). Columns of one function share one call (intercept and slope).
EXTRA_COLUMNS = {
    "smECE": (smooth_ece, None),
    "dCE2": (debiased_calibration_error, None),
    "ECE_sweep": (ece_sweep, None),
    "intercept": (calibration_intercept_slope, "intercept"),
    "slope": (calibration_intercept_slope, "slope"),
    "Spiegelhalter_p": (spiegelhalter_test, "pvalue"),
    "HL_p": (hosmer_lemeshow_test, "pvalue"),
}


def _extra_columns(extra):
    """The optional columns asked for, as a tuple of names of EXTRA_COLUMNS."""
    if isinstance(extra, str):
        return tuple(EXTRA_COLUMNS) if extra == "all" else (extra,)
    return tuple(extra)


def _report_row(y_true, y_prob, n_bins, strategy, sample_weight, extra=(), model=None):
    where = "" if model is None else f" for y_prob[{model!r}]"
    try:
        y, p, w = check_probability_input(y_true, y_prob, sample_weight, require_both=True)
    except ValueError as exc:
        if model is None:
            raise
        raise ValueError(f"y_prob[{model!r}]: {exc}") from None
    row = _paper_measures(y, p, w, n_bins, strategy, sample_weight)
    results = {}
    for name in extra:
        func, field = EXTRA_COLUMNS[name]
        if func not in results:
            try:
                results[func] = func(y, p, sample_weight=w)
            except ValueError as exc:  # undefined on these data: a NaN, not a lost report
                results[func] = exc
                columns = ", ".join(c for c in extra if EXTRA_COLUMNS[c][0] is func)
                warnings.warn(
                    f"calibration_report: {columns} undefined{where}, reported as NaN. "
                    f"{func.__name__} says: {exc}",
                    UserWarning,
                    stacklevel=external_stacklevel(),
                )
        result = results[func]
        if isinstance(result, ValueError):
            row[name] = np.nan
        else:
            row[name] = result if field is None else getattr(result, field)
    return row


def _paper_measures(y, p, w, n_bins, strategy, sample_weight):
    from sklearn.metrics import accuracy_score, brier_score_loss, log_loss, roc_auc_score

    brier = brier_score_loss(y, p, sample_weight=w)
    binned_weight = None if sample_weight is None else w  # positional groups take no weights
    return {
        "AUC": roc_auc_score(y, p, sample_weight=w),
        # the positive class wins only a strict majority, as sklearn's argmax does
        "ACC": accuracy_score(y, p > 0.5, sample_weight=w),
        "RMSE": np.sqrt(brier),
        "ECE": expected_calibration_error(
            y, p, n_bins=n_bins, strategy=strategy, sample_weight=binned_weight
        ),
        "MCE": maximum_calibration_error(
            y, p, n_bins=n_bins, strategy=strategy, sample_weight=binned_weight
        ),
        "Brier": brier,
        "LogLoss": log_loss(y, p, sample_weight=w, labels=[0, 1]),
    }


@validate_params({**_ERROR_PARAMETERS, "extra": [Options("all"), Choices(*EXTRA_COLUMNS)]})
def calibration_report(
    y_true, y_prob, *, n_bins=10, strategy="uniform", sample_weight=None, extra=()
):
    """The papers' five measures (AUC, ACC, RMSE, ECE, MCE) plus Brier score and log-loss.

    :doc:`/book/01_measuring_calibration` defines all seven; every later chapter
    reports them. ``extra`` adds the estimators and tests that the binned ECE lacks.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Binary labels; both classes must be present (AUC needs them).
    y_prob : array-like of shape (n,), or a mapping {name: array-like}
        Predicted probabilities of one model, or of several models to compare.
    n_bins, strategy, sample_weight
        Passed to the ECE and MCE (see :func:`expected_calibration_error`);
        ``sample_weight`` also to the extra columns.
    extra : str or sequence of str, default=()
        Optional columns, after the seven, each with its function's defaults:
        ``"smECE"`` (:func:`smooth_ece`), ``"dCE2"`` (the debiased squared error
        of :func:`debiased_calibration_error`, which can be negative),
        ``"ECE_sweep"`` (:func:`ece_sweep`), ``"intercept"`` and ``"slope"``
        (:func:`calibration_intercept_slope`), ``"Spiegelhalter_p"`` and ``"HL_p"``
        (the p-values of :func:`spiegelhalter_test` and
        :func:`hosmer_lemeshow_test`), or ``"all"`` for every one.

    Returns
    -------
    pandas.Series (one model) or pandas.DataFrame (one row per model)
        ACC thresholds the probabilities at 0.5; RMSE is the square root of the
        Brier score, as in the papers; log-loss is clipped by scikit-learn.

    Raises
    ------
    ValueError
        If ``y_true`` holds a single class, ``y_prob`` is an empty mapping, ``extra``
        names an unknown column, or the inputs are invalid (as in
        :func:`calibbook.expected_calibration_error`); with a mapping, the message
        names the model whose predictions are invalid (a length that differs, say).

    Warns
    -----
    UserWarning
        When an extra column's function finds its measure undefined on the data (the
        intercept and slope of separable data, the Hosmer-Lemeshow test of a few
        cases, say): that column is NaN for that model, with the reason, and the
        rest of the report stands.

    References
    ----------
    Naeini & Cooper, ICDM 2016, Section IV-B (the five measures); Brier (1950);
    scikit-learn's ``roc_auc_score``, ``accuracy_score``, ``brier_score_loss`` and
    ``log_loss`` (Pedregosa et al., JMLR 12, 2011).

    Examples
    --------
    >>> from calibbook import calibration_report
    >>> report = calibration_report([0, 1, 1, 0], [0.1, 0.9, 0.8, 0.3])
    >>> report[["AUC", "ECE", "MCE"]].round(3).tolist()
    [1.0, 0.175, 0.3]
    >>> report = calibration_report([0, 1, 1, 0], {"a": [0.1, 0.9, 0.8, 0.3]})
    >>> list(report.columns)
    ['AUC', 'ACC', 'RMSE', 'ECE', 'MCE', 'Brier', 'LogLoss']
    >>> y = [0, 1, 1, 0, 1, 0, 0, 1]
    >>> p = [0.2, 0.7, 0.9, 0.4, 0.6, 0.1, 0.3, 0.8]
    >>> report = calibration_report(y, p, extra=["smECE", "Spiegelhalter_p"])
    >>> report[["smECE", "Spiegelhalter_p"]].round(3).tolist()
    [0.172, 0.155]
    """
    pd = require("pandas", "tables")

    extra = _extra_columns(extra)
    columns = list(REPORT_COLUMNS) + list(extra)
    if isinstance(y_prob, Mapping):
        if not y_prob:
            raise ValueError("y_prob is an empty mapping; give at least one model's predictions.")
        rows = {
            name: _report_row(y_true, p, n_bins, strategy, sample_weight, extra, model=name)
            for name, p in y_prob.items()
        }
        return pd.DataFrame.from_dict(rows, orient="index", columns=columns)
    row = _report_row(y_true, y_prob, n_bins, strategy, sample_weight, extra)
    return pd.Series(row, name="value")[columns]
