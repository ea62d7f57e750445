"""python -m calibbook.warmup compiles every kernel exactly once, and a second run compiles none.

Each check runs in a fresh interpreter whose NUMBA_CACHE_DIR is an empty folder: the state of
a fresh install. The warm-up must reach every kernel of calibbook._kernels (a kernel it
misses compiles in the user's first fit instead), and each kernel must compile to one
specialization (a second one, from a literal argument or another dtype, doubles its compile
time and is missed by a cache warmed with the first).
"""

import json
import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.cold_compile

_CHILD = """
import json
from calibbook.warmup import kernel_dispatchers, warm
report = warm(progress=False)
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
