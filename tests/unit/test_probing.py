"""ProbingClassifier: the loss details against closed forms and a numerical minimax,
Algorithm 2's monotonicity, convergence to known probabilities, costing vs sample
weights, and scikit-learn's estimator checks."""

import numpy as np
import pytest
from scipy.optimize import minimize_scalar
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.datasets import make_classification
from sklearn.linear_model import LogisticRegression
from sklearn.naive_bayes import GaussianNB
from sklearn.neighbors import KNeighborsClassifier
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils.estimator_checks import check_estimator

from calibbook.meta.probing import (
    ProbingClassifier,
    binary_entropy,
    costing_sample,
    interval_gain,
    minimax_probe,
    probing_weights,
)

INTERVALS = [
    (0.0, 1.0),
    (0.0, 0.5),
    (0.5, 1.0),
    (0.2, 0.8),
    (0.0, 0.01),
    (0.99, 1.0),
    (0.3, 0.31),
    (0.05, 0.6),
    (0.001, 0.002),
]


def _regret(p, q, loss):
    if loss == "squared":
        return p * (1 - q) ** 2 + (1 - p) * q**2 - p * (1 - p) ** 2 - (1 - p) * p**2
    xlogy = lambda a, b: 0.0 if a == 0 else a * np.log(b)  # noqa: E731
    return -xlogy(p, q) - xlogy(1 - p, 1 - q) + xlogy(p, p) + xlogy(1 - p, 1 - p)


def _numerical_minimax(a, b, loss):
    """min over q of max over p of the regret, both by scipy's bounded scalar search."""

    def worst(q):
        inner = minimize_scalar(
            lambda p: -_regret(p, q, loss),
            bounds=(a, b),
            method="bounded",
            options={"xatol": 1e-12},
        )
        # the bounded search never evaluates the end points, where a convex regret peaks
        return max(-inner.fun, _regret(a, q, loss), _regret(b, q, loss))

    lo, hi = max(a, 1e-15), min(b, 1 - 1e-15)
    res = minimize_scalar(worst, bounds=(lo, hi), method="bounded", options={"xatol": 1e-13})
    return res.x, res.fun


# ---------------------------------------------------------------- loss details
@pytest.mark.parametrize("a,b", INTERVALS)
@pytest.mark.parametrize("loss", ["log", "squared"])
def test_minimax_probe_matches_numerical_minimax(a, b, loss):
    q_num, value = _numerical_minimax(a, b, loss)
    q = float(minimax_probe(a, b, loss))
    assert a < q < b
    assert q == pytest.approx(q_num, rel=1e-4, abs=1e-8)
    # and the closed form is at least as good as the numerical optimum
    assert max(_regret(a, q, loss), _regret(b, q, loss)) <= value * (1 + 1e-6) + 1e-15


@pytest.mark.parametrize("a,b", INTERVALS)
def test_log_minimax_closed_forms(a, b):
    q = float(minimax_probe(a, b, "log"))
    h = lambda p: 0.0 if p in (0.0, 1.0) else -p * np.log(p) - (1 - p) * np.log(1 - p)  # noqa: E731
    assert q == pytest.approx(1 / (1 + np.exp((h(b) - h(a)) / (b - a))), rel=1e-12)
    # the end points tie, and the gain is the paper's KL(a || q), equal to its footnote's KL(b || q)
    assert _regret(a, q, "log") == pytest.approx(_regret(b, q, "log"), rel=1e-9, abs=1e-15)
    assert float(interval_gain(a, b, "log")) == pytest.approx(
        _regret(a, q, "log"), rel=1e-9, abs=1e-15
    )
    assert float(minimax_probe(a, b, "squared")) == pytest.approx((a + b) / 2)
    assert float(interval_gain(a, b, "squared")) == pytest.approx(b - a)


def test_binary_entropy_and_first_probes():
    assert binary_entropy([0.0, 1.0]).tolist() == [0.0, 0.0]
    assert float(binary_entropy(0.5)) == pytest.approx(np.log(2))
    # [0, 1/2] under log loss: 1 / (1 + exp(ln 2 / (1/2))) = 1/5
    assert float(minimax_probe(0.0, 0.5)) == pytest.approx(0.2)
    assert float(minimax_probe(0.5, 1.0)) == pytest.approx(0.8)
    assert float(minimax_probe(0.3, 0.3)) == 0.3  # degenerate interval


def test_weights_follow_corollary_1():
    """i_p(y) = (1-p)/p on positives, 1 on negatives.

    With these weights the weighted Bayes rule predicts 1 iff eta > p.
    """
    y = np.array([1, 0, 1, 0])
    for p in [0.05, 0.3, 0.5, 0.9]:
        w = probing_weights(y, p)
        assert w[0] / w[1] == pytest.approx((1 - p) / p)
        assert w.mean() == pytest.approx(1.0)
        for eta in np.linspace(0.01, 0.99, 37):
            if abs(eta - p) < 1e-9:
                continue
            cost_say_1 = (1 - eta) * w[1]  # wrong on negatives
            cost_say_0 = eta * w[0]  # wrong on positives
            assert (cost_say_0 > cost_say_1) == (eta > p)


# ---------------------------------------------------------------- an oracle learner
class ThresholdOracle(ClassifierMixin, BaseEstimator):
    """Knows eta(x) = X[:, 0].

    It reads the threshold p off the weights it is given, as Corollary 1 says.
    """

    def fit(self, X, y, sample_weight=None):
        y = np.asarray(y)
        w = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight)
        self.classes_ = np.array([0, 1])
        wp, wn = w[y == 1].max(), w[y == 0].max()  # weight of one positive and of one negative
        self.threshold_ = wn / (wp + wn)  # i_p: wp / wn = (1 - p) / p
        return self

    def predict(self, X):
        return (np.asarray(X)[:, 0] > self.threshold_).astype(int)


def _oracle_data(eta, seed=0):
    rng = np.random.default_rng(seed)
    y = (rng.uniform(size=eta.size) < eta).astype(int)
    return eta.reshape(-1, 1), y


@pytest.mark.parametrize("loss", ["log", "squared"])
def test_oracle_classifiers_give_eta_up_to_the_interval(loss):
    eta = np.random.default_rng(1).uniform(size=2000)
    X, y = _oracle_data(eta)
    clf = ProbingClassifier(ThresholdOracle(), n_probes=40, loss=loss).fit(X, y)
    np.testing.assert_allclose(clf.probes_, np.sort(clf.probe_history_))
    # each oracle c_p says 1 iff eta > p, so the votes locate eta's interval exactly
    n = clf.votes(X)
    edges = np.concatenate(([0.0], clf.probes_, [1.0]))
    assert np.all((edges[n] <= eta) & (eta <= edges[n + 1]))
    p = clf.predict_proba(X)[:, 1]
    assert np.max(np.abs(p - eta)) <= np.max(np.diff(edges)) + 1e-12
    assert np.sqrt(np.mean((p - eta) ** 2)) < 0.02


def test_refinement_follows_S_a():
    """|S_a| is the mass of training predictions in [a, b]: probes pile up where eta lives."""
    eta = np.random.default_rng(2).uniform(0.6, 0.7, size=1000)
    X, y = _oracle_data(eta)
    clf = ProbingClassifier(ThresholdOracle(), n_probes=20, loss="squared").fit(X, y)
    assert clf.probe_history_[0] == 0.5
    assert clf.probe_history_[1] == 0.75  # [0.5, 1] holds every example, [0, 0.5] none
    inside = (clf.probes_ > 0.55) & (clf.probes_ < 0.75)
    assert inside.sum() >= 15


def test_first_probes_under_log_loss():
    X, y = _oracle_data(np.random.default_rng(3).uniform(size=1000))
    clf = ProbingClassifier(ThresholdOracle(), n_probes=3).fit(X, y)
    np.testing.assert_allclose(clf.probe_history_[:1], [0.5])
    assert clf.probe_history_[1] in (pytest.approx(0.2), pytest.approx(0.8))


# ---------------------------------------------------------------- Algorithm 2
def test_prediction_is_monotone_in_votes():
    X, y = _synthetic(600, seed=4)[:2]
    clf = ProbingClassifier(
        DecisionTreeClassifier(max_depth=3, random_state=0),
        n_probes=15,
        weighting="costing",
        random_state=0,
    ).fit(X, y)
    table = clf.interval_predictions_
    assert table.shape == (16,)
    assert np.all(np.diff(table) > 0)
    edges = np.concatenate(([0.0], clf.probes_, [1.0]))
    assert np.all(
        (edges[:-1] <= table) & (table <= edges[1:]) | (table == 0.001) | (table == 0.999)
    )
    n = clf.votes(X)
    np.testing.assert_array_equal(clf.predict_proba(X)[:, 1], table[n])
    # more votes for 1, never a smaller probability
    order = np.argsort(n, kind="stable")
    assert np.all(np.diff(clf.predict_proba(X)[order, 1]) >= 0)


def test_log_loss_predictions_are_clipped():
    X, y = _synthetic(400, seed=5)[:2]
    lr = LogisticRegression(solver="newton-cholesky")
    p = ProbingClassifier(lr, n_probes=30, random_state=0).fit(X, y).predict_proba(X)
    assert p.min() >= 0.001 and p.max() <= 0.999
    q = ProbingClassifier(lr, n_probes=30, loss="squared").fit(X, y).predict_proba(X)
    np.testing.assert_allclose(q.sum(axis=1), 1.0)


# ---------------------------------------------------------------- known probabilities
def _synthetic(n, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    eta = 1 / (1 + np.exp(-(2 * X[:, 0] - X[:, 1] + 0.5 * X[:, 0] ** 2 - 0.5)))
    y = (rng.uniform(size=n) < eta).astype(int)
    return X, y, eta


@pytest.mark.parametrize(
    "base,weighting",
    [
        (LogisticRegression(solver="newton-cholesky"), "sample_weight"),
        (DecisionTreeClassifier(min_samples_leaf=40, random_state=0), "costing"),
        (DecisionTreeClassifier(min_samples_leaf=40, random_state=0), "sample_weight"),
    ],
    ids=["logistic", "tree-costing", "tree-weights"],
)
def test_rmse_to_truth_falls_with_probes(base, weighting):
    X, y, _ = _synthetic(3000, seed=0)
    Xt, _, eta_t = _synthetic(4000, seed=1)
    raw = clone(base).fit(X, y).predict_proba(Xt)[:, 1]
    rmse_raw = np.sqrt(np.mean((raw - eta_t) ** 2))
    rmse = []
    for t in (1, 3, 10, 40):
        clf = ProbingClassifier(base, n_probes=t, weighting=weighting, random_state=0).fit(X, y)
        rmse.append(np.sqrt(np.mean((clf.predict_proba(Xt)[:, 1] - eta_t) ** 2)))
    assert rmse[0] > rmse[1] > rmse[3]
    assert rmse[3] < rmse_raw


# ---------------------------------------------------------------- costing
def test_costing_accepts_in_proportion_to_weights():
    rng = np.random.default_rng(0)
    y = (rng.uniform(size=5000) < 0.4).astype(int)
    p = 0.2
    w = probing_weights(y, p)
    accepted_pos, accepted = 0, 0
    for seed in range(50):
        idx = costing_sample(w, seed)
        accepted_pos += y[idx].sum()
        accepted += idx.size
    expected_share = w[y == 1].sum() / w.sum()
    assert accepted_pos / accepted == pytest.approx(expected_share, abs=0.01)
    assert accepted / 50 == pytest.approx(w.sum() / w.max(), rel=0.02)
    np.testing.assert_array_equal(costing_sample(w, 3), costing_sample(w, 3))


def test_costing_and_sample_weight_agree_on_average():
    X, y, eta = _synthetic(3000, seed=6)
    sw = ProbingClassifier(LogisticRegression(), n_probes=15, random_state=0).fit(X, y)
    co = ProbingClassifier(
        LogisticRegression(), n_probes=15, weighting="costing", random_state=0
    ).fit(X, y)
    assert sw.weighting_ == "sample_weight" and co.weighting_ == "costing"
    p_sw, p_co = sw.predict_proba(X)[:, 1], co.predict_proba(X)[:, 1]
    assert abs(p_sw.mean() - p_co.mean()) < 0.02
    assert np.mean(np.abs(p_sw - p_co)) < 0.05
    assert abs(np.sqrt(np.mean((p_sw - eta) ** 2)) - np.sqrt(np.mean((p_co - eta) ** 2))) < 0.02


def test_learner_without_sample_weight_uses_costing():
    X, y, _ = _synthetic(300, seed=7)
    clf = ProbingClassifier(KNeighborsClassifier(15), n_probes=5, random_state=0).fit(X, y)
    assert clf.weighting_ == "costing"
    assert clf.predict_proba(X).shape == (300, 2)


# ---------------------------------------------------------------- determinism, parallelism
def test_deterministic_and_independent_of_n_jobs():
    X, y, _ = _synthetic(500, seed=8)
    base = DecisionTreeClassifier(max_depth=4)
    fits = [
        ProbingClassifier(
            base, n_probes=12, weighting="costing", batch_size=4, n_jobs=j, random_state=3
        ).fit(X, y)
        for j in (1, 2, 1)
    ]
    for f in fits[1:]:
        np.testing.assert_array_equal(f.probes_, fits[0].probes_)
        np.testing.assert_array_equal(f.predict_proba(X), fits[0].predict_proba(X))


def test_integer_weights_equal_repeated_rows():
    X, y, _ = _synthetic(200, seed=9)
    k = np.random.default_rng(0).integers(0, 3, size=200)
    a = ProbingClassifier(LogisticRegression(tol=1e-10), n_probes=8).fit(X, y, sample_weight=k)
    b = ProbingClassifier(LogisticRegression(tol=1e-10), n_probes=8).fit(
        np.repeat(X, k, 0), np.repeat(y, k)
    )
    np.testing.assert_allclose(a.probes_, b.probes_)
    np.testing.assert_allclose(a.predict_proba(X), b.predict_proba(X), atol=1e-6)


# ---------------------------------------------------------------- multiclass
def test_multiclass_rows_are_probabilities():
    rng = np.random.default_rng(10)
    X = rng.normal(size=(600, 3))
    y = np.argmax(X + rng.normal(scale=0.7, size=X.shape), axis=1)
    clf = ProbingClassifier(LogisticRegression(), n_probes=10).fit(X, y)
    p = clf.predict_proba(X)
    assert p.shape == (600, 3)
    assert p.min() >= 0
    np.testing.assert_allclose(p.sum(axis=1), 1.0)
    lr = LogisticRegression().fit(X, y)
    assert np.mean(clf.predict(X) == y) > np.mean(lr.predict(X) == y) - 0.05
    # the guard: estimates of the first k - 1 classes adding to more than one
    for prob in clf.problems_:
        prob.interval_predictions_ = np.full_like(prob.interval_predictions_, 0.9)
    p = clf.predict_proba(X)
    np.testing.assert_allclose(p, np.tile([0.5, 0.5, 0.0], (600, 1)))


# ---------------------------------------------------------------- input checks
@pytest.mark.parametrize(
    "params,match",
    [
        ({"loss": "hinge"}, "loss"),
        ({"weighting": "bagging"}, "weighting"),
        ({"n_probes": 0}, "n_probes"),
        ({"n_probes": 2.5}, "n_probes"),
        ({"n_probes": True}, "n_probes"),
        ({"batch_size": 0}, "batch_size"),
        ({"estimator": object()}, "estimator"),
    ],
)
def test_bad_parameters(params, match):
    X, y, _ = _synthetic(50, seed=11)
    with pytest.raises(ValueError, match=match):
        ProbingClassifier(**params).fit(X, y)


def test_bad_data():
    X, y, _ = _synthetic(50, seed=12)
    with pytest.raises(ValueError, match="2 classes"):
        ProbingClassifier(n_probes=2).fit(X, np.ones(50))
    with pytest.raises(ValueError, match="empty"):
        ProbingClassifier(n_probes=2).fit(X[:0], y[:0])
    with pytest.raises(ValueError):
        ProbingClassifier(n_probes=2).fit(X, y, sample_weight=-np.ones(50))
    with pytest.raises(ValueError, match="loss"):
        minimax_probe(0, 1, "hinge")


# ---------------------------------------------------------------- scikit-learn
COSTING_XFAIL = {
    name: (
        "costing draws a random subsample with acceptance probability proportional to the "
        "weight, so "
        "weight k and k repeated rows agree only in distribution, not exactly"
    )
    for name in (
        "check_sample_weight_equivalence_on_dense_data",
        "check_sample_weight_equivalence_on_sparse_data",
    )
}


@pytest.mark.parametrize("weighting,xfail", [("sample_weight", {}), ("costing", COSTING_XFAIL)])
def test_check_estimator(weighting, xfail):
    est = ProbingClassifier(LogisticRegression(), n_probes=5, weighting=weighting, random_state=0)
    results = check_estimator(est, on_fail=None, expected_failed_checks=xfail)
    failed = [r["check_name"] for r in results if r["status"] == "failed"]
    assert failed == []


def test_staged_predictions_equal_fits_with_fewer_probes():
    X, y, _ = _synthetic(500, seed=13)
    base = DecisionTreeClassifier(max_depth=3)
    full = ProbingClassifier(base, n_probes=12, weighting="costing", random_state=5).fit(X, y)
    stages = list(full.staged_predict_proba(X))
    assert len(stages) == 12
    np.testing.assert_array_equal(stages[-1], full.predict_proba(X))
    for k in (1, 4, 9):
        part = ProbingClassifier(base, n_probes=k, weighting="costing", random_state=5).fit(X, y)
        np.testing.assert_array_equal(part.probe_history_, full.probe_history_[:k])
        np.testing.assert_array_equal(stages[k - 1], part.predict_proba(X))


def test_staged_multiclass_rows_are_probabilities():
    rng = np.random.default_rng(14)
    X = rng.normal(size=(300, 3))
    y = np.argmax(X + rng.normal(scale=0.7, size=X.shape), axis=1)
    clf = ProbingClassifier(GaussianNB(), n_probes=5).fit(X, y)
    stages = list(clf.staged_predict_proba(X))
    assert len(stages) == 5
    np.testing.assert_allclose(stages[-1], clf.predict_proba(X))
    for s in stages:
        np.testing.assert_allclose(s.sum(axis=1), 1.0)


def test_a_learner_without_sample_weight_switches_to_costing_with_a_warning():
    import warnings as _warnings

    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    X, y = make_classification(n_samples=80, random_state=0)
    pipe = make_pipeline(StandardScaler(), LogisticRegression())
    with pytest.warns(UserWarning, match="costing"):
        clf = ProbingClassifier(pipe, n_probes=3, random_state=0).fit(X, y)
    assert clf.weighting_ == "costing"
    with _warnings.catch_warnings():  # asked for: no warning
        _warnings.simplefilter("error")
        ProbingClassifier(pipe, n_probes=3, weighting="costing", random_state=0).fit(X, y)
