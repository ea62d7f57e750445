"""The Probing reduction: class probabilities from any classifier learner.

Langford and Zadrozny (2005) turn a classifier learner into a class-probability
estimator. A classifier trained with importance weight ``(1 - p) / p`` on the
positives and ``1`` on the negatives predicts 1 exactly where ``D(1|x) > p``
(Corollary 1), so a family of such classifiers at thresholds ``p_1 < ... < p_t``
locates ``D(1|x)`` in one of the ``t + 1`` intervals they cut ``[0, 1]`` into.

Learner (their Algorithm 1)
    Keep the intervals. Each round picks the *minimax interval* (the one whose
    refinement can gain most on the training set) and probes it at the *minimax
    p* for the chosen loss, then trains ``c_p`` on the weights ``i_p(y)``.
Predictor (their Algorithm 2)
    Count the classifiers that say 1 for ``x``; with the probes sorted that count
    ``n`` is the position where the (sorted, hence monotone) sequence of votes
    switches from 1 to 0. Return the minimax p of the ``n``-th interval
    (counting from 0).

Choices where the paper is silent or ambiguous (see the class docstring):

* ``S_a`` is the set of training examples whose *current* Probing prediction
  lies in ``[a, b]``. We compute it from vote counts, which avoids any
  ambiguity at the shared end points: after ``t`` probes an example whose
  classifiers cast ``n`` votes for 1 is in interval ``n``. Its size is
  weighted by ``sample_weight``.
* The weights ``i_p(y)`` are rescaled to have (sample-weighted) mean one, so
  the base learner sees the same total weight as without Probing and its
  regularisation keeps its meaning; the minimiser of the weighted error is
  unchanged by the scale.
* Ties between intervals go to the leftmost.
"""

import inspect
import warnings

import numpy as np
from joblib import Parallel, delayed
from sklearn.base import clone
from sklearn.utils.validation import check_is_fitted

from calibbook._utils.compat import check_sample_weight_like, num_samples, safe_indexing
from calibbook._utils.maths import expit
from calibbook._utils.params import (
    Integral,
    Interval,
    Options,
    check_random_state,
    validate_parameters,
    validate_params,
)
from calibbook.meta._base import MetaClassifier

__all__ = [
    "ProbingClassifier",
    "binary_entropy",
    "costing_sample",
    "interval_gain",
    "minimax_probe",
    "probing_weights",
]

_LOSSES = ("log", "squared")
_WEIGHTINGS = ("sample_weight", "costing")
LOG_CLIP = (0.001, 0.999)  # Section 4.2: project log-loss predictions into [0.001, 0.999]


# ---------------------------------------------------------------- the loss details
def binary_entropy(p):
    r"""Shannon entropy in nats of a coin with bias ``p``, with :math:`0 \ln 0 = 0`.

    :math:`H(p) = -p \ln p - (1 - p) \ln (1 - p)`; the Probing reduction uses it
    for the minimax probe under log-loss (:doc:`/book/07_probing`).

    Parameters
    ----------
    p : float or array-like
        Probabilities in [0, 1].

    Returns
    -------
    ndarray
        H(p), of the shape of ``p``.

    References
    ----------
    Cover & Thomas, "Elements of information theory", Wiley (2006), Section 2.1.

    Examples
    --------
    >>> from calibbook.meta.probing import binary_entropy
    >>> round(float(binary_entropy(0.5)), 6)  # ln 2
    0.693147
    >>> bool((binary_entropy([0.0, 1.0]) == 0).all())
    True
    """
    p = np.asarray(p, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        h = -(np.where(p > 0, p * np.log(p), 0.0) + np.where(p < 1, (1 - p) * np.log1p(-p), 0.0))
    return h


def _kl(p, q):
    """Bernoulli KL divergence KL(p || q) in nats.

    It is the log-loss regret of predicting q when the truth is p.
    """
    p = np.asarray(p, dtype=np.float64)
    q = np.asarray(q, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        a = np.where(p > 0, p * (np.log(p) - np.log(q)), 0.0)
        b = np.where(p < 1, (1 - p) * (np.log1p(-p) - np.log1p(-q)), 0.0)
    return a + b


@validate_params({"loss": [Options(*_LOSSES)]})
def minimax_probe(a, b, loss="log"):
    """The minimax prediction in ``[a, b]``: ``argmin_q max_{p in [a, b]} regret(p, q)``.

    For squared error the regret is ``(p - q)**2`` and the answer the midpoint.
    For cross-entropy the regret is ``KL(p || q)``, convex in ``p``, so its
    maximum over ``[a, b]`` is at an end point; it is smallest where both end
    points tie, ``KL(a || q) = KL(b || q)``, which solves to
    ``q = 1 / (1 + exp((H(b) - H(a)) / (b - a)))`` (``H`` the binary entropy).
    A degenerate interval ``a == b`` returns ``a``. :doc:`/book/07_probing`
    derives both answers.

    Parameters
    ----------
    a, b : float or array-like
        End points of the interval(s), 0 <= a <= b <= 1.
    loss : {"log", "squared"}, default="log"
        Cross-entropy (log-loss) or squared error.

    Returns
    -------
    ndarray
        The minimax prediction q, in [a, b].

    Raises
    ------
    ValueError
        If ``loss`` is not one of the two names.

    References
    ----------
    Langford & Zadrozny, "Estimating class membership probabilities using
    classifier learners", AISTATS 2005.

    Examples
    --------
    >>> from calibbook.meta.probing import minimax_probe
    >>> float(minimax_probe(0.0, 1.0))
    0.5
    >>> round(float(minimax_probe(0.2, 0.4, loss="squared")), 6)
    0.3
    """
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if loss == "squared":
        return 0.5 * (a + b)
    width = b - a
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        slope = (binary_entropy(b) - binary_entropy(a)) / width
        q = expit(-slope)
    return np.where(width > 0, q, a)


def interval_gain(a, b, loss="log"):
    """Potential gain of refining ``[a, b]`` per training example in it.

    The gain is not yet weighted by ``|S_a|``.

    Cross-entropy: the worst-case regret of the minimax prediction,
    ``KL(a || q) (= KL(b || q))``, as in the paper. Squared error: the paper's
    ``b - a`` (the worst-case regret itself would be ``(b - a)**2 / 4``, which
    orders intervals of equal ``|S_a|`` the same way but trades width against
    ``|S_a|`` differently; we follow the paper). See :doc:`/book/07_probing`.

    Parameters
    ----------
    a, b : float or array-like
        End points of the interval(s), 0 <= a <= b <= 1.
    loss : {"log", "squared"}, default="log"
        Any value other than ``"squared"`` means log-loss.

    Returns
    -------
    ndarray
        The gain, non-negative.

    References
    ----------
    Langford & Zadrozny, "Estimating class membership probabilities using
    classifier learners", AISTATS 2005.

    Examples
    --------
    >>> from calibbook.meta.probing import interval_gain
    >>> round(float(interval_gain(0.0, 1.0)), 4)  # KL(0 || 1/2) = ln 2
    0.6931
    >>> round(float(interval_gain(0.2, 0.6, loss="squared")), 6)
    0.4
    """
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if loss == "squared":
        return b - a
    q = minimax_probe(a, b, "log")
    return np.maximum(_kl(a, q), 0.0)


def probing_weights(y, p, sample_weight=None):
    """Importance weights ``i_p(y) = (1 - p) / p * y + (1 - y)``, rescaled to weighted mean one.

    Positives cost ``(1 - p) / p`` times as much as negatives to misclassify, so
    the weighted-error minimiser predicts 1 exactly where ``D(1|x) > p``
    (Corollary 1). Multiplied by ``sample_weight`` when given.
    :doc:`/book/07_probing` proves the corollary.

    Parameters
    ----------
    y : array-like of shape (n,)
        Labels in {0, 1}.
    p : float
        Probe threshold, in (0, 1).
    sample_weight : array-like of shape (n,), optional
        Non-negative weights, at least one positive.

    Returns
    -------
    ndarray of shape (n,)
        The weights, with (sample-weighted) mean one.

    References
    ----------
    Langford & Zadrozny, "Estimating class membership probabilities using
    classifier learners", AISTATS 2005.

    Examples
    --------
    >>> from calibbook.meta.probing import probing_weights
    >>> # a positive costs (1 - p) / p = 3 negatives
    >>> probing_weights([1, 0, 1, 0], 0.25).tolist()
    [1.5, 0.5, 1.5, 0.5]
    """
    y = np.asarray(y, dtype=np.float64)
    s = np.ones_like(y) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    # i_p(y) * p = (1 - p) y + p (1 - y): same ratio, no overflow for tiny p
    w = (1.0 - p) * y + p * (1.0 - y)
    mean = np.sum(s * w) / np.sum(s)
    return s * w / mean


@validate_params({"random_state": ["random_state"]})
def costing_sample(weights, random_state=None):
    """Rejection sampling (costing): keep example ``i`` with probability ``w_i / max(w)``.

    Zadrozny, Langford and Abe (2003): a learner that minimises plain error on
    the accepted examples minimises the importance-weighted error on the
    original ones, since the accepted sample is drawn from the distribution
    ``w(x, y) D(x, y) / E[w]``. Returns the indices of the accepted examples.
    ``random_state`` is a seed or a ``numpy.random.Generator``.
    ``weighting="costing"`` of :class:`calibbook.ProbingClassifier` uses it
    (:doc:`/book/07_probing`).

    Parameters
    ----------
    weights : array-like of shape (n,)
        Non-negative importance weights.
    random_state : None, int or numpy.random.Generator, default=None
        Seed or generator of the acceptance draws.

    Returns
    -------
    ndarray of int
        Indices of the accepted examples, increasing; empty when every weight is 0.

    References
    ----------
    Zadrozny, Langford & Abe, "Cost-sensitive learning by cost-proportionate
    example weighting", ICDM 2003.

    Examples
    --------
    >>> from calibbook.meta.probing import costing_sample
    >>> costing_sample([1.0, 0.0, 0.5, 1.0], random_state=0).tolist()
    [0, 2, 3]
    >>> costing_sample([0.0, 0.0]).size
    0
    """
    w = np.asarray(weights, dtype=np.float64)
    rng = check_random_state(random_state)
    top = w.max()
    if top <= 0:
        return np.zeros(0, dtype=np.intp)
    return np.flatnonzero(rng.uniform(size=w.size) * top < w)


# ---------------------------------------------------------------- one probe
class _Constant:
    """A classifier that always says the same class (a probe whose sample holds one class)."""

    def __init__(self, label):
        self.label = label

    def predict(self, X):
        return np.full(num_samples(X), self.label, dtype=np.int64)


def _set_random_state(estimator, seed):
    if "random_state" in estimator.get_params(deep=False):
        estimator.set_params(random_state=seed)
    return estimator


def _fit_probe(estimator, X, y01, p, sample_weight, use_costing, seed, takes_weight):
    """Fit ``c_p``; return it with its 0/1 votes on the training set."""
    w = probing_weights(y01, p, sample_weight)
    est = clone(estimator)
    if seed is not None:
        _set_random_state(est, seed)
    if use_costing:
        idx = costing_sample(w, np.random.default_rng(seed))
        y_sub = y01[idx]
        n_pos = int(y_sub.sum())
        if n_pos == 0 or n_pos == idx.size:  # nothing to learn: one class (or none) accepted
            label = int(n_pos > 0) if idx.size else int(np.sum(w * y01) > np.sum(w * (1 - y01)))
            fitted = _Constant(label)
        else:
            fitted = est.fit(safe_indexing(X, idx), y_sub)
    else:
        pos = np.sum(w[y01 == 1]) > 0
        neg = np.sum(w[y01 == 0]) > 0
        if not (pos and neg):
            fitted = _Constant(int(pos))
        elif takes_weight:
            fitted = est.fit(X, y01, sample_weight=w)
        else:  # pragma: no cover - ProbingClassifier routes this case to costing
            fitted = est.fit(X, y01)
    votes = (np.asarray(fitted.predict(X)) == 1).astype(np.int64)
    return fitted, votes


class _BinaryProbing:
    """Algorithms 1 and 2 for one binary problem (labels 0/1)."""

    def __init__(self, estimator, n_probes, loss, use_costing, takes_weight, batch_size, n_jobs):
        self.estimator = estimator
        self.n_probes = n_probes
        self.loss = loss
        self.use_costing = use_costing
        self.takes_weight = takes_weight
        self.batch_size = batch_size
        self.n_jobs = n_jobs

    def fit(self, X, y01, sample_weight, rng):
        n = y01.shape[0]
        s = np.ones(n) if sample_weight is None else sample_weight
        edges = [0.0, 1.0]  # the interval set I, as sorted boundaries
        votes = np.zeros(n, dtype=np.int64)  # classifiers saying 1, per training example
        probes, classifiers = [], []
        history = []  # the probes in the order they were chosen
        parallel = Parallel(n_jobs=self.n_jobs)
        while len(probes) < self.n_probes:
            e = np.asarray(edges)
            a, b = e[:-1], e[1:]
            # |S_a|: weight of the training examples whose current prediction is in interval j
            size = np.bincount(votes, weights=s, minlength=a.size)
            gain = size * interval_gain(a, b, self.loss)
            k = min(self.batch_size, self.n_probes - len(probes))
            order = np.argsort(-gain, kind="stable")[:k]  # ties: leftmost first
            order = order[(b[order] - a[order]) > 0]
            if order.size == 0:
                break
            ps = [float(minimax_probe(a[j], b[j], self.loss)) for j in order]
            seeds = [int(rng.integers(2**31 - 1)) for _ in ps]
            fitted = parallel(
                delayed(_fit_probe)(
                    self.estimator,
                    X,
                    y01,
                    p,
                    sample_weight,
                    self.use_costing,
                    sd,
                    self.takes_weight,
                )
                for p, sd in zip(ps, seeds, strict=True)
            )
            for p, (clf, v) in zip(ps, fitted, strict=True):
                probes.append(p)
                classifiers.append(clf)
                votes += v
                edges.append(p)
                history.append(p)
            edges.sort()  # an example with n votes is now in interval n of len(edges) - 1
        # keep the classifiers in probe order (sorting makes the votes monotone in p)
        order = np.argsort(probes, kind="stable")
        self.probes_ = np.asarray(probes)[order]
        self.classifiers_ = [classifiers[i] for i in order]
        self.probe_history_ = np.asarray(history)
        # history_index_[h]: position in probes_ of the h-th probe chosen (for staged predictions)
        self.history_index_ = np.empty(len(order), dtype=np.intp)
        self.history_index_[order] = np.arange(len(order))
        self.edges_ = np.concatenate(([0.0], self.probes_, [1.0]))
        self.interval_predictions_ = self._table(self.edges_)
        return self

    def _table(self, edges):
        pred = minimax_probe(edges[:-1], edges[1:], self.loss)
        if self.loss == "log":
            pred = np.clip(pred, *LOG_CLIP)
        return pred

    def staged_predict(self, X):
        """P(1 | x) of the Probing model made of the first k probes, for k = 1, 2, ..."""
        votes = np.zeros(num_samples(X), dtype=np.int64)
        chosen = []
        for j in self.history_index_:
            votes += np.asarray(self.classifiers_[j].predict(X)) == 1
            chosen.append(self.probes_[j])
            edges = np.concatenate(([0.0], np.sort(chosen), [1.0]))
            yield self._table(edges)[votes]

    def votes(self, X):
        n = np.zeros(num_samples(X), dtype=np.int64)
        for clf in self.classifiers_:
            n += np.asarray(clf.predict(X)) == 1
        return n

    def predict(self, X):
        return self.interval_predictions_[self.votes(X)]


# ---------------------------------------------------------------- the estimator
class ProbingClassifier(MetaClassifier):
    """Class probabilities from any classifier learner by the Probing reduction.

    Langford and Zadrozny (2005), Algorithms 1 and 2: ``n_probes`` classifiers
    ``c_p`` are trained with importance weights ``i_p(y) = (1 - p)/p * y + (1 - y)``
    at thresholds ``p`` chosen adaptively; the probability for ``x`` is the
    minimax point of the interval picked out by the number of classifiers
    that predict 1 for ``x``. :doc:`/book/07_probing` derives the reduction,
    proves its guarantee and reruns the paper's experiments.

    Which calibrator suits your data and classifier: the decision guide,
    :doc:`/book/which_calibrator`.

    Parameters
    ----------
    estimator : classifier, default=None
        The base learner (cloned for every probe). None means ``LogisticRegression()``.
    n_probes : int, default=100
        Number of classifiers ``c_p`` (iterations ``t`` of Algorithm 1). The
        paper uses 100. Fewer are trained only if every interval has shrunk to
        zero width in floating point.
    loss : {"log", "squared"}, default="log"
        Probabilistic loss that decides the minimax probe in an interval and
        the interval to refine. With ``"log"`` predictions are clipped to
        ``[0.001, 0.999]`` (Section 4.2).
    weighting : {"sample_weight", "costing"}, default="sample_weight"
        How the base learner is made to minimise the importance-weighted
        error: pass the weights as ``sample_weight`` to its ``fit``, or
        rejection-sample the training set in proportion to them (costing;
        Zadrozny, Langford and Abe 2003). A learner whose ``fit`` takes no
        ``sample_weight`` (a ``Pipeline``, for example) uses costing, with a
        ``UserWarning`` unless ``weighting="costing"`` was asked for.
    batch_size : int, default=1
        Probes chosen per refinement round: the ``batch_size`` intervals of
        largest gain are probed at once and fitted in parallel. 1 is the
        paper's Algorithm 1. Results depend on ``batch_size`` but not on ``n_jobs``.
    n_jobs : int, default=None
        Parallel jobs (joblib) for the probes of one round.
    random_state : int, RandomState or None, default=None
        Seeds the costing samples and, for learners with a ``random_state``
        parameter, each probe's learner.

    Attributes
    ----------
    classes_ : ndarray
        Class labels.
    probes_ : ndarray of shape (n_probes,) or list of them
        The sorted thresholds ``p`` (binary); one array per one-vs-rest problem (multiclass).
    estimators_ : list
        The fitted classifiers ``c_p`` in the order of ``probes_`` (binary), or a list of
        such lists.
    interval_predictions_ : ndarray of shape (n_probes + 1,)
        Prediction when ``n`` classifiers say 1 (binary).
    probe_history_ : ndarray
        The thresholds in the order Algorithm 1 chose them (binary).
    weighting_ : str
        The weighting actually used.

    Notes
    -----
    ``S_a``, the set the paper weights the gain of ``[a, b]`` by, is the set of
    training examples whose current Probing prediction falls in ``[a, b]``;
    we read it off the vote counts on the training set (an example with ``n``
    votes is in the ``n``-th interval), weighted by ``sample_weight``. These
    are in-sample predictions: a learner that interpolates the training set
    (an unpruned tree) puts every example in the first or last interval and
    the refinement then concentrates at the extremes.

    Multiclass (``k > 2``): one Probing problem per class ``l < k`` on the
    labels ``I(y = l)``; the last class gets ``1 - sum``. When the ``k - 1``
    estimates add to more than one, the last class gets 0 and the row is
    divided by its sum, so every row is non-negative and sums to one.

    See Also
    --------
    calibbook.CalibratedClassifier : Calibrates a classifier's scores instead.

    References
    ----------
    Langford, J. and Zadrozny, B. (2005). Estimating class membership
    probabilities using classifier learners. AISTATS. Zadrozny, Langford & Abe,
    "Cost-sensitive learning by cost-proportionate example weighting", ICDM 2003.

    Examples
    --------
    >>> from calibbook import ProbingClassifier
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.datasets import make_moons
    >>> X, y = make_moons(n_samples=200, noise=0.3, random_state=0)
    >>> clf = ProbingClassifier(LogisticRegression(), n_probes=10, random_state=0)
    >>> clf = clf.fit(X, y)
    >>> votes = clf.votes(X[:4])  # how many of the 10 classifiers say 1
    >>> bool(((0 <= votes) & (votes <= 10)).all()), clf.predict_proba(X[:4]).shape
    (True, (4, 2))
    """

    _parameter_constraints = {
        "estimator": [None, "estimator"],
        "n_probes": [Interval(Integral, 1, None)],
        "loss": [Options(*_LOSSES)],
        "weighting": [Options(*_WEIGHTINGS)],
        "batch_size": [Interval(Integral, 1, None)],
        "n_jobs": [None, Interval(Integral, None, None)],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        estimator=None,
        *,
        n_probes=100,
        loss="log",
        weighting="sample_weight",
        batch_size=1,
        n_jobs=None,
        random_state=None,
    ):
        self.estimator = estimator
        self.n_probes = n_probes
        self.loss = loss
        self.weighting = weighting
        self.batch_size = batch_size
        self.n_jobs = n_jobs
        self.random_state = random_state

    def fit(self, X, y, sample_weight=None):
        """Run the Probing learner (Algorithm 1) on ``(X, y)``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), optional
            Multiplies the importance weights ``i_p(y)`` (and the costing
            acceptance probabilities) and weights ``|S_a|``.

        Returns
        -------
        self : ProbingClassifier

        Raises
        ------
        ValueError
            If a parameter is invalid, the data are empty, ``y`` holds a single
            class, or ``sample_weight`` is negative or zero everywhere.
        """
        validate_parameters(self)
        estimator = self._estimator()
        if not hasattr(estimator, "predict"):
            raise ValueError(
                f"estimator must be a classifier with fit and predict; got {estimator!r}."
            )
        X, y, y_enc = self._start_fit(X, y)
        if sample_weight is not None:
            sample_weight = check_sample_weight_like(sample_weight, X, ensure_non_negative=True)
            if not np.any(sample_weight > 0):
                raise ValueError(
                    "sample_weight is zero everywhere; at least one sample needs positive weight."
                )
        takes_weight = "sample_weight" in inspect.signature(estimator.fit).parameters
        use_costing = self.weighting == "costing" or not takes_weight
        if use_costing and self.weighting != "costing":
            warnings.warn(
                f"{type(estimator).__name__}.fit takes no sample_weight, so ProbingClassifier "
                "applies each probe's importance weights by costing (rejection sampling) instead. "
                "Pass weighting='costing' to say that this is intended.",
                UserWarning,
                stacklevel=2,
            )
        self.weighting_ = "costing" if use_costing else "sample_weight"
        # an integer seeds a legacy RandomState whose first draw seeds the generator,
        # the stream of calibbook 0.1 (its results stay as they were)
        state = self.random_state
        if state is None or isinstance(state, Integral):
            state = np.random.RandomState(state)
        rng = check_random_state(state)

        k = self.classes_.size
        targets = [y_enc] if k == 2 else [(y_enc == c).astype(np.int64) for c in range(k - 1)]
        self.problems_ = []
        for t in targets:
            prob = _BinaryProbing(
                estimator,
                self.n_probes,
                self.loss,
                use_costing,
                takes_weight,
                self.batch_size,
                self.n_jobs,
            )
            self.problems_.append(prob.fit(X, np.asarray(t, dtype=np.int64), sample_weight, rng))
        if k == 2:
            only = self.problems_[0]
            self.probes_ = only.probes_
            self.estimators_ = only.classifiers_
            self.interval_predictions_ = only.interval_predictions_
            self.probe_history_ = only.probe_history_
        else:
            self.probes_ = [pr.probes_ for pr in self.problems_]
            self.estimators_ = [pr.classifiers_ for pr in self.problems_]
        self._copy_feature_attributes([clf for pr in self.problems_ for clf in pr.classifiers_], X)
        return self

    def votes(self, X):
        """Number of classifiers that say 1 for each row of ``X``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of int
            Shape (n_samples,) for two classes; (n_samples, n_classes - 1) otherwise.
        """
        check_is_fitted(self)
        if self.classes_.size != 2:
            return np.column_stack([pr.votes(X) for pr in self.problems_])
        return self.problems_[0].votes(X)

    def _predict_proba(self, X):  # Algorithm 2
        if self.classes_.size == 2:
            p = self.problems_[0].predict(X)
            return np.column_stack((1.0 - p, p))
        return self._combine(np.column_stack([pr.predict(X) for pr in self.problems_]))

    def staged_predict_proba(self, X):
        """Probabilities of the model made of the first k probes chosen, for k = 1, ..., n_probes.

        Algorithm 1 is sequential, so with ``batch_size=1`` the k-th stage is
        exactly the model ``fit`` with ``n_probes=k`` would return (for
        the same random draws).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Yields
        ------
        ndarray of shape (n_samples, n_classes)
            The probabilities after the first k probes.
        """
        check_is_fitted(self)
        stages = [pr.staged_predict(X) for pr in self.problems_]
        for cols in zip(*stages, strict=True):
            if self.classes_.size == 2:
                yield np.column_stack((1.0 - cols[0], cols[0]))
            else:
                yield self._combine(np.column_stack(cols))

    @staticmethod
    def _combine(cols):
        last = np.maximum(1.0 - cols.sum(axis=1, keepdims=True), 0.0)
        proba = np.hstack((cols, last))
        return proba / proba.sum(axis=1, keepdims=True)
