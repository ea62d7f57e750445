"""The clipped logit that calibrators with ``logit_input`` apply to probabilities."""

import numpy as np

#: Probabilities are clipped to [LOGIT_EPS, 1 - LOGIT_EPS], so logit(p) stays within about +-27.6.
LOGIT_EPS = 1e-12


def clipped_logit(p):
    """log(p / (1 - p)) of p clipped to [LOGIT_EPS, 1 - LOGIT_EPS]: finite for p in {0, 1}."""
    p = np.clip(p, LOGIT_EPS, 1.0 - LOGIT_EPS)
    return np.log(p) - np.log1p(-p)
