"""Venn-ABERS predictors (Vovk & Petej 2014; Vovk, Petej & Fedorova 2015)."""

import numpy as np

from calibbook._utils.binning import sorted_runs
from calibbook._utils.params import Integral, Interval, Options, check_random_state
from calibbook._utils.weights import warn_low_total_weight
from calibbook.base import BaseCalibrator

__all__ = ["VennAbers", "venn_abers_runs"]

#: Scores closer than this times the largest calibration score's magnitude count as tied: a
#: classifier's score for one case moves in its last bits between calls (a batch and the row
#: alone; near 0, by the rounding of the terms that cancelled), and the pair jumps at every
#: calibration score, so a rounding error must not move a score across one.
TIE_SLACK = 16 * np.finfo(np.float64).eps


def venn_abers_runs(weights, sums):
    """The two isotonic values of a test case tied with each run: (p0, p1) per run.

    Run r (the cases that share the r-th distinct score, increasing) has weight W_r > 0 and
    positive weight S_r. ``p1[r]`` is the value at a case of weight 1 and label 1 added at
    run r's score in the weighted isotonic (least-squares, non-decreasing) fit of the runs
    and that case; ``p0[r]`` the same with label 0. The fast algorithm of Vovk, Petej &
    Fedorova (2015): the isotonic value is the slope of the greatest convex minorant of the
    cumulative sum diagram, and the added case shifts the diagram's points from run r on by
    (1, 1) (label 1) or (1, 0) (label 0); one right-to-left convex-hull scan and one
    left-to-right pass that only walks right find every slope in O(R).

    Parameters
    ----------
    weights : array-like of shape (R,)
        W_r, the total weight of each run, in score order; finite and > 0.
    sums : array-like of shape (R,)
        S_r, the weight of each run's positives; in [0, W_r].

    Returns
    -------
    p0, p1 : ndarray of float64, shape (R,)
        The values with the added case labelled 0 and 1; ``p0 <= p1``.

    Raises
    ------
    ValueError
        If the arrays are not 1-D of one length, a value is not finite, a weight is not
        positive, or a sum lies outside [0, W_r].

    References
    ----------
    Vovk, Petej & Fedorova, "Large-scale probabilistic predictors with and without
    guarantees of validity", NeurIPS 2015, section 3 (algorithms 1-4).

    Examples
    --------
    Two runs, a negative then a positive. A positive tied with the first run makes it
    1/2; a negative tied with the second pools with it, and also gives 1/2:

    >>> from calibbook.calibrators.venn_abers import venn_abers_runs
    >>> p0, p1 = venn_abers_runs([1.0, 1.0], [0.0, 1.0])
    >>> p0.tolist(), p1.tolist()
    ([0.0, 0.5], [0.5, 1.0])
    """
    from calibbook._utils.validation import check_sample_weight, check_scores

    sums = check_scores(sums, name="sums")
    weights = check_sample_weight(weights, sums.size, name="weights")
    if np.any(weights == 0):
        raise ValueError("every run weight must be > 0 (a run of weight 0 is no run)")
    if np.any(sums < 0) or np.any(sums > weights):
        raise ValueError("every run's positive weight must lie in [0, its weight]")
    return _run_values(weights, sums)


class VennAbers(BaseCalibrator):
    r"""Venn-ABERS calibration: two isotonic fits per test score, and their merge.

    For a test score :math:`s`, add the case :math:`(s, 0)` to the calibration data and fit
    isotonic regression: its value at :math:`s` is :math:`p_0`; with :math:`(s, 1)` instead,
    :math:`p_1`. The pair :math:`(p_0, p_1)`, :math:`p_0 \le p_1`, is the *multiprobability*
    prediction of the inductive Venn-ABERS predictor (IVAP); ``predict`` returns one
    probability merged from it, by default the one of minimal worst-case log-loss,
    :math:`p = p_1 / (1 - p_0 + p_1)`. The fast algorithm of Vovk, Petej & Fedorova (2015)
    computes :math:`(p_0, p_1)` at every calibration score in O(n) after one sort
    (``venn_abers_runs`` in this module), so a prediction is a binary search. A score between two
    calibration scores takes :math:`p_1` of the one above and :math:`p_0` of the one below
    (the isotonic fit pools a case of label 1 with the run above and one of label 0 with the
    run below); beyond the training range :math:`p_1 = 1` above and :math:`p_0 = 0` below.
    The map depends on the order of the scores only (``_units`` is "affine", and more: any
    increasing change of units leaves it unchanged). Scores closer than ``tie_tolerance_``
    (16 machine epsilons times the largest calibration score's magnitude) count as tied, so
    that a score moved by a rounding error (a classifier's output for one case varies in its
    last bits between calls) keeps its pair.

    **Validity.** The prediction for the true label, :math:`p_Y` (:math:`p_1` when the test
    label is 1, :math:`p_0` when it is 0), is perfectly calibrated in finite samples,
    :math:`P(Y = 1 \mid p_Y) = p_Y`, when the calibration cases and the test case are
    exchangeable (i.i.d., say): :math:`p_Y` is the frequency of positives in the test case's
    isotonic block of the calibration data plus the labelled test case, and given that
    data as a bag the test case is any member of its block with equal probability. The
    pair, not one number, carries the guarantee: neither :math:`p_0`, :math:`p_1` nor the
    merged :math:`p` is calibrated by itself, and :math:`[p_0, p_1]` need not contain the
    true :math:`P(Y = 1 \mid s)`; what follows is :math:`E[p_0] \le P(Y = 1) \le E[p_1]`, and
    on any set of cases selected by :math:`p_Y` the frequency of positives is the mean of
    :math:`p_Y`. The width :math:`p_1 - p_0` shrinks as the isotonic blocks grow, so the
    merged probability is close to calibrated on large calibration sets. The tests check
    both by simulation with a known truth. The isotonic fit underneath, and PAV, are
    derived in :doc:`/book/04_isotonic_regression`.

    Weights are frequencies: integer weights give the fit of repeated rows, and the test
    case always has weight 1, so the pair depends on the weights' total, not only on
    their proportions (weights that sum to 1 are one case, and :math:`p_1 - p_0` is then
    large). A total below two cases per isotonic block warns with
    :class:`calibbook.LowWeightWarning`.

    Parameters
    ----------
    cv : int or None, default=None
        None: the inductive predictor (IVAP) on all the calibration scores. An integer
        k >= 2: a cross Venn-ABERS predictor (CVAP) for a calibrator, which sees scores and
        not the classifier: the calibration rows are split into k folds at random
        (stratified by label; rows of zero weight are left out), an IVAP is fitted on each
        fold, and the k pairs are merged by the CVAP formula of Vovk, Petej & Fedorova (2015)
        (``loss="log"``: :math:`\mathrm{GM}(p_1) / (\mathrm{GM}(1 - p_0) + \mathrm{GM}(p_1))`,
        GM the geometric mean over the folds). Each fold's pair is valid as above; the
        merge trades that for lower variance. The paper's CVAP also retrains the classifier
        without each fold, which a calibrator cannot do: pass out-of-fold scores (as
        :class:`calibbook.CalibratedClassifier` does) for that. With ``cv`` the weights go
        with their rows into folds, so integer weights no longer equal repeated rows.
    loss : {"log", "brier"}, default="log"
        How ``predict`` merges the pair into one probability: the minimax choice for the
        log-loss, :math:`p_1 / (1 - p_0 + p_1)`, or for the Brier score,
        :math:`p_1 + (p_0^2 - p_1^2) / 2` (with ``cv``, the means over the folds of
        :math:`p_1`, :math:`p_0^2` and :math:`p_1^2`). Both lie in :math:`[p_0, p_1]`.
    random_state : None, int or numpy Generator, default=None
        Draws the folds when ``cv`` is an integer; ignored otherwise.

    Attributes
    ----------
    knots_ : list of ndarray of shape (n_runs, 2)
        One array per fold (one in all for the IVAP): the smallest and largest score of
        each run of tied calibration scores, increasing.
    tie_tolerance_ : float
        Scores closer than this count as tied, in the fit and in predictions.
    p0_, p1_ : list of ndarray
        For each fold, :math:`p_0` and :math:`p_1` at each of ``knots_``.

    See Also
    --------
    calibbook.IsotonicCalibration : The single isotonic fit of the calibration data.

    References
    ----------
    Vovk & Petej, "Venn-Abers predictors", UAI 2014. Vovk, Petej & Fedorova, "Large-scale
    probabilistic predictors with and without guarantees of validity", NeurIPS 2015.
    Vovk, Shafer & Nouretdinov, "Self-calibrating probability forecasting", NIPS 2003, for
    the validity of Venn predictors.
    :doc:`/book/11_ties_and_guarantees` derives the predictor and checks its validity by
    simulation.

    Examples
    --------
    >>> from calibbook import VennAbers
    >>> cal = VennAbers().fit([0.1, 0.2, 0.3, 0.4], [0, 1, 0, 1])
    >>> p0, p1 = cal.predict_interval([0.25])
    >>> p0.tolist(), p1.tolist()
    ([0.3333333333333333], [0.6666666666666666])

    The merged probability :math:`p_1 / (1 - p_0 + p_1)`:

    >>> cal.predict([0.25]).tolist()
    [0.5]
    """

    _parameter_constraints = {
        "cv": [None, Interval(Integral, 2, None)],
        "loss": [Options("log", "brier")],
        "random_state": ["random_state"],
    }

    def __init__(self, *, cv=None, loss="log", random_state=None):
        self.cv = cv
        self.loss = loss
        self.random_state = random_state

    def _fit(self, scores, y, sample_weight):
        if self.cv is None:
            folds = [(scores, y, sample_weight)]
        else:
            folds = self._folds(scores, y, sample_weight)
        self.tie_tolerance_ = TIE_SLACK * float(np.max(np.abs(scores)))
        self.knots_, self.p0_, self.p1_ = [], [], []
        total, n_blocks = 0.0, 0
        for s, labels, w in folds:
            knots, weights, positives = _near_ties_pooled(
                *sorted_runs(s, labels, w), self.tie_tolerance_
            )
            p0, p1 = _run_values(weights, positives)
            self.knots_.append(knots)
            self.p0_.append(p0)
            self.p1_.append(p1)
            if sample_weight is not None:
                total += weights.sum()
                n_blocks += _n_blocks(weights, positives)
        if sample_weight is not None:
            warn_low_total_weight(total, n_blocks, "block", "VennAbers")
        return self

    def _folds(self, scores, y, sample_weight):
        """Stratified random folds of the rows of positive weight: [(scores, y, weights)]."""
        keep = np.ones(scores.size, bool) if sample_weight is None else sample_weight > 0
        _require_rows(np.count_nonzero(keep), self.cv)
        rng = check_random_state(self.random_state)
        fold = np.full(scores.size, -1)
        start = 0
        for label in (0.0, 1.0):  # deal each class's shuffled rows round the folds
            rows = rng.permutation(np.flatnonzero(keep & (y == label)))
            fold[rows] = (start + np.arange(rows.size)) % self.cv
            start += rows.size
        out = []
        for k in range(self.cv):
            idx = np.flatnonzero(fold == k)
            w = None if sample_weight is None else sample_weight[idx]
            out.append((scores[idx], y[idx], w))
        return out

    def predict_interval(self, scores):
        """The multiprobability pair (p0, p1) of each score.

        Parameters
        ----------
        scores : array-like of shape (n_samples,) or (n_samples, 1)
            Scores of the same kind as those passed to ``fit``.

        Returns
        -------
        p0, p1 : ndarray of shape (n_samples,), or (n_samples, cv) with ``cv``
            The isotonic values at each score with the score's case labelled 0 and 1;
            ``p0 <= p1``. With ``cv`` one column per fold.

        Raises
        ------
        sklearn.exceptions.NotFittedError
            If ``fit`` has not been called.
        ValueError
            If the scores are invalid (as in ``fit``).
        """
        from sklearn.utils.validation import check_is_fitted

        from calibbook._utils.validation import check_scores

        check_is_fitted(self)
        s = check_scores(scores, estimator=type(self).__name__)
        p0, p1 = self._pairs(s)
        if self.cv is None:
            return p0[:, 0], p1[:, 0]
        return p0, p1

    def _pairs(self, s):
        """(p0, p1), each of shape (n, n_folds): a search per score, or a walk (see pair_lookup)."""
        from calibbook._kernels.interpreted import for_size
        from calibbook._kernels.venn_abers import pair_lookup

        p0 = np.empty((s.size, len(self.knots_)))
        p1 = np.empty_like(p0)
        out0, out1 = np.empty(s.size), np.empty(s.size)
        tolerance = float(self.tie_tolerance_)
        in_turn, sorted_order = np.arange(s.size), None
        for k, (knots, f0, f1) in enumerate(zip(self.knots_, self.p0_, self.p1_, strict=True)):
            lo, hi = np.ascontiguousarray(knots[:, 0]), np.ascontiguousarray(knots[:, 1])
            f0, f1 = np.ascontiguousarray(f0, np.float64), np.ascontiguousarray(f1, np.float64)
            # runs beyond the caches, as many scores: sort the scores once and walk the runs
            walk = lo.size > _LARGE_TABLE and s.size > _LARGE_TABLE
            if walk and sorted_order is None:
                sorted_order = np.argsort(s, kind="stable")
            order = sorted_order if walk else in_turn
            lookup = for_size(pair_lookup, max(lo.size, s.size))
            lookup(lo, hi, f0, f1, s, tolerance, order, walk, out0, out1)
            p0[:, k], p1[:, k] = out0, out1
        return p0, p1

    def _predict(self, scores):
        p0, p1 = self._pairs(scores)
        if self.loss == "brier":
            return np.mean(p1, axis=1) + 0.5 * np.mean(p0**2, axis=1) - 0.5 * np.mean(p1**2, axis=1)
        if p0.shape[1] == 1:  # the IVAP: no geometric mean, no rounding through logs
            return p1[:, 0] / (1.0 - p0[:, 0] + p1[:, 0])
        # geometric means through logs; p1 >= 1/(W+1) > 0 and 1 - p0 >= 1/(W+1) > 0
        g1 = np.exp(np.mean(np.log(p1), axis=1))
        g0 = np.exp(np.mean(np.log1p(-p0), axis=1))
        return g1 / (g0 + g1)


# Runs (and scores) above which a prediction sorts the scores and walks the runs once rather
# than searching them per score: 2**16 runs, about the size of a core's L2 cache.
_LARGE_TABLE = 1 << 16


def _require_rows(n_rows, n_folds):
    """A rule on the data and ``cv`` together: every fold needs a row of positive weight."""
    if n_rows < n_folds:
        raise ValueError(
            f"cv={n_folds} folds need at least {n_folds} rows of positive weight; got {n_rows}."
        )


def _near_ties_pooled(values, weights, positives, tolerance):
    """Pool runs whose scores are within ``tolerance`` of each other: (knots, W, S).

    ``knots`` has one row per pooled run: its smallest and largest score.
    """
    close = np.diff(values) <= tolerance
    if not close.any():  # the usual case: nothing to pool
        return np.column_stack((values, values)), weights, positives
    starts = np.flatnonzero(np.concatenate(([True], ~close)))
    ends = np.append(starts[1:], values.size) - 1
    knots = np.column_stack((values[starts], values[ends]))
    return knots, np.add.reduceat(weights, starts), np.add.reduceat(positives, starts)


def _run_values(weights, positives):
    """(p0, p1) of each run (:func:`calibbook._kernels.venn_abers.pair_values`)."""
    from calibbook._kernels.interpreted import for_size
    from calibbook._kernels.venn_abers import new_pair_arrays, pair_values

    weights = np.ascontiguousarray(weights, np.float64)  # one specialization
    positives = np.ascontiguousarray(positives, np.float64)
    diagram, nxt, pairs = new_pair_arrays(weights.size)
    for_size(pair_values, weights.size)(weights, positives, diagram, nxt, pairs)
    return pairs


def _n_blocks(weights, positives):
    """How many blocks the isotonic fit of the runs has (for the low-weight warning)."""
    from calibbook._kernels.isotonic import pav_runs

    return pav_runs(weights, positives)[0].size
