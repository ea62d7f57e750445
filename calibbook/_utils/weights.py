"""What a sample weight means in calibbook, and the warning when the weights say too little.

calibbook reads every sample weight as a **frequency**: a row of weight 2 counts as that
row seen twice, and a weight of 0.5 as half a row. This is the reading under which an
integer weight equals repeating the row, which scikit-learn's ``sample_weight`` and
``CalibratedClassifierCV`` share, so every calibrator's fit depends on the weights' total
as well as on their proportions. Rules that count cases (Platt's smoothed targets, BBQ's
and ENIR's Bayesian scores, a bandwidth rule of thumb, a Dirichlet prior) therefore see
weights that sum to 1 as *one* observation, and smooth accordingly. The results move
continuously with the total (no formula divides by W - 1), and
:func:`warn_low_total_weight` says so when the total leaves fewer than two cases per bin,
block or kernel. Relative importances that should not shrink the data (weights normalised
to sum to 1, say) should first be rescaled to sum to the number of rows.
"""

import os
import sys
import warnings

__all__ = ["LowWeightWarning", "external_stacklevel", "warn_low_total_weight"]

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class LowWeightWarning(UserWarning):
    """The sample weights total fewer than two cases per bin, block or kernel.

    calibbook reads weights as frequencies (a weight of 2 is a row seen twice), so
    weights that sum to a small number describe a small sample, and the calibrator
    smooths towards its prior or a single group. Rescale the weights (for example so
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
        How many bins, blocks or kernels the fit shares the weight among.
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
    warnings.warn(
        f"{estimator}: the sample weights total {total_weight:.3g}, fewer than two cases per "
        f"{group} ({n_groups} {group}{'s' if n_groups != 1 else ''}). calibbook reads weights as "
        "frequencies (a weight of 2 is a row seen twice), so this fit describes a sample of "
        f"{total_weight:.3g} cases and smooths accordingly; if the weights are relative "
        "importances, rescale them to sum to the number of rows.",
        LowWeightWarning,
        stacklevel=external_stacklevel(),
    )
    return True
