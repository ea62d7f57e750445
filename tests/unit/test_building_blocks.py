"""The building blocks that chapters import (made public for issue 16): checked against
independent references, and their errors at the edge."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.isotonic import IsotonicRegression

from calibbook.calibrators.bbq import bbq_bin_range
from calibbook.calibrators.dpm import quantile_responsibilities
from calibbook.calibrators.histogram_binning import auto_n_bins
from calibbook.calibrators.isotonic import pav_runs


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 5), st.floats(0, 1)), min_size=1, max_size=40))
def test_pav_runs_equals_scikit_learn_isotonic_fit(runs):
    weights = np.array([w for w, _ in runs], dtype=float)
    means = np.array([m for _, m in runs])
    ends, block_weight, block_sum = pav_runs(weights, weights * means)
    fitted = np.repeat(block_sum / block_weight, np.diff(np.concatenate(([0], ends))))
    oracle = IsotonicRegression().fit(np.arange(len(runs)), means, sample_weight=weights)
    np.testing.assert_allclose(fitted, oracle.predict(np.arange(len(runs))), atol=1e-12)
    # strictly increasing in the comparison the kernel makes (cross-multiplied, as computed);
    # the divided means may round to equal values
    assert np.all(block_sum[:-1] * block_weight[1:] < block_sum[1:] * block_weight[:-1])


@pytest.mark.parametrize(
    "weights, sums, match",
    [
        ([1.0, 0.0], [0.0, 0.0], "> 0"),
        ([1.0, np.nan], [0.0, 0.0], "NaN"),
        ([1.0], [0.0, 1.0], "entries"),
        ([1.0, -1.0], [0.0, 0.0], "non-negative"),
    ],
)
def test_pav_runs_rejects_bad_runs(weights, sums, match):
    with pytest.raises(ValueError, match=match):
        pav_runs(weights, sums)


def test_auto_n_bins_is_the_rounded_cube_root():
    for n in [0, 1, 7, 8, 26, 27, 999, 1000, 1331, 10**6]:
        assert auto_n_bins(n) == max(1, round(n ** (1 / 3) + 1e-9))
    with pytest.raises(ValueError, match="n_samples"):
        auto_n_bins(-1)


def test_bbq_bin_range_follows_the_reference_code():
    # build.m: B from max(1, floor(N^(1/3)/10)) to min(ceil(N/5), ceil(10 N^(1/3)))
    for n in [1, 5, 20, 1000, 5000, 10**6]:
        root = round(n ** (1 / 3), 9)
        lo = max(1, int(np.floor(root / 10)))
        assert bbq_bin_range(n) == (lo, max(lo, min(int(np.ceil(n / 5)), int(np.ceil(10 * root)))))
    with pytest.raises(ValueError, match="n must"):
        bbq_bin_range(0)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 9), st.integers(1, 3)), min_size=1, max_size=30),
    st.integers(1, 4),
)
def test_quantile_responsibilities_integer_weights_are_repeated_rows(rows, k):
    x = np.array([v for v, _ in rows], dtype=float) / 10
    w = np.array([c for _, c in rows], dtype=float)
    weighted = quantile_responsibilities(x, w, k)
    repeated = quantile_responsibilities(np.repeat(x, w.astype(int)), np.ones(int(w.sum())), k)
    np.testing.assert_array_equal(np.repeat(weighted, w.astype(int), axis=0), repeated)
    assert np.all(weighted.sum(axis=1) == 1)


def test_quantile_responsibilities_rejects_bad_input():
    with pytest.raises(ValueError, match="zero everywhere"):
        quantile_responsibilities([0.1, 0.2], [0.0, 0.0], 2)
    with pytest.raises(ValueError, match="n_components"):
        quantile_responsibilities([0.1, 0.2], [1.0, 1.0], 0)
