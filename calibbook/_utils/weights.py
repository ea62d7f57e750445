"""What a sample weight means in calibbook, and the warning when the weights say too little.

calibbook reads every sample weight as a **frequency**: a row of weight 2 counts as that
row seen twice, and a weight of 0.5 as half a row. This is the reading under which an
integer weight equals repeating the row, which scikit-learn's ``sample_weight`` and
``CalibratedClassifierCV`` share. Fits that count cases (Platt's smoothed targets, BBQ's
and ENIR's Bayesian scores, a bandwidth rule of thumb, a Dirichlet prior) therefore depend
on the weights' total as well as on their proportions, and see weights that sum to 1 as
*one* observation; fits that only average (PAV, histogram binning's bin means, temperature
scaling's likelihood) read the proportions alone. Either way the results move continuously
with the total (no formula divides by W - 1), and :func:`warn_low_total_weight` warns for
every calibrator when the total leaves fewer than two cases per bin, block or kernel.
Relative importances that should not shrink the data (weights normalised to sum to 1, say)
should first be rescaled to sum to the number of rows.
"""

import os
import sys
import warnings

__all__ = ["LowWeightWarning", "external_stacklevel", "warn_low_total_weight"]

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class LowWeightWarning(UserWarning):
    """The sample weights total fewer than two cases per bin, block or kernel.

    calibbook reads weights as frequencies (a weight of 2 is a row seen twice), so
    weights that sum to a small number describe a small sample: a fit that counts cases
    (a prior, a pseudo-count, a rule of thumb) smooths towards its prior or a single group,
    and any fit rests on that few cases. Rescale the weights (for example so
    that they sum to the number of rows) if they are relative importances.
    :doc:`/book/api/index` says which calibrators count their groups this way.

    Parameters
    ----------
    message : str
        Names the calibrator, the weights' total and the number of groups.

    Examples
    --------
    >>> import warnings
    >>> from calibbook import HistogramBinning, LowWeightWarning
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     _ = HistogramBinning(n_bins=5).fit([0.1, 0.4, 0.6, 0.9], [0, 0, 1, 1],
    ...                                        sample_weight=[0.25] * 4)
    >>> [w.category.__name__ for w in caught]
    ['LowWeightWarning']
    """


def external_stacklevel():
    """The ``stacklevel`` that points a warning at the first caller outside calibbook."""
    frame, level = sys._getframe(1), 1
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE_DIR):
        frame, level = frame.f_back, level + 1
    return level


def warn_low_total_weight(total_weight, n_groups, group, estimator):
    """Warn (:class:`LowWeightWarning`) when ``total_weight < 2 * n_groups``.

    Parameters
    ----------
    total_weight : float
        The sum of the sample weights.
    n_groups : int
        How many bins, blocks or kernels the fit shares the weight among (1 for a
        parametric fit such as a sigmoid: it warns below a total of two).
    group : str
        What one group is called ("bin", "block", "kernel"), for the message.
    estimator : str
        The calibrator's class name, for the message.

    Returns
    -------
    bool
        Whether it warned.
    """
    if not total_weight < 2.0 * n_groups:
        return False
    per_group = f" per {group} ({n_groups} {group}s)" if n_groups > 1 else ""
    warnings.warn(
        f"{estimator}: the sample weights total {total_weight:.3g}, fewer than two cases"
        f"{per_group}. calibbook reads weights as "
        "frequencies (a weight of 2 is a row seen twice), so this fit rests on "
        f"{total_weight:.3g} cases; if the weights are relative importances, rescale them to "
        "sum to the number of rows.",
        LowWeightWarning,
        stacklevel=external_stacklevel(),
    )
    return True
