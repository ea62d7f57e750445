"""Settings for every test run: one BLAS thread per process.

**One BLAS thread.** ``make`` runs the tests in two xdist workers on two cores. OpenBLAS
starts a pool of one thread per core in each worker, and its threads spin between calls, so
four threads fought for two cores: scikit-learn's estimator checks ran 5 to 20 times slower
than on one thread. Each test process (and each subprocess a test starts) gets one BLAS
thread, unless ``OPENBLAS_NUM_THREADS`` or ``OMP_NUM_THREADS`` is set already.
"""

import os

if "OPENBLAS_NUM_THREADS" not in os.environ and "OMP_NUM_THREADS" not in os.environ:
    os.environ["OPENBLAS_NUM_THREADS"] = "1"  # read when OpenBLAS loads: later, subprocesses
    from threadpoolctl import threadpool_limits

    _ONE_BLAS_THREAD = threadpool_limits(1, user_api="blas")  # a pool already loaded

