"""Small data sets that several test modules share."""

import numpy as np


def tiny(n=60, seed=0):
    """A three-feature binary problem, the first feature informative: for the protocols."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = (X[:, 0] + 0.5 * rng.normal(size=n) > 0).astype(int)
    return X, y
