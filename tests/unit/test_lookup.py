"""The bucketed sorted lookup behind every step-map prediction, against np.searchsorted."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from calibbook._kernels.binning import bin_index
from calibbook._kernels.isotonic import linear_values, step_values

finite = st.floats(-1e6, 1e6, allow_nan=False, allow_subnormal=True)


def _check(edges, x):
    edges = np.sort(np.asarray(edges, dtype=np.float64))
    x = np.asarray(x, dtype=np.float64)
    np.testing.assert_array_equal(bin_index(edges, x), np.searchsorted(edges, x, side="right"))


@settings(max_examples=300, deadline=None)
@given(
    edges=hnp.arrays(np.float64, st.integers(0, 60), elements=finite),
    x=hnp.arrays(np.float64, st.integers(0, 400), elements=finite),
)
def test_matches_searchsorted(edges, x):
    # queries drawn freely, plus every edge itself and its neighbours (the tie cases)
    e = np.sort(edges)
    _check(e, np.concatenate([x, e, np.nextafter(e, -np.inf), np.nextafter(e, np.inf)]))


@settings(max_examples=100, deadline=None)
@given(
    base=finite,
    steps=hnp.arrays(np.int64, st.integers(8, 50), elements=st.integers(0, 3)),
    n_queries=st.integers(200, 2000),
    seed=st.integers(0, 2**32 - 1),
)
def test_edges_a_few_ulps_apart(base, steps, n_queries, seed):
    # edges clustered within ulps of each other: buckets degenerate, duplicates abound
    edges = np.array([base], dtype=np.float64)
    for k in np.cumsum(steps):
        edges = np.append(edges, np.nextafter(edges[-1], np.inf) if k % 2 else edges[-1])
    rng = np.random.default_rng(seed)
    x = rng.choice(
        np.concatenate([edges, np.nextafter(edges, -np.inf), np.nextafter(edges, np.inf)]),
        n_queries,
    )
    _check(edges, x)


def test_clustered_and_wide_edges():
    rng = np.random.default_rng(0)
    cases = [
        np.concatenate([rng.uniform(0, 1e-9, 5000), [1.0]]),  # all but one edge in the first bucket
        rng.beta(0.05, 0.05, 3000),  # piled at both ends
        np.repeat(rng.uniform(size=40), 25),  # heavy duplicates
        np.array([-1.5e308, 0.0, 1.5e308] * 4),  # range overflows to inf
        np.linspace(0, 1, 2_000_000),  # more edges than the bucket cap
    ]
    for edges in cases:
        edges = np.sort(edges)
        # halved bounds so that the width of the range never overflows
        x = np.concatenate(
            [
                rng.choice(edges, 5000),
                2 * rng.uniform(edges[0] / 2 - 0.5, edges[-1] / 2 + 0.5, 5000),
            ]
        )
        _check(edges, x)


def test_step_and_linear_values_match_numpy():
    rng = np.random.default_rng(1)
    knots = np.sort(rng.uniform(size=300))
    values = np.sort(rng.uniform(size=300))
    x = np.concatenate([rng.uniform(-0.5, 1.5, 20_000), knots])
    ref_step = values[np.maximum(np.searchsorted(knots, x, side="right") - 1, 0)]
    np.testing.assert_array_equal(step_values(knots, values, x), ref_step)
    np.testing.assert_allclose(
        linear_values(knots, values, x), np.interp(x, knots, values), rtol=0, atol=1e-12
    )
