"""python -m calibbook.warmup compiles every kernel exactly once, and a second run compiles none.

Each check runs in a fresh interpreter whose NUMBA_CACHE_DIR is an empty folder: the state of
a fresh install. The warm-up must reach every kernel of calibbook._kernels (a kernel it
misses compiles in the user's first fit instead), and each kernel must compile to one
specialization (a second one, from a literal argument, another dtype or a read-only array,
doubles its compile time and is missed by a cache warmed with the first), also when the
calibrators then see strided, read-only, float32, boolean or list inputs.
"""

import json
import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.cold_compile

_CHILD = """
import json, warnings
import numpy as np
from calibbook.registry import registered
from calibbook.warmup import kernel_dispatchers, warm
report = warm(progress=False)
# inputs of other kinds must reach the same specializations: validation normalises them
rng = np.random.default_rng(1)
table = rng.uniform(size=(300, 2))
strided = table[:, 1]  # a column of predict_proba's output: not contiguous
labels = (rng.uniform(size=300) < strided).astype(np.int64)
read_only = strided.copy()
read_only.flags.writeable = False  # as pandas' to_numpy gives under copy-on-write
kinds = [
    (strided, labels, None),
    (read_only, labels.astype(bool), read_only + 1.0),
    (strided.astype(np.float32), list(labels), None),
]
kinds[1][2].flags.writeable = False
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    for s, y, w in kinds:
        for entry in registered():
            entry.make().fit(s, y, sample_weight=w).predict(s)
dispatchers = kernel_dispatchers()
print(json.dumps({
    "compiled": report.compiled,
    "loaded": report.loaded,
    "cache": report.cache,
    "kernels": len(dispatchers),
    "never": sorted(k for k, d in dispatchers.items() if not d.signatures),
    "several": {k: [str(s) for s in d.signatures] for k, d in dispatchers.items()
                if len(d.signatures) > 1},
}))
"""


def _warm_in_fresh_process(cache_dir):
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache_dir), "OPENBLAS_NUM_THREADS": "1"}
    out = subprocess.run(
        [sys.executable, "-c", _CHILD], env=env, capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """The warm-up twice, in two fresh processes over one cache folder, empty at first."""
    cache_dir = tmp_path_factory.mktemp("numba-cache")
    first = _warm_in_fresh_process(cache_dir)
    second = _warm_in_fresh_process(cache_dir)
    return cache_dir, first, second


def test_warmup_reaches_every_kernel_once(runs):
    _, first, _ = runs
    assert first["never"] == [], (
        "kernels the warm-up never compiles (add the calibrator option or measure that "
        f"reaches them to calibbook/warmup.py): {first['never']}"
    )
    several = first["several"]
    assert several == {}, f"kernels compiled to several specializations: {several}"
    # each kernel compiled once: callees inside their callers' compiles count too
    assert first["compiled"] == first["kernels"]
    assert first["loaded"] == 0


def test_second_process_loads_everything(runs):
    cache_dir, _, second = runs
    assert second["compiled"] == 0
    assert second["loaded"] > 0
    assert second["cache"].startswith(str(cache_dir))
