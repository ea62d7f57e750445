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


@pytest.mark.parametrize("seed", range(2))
def test_kde_and_dpm_on_aggregated_rows(seed):
    """What holds for the two density methods (chapter 9).

    KDE: the kernel sums, class weights and bandwidth rules are all weighted sums, so a fixed
    evaluation method gives the raw fit to rounding. With method="auto" the choice between the
    exact and the binned Gaussian sums depends on the number of rows, which aggregation
    changes: the fits then agree only to binned_tol. DPM: tied rows start in the same component
    and keep equal responsibilities, so the weighted coordinate ascent has the same iterates.
    """
    from calibbook.dpm import DPMCalibration
    from calibbook.kde import KDECalibration

    rng = np.random.default_rng(seed)
    n = 4000
    grid = np.round(rng.uniform(size=int(rng.integers(50, 200))), 3)
    scores = rng.choice(grid, size=n)
    y = (rng.uniform(size=n) < 0.2 + 0.6 * scores).astype(float)
    s_agg, y_agg, counts = aggregate(scores, y)
    probe = np.concatenate([grid, np.linspace(-0.5, 1.5, 201)])

    def gap(make):
        raw, agg = make().fit(scores, y), make().fit(s_agg, y_agg, sample_weight=counts)
        return np.abs(agg.predict(probe) - raw.predict(probe)).max(), raw, agg

    for method in ("exact", "binned"):
        assert gap(lambda: KDECalibration(method=method))[0] < 1e-9
    assert gap(lambda: KDECalibration(kernel="epanechnikov"))[0] < 1e-9
    diff, raw, agg = gap(KDECalibration)
    assert (raw.method_, agg.method_) == ("binned", "exact")  # 4000 rows, < 2000 unique
    assert diff <= raw.binned_tol
    diff, raw, agg = gap(lambda: DPMCalibration(max_iter=200))
    assert [m.n_iter_ for m in raw.mixtures_] == [m.n_iter_ for m in agg.mixtures_]
    assert diff < 1e-9
