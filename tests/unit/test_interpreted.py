"""Kernels run as Python (``_kernels.interpreted``) give the compiled kernels' results, bit
for bit, and the compiled kernel is chosen where it is cheap: compiled, cached or large."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from numba import njit

import calibbook._kernels.interpreted as interpreted
from calibbook import BBQ, ENIR, NearIsotonicRegression, VennAbers, near_isotonic_path
from calibbook._kernels.aggregate import merge_runs_with_sentinels, new_runs, weighted_runs
from calibbook._kernels.bits import bits_float, float_bits, leading_zeros
from calibbook._kernels.interpreted import compiling, for_size, python_version
from calibbook._kernels.neariso.models import blocks_at, exact_fits, model_average
from calibbook._kernels.neariso.path import scored_path


def _assert_identical(compiled, python):
    assert type(compiled) is type(python) or np.isscalar(compiled)
    if isinstance(compiled, tuple):
        for a, b in zip(compiled, python, strict=True):
            _assert_identical(a, b)
    else:
        a, b = np.asarray(compiled), np.asarray(python)
        assert a.dtype == b.dtype and a.shape == b.shape
        # bit patterns: equal floats, NaNs and signed zeros alike
        assert a.tobytes() == b.tobytes()


@njit
def _compiled_intrinsics(x, bits):
    return float_bits(x), bits_float(bits), leading_zeros(bits)


@settings(max_examples=300, deadline=None)
@given(
    x=st.floats(0.0, np.inf, allow_nan=False, allow_subnormal=True),
    bits=st.integers(-(2**63), 2**63 - 1),
)
def test_intrinsics_mean_the_same_in_python(x, bits):
    got = _compiled_intrinsics(np.float64(x), np.int64(bits))
    want = (
        float_bits.python_equivalent(np.float64(x)),
        bits_float.python_equivalent(np.int64(bits)),
        leading_zeros.python_equivalent(np.int64(bits)),
    )
    assert got[0] == want[0] and got[2] == want[2]
    assert np.float64(got[1]).tobytes() == np.float64(want[1]).tobytes()


@st.composite
def runs(draw):
    """Sorted runs: weights (integer or real), sums in [0, w] (fractions of positives) with
    many equal and near-equal neighbouring means, and optional separate score sums."""
    n = draw(st.integers(0, 60))
    integer = draw(st.booleans())
    if integer:
        w = draw(hnp.arrays(np.float64, n, elements=st.integers(1, 5).map(float)))
    else:
        w = draw(hnp.arrays(np.float64, n, elements=st.floats(0.01, 10.0)))
    levels = draw(st.integers(1, 6))
    frac = draw(hnp.arrays(np.float64, n, elements=st.integers(0, levels))) / levels
    jitter = draw(hnp.arrays(np.float64, n, elements=st.sampled_from([0.0, 0.0, 1e-13, 1e-3])))
    sums = w * np.clip(frac + jitter, 0.0, 1.0)
    score = draw(st.sampled_from([0, 1, 2]))
    score_sums = (
        draw(hnp.arrays(np.float64, n, elements=st.floats(-3.0, 3.0)))
        if score == 2 and draw(st.booleans())
        else np.empty(0)
    )
    return w, sums, score_sums, score


@settings(max_examples=400, deadline=None)
@given(case=runs())
def test_scored_path_as_python_is_the_compiled_path(case):
    w, sums, score_sums, score = case
    args = (w, sums, score_sums, np.int64(score), 1e-12, 1e-12)
    _assert_identical(scored_path(*args), python_version(scored_path)(*args))


def _same_in_both_modes(run, case, monkeypatch):
    """``run(*case)`` as Python (``as_python`` in force), then compiled: identical results."""
    python = run(*case)
    monkeypatch.undo()
    with compiling():
        compiled = run(*case)
    _assert_identical(compiled, python)


@pytest.fixture
def as_python(monkeypatch):
    """Every kernel behind for_size runs as Python, whatever is compiled or cached."""
    monkeypatch.setattr(interpreted, "INTERPRET_BELOW", 1 << 40)
    monkeypatch.setattr(interpreted, "_compiled_or_cached", lambda kernel: False)


def _scores(seed, n, ties, normal):
    """A generator and n scores (normal, or in [0, 1]), rounded to ``ties`` decimals if set."""
    rng = np.random.default_rng(seed)
    s = rng.normal(size=n) if normal else rng.beta(0.6, 0.9, n)
    return rng, np.round(s, ties) if ties else s


def _enir_case(seed, n, ties, weighted, options):
    rng, s = _scores(seed, n, ties, normal=False)
    y = (rng.random(n) < s**1.4).astype(float)
    y[:2] = [0.0, 1.0]  # both classes
    w = rng.uniform(0.2, 3.0, n) if weighted else None
    model = ENIR(**options).fit(s, y, sample_weight=w)
    grid = np.concatenate([s, np.linspace(0.0, 1.0, 301)])
    return (
        model.predict(grid),
        model.model_weights_,
        model.model_scores_,
        model.model_lambdas_,
        model.step_values_,
    )


ENIR_CASES = [
    (seed, n, ties, weighted, options)
    for seed, (n, ties, weighted) in enumerate(
        [
            (2, None, False),
            (50, None, False),
            (300, 2, False),
            (1000, None, False),
            (1000, 3, True),
            (3000, None, True),
            (2000, 1, False),
        ]
    )
    for options in ({}, {"criterion": "aicc", "prune": "elbow"}, {"interpolation": "step"})
]


@pytest.mark.parametrize("case", ENIR_CASES, ids=str)
def test_enir_fit_as_python_is_the_compiled_fit(case, as_python, monkeypatch):
    assert for_size(scored_path, 1 << 20) is python_version(scored_path)
    _same_in_both_modes(_enir_case, case, monkeypatch)


def _near_isotonic_case(seed, n, ties, binary, weighted):
    rng, s = _scores(seed, n, ties, normal=True)
    y = (
        (rng.random(n) < 1 / (1 + np.exp(-2 * s))).astype(float)
        if binary
        else s + rng.normal(size=n)
    )
    w = rng.uniform(0.2, 3.0, n) if weighted else None
    path = near_isotonic_path(s, y, sample_weight=w)
    lams = np.concatenate(
        [[0.0, 0.3, 1e9], path.breakpoints[:: max(1, path.breakpoints.size // 7)]]
    )
    grid = np.concatenate([s, np.linspace(-4, 4, 301)])
    out = [path.scores, path.merge_lam, path.merge_left, path.merge_right, path.merge_coef]
    out += [path.event_lam, path.event_left, path.initial_coef]
    out += [path.fitted(lam) for lam in lams]
    for lam, interpolation in (("bic", "linear"), (0.5, "step"), (2.0, "linear")):
        model = NearIsotonicRegression(lam=lam, interpolation=interpolation)
        out += [model.fit(s, y, sample_weight=w).predict(grid), np.float64(model.lam_)]
    return tuple(out)


NEAR_ISOTONIC_CASES = [
    (seed, n, ties, binary, weighted)
    for seed, (n, ties, binary, weighted) in enumerate(
        [
            (3, None, False, False),
            (200, 1, False, True),
            (1000, None, True, False),
            (1000, 2, True, True),
            (2500, None, False, False),
        ]
    )
]


@pytest.mark.parametrize("case", NEAR_ISOTONIC_CASES, ids=str)
def test_near_isotonic_as_python_is_the_compiled_regression(case, as_python, monkeypatch):
    _same_in_both_modes(_near_isotonic_case, case, monkeypatch)


def _venn_abers_case(seed, n, ties, weighted, options):
    rng, s = _scores(seed, n, ties, normal=True)
    y = (rng.random(n) < 1 / (1 + np.exp(-s))).astype(float)
    y[:2] = [0.0, 1.0]
    w = rng.integers(1, 4, n).astype(float) if weighted else None
    model = VennAbers(**options).fit(s, y, sample_weight=w)
    grid = np.concatenate([s, np.linspace(-4, 4, 301)])
    p0, p1 = model.predict_interval(grid)
    return model.predict(grid), p0, p1, *model.p0_, *model.p1_


VENN_ABERS_CASES = [
    (seed, n, ties, weighted, options)
    for seed, (n, ties, weighted) in enumerate(
        [(6, None, False), (300, 1, True), (2000, None, False)]
    )
    for options in ({}, {"cv": 3, "random_state": 0}, {"loss": "brier"})
]


@pytest.mark.parametrize("case", VENN_ABERS_CASES, ids=str)
def test_venn_abers_as_python_is_the_compiled_fit(case, as_python, monkeypatch):
    _same_in_both_modes(_venn_abers_case, case, monkeypatch)


def _bbq_case(seed, n, ties, weights, options):
    rng, s = _scores(seed, n, ties, normal=False)
    y = (rng.random(n) < s).astype(float)
    y[:2] = [0.0, 1.0]
    w = {
        None: None,
        "integer": rng.integers(0, 4, n).astype(float),
        "real": rng.uniform(0.2, 3.0, n),
        "equal": np.full(n, 0.7),  # a total that is not an integer: a target per cut
    }[weights]
    model = BBQ(**options).fit(s, y, sample_weight=w)
    grid = np.concatenate([s, np.linspace(0.0, 1.0, 301)])
    return model.predict(grid), model.thresholds_, model.step_values_, model.model_weights_


BBQ_CASES = [
    (seed, n, ties, weights, options)
    for seed, (n, ties, weights) in enumerate(
        [
            (5, None, None),
            (400, 2, "integer"),
            (3000, None, None),
            (2000, 1, "real"),
            (184, None, "equal"),
        ]
    )
    for options in ({}, {"prune": "elbow", "prior_strength": 0.7})
]


@pytest.mark.parametrize("case", BBQ_CASES, ids=str)
def test_bbq_sweeps_and_map_as_python_are_the_compiled_ones(case, as_python, monkeypatch):
    _same_in_both_modes(_bbq_case, case, monkeypatch)


@settings(max_examples=100, deadline=None)
@given(
    values=hnp.arrays(np.float64, st.integers(0, 80), elements=st.sampled_from([0.1, 0.5, 0.7])),
    labels=hnp.arrays(np.float64, 80, elements=st.sampled_from([0.0, 1.0])),
    weights=hnp.arrays(np.float64, 80, elements=st.sampled_from([0.0, 0.5, 1.0, 2.5])),
)
def test_runs_as_python_are_the_compiled_runs(values, labels, weights):
    from calibbook._utils.binning import split_sorted

    labels, weights = labels[: values.size], weights[: values.size]
    buf, n_neg = split_sorted(values, labels)
    cases = [
        (merge_runs_with_sentinels, (buf, n_neg)),
        (weighted_runs, (values, weights, labels, np.argsort(values))),
    ]
    for kernel, args in cases:
        compiled, python = new_runs(values.size), new_runs(values.size)
        n_runs = kernel(*args, compiled)
        assert python_version(kernel)(*args, python) == n_runs
        _assert_identical(tuple(a[:n_runs] for a in compiled), tuple(a[:n_runs] for a in python))


def test_python_version_swaps_callees_and_keeps_the_kernel():
    python = python_version(scored_path)
    assert python is python_version(scored_path)  # built once
    assert python.__code__ is scored_path.py_func.__code__
    # its callees (inlined ones too) are swapped in its globals, down the calls; the
    # module's own globals still hold the compiled kernels
    module = scored_path.py_func.__globals__
    solve = python.__globals__["_solve_segments"]
    assert solve is python_version(module["_solve_segments"])
    assert solve.__globals__["_segment_path"] is python_version(module["_segment_path"])
    assert type(module["_segment_path"]) is type(scored_path)
    for kernel in (blocks_at, exact_fits, model_average):
        assert python_version(kernel).__name__ == kernel.__name__


_CHILD = """
import json, sys
import numpy as np
from calibbook._kernels.interpreted import for_size, INTERPRET_BELOW, _compiled_or_cached
from calibbook._kernels.neariso.models import blocks_at as kernel
if sys.argv[1] == "stale":  # as if the kernel's source file had changed since it was cached
    kernel._cache._cache_file._source_stamp = (0.0, 0)
out = {"small": for_size(kernel, 10) is kernel,
       "large": for_size(kernel, INTERPRET_BELOW) is kernel,
       "cached_before": _compiled_or_cached(kernel)}
if sys.argv[1] == "compile":
    w = np.ones(3)
    kernel(w, w, w, w, np.array([0, 3]), 1e-12)
    out["after_compiling"] = for_size(kernel, 10) is kernel
print(json.dumps(out))
"""


def test_for_size_interprets_only_what_is_neither_compiled_nor_cached(tmp_path):
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}

    def child(step):
        done = subprocess.run(
            [sys.executable, "-c", _CHILD, step], env=env, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)

    fresh = child("compile")  # an empty cache: small problems interpreted until compiled
    assert fresh == {
        "small": False,
        "large": True,
        "cached_before": False,
        "after_compiling": True,
    }
    # a new process finds numba's index on disk (the private attribute it reads is there)
    assert child("look") == {"small": True, "large": True, "cached_before": True}
    # an index written for another version of the source does not count
    assert child("stale") == {"small": False, "large": True, "cached_before": False}


_FIRST_FIT = """
import json
import numpy as np
from numba.core import event
from calibbook import ENIR, NearIsotonicRegression, VennAbers, near_isotonic_path

compiled = []

class Count(event.Listener):
    def on_start(self, ev):
        pass

    def on_end(self, ev):
        compiled.append(ev.data["dispatcher"].py_func.__qualname__)

event.register("numba:compile", Count())
rng = np.random.default_rng(0)
s = rng.random(1000)
y = (rng.random(1000) < s).astype(float)
for options in ({}, {"interpolation": "step"}):
    ENIR(**options).fit(s, y).predict(s)
    ENIR(**options).fit(s, y, sample_weight=rng.uniform(0.5, 2.0, 1000)).predict(s)
for options in ({}, {"cv": 3}):
    VennAbers(**options).fit(s, y).predict(s)
for target in (y, s + rng.normal(size=1000)):
    NearIsotonicRegression().fit(s, target).predict(s)
    path = near_isotonic_path(s, target)
    path.fitted(0.5), path.event_lam, path.initial_coef
print(json.dumps(compiled))
"""


def test_a_first_fit_of_enir_near_isotonic_or_venn_abers_on_an_empty_cache_compiles_nothing(
    tmp_path,
):
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-c", _FIRST_FIT], env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == []
