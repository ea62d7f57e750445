"""Declarative checks of constructor parameters.

Each estimator lists what its parameters may be in a class attribute::

    _parameter_constraints = {
        "n_bins": [Interval(Integral, 1, None), Options("auto")],
        "logit_input": ["boolean"],
        "prune_alpha": [Interval(Real, 0, 1, closed="neither"), None],
    }

and :func:`validate_parameters` checks them all, once, when ``fit`` starts
(scikit-learn's convention: ``__init__`` only stores). A public function declares
its constraints in the same form with the :func:`validate_params` decorator, which
checks the arguments it is given before the body runs. A value passes when it
satisfies any one of its constraints; otherwise the :class:`InvalidParameterError`
(a ``ValueError`` and a ``TypeError``, as scikit-learn's) names the parameter, every
accepted form and the value received. Checks that tie two parameters together stay
in the estimator (``_check_parameter_combinations``) or the function body.
"""

import functools
import inspect
from numbers import Integral, Real

import numpy as np

__all__ = [
    "Choices",
    "Integral",
    "Interval",
    "InvalidParameterError",
    "Options",
    "Real",
    "TupleOf",
    "check_parameter",
    "check_random_state",
    "validate_parameters",
    "validate_params",
]


class InvalidParameterError(ValueError, TypeError):
    """A parameter's value is outside what it accepts.

    Both a ``ValueError`` and a ``TypeError``, like scikit-learn's
    ``InvalidParameterError``, so that code catching either (ours, scikit-learn's
    or a user's) sees it. :doc:`/book/api/index` lists the functions that raise it.

    Parameters
    ----------
    message : str
        Names the parameter, every accepted form and the value received.

    Examples
    --------
    >>> from calibbook import InvalidParameterError, expected_calibration_error
    >>> try:
    ...     expected_calibration_error([0, 1], [0.2, 0.7], n_bins=0)
    ... except InvalidParameterError as err:
    ...     print(err)
    n_bins must be an integer >= 1; got 0.
    """


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


class Choices:
    """One of a fixed set of names, or a list or tuple of them (an empty one included)."""

    def __init__(self, *values):
        self.values = values

    def is_satisfied_by(self, value):
        members = [value] if isinstance(value, str) else value
        if not isinstance(members, (list, tuple)):
            return False
        return all(isinstance(m, str) and m in self.values for m in members)

    def __str__(self):
        return "a name or a list of names among " + ", ".join(repr(v) for v in self.values)


class TupleOf:
    """A tuple of ``length`` items (each checked where the tuple is used)."""

    def __init__(self, length):
        self.length = length

    def is_satisfied_by(self, value):
        return isinstance(value, tuple) and len(value) == self.length

    def __str__(self):
        return f"a tuple of {self.length} values"


# what numpy's default_rng takes besides a seed (a SeedSequence's children seed the book's
# replications), and scikit-learn's legacy RandomState
_GENERATORS = (
    np.random.Generator,
    np.random.BitGenerator,
    np.random.SeedSequence,
    np.random.RandomState,
)


def _satisfies(constraint, value):
    if constraint is None:
        return value is None
    if isinstance(constraint, type):
        return isinstance(value, constraint)
    if constraint == "boolean":
        return isinstance(value, (bool, np.bool_))
    if constraint == "callable":
        return callable(value)
    if constraint == "random_state":
        if value is None or isinstance(value, _GENERATORS):
            return True
        is_int = isinstance(value, Integral) and not isinstance(value, (bool, np.bool_))
        return is_int and value >= 0
    if constraint == "estimator":
        return hasattr(value, "fit")
    if constraint == "calibrator":
        return hasattr(value, "fit") and hasattr(value, "predict")
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
    "random_state": (
        "None, a non-negative integer seed, a numpy Generator, BitGenerator, SeedSequence "
        "or RandomState"
    ),
    "estimator": "an estimator with a fit method",
    "calibrator": "a calibrator with fit and predict methods",
    "array-like": "an array",
    "splitter": "a cross-validation splitter or an iterable of (train, test) splits",
}


def _describe(constraint):
    if isinstance(constraint, type):
        return f"a {constraint.__name__}"
    return _NAMES[constraint] if isinstance(constraint, (str, type(None))) else str(constraint)


def check_parameter(value, name, constraints):
    """Return ``value`` if it satisfies any of ``constraints``; else raise InvalidParameterError.

    >>> check_parameter(3, "n_bins", [Interval(Integral, 1, None)])
    3
    >>> check_parameter(0, "n_bins", [Interval(Integral, 1, None), Options("auto")])
    Traceback (most recent call last):
    ...
    calibbook._utils.params.InvalidParameterError: n_bins must be an integer >= 1 or 'auto'; got 0.
    """
    if any(_satisfies(c, value) for c in constraints):
        return value
    accepted = [_describe(c) for c in constraints]
    described = (
        accepted[0] if len(accepted) == 1 else ", ".join(accepted[:-1]) + " or " + accepted[-1]
    )
    raise InvalidParameterError(f"{name} must be {described}; got {value!r}.")


def validate_parameters(estimator):
    """Check every constructor parameter of ``estimator`` against its class's constraints.

    Then call the estimator's ``_check_parameter_combinations()``, if it has one,
    for rules that tie parameters together.
    """
    constraints = getattr(type(estimator), "_parameter_constraints", {})
    if hasattr(estimator, "get_params"):
        params = estimator.get_params(deep=False)
    else:  # a dataclass such as ScoreGrid
        params = {name: getattr(estimator, name) for name in constraints}
    for name, value in params.items():
        if name in constraints:  # a user's subclass may declare none
            check_parameter(value, name, constraints[name])
    combinations = getattr(estimator, "_check_parameter_combinations", None)
    if combinations is not None:
        combinations()


def validate_params(constraints):
    """Decorate a public function: check its arguments against ``constraints`` first.

    ``constraints`` maps a parameter name to its list of accepted forms, as an
    estimator's ``_parameter_constraints``. Only the arguments given are checked
    (a default is valid by construction; the test of the declarations checks that).
    The declarations stay readable on the wrapper as ``__wrapped__`` and
    ``_parameter_constraints``.

    >>> @validate_params({"n": [Interval(Integral, 1, None)]})
    ... def halve(n):
    ...     return n / 2
    >>> halve(4)
    2.0
    >>> halve(0)
    Traceback (most recent call last):
    ...
    calibbook._utils.params.InvalidParameterError: n must be an integer >= 1; got 0.
    """

    def decorate(func):
        signature = inspect.signature(func)
        unknown = set(constraints) - set(signature.parameters)
        if unknown:  # a declaration that names no parameter is a bug in calibbook
            raise TypeError(f"{func.__qualname__} declares constraints for {sorted(unknown)}")

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            try:
                arguments = signature.bind(*args, **kwargs).arguments
            except TypeError:  # a wrong call: let Python say what is wrong
                return func(*args, **kwargs)
            for name, value in arguments.items():
                if name in constraints:
                    check_parameter(value, name, constraints[name])
            return func(*args, **kwargs)

        wrapper._parameter_constraints = constraints
        return wrapper

    return decorate


def check_random_state(random_state):
    """A :class:`numpy.random.Generator` from any accepted ``random_state``.

    None gives a fresh generator, a non-negative integer, a ``SeedSequence`` or a
    ``BitGenerator`` seeds one (as :func:`numpy.random.default_rng`), a ``Generator``
    is used as it is, and a legacy ``RandomState`` seeds a new generator with one
    draw (as scikit-learn's estimators consume it). The value must already satisfy
    the ``"random_state"`` constraint.

    >>> bool(check_random_state(0).integers(10) == np.random.default_rng(0).integers(10))
    True
    """
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, np.random.RandomState):
        return np.random.default_rng(random_state.randint(2**31 - 1))
    return np.random.default_rng(random_state)
