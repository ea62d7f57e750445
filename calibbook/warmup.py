"""Compile every numba kernel once, so that the first fit in a new process loads, not compiles.

calibbook's hot loops are numba kernels compiled on first use and cached on disk
(``cache=True``). On a fresh install the cache is empty, and the first fit of a calibrator
waits for its kernels to compile (up to 1.6 s; ENIR's would take 6.5 s, so ENIR runs them as
Python on small problems until they are compiled: :mod:`calibbook._kernels.interpreted`). The
warm-up compiles them all, whatever the size of its problems. Run this once where the
environment is made, and every later process loads the compiled code from the cache::

    python -m calibbook.warmup

It fits every registered calibrator under each option that reaches other kernels, and runs
every measure of :mod:`calibbook.metrics`, on a small synthetic problem (35 s on
two cores with an empty cache, a few seconds with a warm one).

Where the cache lives
---------------------
numba writes it beside the installed sources (``calibbook/**/__pycache__``) when that
folder is writable, and otherwise under the user's cache folder (``~/.cache/numba`` on
Linux). Set ``NUMBA_CACHE_DIR`` to put it elsewhere, for example one folder that a CI job
restores, or one shared by a team's kernels; set it to the same value when you warm and
when you use the cache. An entry is valid for one CPU model, one Python, one numba and
one version of the kernels' sources: after an upgrade, warm again.

Examples
--------
>>> from calibbook.warmup import warm
>>> report = warm(progress=False)          # doctest: +SKIP
>>> report.compiled, report.loaded          # doctest: +SKIP
(0, 141)
"""

import argparse
import os
import sys
import time
import warnings
from dataclasses import dataclass
from itertools import chain

import numpy as np

__all__ = ["WarmupReport", "cache_location", "kernel_dispatchers", "warm"]

# Options that reach kernels the defaults do not: name -> parameter sets (besides {}).
VARIANTS = {
    "sigmoid": [{"logit_input": True}],
    "temperature": [{"logit_input": True}],
    "isotonic": [{"interpolation": "linear"}, {"increasing": False}],
    "histogram": [{"strategy": "uniform"}, {"prior_strength": 2.0}],
    "enir": [{"interpolation": "step"}, {"prune": "elbow"}],
    "bbq": [{"prune": "elbow"}],
    "kde": [{"kernel": "epanechnikov"}, {"algorithm": "binned"}],
    "scaling_binning": [{"split": "none"}],
    "quadratic": [{"logit_input": True}],
    "venn_abers": [{"cv": 3}, {"loss": "brier"}],
    "beta": [{"parameters": "ab"}],
    "spline": [{"penalty": 1.0}],
}


@dataclass(frozen=True)
class WarmupReport:
    """What a warm-up did.

    Attributes
    ----------
    compiled : int
        Kernel specializations compiled (missing from the cache, now written to it).
    loaded : int
        Kernel specializations loaded from the cache.
    seconds : float
        Wall time of the warm-up.
    cache : str
        Where numba keeps the cache (see :func:`cache_location`).
    """

    compiled: int
    loaded: int
    seconds: float
    cache: str


def cache_location():
    """The folder numba reads and writes calibbook's compiled kernels in.

    Returns
    -------
    str
        ``NUMBA_CACHE_DIR`` when it is set; otherwise the ``__pycache__`` folder beside
        the kernels' sources when it is writable, or numba's per-user cache folder.
    """
    dispatcher = kernel_dispatchers()["isotonic.pav_runs"]
    return dispatcher._cache.cache_path


def kernel_dispatchers():
    """Every numba dispatcher defined in :mod:`calibbook._kernels`, by qualified name.

    Helpers compiled with ``inline="always"`` are left out: they are compiled into their
    callers, never on their own.

    Returns
    -------
    dict of str to numba Dispatcher
        ``"module.function"`` (module relative to ``calibbook._kernels``) to its dispatcher.
    """
    import importlib
    import pkgutil

    from numba.core.registry import CPUDispatcher

    import calibbook._kernels as kernels

    found = {}
    for info in pkgutil.walk_packages(kernels.__path__, kernels.__name__ + "."):
        module = importlib.import_module(info.name)
        short = info.name[len(kernels.__name__) + 1 :]
        for name, obj in vars(module).items():
            if (
                isinstance(obj, CPUDispatcher)
                and obj.py_func.__module__ == info.name
                and obj.targetoptions.get("inline", "never") != "always"
            ):
                found[f"{short}.{name}"] = obj
    return found


def _problem(n=400, seed=0):
    """Scores in (0, 1) with ties, labels drawn from a distorted truth, positive weights."""
    rng = np.random.default_rng(seed)
    s = np.round(rng.beta(0.7, 0.7, size=n), 3).clip(0.001, 0.999)
    y = (rng.uniform(size=n) < s**1.3).astype(np.float64)
    w = rng.uniform(0.5, 2.0, size=n)
    return s, y, w


def _calibrators(s, y, w):
    """Fit and predict every registered calibrator, with and without weights."""
    from calibbook._kernels.binning import COMPILED_LOOKUP_FROM
    from calibbook.registry import registered

    many = np.resize(s, COMPILED_LOOKUP_FROM)  # predictions this long use compiled lookups
    for entry in registered():
        for params in [{}, *VARIANTS.get(entry.name, [])]:
            for weights in (None, w):
                model = entry.make(**params).fit(s, y, sample_weight=weights)
                model.predict(s if weights is not None else many)
                yield entry.name


def _building_blocks(s, y, w):
    """The public pieces beneath the calibrators: the near-isotonic path and the DP mixture."""
    from calibbook._kernels.binning import COMPILED_LOOKUP_FROM
    from calibbook.calibrators.dpm import DPGaussianMixture1D
    from calibbook.calibrators.near_isotonic import NearIsotonicRegression, near_isotonic_path

    many = np.resize(s, COMPILED_LOOKUP_FROM)
    for weights in (None, w):
        NearIsotonicRegression().fit(s, y, sample_weight=weights).predict(many)
        NearIsotonicRegression(lam=0.5).fit(s, y, sample_weight=weights).predict(many)
    path = near_isotonic_path(s, y)
    path.fitted(0.5)
    path.n_blocks(0.5)
    # properties computed by kernels on first access
    _ = path.breakpoints, path.initial_coef, path.event_lam
    DPGaussianMixture1D(n_components=3).fit(s, w)
    resp = np.full((s.size, 3), 1.0 / 3.0)
    DPGaussianMixture1D(n_components=3).fit(s, w, resp=resp)
    yield "building blocks"


def _measures(s, y, w):
    """Every measure of calibbook.metrics, with and without weights."""
    import calibbook.metrics as metrics

    for weights in (None, w):
        for strategy in metrics.ERROR_STRATEGIES:
            if strategy == "positional" and weights is not None:
                continue
            metrics.expected_calibration_error(y, s, strategy=strategy, sample_weight=weights)
            metrics.maximum_calibration_error(y, s, strategy=strategy, sample_weight=weights)
        metrics.reliability_curve(y, s, sample_weight=weights)
        metrics.brier_decomposition(y, s, sample_weight=weights)
        metrics.debiased_calibration_error(y, s, sample_weight=weights)
        metrics.ece_sweep(y, s, sample_weight=weights)
        metrics.smooth_ece(y, s, sample_weight=weights)
        metrics.smooth_reliability_curve(y, s, sample_weight=weights)
        metrics.calibration_intercept_slope(y, s, sample_weight=weights)
        metrics.spiegelhalter_test(y, s, sample_weight=weights)
        metrics.hosmer_lemeshow_test(y, s, sample_weight=weights)
        metrics.corp_reliability(y, s, sample_weight=weights)
        for score in ("brier", "log"):
            metrics.corp_decomposition(y, s, score=score, sample_weight=weights)
        metrics.corp_consistency_bands(s, n_resamples=20, sample_weight=weights)
        metrics.corp_confidence_bands(y, s, n_resamples=20, sample_weight=weights)
        metrics.consistency_bands(s, n_resamples=20, sample_weight=weights)
        metrics.calibration_report(y, s, sample_weight=weights)
        yield "metrics"


def warm(progress=True):
    """Compile (or load) every kernel a calibrator or a measure of calibbook uses.

    Parameters
    ----------
    progress : bool, default=True
        Print one line per calibrator and a summary to standard error.

    Returns
    -------
    WarmupReport
        How many kernel specializations were compiled and loaded, and how long it took.
    """
    from numba.core import event

    from calibbook._kernels.interpreted import compiling

    compiled = []

    class _Count(event.Listener):
        def on_start(self, ev):
            pass

        def on_end(self, ev):
            if ev.data["dispatcher"].py_func.__module__.startswith("calibbook."):
                compiled.append(ev.data["dispatcher"])

    listener = _Count()
    start = time.perf_counter()
    s, y, w = _problem()
    event.register("numba:compile", listener)
    try:
        # small problems would run some kernels as Python (_kernels.interpreted): compile all
        with warnings.catch_warnings(), compiling():
            warnings.simplefilter("ignore")  # small, odd problems: convergence notes
            done = set()
            for name in chain(_calibrators(s, y, w), _building_blocks(s, y, w), _measures(s, y, w)):
                if progress and name not in done:
                    print(f"  {name}: {len(compiled)} compiled so far", file=sys.stderr)
                done.add(name)
    finally:
        event.unregister("numba:compile", listener)
    hits = sum(sum(d._cache_hits.values()) for d in kernel_dispatchers().values())
    report = WarmupReport(len(compiled), hits, time.perf_counter() - start, cache_location())
    if progress:
        print(
            f"calibbook.warmup: {report.compiled} kernels compiled, {report.loaded} loaded from "
            f"the cache, in {report.seconds:.1f} s; cache: {report.cache}",
            file=sys.stderr,
        )
    return report


def main(argv=None):
    """``python -m calibbook.warmup [--quiet]``."""
    parser = argparse.ArgumentParser(
        prog="python -m calibbook.warmup", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--quiet", action="store_true", help="print only the summary line")
    args = parser.parse_args(argv)
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    report = warm(progress=not args.quiet)
    if args.quiet:
        print(
            f"calibbook.warmup: {report.compiled} compiled, {report.loaded} loaded, "
            f"{report.seconds:.1f} s; cache: {report.cache}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
