"""The bucketed sorted lookup behind every step-map prediction, against np.searchsorted."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from calibbook._kernels.binning import COMPILED_LOOKUP_FROM, bin_index, sorted_index
from calibbook._kernels.isotonic import linear_values, step_values
from calibbook._kernels.neariso.lookup import interpolate_knots, knot_values

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


# ------------------------------------------- issue 31: few queries use NumPy, many the kernels
def test_sorted_index_either_side_of_the_compiled_threshold():
    rng = np.random.default_rng(2)
    edges = np.sort(rng.uniform(size=500))
    for n in (0, 1, COMPILED_LOOKUP_FROM - 1, COMPILED_LOOKUP_FROM):
        x = np.concatenate([rng.uniform(-0.5, 1.5, n - min(n, 500)), edges[: min(n, 500)]])
        np.testing.assert_array_equal(sorted_index(edges, x), np.searchsorted(edges, x, "right"))


wide = st.floats(-1.7e308, 1.7e308, allow_nan=False, allow_subnormal=True)


@settings(max_examples=300, deadline=None)
@given(
    knots=hnp.arrays(np.float64, st.integers(1, 40), elements=wide, unique=True),
    values=hnp.arrays(np.float64, 40, elements=st.floats(0, 1)),
    x=hnp.arrays(np.float64, st.integers(0, 200), elements=wide),
)
def test_knot_values_in_numpy_equal_the_kernel(knots, values, x):
    # slopes as ENIR stores them: +-inf where knots a few subnormals apart overflow them
    kx = np.sort(knots)
    ky = values[: kx.size]
    slopes = np.zeros_like(ky)
    with np.errstate(over="ignore"):
        slopes[:-1] = np.diff(ky) / np.diff(kx)
    x = np.concatenate([x, kx, np.nextafter(kx, np.inf), np.nextafter(kx, -np.inf)])
    x = x[np.isfinite(x)]
    assert x.size < COMPILED_LOOKUP_FROM  # the NumPy path
    np.testing.assert_array_equal(
        knot_values(kx, ky, slopes, x), interpolate_knots(kx, ky, slopes, x)
    )


@pytest.mark.parametrize("interpolation", ["linear", "step"])
def test_enir_predicts_the_same_in_few_and_many_queries(interpolation):
    from calibbook.calibrators.enir import ENIR

    rng = np.random.default_rng(3)
    s = rng.uniform(size=3000)
    y = (rng.uniform(size=s.size) < s**2).astype(float)
    model = ENIR(interpolation=interpolation).fit(s, y)
    x = np.concatenate([rng.uniform(size=COMPILED_LOOKUP_FROM), s, [0.0, 1.0]])
    few = np.concatenate([model.predict(part) for part in np.array_split(x, 20)])
    np.testing.assert_array_equal(model.predict(x), few)
