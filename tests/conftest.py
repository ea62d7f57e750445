"""Settings for every test run: one BLAS thread per process, and CI=true's strict imports.

**One BLAS thread.** ``make`` runs the tests in two xdist workers on two cores. OpenBLAS
starts a pool of one thread per core in each worker, and its threads spin between calls, so
four threads fought for two cores: scikit-learn's estimator checks ran 5 to 20 times slower
than on one thread. Each test process (and each subprocess a test starts) gets one BLAS
thread, unless ``OPENBLAS_NUM_THREADS`` or ``OMP_NUM_THREADS`` is set already.

**A missing test dependency fails under CI.** ``pytest.importorskip`` skips a test whose
optional module is not importable, which is right on a contributor's machine but would let CI
pass without running the oracle. With ``CI=true`` (``.ci/run`` sets it) a module that is not
installed, or does not import, fails the test (or the module, when imported at module level)
instead, naming the module. A module that is too old for ``minversion`` still skips.
"""

import importlib
import os

import pytest

if "OPENBLAS_NUM_THREADS" not in os.environ and "OMP_NUM_THREADS" not in os.environ:
    os.environ["OPENBLAS_NUM_THREADS"] = "1"  # read when OpenBLAS loads: later, subprocesses
    from threadpoolctl import threadpool_limits

    _ONE_BLAS_THREAD = threadpool_limits(1, user_api="blas")  # a pool already loaded


def strict_imports() -> bool:
    """Whether a missing test dependency fails instead of skipping (``CI=true``)."""
    return os.environ.get("CI") == "true"


_importorskip = pytest.importorskip


def _importorskip_or_fail(modname, *args, **kwargs):
    __tracebackhide__ = True  # report the test's line, as importorskip does
    if strict_imports():
        try:
            importlib.import_module(modname)
            problem = None
        except ImportError as exc:
            problem = str(exc)
        if problem is not None:
            pytest.fail(
                f"CI=true: the test dependency {modname!r} does not import ({problem}); outside "
                "CI the test would skip",
                pytrace=False,
            )
    return _importorskip(modname, *args, **kwargs)  # minversion, and the skip outside CI


_importorskip_or_fail.__doc__ = _importorskip.__doc__
pytest.importorskip = _importorskip_or_fail
