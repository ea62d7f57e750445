"""Declarative checks of constructor parameters.

Each estimator lists what its parameters may be in a class attribute::

    _parameter_constraints = {
        "n_bins": [Interval(Integral, 1, None), Options("auto")],
        "logit_input": ["boolean"],
        "prune_alpha": [Interval(Real, 0, 1, closed="neither"), None],
    }

and :func:`validate_parameters` checks them all, once, when ``fit`` starts
(scikit-learn's convention: ``__init__`` only stores). A value passes when it
satisfies any one of its constraints; otherwise the ``ValueError`` names the
parameter, every accepted form and the value received. Checks that tie two
parameters together stay in the estimator (``_check_parameter_combinations``).
"""

from numbers import Integral, Real

import numpy as np

__all__ = ["Integral", "Interval", "Options", "Real", "check_parameter", "validate_parameters"]


class Interval:
    """Numbers of one kind (``Integral`` or ``Real``) between two bounds.

    ``left``/``right`` may be None (unbounded). ``closed`` is "both", "left",
    "right" or "neither". Real intervals accept only finite values; booleans
    are never numbers here.
    """

    def __init__(self, kind, left, right, *, closed="both"):
        if kind not in (Integral, Real):
            raise TypeError("kind must be numbers.Integral or numbers.Real")
        if closed not in ("both", "left", "right", "neither"):
            raise TypeError(f"closed must be 'both', 'left', 'right' or 'neither'; got {closed!r}")
        self.kind, self.left, self.right, self.closed = kind, left, right, closed

    def is_satisfied_by(self, value):
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, self.kind):
            return False
        if not np.isfinite(value):
            return False
        if self.left is not None:
            if value < self.left or (value == self.left and self.closed in ("right", "neither")):
                return False
        if self.right is not None:
            if value > self.right or (value == self.right and self.closed in ("left", "neither")):
                return False
        return True

    def __str__(self):
        noun = "an integer" if self.kind is Integral else "a finite number"
        lo_open = self.closed in ("right", "neither")
        hi_open = self.closed in ("left", "neither")
        if self.left is not None and self.right is not None:
            return (
                f"{noun} in {'(' if lo_open else '['}{self.left}, "
                f"{self.right}{')' if hi_open else ']'}"
            )
        if self.left is not None:
            return f"{noun} {'>' if lo_open else '>='} {self.left}"
        if self.right is not None:
            return f"{noun} {'<' if hi_open else '<='} {self.right}"
        return noun


class Options:
    """One of a fixed set of values (compared with ``==``, types must match)."""

    def __init__(self, *values):
        self.values = values

    def is_satisfied_by(self, value):
        return any(type(value) is type(v) and value == v for v in self.values)

    def __str__(self):
        if len(self.values) == 1:
            return repr(self.values[0])
        return "one of " + ", ".join(repr(v) for v in self.values)


def _satisfies(constraint, value):
    if constraint is None:
        return value is None
    if constraint == "boolean":
        return isinstance(value, (bool, np.bool_))
    if constraint == "callable":
        return callable(value)
    if constraint == "random_state":
        if value is None or isinstance(value, (np.random.RandomState, np.random.Generator)):
            return True
        return isinstance(value, Integral) and not isinstance(value, (bool, np.bool_))
    if constraint == "estimator":
        return hasattr(value, "fit")
    if constraint == "splitter":  # a cross-validation generator or an iterable of splits
        return hasattr(value, "split") or (
            hasattr(value, "__iter__") and not isinstance(value, str)
        )
    if constraint == "array-like":
        return hasattr(value, "__len__") or hasattr(value, "__array__")
    return constraint.is_satisfied_by(value)


_NAMES = {
    None: "None",
    "boolean": "a boolean",
    "callable": "a callable",
    "random_state": "None, an integer seed or a numpy random generator",
    "estimator": "an estimator with a fit method",
    "array-like": "an array",
    "splitter": "a cross-validation splitter or an iterable of (train, test) splits",
}


def _describe(constraint):
    return _NAMES[constraint] if isinstance(constraint, (str, type(None))) else str(constraint)


def check_parameter(value, name, constraints):
    """Return ``value`` if it satisfies any of ``constraints``; else raise ValueError.

    >>> check_parameter(3, "n_bins", [Interval(Integral, 1, None)])
    3
    >>> check_parameter(0, "n_bins", [Interval(Integral, 1, None), Options("auto")])
    Traceback (most recent call last):
    ...
    ValueError: n_bins must be an integer >= 1 or 'auto'; got 0.
    """
    if any(_satisfies(c, value) for c in constraints):
        return value
    accepted = [_describe(c) for c in constraints]
    described = (
        accepted[0] if len(accepted) == 1 else ", ".join(accepted[:-1]) + " or " + accepted[-1]
    )
    raise ValueError(f"{name} must be {described}; got {value!r}.")


def validate_parameters(estimator):
    """Check every constructor parameter of ``estimator`` against its class's constraints.

    Then call the estimator's ``_check_parameter_combinations()``, if it has one,
    for rules that tie parameters together.
    """
    constraints = getattr(type(estimator), "_parameter_constraints", {})
    for name, value in estimator.get_params(deep=False).items():
        if name in constraints:  # a user's subclass may declare none
            check_parameter(value, name, constraints[name])
    combinations = getattr(estimator, "_check_parameter_combinations", None)
    if combinations is not None:
        combinations()
