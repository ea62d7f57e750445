"""The calibrator contract, run over every calibrator in calibbook.registry.

A calibrator added to the registry is checked here without anyone writing a test for it:
the contract of tests/_support/contract.py (clone, pickle, parameters, NotFittedError, weights as
repeated rows, shapes, bad input), declared parameter constraints, keyword-only
constructors, and what happens beyond the training range.
"""

import inspect

import numpy as np
import pytest

from calibbook.registry import calibrator_entry, calibrator_names, registered
from tests._support.contract import CASES, IDS, check_calibrator_contract, scores_for


@pytest.mark.parametrize("name,params", CASES, ids=IDS)
def test_contract(name, params):
    cal = calibrator_entry(name).make(**params)
    s, y = scores_for(cal, 150, seed=len(name))
    check_calibrator_contract(cal, s, y)


@pytest.mark.parametrize("name,params", CASES, ids=IDS)
def test_beyond_the_training_range(name, params):
    """Finite and in [0, 1] far outside the data; a non-parametric map is flat there.

    Density-ratio and step maps clip to the training range (scores beyond it get the value
    at the nearest extreme); the sigmoids extrapolate monotonically, as their model says.
    """
    cal = calibrator_entry(name).make(**params)
    s, y = scores_for(cal, 200, seed=3)
    inner = (s - s.min()) / (s.max() - s.min())  # train on the middle of the range
    s = 0.25 + 0.5 * inner if getattr(cal, "_requires_probabilities", False) else s
    cal.fit(s, y)
    if getattr(cal, "_requires_probabilities", False):
        below, above = np.array([0.0, 0.1, 0.2]), np.array([0.8, 0.9, 1.0])
    else:
        below, above = np.array([-1e6, -50.0, s.min() - 1.0]), np.array([s.max() + 1.0, 50.0, 1e6])
    p_below, p_above = cal.predict(below), cal.predict(above)
    assert np.isfinite(p_below).all() and np.isfinite(p_above).all()
    assert p_below.min() >= 0 and p_above.max() <= 1
    if name in ("sigmoid", "temperature", "beta"):
        # a parametric map (a sigmoid of the score, of ln s and ln(1 - s)): monotone beyond
        # the data, in the direction of its slope
        trend = np.sign(cal.predict([s.max()]) - cal.predict([s.min()]))[0]
        assert np.all(trend * np.diff(p_below) >= 0) and np.all(trend * np.diff(p_above) >= 0)
        return
    lo, hi = cal.predict([s.min()])[0], cal.predict([s.max()])[0]
    np.testing.assert_allclose(p_below, lo, atol=1e-12, err_msg=f"{name} below the range")
    np.testing.assert_allclose(p_above, hi, atol=1e-12, err_msg=f"{name} above the range")


@pytest.mark.parametrize("name", calibrator_names())
def test_every_parameter_has_a_declared_constraint_and_is_keyword_only(name):
    cls = calibrator_entry(name).cls
    signature = inspect.signature(cls.__init__)
    parameters = [p for p in signature.parameters.values() if p.name != "self"]
    assert all(p.kind is p.KEYWORD_ONLY for p in parameters), f"{cls.__name__}: not keyword-only"
    assert set(cls._parameter_constraints) == {p.name for p in parameters}
    assert not hasattr(cls, "_check_params"), "validation is declarative (_parameter_constraints)"


@pytest.mark.parametrize("name", calibrator_names())
def test_a_bad_parameter_value_names_the_parameter(name):
    cal = calibrator_entry(name).make()
    first = next(iter(cal.get_params()))
    bad = cal.set_params(**{first: object()})
    s, y = scores_for(bad, 50, seed=0)
    with pytest.raises(ValueError, match=f"^{first} must be"):
        bad.fit(s, y)


def test_registry_names_aliases_and_labels_are_unique():
    keys = [k for e in registered() for k in {e.name, e.label.lower(), *e.aliases}]
    assert len(keys) == len(set(keys))
    with pytest.raises(ValueError, match="registered names are"):
        calibrator_entry("no-such-method")
