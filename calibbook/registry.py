"""The calibrators calibbook knows by name: one table for every place that names them.

Each entry gives the canonical name that ``CalibratedClassifier(method=...)`` takes,
the aliases it also accepts, the short label the book's tables print, the class, and
the parameters it gets when a meta-estimator fits it on a classifier's scores.
``CalibratedClassifier``, :mod:`calibbook.experiments` and the contract tests all read
this table, so a calibrator added here is accepted, compared and tested everywhere.

Examples
--------
>>> from calibbook.registry import calibrator_names, make_calibrator
>>> calibrator_names()
['sigmoid', 'temperature', 'isotonic', 'histogram', 'enir', 'bbq', 'kde', 'dpm',
 'scaling_binning', 'quadratic', 'centered_isotonic', 'venn_abers', 'beta', 'spline']
>>> make_calibrator("platt")
PlattScaling()
"""

from dataclasses import dataclass, field
from importlib import import_module

__all__ = [
    "CalibratorEntry",
    "calibrator_entry",
    "calibrator_names",
    "make_calibrator",
    "registered",
]


@dataclass(frozen=True)
class CalibratorEntry:
    """One registered calibrator.

    :doc:`/book/which_calibrator` says which to choose; :doc:`/book/08_comparison` compares
    the entries with ``compared=True``.

    Parameters
    ----------
    name : str
        Canonical name (``CalibratedClassifier``'s ``method``).
    label : str
        Short name in the book's tables (the ENIR paper's names where it has one).
    path : str
        ``"module:Class"`` inside calibbook, imported on first use.
    aliases : tuple of str
        Other names accepted for ``name``.
    meta_params : dict
        Parameters given when a meta-estimator builds it (on top of the class defaults).
    compared : bool
        Whether :func:`calibbook.experiments.all_calibrators` runs it in the comparison.

    Examples
    --------
    >>> from calibbook.registry import calibrator_entry
    >>> entry = calibrator_entry("isotonic")
    >>> entry.label, entry.cls.__name__
    ('IsoRegC', 'IsotonicCalibration')
    >>> entry.make(interpolation="linear")
    IsotonicCalibration(interpolation='linear')
    """

    name: str
    label: str
    path: str
    aliases: tuple = ()
    meta_params: dict = field(default_factory=dict)
    compared: bool = True

    @property
    def cls(self):
        """The calibrator class."""
        module, cls = self.path.split(":")
        return getattr(import_module(f"calibbook.{module}"), cls)

    def make(self, **params):
        """A new, unfitted calibrator with the class defaults updated by ``params``."""
        return self.cls(**params)


_REGISTRY = (
    CalibratorEntry("sigmoid", "Platt", "calibrators.platt:PlattScaling", aliases=("platt",)),
    # one parameter, no intercept; not in the ENIR comparison, which predates it
    CalibratorEntry("temperature", "Temp", "calibrators.platt:TemperatureScaling", compared=False),
    # linear interpolation inside a meta-estimator, as scikit-learn: continuous in the score,
    # so a score that moves by a rounding error cannot jump to the neighbouring PAV block
    CalibratorEntry(
        "isotonic",
        "IsoRegC",
        "calibrators.isotonic:IsotonicCalibration",
        meta_params={"interpolation": "linear"},
    ),
    CalibratorEntry(
        "histogram", "Hist", "calibrators.histogram_binning:HistogramBinning", aliases=("hist",)
    ),
    CalibratorEntry("enir", "ENIR", "calibrators.enir:ENIR"),
    CalibratorEntry("bbq", "BBQ", "calibrators.bbq:BBQ"),
    CalibratorEntry("kde", "KDE", "calibrators.kde:KDECalibration"),
    CalibratorEntry("dpm", "DPM", "calibrators.dpm:DPMCalibration"),
    # beyond the founding papers (issue 30)
    CalibratorEntry("scaling_binning", "ScBin", "calibrators.scaling_binning:ScalingBinning"),
    CalibratorEntry("quadratic", "Quad", "calibrators.quadratic:QuadraticScaling"),
    CalibratorEntry("centered_isotonic", "CIR", "calibrators.isotonic:CenteredIsotonicCalibration"),
    CalibratorEntry(
        "venn_abers", "VA", "calibrators.venn_abers:VennAbers", aliases=("venn-abers",)
    ),
    CalibratorEntry("beta", "Beta", "calibrators.beta:BetaCalibration"),
    CalibratorEntry("spline", "Spline", "calibrators.spline:SplineCalibration"),
)


def registered():
    """Every registered calibrator, in the order the book's tables list them.

    Returns
    -------
    list of CalibratorEntry
        One entry per calibrator; :doc:`/book/which_calibrator` helps to choose.

    Examples
    --------
    >>> from calibbook.registry import registered
    >>> [entry.label for entry in registered()][:3]
    ['Platt', 'Temp', 'IsoRegC']
    """
    return list(_REGISTRY)


def calibrator_names():
    """The canonical names, in registry order: the ``method`` names of ``CalibratedClassifier``.

    Returns
    -------
    list of str
        :doc:`/book/which_calibrator` describes each method.

    Examples
    --------
    >>> from calibbook.registry import calibrator_names
    >>> "enir" in calibrator_names()
    True
    """
    return [entry.name for entry in _REGISTRY]


def calibrator_entry(name):
    """The entry for a canonical name, an alias or a table label (case-insensitive).

    Parameters
    ----------
    name : str
        For example ``"sigmoid"``, its alias ``"platt"`` or its label ``"Platt"``.

    Returns
    -------
    CalibratorEntry
        The entry; :doc:`/book/which_calibrator` describes the methods.

    Raises
    ------
    ValueError
        If no calibrator has that name; the message lists the names.

    Examples
    --------
    >>> from calibbook.registry import calibrator_entry
    >>> calibrator_entry("Platt").name
    'sigmoid'
    """
    if isinstance(name, str):
        key = name.lower()
        for entry in _REGISTRY:
            if key in (entry.name, entry.label.lower(), *entry.aliases):
                return entry
    choices = ", ".join(repr(n) for n in calibrator_names())
    raise ValueError(f"unknown calibrator {name!r}; the registered names are {choices}.")


class RegisteredName:
    """A parameter constraint (in ``_utils.params``): a name :func:`calibrator_entry` knows."""

    def is_satisfied_by(self, value):
        try:
            calibrator_entry(value)
        except ValueError:
            return False
        return True

    def __str__(self):
        return "one of " + ", ".join(repr(n) for n in calibrator_names())


def make_calibrator(name, **params):
    """A new, unfitted calibrator by name (see :func:`calibrator_entry`), with ``params``.

    Parameters
    ----------
    name : str
        A registered name, alias or label.
    **params
        Constructor parameters of the calibrator.

    Returns
    -------
    BaseCalibrator
        Unfitted; :doc:`/book/which_calibrator` says which to choose.

    Raises
    ------
    ValueError
        If the name is unknown.

    Examples
    --------
    >>> from calibbook.registry import make_calibrator
    >>> make_calibrator("histogram", n_bins=5)
    HistogramBinning(n_bins=5)
    """
    return calibrator_entry(name).make(**params)
