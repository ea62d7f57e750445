"""Small numerical helpers shared by the calibrators: the sigmoid, the clipped logit, moments.

The sigmoid is scipy's ``expit`` (stable for any real input); nobody writes their own.
"""

import numpy as np
from scipy.special import expit

__all__ = ["LOGIT_EPS", "clipped_logit", "expit", "weighted_mean_var"]

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
