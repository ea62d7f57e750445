"""Input checks shared by every public entry point.

Validation happens here, once, at the edge: kernels downstream assume clean
float64 arrays and never check anything themselves.  Every failure is a
``ValueError`` whose message names the offending argument and the problem.
"""

import numpy as np

from calibbook._utils.params import Integral, Interval, Options, check_parameter


def as_float_array(values, name):
    """``values`` as a float64 array; a ValueError naming ``name`` for what is not real.

    Complex values are refused, as scikit-learn refuses them (NumPy would drop the
    imaginary part with a warning), and so are Python integers beyond the largest float
    (NumPy raises OverflowError).
    """
    arr = values if isinstance(values, np.ndarray) else None
    try:
        if arr is None:
            arr = np.asarray(values)
        if arr.dtype.kind == "c" or (
            arr.dtype == object and any(isinstance(v, complex) for v in arr.ravel().tolist())
        ):
            raise ValueError(
                f"{name} must be real; got complex values. Pass the real part "
                "(np.real) or the modulus (np.abs) if that is what is meant."
            )
        return np.asarray(arr, dtype=np.float64)
    except OverflowError:
        raise ValueError(
            f"{name} holds an integer too large for a float (above about 1.8e308)."
        ) from None
    except TypeError as exc:
        raise ValueError(f"{name} must be an array of real numbers ({exc}).") from None
    except ValueError as exc:
        if str(exc).startswith(name):
            raise
        raise ValueError(f"{name} must be an array of real numbers ({exc}).") from None


def _as_1d_float(values, name):
    """Convert to a contiguous 1-D float64 array; a single column is accepted."""
    arr = as_float_array(values, name)
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr[:, 0]
    if arr.ndim != 1:
        raise ValueError(
            f"{name} must be 1-D (one score per sample); got an array of shape {arr.shape}."
        )
    if arr.size == 0:
        raise ValueError(f"{name} is empty; at least one sample is needed.")
    arr = np.ascontiguousarray(arr)
    # a read-only array (pandas' to_numpy, a memory map) is another argument type to numba:
    # one more compilation of every kernel it reaches, and a miss in a warmed cache
    return arr if arr.flags.writeable else arr.copy()


def check_scores(scores, *, name="scores", probabilities=False, estimator=None):
    """Validate classifier scores: 1-D, finite and, if required, inside [0, 1].

    Parameters
    ----------
    scores : array-like of shape (n,) or (n, 1)
    name : str
        Name used in error messages.
    probabilities : bool
        If True the scores must lie in [0, 1].
    estimator : str, optional
        Name of the method that needs probabilities, for the error message.

    Returns
    -------
    ndarray of float64, shape (n,)
    """
    arr = check_finite(_as_1d_float(scores, name), name)
    if probabilities:
        lo, hi = arr.min(), arr.max()
        if lo < 0.0 or hi > 1.0:
            raise ValueError(
                f"{name} must lie in [0, 1] because {estimator or 'this function'} needs "
                f"probabilities; got values in [{lo:.4g}, {hi:.4g}]. "
                + _probability_hint(estimator)
            )
    return arr


def _probability_hint(estimator):
    """What to do about scores outside [0, 1]: calibrate them (a metric) or pick a method."""
    if estimator is None or " " in estimator:  # a function or "this metric"
        return (
            "Turn decision values into probabilities first, e.g. with "
            "calibbook.PlattScaling().fit(scores, y).predict(scores)."
        )
    return (
        "Map decision values to [0, 1] first (e.g. with a sigmoid), or use a calibrator "
        "that accepts any real score, such as PlattScaling or IsotonicCalibration."
    )


def check_finite(arr, name, where="entries"):
    """Return the float array ``arr`` if every value is finite; else a ValueError counting them.

    ``where`` describes the whole for the message ("entries", "in a block of").
    """
    bad = ~np.isfinite(arr)
    if bad.any():
        raise ValueError(
            f"{name} contains NaN or infinite values ({int(bad.sum())} of {arr.size} {where}); "
            "remove or impute them before calibrating."
        )
    return arr


def positive_label_mask(labels, name="y"):
    """``labels == 1`` for 0/1 (or boolean) labels; a ValueError naming the others."""
    if labels.dtype == bool:
        return labels
    if labels.dtype.kind in "OSU":  # strings (a block on the Dask path): name them
        try:
            labels = labels.astype(np.float64)
        except (TypeError, ValueError, OverflowError):
            raise ValueError(_label_message(name, labels)) from None
    is_pos = labels == 1
    if not (is_pos | (labels == 0)).all():  # np.unique would sort: only on the error path
        values = np.unique(labels)
        shown = ", ".join(f"{v:g}" for v in values[:6]) + (", ..." if values.size > 6 else "")
        raise ValueError(
            f"{name} must be binary with values in {{0, 1}} (or booleans); got values {{{shown}}}. "
            "Encode the positive class as 1, e.g. y = (labels == positive_label)."
        )
    return is_pos


def check_weight_values(w, name="sample_weight"):
    """Return the float array ``w`` if its values are finite and non-negative."""
    if not np.isfinite(w).all():
        raise ValueError(f"{name} contains NaN or infinite values.")
    if (w < 0).any():
        raise ValueError(
            f"{name} must be non-negative; found {int((w < 0).sum())} negative weight(s)."
        )
    return w


def check_binary_labels(y, *, name="y", require_both=True):
    """Validate 0/1 (or boolean) labels and return them as float64.

    Parameters
    ----------
    y : array-like of shape (n,)
    name : str
        Name used in error messages.
    require_both : bool
        If True, both classes must be present.
    """
    arr = np.asarray(y)
    if arr.dtype == bool:
        arr = arr.astype(np.float64)
    elif arr.dtype.kind in "OSU":  # labels such as "yes"/"no": say how to encode them
        try:
            arr = as_float_array(arr, name)
        except ValueError as exc:
            if "real numbers" not in str(exc):  # complex, or an integer beyond floats
                raise
            raise ValueError(_label_message(name, arr)) from None
    arr = _as_1d_float(arr, name)
    if not np.isfinite(arr).all():
        raise ValueError(f"{name} contains NaN or infinite values; labels must be 0 or 1.")
    is_pos = positive_label_mask(arr, name)
    if require_both:
        _check_both_classes(is_pos, name)
    return arr


def _label_message(name, labels):
    """The error for labels that are not numbers, listing a few of them."""
    shown = ", ".join(repr(v) for v in sorted(set(labels.ravel().tolist()), key=str)[:6])
    return (
        f"{name} must be binary with values in {{0, 1}} (or booleans); got the labels "
        f"{{{shown}}}. Encode the positive class as 1, e.g. y = (labels == 'yes'), or use "
        "CalibratedClassifier, which takes any two labels."
    )


def _check_both_classes(is_pos, name, context=""):
    n_pos = int(np.count_nonzero(is_pos))
    if n_pos == 0 or n_pos == is_pos.size:
        raise ValueError(
            f"{name} contains a single class ({1 if n_pos else 0}){context}; calibration needs "
            "both positive and negative examples."
        )


def check_sample_weight(sample_weight, n_samples, *, name="sample_weight"):
    """Return float64 weights of length ``n_samples`` (ones when None)."""
    if sample_weight is None:
        return np.ones(n_samples, dtype=np.float64)
    w = _as_1d_float(sample_weight, name) if np.ndim(sample_weight) else None
    if w is None:  # a scalar weight applies to every sample
        w = np.full(n_samples, as_float_array(sample_weight, name))
    if w.shape[0] != n_samples:
        raise ValueError(f"{name} has {w.shape[0]} entries but there are {n_samples} samples.")
    check_weight_values(w, name)
    if not (w > 0).any():
        raise ValueError(f"{name} is zero everywhere; at least one sample needs positive weight.")
    total = float(w.sum())
    # weights are frequencies: a total that floats cannot hold is no sample size
    if not np.finfo(np.float64).tiny <= total < np.inf:
        raise ValueError(
            f"{name} sums to {total:g}, outside the range of normal floats "
            f"[{np.finfo(np.float64).tiny:g}, {np.finfo(np.float64).max:g}]; rescale the weights."
        )
    return w


def check_consistent_length(**arrays):
    """Raise if the named arrays do not all have the same length."""
    lengths = {name: len(a) for name, a in arrays.items()}  # dask: known lengths only
    if len(set(lengths.values())) > 1:
        described = ", ".join(f"{name} has {n}" for name, n in lengths.items())
        raise ValueError(f"Inconsistent numbers of samples: {described}.")


def check_fit_input(scores, y, sample_weight=None, *, probabilities=False, estimator=None):
    """Validate the arguments of ``fit(scores, y, sample_weight)``.

    Returns float64 arrays ``(scores, y, sample_weight)``; ``sample_weight`` stays
    None when no weights were given, so that kernels can take their unweighted
    fast path without scanning a vector of ones. The class check is made on the
    samples with positive weight, since zero-weight rows carry no information.
    """
    s = check_scores(scores, probabilities=probabilities, estimator=estimator)
    labels = check_binary_labels(y, require_both=sample_weight is None)
    check_consistent_length(scores=s, y=labels)
    if sample_weight is None:
        return s, labels, None
    w = check_sample_weight(sample_weight, s.shape[0])
    _check_both_classes(labels[w > 0] == 1.0, "y", " among samples with positive weight")
    return s, labels, w


def check_probability_input(y_true, y_prob, sample_weight=None, *, require_both=False):
    """Validate the arguments of a metric: labels, probabilities in [0, 1], weights."""
    labels = check_binary_labels(y_true, name="y_true", require_both=require_both)
    p = check_scores(y_prob, name="y_prob", probabilities=True, estimator="this metric")
    check_consistent_length(y_true=labels, y_prob=p)
    w = check_sample_weight(sample_weight, p.shape[0])
    return labels, p, w


def check_n_bins(n_bins):
    """Validate a number of bins (a positive integer)."""
    return int(check_parameter(n_bins, "n_bins", [Interval(Integral, 1, None)]))


def check_option(value, name, allowed):
    """Raise unless ``value`` is one of ``allowed``."""
    return check_parameter(value, name, [Options(*allowed)])
