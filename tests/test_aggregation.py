"""Fitting on unique (score, label) rows weighted by their counts gives the model of the raw rows.

This is what lets a distributed engine reduce 1e9 scored events to their sufficient
statistics before calibrating. Heavy ties make the check bite: many rows share a score,
some with both labels.
"""

import numpy as np
import pytest

from calibbook.bbq import BBQ
from calibbook.enir import ENIR
from calibbook.histogram_binning import HistogramBinning
from calibbook.isotonic import IsotonicCalibration
from calibbook.near_isotonic import NearIsotonicRegression
from calibbook.platt import PlattScaling

METHODS = {
    "isotonic": IsotonicCalibration,
    "near_isotonic": lambda: NearIsotonicRegression(lam=0.7),
    "enir": ENIR,
    "platt": PlattScaling,
    "histogram_quantile": HistogramBinning,
    "histogram_uniform": lambda: HistogramBinning(strategy="uniform"),
    "bbq": BBQ,
}


def aggregate(scores, y):
    """Unique (score, label) rows and their counts, as a groupby would give them."""
    rows, counts = np.unique(np.column_stack((scores, y)), axis=0, return_counts=True)
    return rows[:, 0], rows[:, 1], counts.astype(float)


@pytest.mark.parametrize("name", METHODS)
@pytest.mark.parametrize("seed", range(5))
def test_aggregated_rows_fit_like_raw_rows(name, seed):
    rng = np.random.default_rng(seed)
    n = 5000
    grid = np.round(rng.uniform(size=int(rng.integers(20, 200))), 3)  # heavy ties
    scores = rng.choice(grid, size=n)
    y = (rng.uniform(size=n) < 0.2 + 0.6 * scores).astype(float)
    s_agg, y_agg, counts = aggregate(scores, y)
    assert s_agg.size < n / 10
    raw = METHODS[name]().fit(scores, y)
    agg = METHODS[name]().fit(s_agg, y_agg, sample_weight=counts)
    probe = np.concatenate([grid, np.linspace(0, 1, 101)])
    np.testing.assert_allclose(agg.predict(probe), raw.predict(probe), atol=1e-9)
