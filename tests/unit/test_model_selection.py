"""Calibrators inside scikit-learn's model-selection tools (issue 17, item 10).

A calibrator is a binary probabilistic classifier of y given the score (``classes_``,
a two-column ``predict_proba``, ``score`` = negative Brier score) and a one-column
transformer (``transform`` keeps the input's shape, ``get_feature_names_out``,
``set_output``). scikit-learn is the oracle: every cross-validated number is recomputed
by a brute-force loop over the same folds with ``sklearn.metrics``, and the feature
names and pandas output are compared with ``IsotonicRegression``'s.
"""

import functools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from sklearn import config_context
from sklearn.base import clone, is_classifier
from sklearn.compose import ColumnTransformer
from sklearn.exceptions import NotFittedError
from sklearn.isotonic import IsotonicRegression
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import brier_score_loss, get_scorer, log_loss, roc_auc_score
from sklearn.model_selection import (
    GridSearchCV,
    ParameterGrid,
    StratifiedKFold,
    cross_val_score,
    cross_validate,
)
from sklearn.pipeline import Pipeline, make_pipeline

from calibbook import HistogramBinning, IsotonicCalibration, KDECalibration
from calibbook.registry import registered

ENTRIES = registered()
NAMES = [entry.name for entry in ENTRIES]
BY_NAME = {entry.name: entry for entry in ENTRIES}

# The same metric as each scorer, computed by hand on predict()'s probabilities;
# None is the default scoring, which must be the calibrator's documented score.
METRICS = {
    None: lambda y, p: -brier_score_loss(y, p),
    "neg_brier_score": lambda y, p: -brier_score_loss(y, p),
    "neg_log_loss": lambda y, p: -log_loss(y, p),
    "roc_auc": roc_auc_score,
}


def miscalibrated_data(n=300, seed=0):
    """Probability scores in (0, 1), which every calibrator accepts, with P(y=1|s) = s^2."""
    rng = np.random.default_rng(seed)
    s = rng.uniform(0.01, 0.99, size=n)
    y = (rng.uniform(size=n) < s**2).astype(int)
    return s, y


S, Y = miscalibrated_data()
CV = StratifiedKFold(n_splits=5, shuffle=True, random_state=0)


def brute_force_means(estimator, candidates, s, y, cv, metric):
    """Mean validation metric of each candidate over the same folds, by hand."""
    folds = list(cv.split(s, y))
    means = []
    for params in candidates:
        values = []
        for train, test in folds:
            cal = clone(estimator).set_params(**params).fit(s[train], y[train])
            values.append(metric(y[test], cal.predict(s[test])))
        means.append(np.mean(values))
    return np.array(means)


@functools.cache
def fitted(name):
    return BY_NAME[name].make().fit(S, Y)


# ---------------------------------------------------------------------------
# GridSearchCV against a brute-force loop
# ---------------------------------------------------------------------------
SEARCHES = {
    # the first candidate is the worst on purpose: a constant map, or an overfitting kernel,
    # so a search that silently keeps the first candidate (the old NaN failure) is caught
    "histogram": (HistogramBinning(), {"n_bins": [1, 3, 10, 30]}),
    "kde": (KDECalibration(), {"bandwidth": [0.01, 0.5, 0.05, 0.1]}),
}


@pytest.mark.parametrize("scoring", list(METRICS), ids=str)
@pytest.mark.parametrize("search", list(SEARCHES))
def test_grid_search_picks_what_a_brute_force_loop_picks(search, scoring):
    estimator, grid = SEARCHES[search]
    result = GridSearchCV(estimator, grid, scoring=scoring, cv=CV).fit(S, Y)
    candidates = list(ParameterGrid(grid))
    expected = brute_force_means(estimator, candidates, S, Y, CV, METRICS[scoring])

    means = result.cv_results_["mean_test_score"]
    assert np.isfinite(means).all()
    np.testing.assert_allclose(means, expected, rtol=1e-10, atol=1e-12)
    best = int(np.argmax(expected))  # the first of tied candidates, as GridSearchCV ranks
    assert result.best_params_ == candidates[best]
    assert best != 0
    # refit on everything with the chosen parameters
    refit = clone(estimator).set_params(**candidates[best]).fit(S, Y)
    np.testing.assert_array_equal(result.predict_proba(S[:20]), refit.predict_proba(S[:20]))


def test_default_scoring_is_the_score_method_and_equals_neg_brier_score():
    estimator, grid = SEARCHES["histogram"]
    default = GridSearchCV(estimator, grid, cv=CV).fit(S, Y)
    brier = GridSearchCV(estimator, grid, cv=CV, scoring="neg_brier_score").fit(S, Y)
    np.testing.assert_allclose(
        default.cv_results_["mean_test_score"], brier.cv_results_["mean_test_score"], rtol=1e-12
    )


def test_grid_search_routes_sample_weight_to_fit_and_score():
    rng = np.random.default_rng(1)
    w = rng.integers(1, 4, size=S.size).astype(float)
    grid = {"n_bins": [2, 5, 10]}
    with config_context(enable_metadata_routing=True):
        cal = HistogramBinning().set_fit_request(sample_weight=True)
        cal = cal.set_score_request(sample_weight=True)
        result = GridSearchCV(cal, grid, cv=CV).fit(S, Y, sample_weight=w)
    expected = []
    for params in ParameterGrid(grid):
        values = []
        for train, test in CV.split(S, Y):
            c = HistogramBinning(**params).fit(S[train], Y[train], sample_weight=w[train])
            values.append(-brier_score_loss(Y[test], c.predict(S[test]), sample_weight=w[test]))
        expected.append(np.mean(values))
    np.testing.assert_allclose(result.cv_results_["mean_test_score"], expected, rtol=1e-10)


# ---------------------------------------------------------------------------
# generic checks over every registered calibrator
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("name", NAMES)
def test_is_a_binary_probabilistic_classifier(name):
    cal = fitted(name)
    assert is_classifier(cal)
    np.testing.assert_array_equal(cal.classes_, [0, 1])
    assert not hasattr(BY_NAME[name].make(), "classes_")


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=25, deadline=None)
@given(
    scores=arrays(np.float64, st.integers(1, 40), elements=st.floats(0.0, 1.0)),
    column=st.booleans(),
)
def test_predict_proba_is_one_minus_p_and_p(name, scores, column):
    cal = fitted(name)
    x = scores[:, None] if column else scores
    p = cal.predict(x)
    proba = cal.predict_proba(x)
    assert p.shape == scores.shape  # predict stays 1-D for a column
    assert proba.shape == (scores.size, 2)
    np.testing.assert_array_equal(proba[:, 1], p)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=0, atol=1e-15)
    assert (proba >= 0).all()


@pytest.mark.parametrize("name", NAMES)
def test_score_is_the_negative_brier_score(name):
    cal = fitted(name)
    s, y = miscalibrated_data(n=120, seed=3)
    w = np.random.default_rng(3).uniform(0, 2, size=y.size)
    p = cal.predict(s)
    assert cal.score(s, y) == pytest.approx(-brier_score_loss(y, p), rel=1e-12)
    assert cal.score(s, y, sample_weight=w) == pytest.approx(
        -brier_score_loss(y, p, sample_weight=w), rel=1e-12
    )
    assert cal.score(s, y) == pytest.approx(get_scorer("neg_brier_score")(cal, s, y), rel=1e-12)
    assert -1 <= cal.score(s, y) <= 0
    # one class alone is a valid validation set
    assert cal.score(s[y == 1], y[y == 1]) == pytest.approx(-np.mean((p[y == 1] - 1) ** 2))


@pytest.mark.parametrize("name", NAMES)
def test_cross_validation_with_every_probability_scorer(name):
    cal = BY_NAME[name].make()
    scorers = ["neg_brier_score", "neg_log_loss", "roc_auc"]
    result = cross_validate(cal, S, Y, cv=CV, scoring=scorers)
    default = cross_val_score(cal, S, Y)  # a classifier: stratified 5-fold by default
    folds = {"default": StratifiedKFold(n_splits=5).split(S, Y), "cv": CV.split(S, Y)}
    expected = {scoring: [] for scoring in [None, *scorers]}
    for train, test in folds["cv"]:
        p = clone(cal).fit(S[train], Y[train]).predict(S[test])
        for scoring in scorers:
            expected[scoring].append(METRICS[scoring](Y[test], p))
    for train, test in folds["default"]:
        p = clone(cal).fit(S[train], Y[train]).predict(S[test])
        expected[None].append(METRICS[None](Y[test], p))
    for scoring in scorers:
        got = result[f"test_{scoring}"]
        assert np.isfinite(got).all(), scoring
        np.testing.assert_allclose(got, expected[scoring], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(default, expected[None], rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", NAMES)
def test_transform_keeps_the_input_shape(name):
    cal = fitted(name)
    s = S[:15]
    p = cal.predict(s)
    np.testing.assert_array_equal(cal.transform(s), p)
    np.testing.assert_array_equal(cal.transform(s.tolist()), p)
    np.testing.assert_array_equal(cal.transform(s[:, None]), p[:, None])
    np.testing.assert_array_equal(cal.transform(s[:, None].tolist()), p[:, None])
    assert cal.predict(s[:, None]).shape == (15,)
    fresh = BY_NAME[name].make()
    np.testing.assert_array_equal(fresh.fit_transform(S[:, None], Y), cal.predict(S)[:, None])
    assert fresh.fit_transform(S, Y).shape == S.shape


@pytest.mark.parametrize("name", NAMES)
def test_feature_names_follow_isotonic_regression(name):
    # scikit-learn's rule, applied to a calibrator that bears IsotonicRegression's name
    cls = BY_NAME[name].cls
    twin = type("IsotonicRegression", (cls,), {"__module__": __name__})
    reference = IsotonicRegression().fit(S, Y).get_feature_names_out()
    with pytest.raises(NotFittedError):
        twin().get_feature_names_out()
    # input_features is ignored, as in scikit-learn
    names = twin().fit(S, Y).get_feature_names_out(["score"])
    np.testing.assert_array_equal(names, reference)
    assert names.dtype == object
    assert fitted(name).get_feature_names_out().tolist() == [f"{cls.__name__.lower()}0"]


@pytest.mark.parametrize("name", NAMES)
def test_set_output_pandas_matches_isotonic_regression(name):
    pd = pytest.importorskip("pandas")
    cal = BY_NAME[name].make().fit(S, Y).set_output(transform="pandas")
    ref = IsotonicRegression(out_of_bounds="clip").fit(S, Y).set_output(transform="pandas")
    index = pd.RangeIndex(100, 100 + 15)
    frame = pd.DataFrame({"score": S[:15]}, index=index)
    for x in (frame, frame["score"], S[:15], S[:15, None]):
        got, expected = cal.transform(x), ref.transform(x)
        assert isinstance(got, pd.DataFrame)
        assert got.shape == expected.shape == (15, 1)
        assert got.index.equals(expected.index)
        assert got.columns.tolist() == cal.get_feature_names_out().tolist()
        np.testing.assert_array_equal(got.to_numpy()[:, 0], cal.predict(S[:15]))
    assert isinstance(cal.predict(frame), np.ndarray)  # predict is untouched by set_output
    fit_out = BY_NAME[name].make().set_output(transform="pandas").fit_transform(S, Y)
    assert isinstance(fit_out, pd.DataFrame) and fit_out.shape == (S.size, 1)
    assert isinstance(cal.set_output(transform="default").transform(frame), np.ndarray)


@pytest.mark.parametrize("name", NAMES)
def test_middle_step_of_a_pipeline(name):
    # a column of scores -> calibrator -> logistic regression, against the steps by hand
    cal = BY_NAME[name].make()
    pipe = make_pipeline(cal, LogisticRegression()).fit(S[:, None], Y)
    by_hand_cal = clone(cal).fit(S, Y)
    by_hand_lr = LogisticRegression().fit(by_hand_cal.predict(S)[:, None], Y)
    s_new, _ = miscalibrated_data(n=50, seed=7)
    np.testing.assert_allclose(
        pipe.predict_proba(s_new[:, None]),
        by_hand_lr.predict_proba(by_hand_cal.predict(s_new)[:, None]),
        rtol=1e-12,
    )


@pytest.mark.parametrize("name", ["histogram", "kde", "isotonic"])
def test_calibrates_one_column_inside_a_column_transformer(name):
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(5)
    frame = pd.DataFrame({"score": S, "other": rng.normal(size=S.size)})
    cal = BY_NAME[name].make()
    columns = ColumnTransformer([("cal", cal, ["score"])], remainder="passthrough")
    pipe = Pipeline([("columns", columns), ("lr", LogisticRegression())]).fit(frame, Y)

    by_hand_cal = clone(cal).fit(S, Y)
    features = np.column_stack([by_hand_cal.predict(S), frame["other"]])
    by_hand_lr = LogisticRegression().fit(features, Y)
    np.testing.assert_allclose(
        pipe.predict_proba(frame), by_hand_lr.predict_proba(features), rtol=1e-12
    )
    np.testing.assert_array_equal(pipe[0].transform(frame), features)
    label = type(cal).__name__.lower()
    assert pipe[0].get_feature_names_out().tolist() == [f"cal__{label}0", "remainder__other"]
    as_frame = clone(columns).set_output(transform="pandas").fit(frame, Y).transform(frame)
    assert as_frame.columns.tolist() == [f"cal__{label}0", "remainder__other"]


def test_grid_search_over_a_calibrator_inside_a_pipeline():
    pipe = Pipeline([("cal", HistogramBinning()), ("lr", LogisticRegression())])
    grid = {"cal__n_bins": [1, 10]}
    result = GridSearchCV(pipe, grid, cv=CV, scoring="neg_log_loss").fit(S[:, None], Y)
    assert np.isfinite(result.cv_results_["mean_test_score"]).all()
    assert result.best_params_ == {"cal__n_bins": 10}


def test_isotonic_calibration_predict_proba_equals_isotonic_regression():
    # the oracle for the values themselves: sklearn's isotonic fit, as a probability pair
    cal = IsotonicCalibration(interpolation="linear").fit(S, Y)
    ref = IsotonicRegression(out_of_bounds="clip").fit(S, Y)
    grid = np.linspace(0, 1, 51)
    np.testing.assert_allclose(cal.predict_proba(grid)[:, 1], ref.predict(grid), atol=1e-12)
    np.testing.assert_allclose(cal.predict_proba(grid)[:, 0], 1 - ref.predict(grid), atol=1e-12)


class _RecordsCalls(HistogramBinning):
    """Notes which prediction method a scorer calls first (predict_proba calls predict)."""

    def predict_proba(self, scores):
        self.calls_.append("predict_proba")
        return super().predict_proba(scores)

    def predict(self, scores):
        self.calls_.append("predict")
        return super().predict(scores)


@pytest.mark.parametrize("scoring", ["neg_brier_score", "neg_log_loss", "roc_auc"])
def test_probability_scorers_call_predict_proba(scoring):
    # predict returns probabilities, not labels: a scorer must not read it as labels
    cal = _RecordsCalls().fit(S, Y)
    cal.calls_ = []
    value = get_scorer(scoring)(cal, S, Y)
    assert cal.calls_[0] == "predict_proba"
    assert value == pytest.approx(METRICS[scoring](Y, cal.predict(S)), rel=1e-12)
