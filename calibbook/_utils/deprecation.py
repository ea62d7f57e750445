"""Renamed public names keep working for one release, with a FutureWarning.

Each renaming is listed in CHANGELOG.md. ``renamed_parameter`` maps an old keyword
argument to its new name; ``renamed_attribute`` keeps a fitted attribute readable
under its old name.
"""

import functools
import warnings

__all__ = ["REMOVED_IN", "renamed_attribute", "renamed_parameter", "warn_renamed"]

#: The release that removes the old names.
REMOVED_IN = "0.3"


def warn_renamed(what, old, new, stacklevel=2):
    """The FutureWarning for a renamed ``what`` ("parameter", "attribute"), for the caller."""
    _warn(what, old, new, stacklevel + 1)


def _warn(what, old, new, stacklevel):
    warnings.warn(
        f"{what} {old!r} was renamed {new!r} in calibbook 0.2 and will be removed in "
        f"{REMOVED_IN}; use {new!r}.",
        FutureWarning,
        stacklevel=stacklevel + 1,
    )


def renamed_parameter(old, new):
    """Decorate a function whose keyword ``old`` is now ``new``: the old one warns.

    >>> @renamed_parameter("level", "confidence")
    ... def interval(*, confidence=0.95):
    ...     return confidence
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     interval(level=0.9), caught[0].category.__name__
    (0.9, 'FutureWarning')
    """

    def decorate(func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            if old in kwargs:
                if new in kwargs:
                    raise TypeError(f"{func.__name__}() got both {old!r} and its new name {new!r}")
                _warn("parameter", old, new, 2)
                kwargs[new] = kwargs.pop(old)
            return func(*args, **kwargs)

        return wrapper

    return decorate


def renamed_attribute(old, new):
    """A read-only property ``old`` that warns and returns the attribute ``new``."""

    def getter(self):
        _warn("attribute", old, new, 2)
        return getattr(self, new)

    return property(getter, doc=f"Deprecated alias of ``{new}`` (removed in {REMOVED_IN}).")
