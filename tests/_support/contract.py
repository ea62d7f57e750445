"""The calibrator contract of DESIGN.md (at the repository root) as reusable checks; each
calibrator's tests call it."""

import pickle

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError

from calibbook.registry import registered

# Parameter variants that change the code path; the defaults always run.
VARIANTS = {
    "sigmoid": [{"logit_input": True}],
    "temperature": [{"logit_input": True}],
    "isotonic": [{"interpolation": "linear"}, {"increasing": False}],
    "histogram": [{"strategy": "uniform", "n_bins": 7}, {"n_bins": 7}],
    "kde": [
        {"kernel": "epanechnikov", "reflect": True},
        {"algorithm": "binned"},
        {"logit_input": True},
    ],
    "dpm": [{"logit_input": True}],
    "scaling_binning": [
        {"logit_input": True, "n_bins": 7},
        {"split": "none", "targets": "labels"},
    ],
    "quadratic": [{"logit_input": True}],
    "centered_isotonic": [{"increasing": False}],
    "venn_abers": [{"loss": "brier"}],
    "beta": [{"parameters": "am"}, {"parameters": "ab"}, {"parameters": "a"}],
    "spline": [{"logit_input": False}, {"logit_input": False, "penalty": 1.0, "n_knots": 5}],
}
CASES = [(e.name, {}) for e in registered()] + [
    (name, params) for name, variants in VARIANTS.items() for params in variants
]
IDS = [name + "".join(f"-{k}={v}" for k, v in params.items()) for name, params in CASES]


def scores_for(calibrator, n, seed):
    """Probabilities for calibrators that need them, decision values otherwise; labels drawn
    from a known, increasing calibration map."""
    rng = np.random.default_rng(seed)
    p = rng.beta(2.0, 2.0, size=n)
    y = (rng.uniform(size=n) < p).astype(float)
    if getattr(calibrator, "_requires_probabilities", False):
        return p, y
    return 3.0 * (p - 0.5), y


def check_calibrator_contract(estimator, scores, y, *, rng_seed=0):
    """Clone, pickle, params round trip, NotFittedError, weights, shapes, bad input."""
    scores, y = np.asarray(scores, float), np.asarray(y)
    with pytest.raises(NotFittedError):
        clone(estimator).predict(scores)

    params = estimator.get_params()
    assert clone(estimator).get_params() == params
    assert clone(estimator).set_params(**params).get_params() == params

    fitted = clone(estimator).fit(scores, y)
    p = fitted.predict(scores)
    assert p.shape == scores.shape and np.isfinite(p).all()
    assert p.min() >= 0 and p.max() <= 1
    assert np.array_equal(fitted.transform(scores), p)
    assert np.array_equal(pickle.loads(pickle.dumps(fitted)).predict(scores), p)
    assert np.array_equal(clone(estimator).fit(scores[:, None], y).predict(scores[:, None]), p)

    # integer weights are repeated rows
    rng = np.random.default_rng(rng_seed)
    w = rng.integers(0, 4, size=scores.size)
    w[np.flatnonzero(y == 1)[0]] = w[np.flatnonzero(y == 0)[0]] = 1
    weighted = clone(estimator).fit(scores, y, sample_weight=w)
    repeated = clone(estimator).fit(np.repeat(scores, w), np.repeat(y, w))
    np.testing.assert_allclose(weighted.predict(scores), repeated.predict(scores), atol=1e-12)

    bad_fit = [
        (np.where(np.arange(scores.size) == 0, np.nan, scores), y, None, "NaN or infinite"),
        (scores, np.where(np.arange(y.size) == 0, 2, y), None, "binary"),
        (scores, np.ones_like(y), None, "single class"),
        (scores, y[:-1], None, "Inconsistent numbers of samples"),
        (scores, y, -np.ones(scores.size), "non-negative"),
        (scores[:0], y[:0], None, "empty"),
    ]
    for s, labels, weights, message in bad_fit:
        with pytest.raises(ValueError, match=message):
            clone(estimator).fit(s, labels, sample_weight=weights)
    with pytest.raises(ValueError, match="NaN or infinite"):
        fitted.predict([np.inf])
