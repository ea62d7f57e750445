"""Small numerical helpers shared by the calibrators: the sigmoid, the clipped logit, moments,
and the standard units in which the sigmoid-family fits run.

The sigmoid is scipy's ``expit`` (stable for any real input); nobody writes their own.
"""

import math
from typing import NamedTuple

import numpy as np
from scipy.special import expit

__all__ = [
    "LOGIT_EPS",
    "STANDARD_LIMIT",
    "StandardUnits",
    "clipped_logit",
    "expit",
    "standard_units",
    "weighted_mean_var",
]

#: Probabilities are clipped to [LOGIT_EPS, 1 - LOGIT_EPS], so logit(p) stays within about +-27.6.
LOGIT_EPS = 1e-12


def clipped_logit(p):
    """log(p / (1 - p)) of p clipped to [LOGIT_EPS, 1 - LOGIT_EPS]: finite for p in {0, 1}.

    >>> clipped_logit(np.array([0.5, 1.0])).round(2).tolist()
    [0.0, 27.63]
    """
    p = np.clip(p, LOGIT_EPS, 1.0 - LOGIT_EPS)
    return np.log(p) - np.log1p(-p)


def weighted_mean_var(x, w, *, ddof=0):
    """The weighted mean of ``x`` and its weighted variance (sum of squares / (W - ddof)).

    With integer weights this equals the mean and variance of the repeated rows.
    When W <= ddof the divisor falls back to W, so a single row has variance 0.

    >>> weighted_mean_var(np.array([1.0, 3.0]), np.array([1.0, 3.0]))
    (2.5, 0.75)
    """
    total = float(w.sum())
    mean = float(np.dot(w, x) / total)
    ss = float(np.dot(w, (x - mean) ** 2))
    return mean, ss / (total - ddof if total > ddof else total)


#: Scores in standard units are clipped to +-STANDARD_LIMIT (2**60): a score that far out is
#: saturated by any sigmoid that is not flat on the data, and its square stays finite.
STANDARD_LIMIT = 2.0**60

_SAMPLE = 1 << 14  # rows of the strided sample the centre and the spread are read from


def _times_power_of_two(x, exponent, out=None):
    """x * 2**exponent, exact while the result is a normal float (a multiply, or ldexp).

    A result beyond the float range is +-inf without a warning: callers clip it.
    """
    with np.errstate(over="ignore", under="ignore"):
        if -1074 <= exponent <= 1023:  # 2**exponent is a float: the multiply is the fast path
            return np.multiply(x, 2.0**exponent, out=out)
        return np.ldexp(x, exponent, out=out)


class StandardUnits(NamedTuple):
    """An affine change of units, x -> (x * 2**-shift - centre) * 2**-exponent.

    ``shift`` brings the largest magnitude into [0.5, 1) (so nothing after it overflows),
    ``centre`` is a robust centre in those units and ``2**exponent`` a robust spread,
    rounded to a power of two (so that dividing by it is exact). Built by
    :func:`standard_units`.
    """

    shift: int
    centre: float
    exponent: int

    def transform(self, x):
        """x in standard units, clipped to +-``STANDARD_LIMIT``; a new float64 array."""
        # (x 2^-s - c) 2^-e equals x 2^-(s+e) - c 2^-e: a power of two scales exactly
        z = _times_power_of_two(np.asarray(x, dtype=np.float64), -(self.shift + self.exponent))
        z = np.atleast_1d(z)
        if self.centre:
            z -= math.ldexp(self.centre, -self.exponent)
        return np.clip(z, -STANDARD_LIMIT, STANDARD_LIMIT, out=z)

    def user_slope(self, slope):
        """The slope on x of a map with ``slope`` in standard units (inf if it overflows)."""
        with np.errstate(over="ignore", under="ignore"):
            return float(np.ldexp(np.float64(slope), -(self.shift + self.exponent)))

    def user_intercept(self, slope, intercept):
        """The intercept on x of the map ``slope * z + intercept`` in standard units."""
        with np.errstate(over="ignore", invalid="ignore"):
            return float(intercept - slope * math.ldexp(self.centre, -self.exponent))


def standard_units(x, *, centred=True):
    """Robust standard units of a finite sample ``x``: a :class:`StandardUnits`.

    With ``centred``, the centre is the median and the spread the interquartile range;
    without, the centre is 0 and the spread the median of ``|x|`` (a change of scale
    only). Both are read from a strided sample of at most 2**14 rows: any centre and any
    positive spread give the same fit in exact arithmetic, so they need only be of the
    data's size. A zero spread falls back to the mean absolute deviation from the centre,
    and a constant sample (zero again) to the spread 1. Every value is first multiplied by
    a power of two that brings the largest magnitude into [0.5, 1), so nothing overflows,
    even near 1.8e308. For ``a > 0`` and ``b`` that keep ``a * x + b`` finite, the values of
    ``a * x + b`` in its own standard units are those of ``x`` times a factor in (1/2, 2), to
    rounding (the factor is 1 when ``a`` is a power of two): a fit in standard units and
    reported in the user's units therefore does not depend on the units of ``x``.

    >>> x = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    >>> standard_units(x).transform(x).tolist()
    [-1.0, -0.5, 0.0, 0.5, 1.0]
    >>> # far from zero, near the largest float
    >>> big = 2.0**1000 * x - 2.0**1020
    >>> standard_units(big).transform(big).tolist()
    [-1.0, -0.5, 0.0, 0.5, 1.0]
    """
    x = np.asarray(x, dtype=np.float64).ravel()
    largest = max(abs(float(x.max())), abs(float(x.min())))
    shift = int(np.frexp(largest)[1])  # 0 when largest == 0
    sample = _times_power_of_two(x[:: -(-x.size // _SAMPLE)], -shift)
    if centred:
        low, centre, high = (float(q) for q in np.percentile(sample, [25.0, 50.0, 75.0]))
        spread = high - low
    else:
        centre, spread = 0.0, float(np.median(np.abs(sample)))
    if not spread > 0.0:  # ties fill the middle half: every row's distance from the centre
        spread = float(np.mean(np.abs(_times_power_of_two(x, -shift) - centre)))
    exponent = int(np.frexp(spread)[1]) - 1 if spread > 0.0 else 0  # spread / 2^e in [1, 2)
    return StandardUnits(shift, centre, max(exponent, -1000))
