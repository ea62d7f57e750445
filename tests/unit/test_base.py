"""The calibrator contract of DESIGN.md (at the repository root), checked on a minimal calibrator.

Each real calibrator's own test module runs these same checks through
``tests._support.contract.check_calibrator_contract``; here a toy one (the weighted base
rate, a constant map) pins the behaviour of the base class itself, with values
worked by hand. tests/unit/test_model_selection.py checks the scikit-learn interface
(``predict_proba``, ``score``, ``transform``) on every registered calibrator.
"""

import pickle

import numpy as np
import pytest
from sklearn.base import clone, is_classifier
from sklearn.exceptions import NotFittedError

from calibbook.base import BaseCalibrator
from tests._support.contract import check_calibrator_contract


class BaseRate(BaseCalibrator):
    """Predicts the (smoothed) weighted fraction of positives, whatever the score."""

    def __init__(self, *, prior=0.0):
        self.prior = prior

    def _fit(self, scores, y, sample_weight):
        if sample_weight is None:
            sample_weight = np.ones_like(y)
        positives = np.sum(sample_weight * y) + self.prior
        self.rate_ = positives / (sample_weight.sum() + 2 * self.prior)

    def _predict(self, scores):
        return np.full(scores.shape, self.rate_)


class NeedsProbabilities(BaseRate):
    _requires_probabilities = True


class Overshoots(BaseRate):
    def _predict(self, scores):
        return scores  # raw scores, may leave [0, 1]


class Broken(BaseRate):
    def _predict(self, scores):
        return np.full(scores.shape, np.nan)


class FailsToFit(BaseRate):
    def _fit(self, scores, y, sample_weight):
        raise ValueError("no map for these scores")


SCORES = np.array([-2.0, -1.0, 0.5, 1.0, 3.0])
LABELS = np.array([0, 0, 1, 0, 1])


def test_fit_predict_and_transform_keeps_the_input_shape():
    cal = BaseRate().fit(SCORES, LABELS)
    assert cal.predict([0.0, 10.0]) == pytest.approx([0.4, 0.4])
    assert np.array_equal(cal.transform([1.0]), cal.predict([1.0]))
    assert cal.transform([[1.0], [2.0]]).tolist() == [[0.4], [0.4]]
    assert cal.predict([[1.0], [2.0]]).shape == (2,)
    assert cal.fit_transform(SCORES, LABELS).shape == (5,)
    assert cal.fit_transform(SCORES[:, None], LABELS).shape == (5, 1)


def test_predict_proba_classes_and_score_worked_by_hand():
    cal = BaseRate().fit(SCORES, LABELS.astype(bool))
    assert cal.classes_.tolist() == [0, 1]
    assert cal.predict_proba([0.0, 7.0]) == pytest.approx(np.array([[0.6, 0.4], [0.6, 0.4]]))
    # three negatives at (0.4 - 0)^2 = 0.16 and two positives at (0.4 - 1)^2 = 0.36
    assert cal.score(SCORES, LABELS) == pytest.approx(-(3 * 0.16 + 2 * 0.36) / 5)
    weights = [1, 1, 3, 1, 1]  # the first positive counts three times
    assert cal.score(SCORES, LABELS, sample_weight=weights) == pytest.approx(
        -(3 * 0.16 + 4 * 0.36) / 7
    )
    assert cal.score([1.0], [1]) == pytest.approx(-0.36)  # one class is a valid test set
    assert cal.get_feature_names_out().tolist() == ["baserate0"]


@pytest.mark.parametrize(
    "scores,y,w,message",
    [
        ([0.1, 0.2, 0.3], [0, 1], None, "Inconsistent numbers of samples"),
        ([0.1, 0.2, 0.3], [0, 1, 2], None, "binary"),
        ([0.1, 0.2, 0.3], [0, 1, 1], [1, -1, 1], "non-negative"),
        ([0.1, 0.2, 0.3], [0, 1, 1], [1, 1], "sample_weight has 2 entries"),
        ([0.1, np.nan, 0.3], [0, 1, 1], None, "NaN"),
    ],
)
def test_score_rejects_bad_input(scores, y, w, message):
    cal = BaseRate().fit(SCORES, LABELS)
    with pytest.raises(ValueError, match=message):
        cal.score(scores, y, sample_weight=w)


def test_failed_fit_leaves_the_calibrator_unfitted():
    cal = FailsToFit()
    with pytest.raises(ValueError, match="no map"):
        cal.fit(SCORES, LABELS)
    assert not hasattr(cal, "classes_")
    for method in (cal.predict, cal.predict_proba, cal.transform):
        with pytest.raises(NotFittedError):
            method(SCORES)
    with pytest.raises(NotFittedError):
        cal.score(SCORES, LABELS)
    with pytest.raises(NotFittedError):
        cal.get_feature_names_out()


def test_integer_weights_equal_repeated_rows():
    w = np.array([1, 3, 0, 2, 1])
    weighted = BaseRate().fit(SCORES, LABELS, sample_weight=w)
    repeated = BaseRate().fit(np.repeat(SCORES, w), np.repeat(LABELS, w))
    assert weighted.rate_ == pytest.approx(repeated.rate_)


def test_clone_pickle_and_params_round_trip():
    cal = BaseRate(prior=1.5)
    assert clone(cal).get_params() == {"prior": 1.5}
    cal.set_params(prior=0.5)
    assert cal.prior == 0.5
    fitted = cal.fit(SCORES, LABELS)
    restored = pickle.loads(pickle.dumps(fitted))
    assert np.array_equal(restored.predict(SCORES), fitted.predict(SCORES))
    assert not hasattr(clone(fitted), "rate_")


def test_unfitted_use_raises_not_fitted():
    with pytest.raises(NotFittedError):
        BaseRate().predict(SCORES)


def test_column_vector_accepted_and_output_is_1d_in_unit_interval():
    p = Overshoots().fit(SCORES[:, None], LABELS).predict(SCORES[:, None])
    assert p.shape == (5,)
    assert p.min() >= 0 and p.max() <= 1


def test_non_finite_output_is_a_defect_not_silence():
    with pytest.raises(RuntimeError, match="non-finite"):
        Broken().fit(SCORES, LABELS).predict(SCORES)


@pytest.mark.parametrize(
    "scores,y,w,message",
    [
        ([0.1, np.nan, 0.3], [0, 1, 0], None, "NaN or infinite"),
        ([0.1, -np.inf, 0.3], [0, 1, 0], None, "NaN or infinite"),
        ([0.1, 0.2, 0.3], [0, 1, 2], None, "binary"),
        ([0.1, 0.2, 0.3], [1, 1, 1], None, "single class"),
        ([0.1, 0.2, 0.3], [0, 1, 1], [1, 0, 0], "single class"),
        ([0.1, 0.2, 0.3], [0, 1], None, "Inconsistent numbers of samples"),
        ([0.1, 0.2, 0.3], [0, 1, 1], [1, -1, 1], "non-negative"),
        ([], [], None, "empty"),
        ([[0.1, 0.2], [0.3, 0.4]], [0, 1], None, "1-D"),
        (["a", "b"], [0, 1], None, "real numbers"),
    ],
)
def test_fit_rejects_bad_input(scores, y, w, message):
    with pytest.raises(ValueError, match=message):
        BaseRate().fit(scores, y, sample_weight=w)


def test_probability_methods_reject_scores_outside_unit_interval():
    with pytest.raises(ValueError, match=r"must lie in \[0, 1\] because NeedsProbabilities"):
        NeedsProbabilities().fit([-0.5, 0.5, 0.9], [0, 1, 1])
    cal = NeedsProbabilities().fit([0.1, 0.5, 0.9], [0, 1, 1])
    with pytest.raises(ValueError, match="NeedsProbabilities"):
        cal.predict([1.5])


def test_predict_rejects_nan():
    cal = BaseRate().fit(SCORES, LABELS)
    with pytest.raises(ValueError, match="NaN"):
        cal.predict([np.nan])


def test_boolean_labels_accepted():
    cal = BaseRate().fit(SCORES, LABELS.astype(bool))
    assert cal.rate_ == pytest.approx(0.4)


def test_sklearn_tags_declare_one_dimensional_input_a_classifier_and_a_transformer():
    tags = BaseRate().__sklearn_tags__()
    assert tags.input_tags.one_d_array and not tags.input_tags.two_d_array
    assert tags.target_tags.required
    # a classifier, so that scorers call predict_proba and CV splits are stratified
    assert tags.estimator_type == "classifier" and is_classifier(BaseRate())
    assert tags.transformer_tags is not None


def test_contract_checks_pass_on_the_toy_calibrator():
    rng = np.random.default_rng(0)
    scores = rng.normal(size=50)
    check_calibrator_contract(BaseRate(prior=1.0), scores, (scores > 0).astype(int))


@pytest.mark.parametrize(
    "name",
    [
        "HistogramBinning",
        "PlattScaling",
        "TemperatureScaling",
        "IsotonicCalibration",
        "ENIR",
        "BBQ",
        "KDECalibration",
        "DPMCalibration",
    ],
)
def test_text_labels_get_a_message_that_says_how_to_encode_them(name):
    # issue 17, item 11: not numpy's "could not convert string to float"
    import calibbook

    cal = getattr(calibbook, name)()
    with pytest.raises(ValueError, match=r"Encode the positive class as 1.*'yes'"):
        cal.fit([0.1, 0.4, 0.6, 0.9], ["no", "no", "yes", "yes"])
    with pytest.raises(ValueError, match="got the labels"):
        cal.fit([0.1, 0.4, 0.6, 0.9], np.array(["a", "b", "a", "b"], dtype=object))


# issue 28, point 7: what is not a real number is refused at the edge, by name
HUGE = 10**400  # a Python int beyond the largest float


@pytest.mark.parametrize(
    "scores,y,w,message",
    [
        ([0.1, 0.2 + 1j, 0.3], [0, 1, 0], None, "scores must be real; got complex"),
        (np.array([0.1, 0.2, 0.3], dtype=complex), [0, 1, 0], None, "scores must be real"),
        (np.array([0.1, 2j, 0.3], dtype=object), [0, 1, 0], None, "scores must be real"),
        ([0.1, 0.2, 0.3], [0, 1 + 0j, 0], None, "y must be real; got complex"),
        ([0.1, 0.2, 0.3], [0, 1, 0], [1, 1j, 1], "sample_weight must be real"),
        ([0.1, 0.2, 0.3], [0, 1, 0], 2 + 0j, "sample_weight must be real"),
        ([0.1, HUGE, 0.3], [0, 1, 0], None, "scores holds an integer too large for a float"),
        ([0.1, 0.2, 0.3], [0, HUGE, 0], None, "y holds an integer too large for a float"),
        ([0.1, 0.2, 0.3], [0, 1, 0], [1, HUGE, 1], "sample_weight holds an integer too large"),
        ([0.1, 0.2, 0.3], [0, 1, 0], HUGE, "sample_weight holds an integer too large"),
    ],
)
def test_complex_and_overflowing_input_is_a_value_error(scores, y, w, message):
    """scikit-learn refuses complex data; NumPy would drop the imaginary part with a
    ComplexWarning, or raise OverflowError on the integer: both become a named ValueError."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no ComplexWarning on the way
        with pytest.raises(ValueError, match=message):
            BaseRate().fit(scores, y, sample_weight=w)
    cal = BaseRate().fit([0.1, 0.2, 0.3], [0, 1, 0])
    with pytest.raises(ValueError, match="scores must be real"):
        cal.predict([0.1 + 1j])


def test_range_error_names_a_calibrator_that_takes_any_score():
    with pytest.raises(ValueError, match="accepts any real score, such as PlattScaling"):
        NeedsProbabilities().fit([-0.5, 0.5, 0.9], [0, 1, 1])
    from calibbook import expected_calibration_error

    # a metric needs probabilities by definition: it says how to get them instead
    with pytest.raises(ValueError, match=r"PlattScaling\(\)\.fit\(scores, y\)") as caught:
        expected_calibration_error([0, 1], [-1.0, 2.0])
    assert "accepts any real score" not in str(caught.value)


def test_single_class_error_prints_the_plain_label():
    """Not np.float64(0.0): the label as the user wrote it."""
    from sklearn.linear_model import LogisticRegression

    from calibbook import CalibratedClassifier

    X = np.arange(8.0).reshape(4, 2)
    for y, shown in [(np.zeros(4), "(0.0)"), (np.array(["no"] * 4), "('no')")]:
        with pytest.raises(ValueError, match="one class") as caught:
            CalibratedClassifier(LogisticRegression()).fit(X, y)
        assert shown in str(caught.value) and "np." not in str(caught.value)


def test_pip_build_directory_is_ignored():
    """`pip install .` leaves build/ at the root; git must not offer it."""
    import pathlib
    import shutil
    import subprocess

    root = pathlib.Path(__file__).resolve().parents[2]
    if shutil.which("git") is None or not (root / ".git").exists():
        pytest.skip("needs a git checkout")
    out = subprocess.run(
        ["git", "check-ignore", "-q", "build/lib/calibbook/__init__.py"], cwd=root, check=False
    )
    assert out.returncode == 0
