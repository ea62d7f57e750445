"""KDECalibration's binned predict before the compiled pass (np.interp on the grid), frozen: the
oracle of tests/unit/test_kde.py. Kept as it was, so do not tidy it.
"""

import numpy as np


def _old_binned_predict(cal, scores):
    """Frozen copy of ``predict`` on the binned path before the compiled pass."""
    scores = np.asarray(scores, dtype=float)
    if cal.out_of_bounds == "clip":
        scores = np.clip(scores, *cal.score_range_)
    x = cal._features(scores)
    lo, delta, n_grid, b_grid, a_grid = cal._grid
    grid = lo + delta * np.arange(n_grid)
    a = np.interp(x, grid, a_grid)
    b = np.interp(x, grid, b_grid)
    p = np.empty_like(x)
    ok = (x >= grid[0]) & (x <= grid[-1]) & (a + b >= cal._grid_floor)
    p[ok] = a[ok] / (a[ok] + b[ok])
    if not ok.all():
        p[~ok] = cal._posterior_gaussian_exact(x[~ok])
    return np.clip(p, 0.0, 1.0)
