"""Small helpers the chapters share: where the data files are, tables, glue, claims and timings.

The chapters import this module (``import booktools``) from ``book/``, where Jupyter and nbval
run them. Everything here is presentation or bookkeeping; the methods live in ``calibbook``.
"""

from __future__ import annotations

import hashlib
import math
import os
import re
import time
from pathlib import Path

import numpy as np
import pandas as pd
from IPython.display import display

# The repository's data/ folder (stored results and the papers' published numbers).
DATA = Path(__file__).resolve().parents[1] / "data"


def _sharp_figures():
    """Inline figures as 2x PNGs shown at half size: sharp on HiDPI screens and in the PDF."""
    try:
        from IPython import get_ipython
        from matplotlib_inline.backend_inline import set_matplotlib_formats
    except ImportError:  # pragma: no cover - the book's environment has both
        return
    if get_ipython() is not None:
        set_matplotlib_formats("retina")


_sharp_figures()
PAPERS = DATA / "papers"


def full_run():
    """Whether to run a chapter's full protocol: set ``CALIBBOOK_FULL=1`` (default: the quick run).

    A chapter's parameters cell reads it once (``FULL_RUN = booktools.full_run()``); setting
    ``FULL_RUN = True`` there does the same from inside Jupyter.
    """
    return os.environ.get("CALIBBOOK_FULL") == "1"


def glue_values(**values):
    """Glue each number into the prose as a Python float (``{glue:text}`key:.3f```)."""
    from myst_nb import glue

    for key, value in values.items():
        glue(key, float(value), display=False)


class ClaimError(AssertionError):
    """A sentence of the prose no longer holds for the results beside it."""


def claim(key, holds, statement):
    """Check a qualitative claim of the prose ("X ranks best", "all six are narrower").

    The sentence carries the marker ``{claim}`key``` and a code cell beside the evidence calls
    this function, so that a run whose results no longer support the words fails here instead
    of leaving the sentence wrong. tests/book/test_claims.py finds the comparative sentences
    that carry no marker.

    Parameters
    ----------
    key : str
        The marker's key, unique within the chapter.
    holds : bool
        The condition that makes the sentence true, computed from the results.
    statement : str
        The claim in precise words: what a failing run reports.

    Raises
    ------
    ClaimError
        If ``holds`` is false.
    TypeError
        If ``holds`` is not a single boolean (an array would hide which element failed).
    """
    if not isinstance(holds, (bool, np.bool_)):
        raise TypeError(f"claim {key!r}: holds must be one boolean, got {type(holds).__name__}")
    if not holds:
        raise ClaimError(f"claim {key!r} no longer holds: {statement}")


# The book's one rounding rule for the numbers in its tables (see format_number).
_E_NUMBER = re.compile(r"^\s*[-+]?\d(?:\.(\d+))?[eE]([-+]?\d+)\s*$")
SMALL, LARGE = 1e-4, 1e6  # e-notation only below SMALL and from LARGE up


def readable_number(text):
    """Apply the book's rounding rule to a number already formatted as text.

    e-notation is kept only for magnitudes below 1e-4 or from 1e6 up: "7.12e-02" becomes
    "0.0712" (the same significant digits, in fixed notation), "0.0e+00" becomes "0"; a
    negative zero ("-0.000", "-0%") loses its sign. Any other text is returned unchanged.
    """
    match = _E_NUMBER.match(text)
    if match:
        value = float(text)
        if value == 0.0:
            return "0"
        if SMALL <= abs(value) < LARGE:
            significant = 1 + len(match.group(1) or "")
            decimals = max(significant - 1 - int(match.group(2)), 0)
            text = f"{value:.{decimals}f}"
    stripped = text.strip()
    if stripped.startswith("-") and not re.search(r"[1-9]", stripped):
        text = text.replace("-", "", 1)
    return text


def format_number(value, digits=3):
    """A number as the book's tables show it: ``digits`` decimals, and no e-notation for
    ordinary magnitudes.

    Fixed notation from 1e-4 to 1e6 (exclusive), with ``digits`` decimals, or with two
    significant digits where ``digits`` decimals would show a nonzero value as zero;
    e-notation with three significant digits below 1e-4 and from 1e6 up; never a negative
    zero; "" for a missing value.
    """
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    value = float(value)
    if not math.isfinite(value):
        return str(value)
    size = abs(value)
    if value == 0.0:
        return f"{0.0:.{digits}f}"
    if size < SMALL or size >= LARGE:
        return f"{value:.2e}"
    text = f"{value:.{digits}f}"
    if float(text) == 0.0:  # two significant digits, at most 5 decimals as size >= 1e-4
        text = f"{value:.{1 - math.floor(math.log10(size))}f}"
    return readable_number(text)


_SUPERSCRIPT = str.maketrans(
    "0123456789-", "\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079\u207b"
)


def readable_label(label):
    """A header or index label as the tables show it: a power of ten written "1e4" reads
    10\u2074; any other label is shown as it is."""
    text = str(label)
    match = re.fullmatch(r"1e\+?(-?\d+)", text)
    if match:
        return "10" + str(int(match.group(1))).translate(_SUPERSCRIPT)
    return text


def _readable(fmt):
    """A column format (a format string or a function) followed by the book's rule."""
    if callable(fmt):
        return lambda v: readable_number(fmt(v))
    return lambda v: readable_number(fmt.format(v))


def show_table(table, digits=3, *, index=True, formats=None, compact=False):
    """Show a DataFrame (or its Styler) as a rounded HTML table.

    Every number follows the book's one rounding rule (:func:`format_number`; a column's
    own format in ``formats`` is followed by :func:`readable_number`): no e-notation
    between 1e-4 and 1e6, no negative zero; labels such as "1e4" read 10\u2074
    (:func:`readable_label`).
    The book renders the HTML. The output also carries the same table as plain text, rounded
    the same way, which is what the notebook checks (nbval) compare; the HTML is left out of
    that comparison (book/conftest.py), so the styling can change without touching a check.

    Parameters
    ----------
    table : DataFrame or Styler
        The table; a Styler keeps its styling (highlights, bars).
    digits : int, default 3
        Decimals of every float column not named in ``formats``.
    index : bool, default True
        Whether to show the index.
    formats : dict, optional
        Column name to a format string or function, for columns that need another format.
    compact : bool, default False
        A smaller type and tighter cells, for a table of many columns that would otherwise be
        wider than the text column.
    """
    styler = table if not isinstance(table, pd.DataFrame) else table.style
    frame = styler.data
    formats = dict(formats or {})
    float_columns = [
        c for c in frame.columns if pd.api.types.is_float_dtype(frame[c]) and c not in formats
    ]
    if float_columns:
        styler = styler.format(lambda v: format_number(v, digits), na_rep="", subset=float_columns)
    if formats:
        readable = {c: _readable(f) for c, f in formats.items()}
        styler = styler.format(readable, subset=list(formats), na_rep="")
    styler = styler.format_index(readable_label, axis="columns")
    styler = styler.format_index(readable_label, axis="index")
    if not index:
        styler = styler.hide(axis="index")
    # a stable id, so that re-running a cell does not change its HTML for nothing
    key = repr((list(map(str, frame.columns)), list(map(str, frame.index))))
    styler = styler.set_uuid(hashlib.sha1(key.encode()).hexdigest()[:8])
    classes = "dataframe calibbook-table" + (" calibbook-compact" if compact else "")
    styler = styler.set_table_attributes(f'class="{classes}"')
    plain = frame.to_string(
        index=index,
        na_rep="",
        float_format=lambda v: f"{v:.{digits}f}",
        formatters={c: f if callable(f) else f.format for c, f in formats.items()},
    )
    display({"text/html": styler.to_html(), "text/plain": plain}, raw=True)


def make_learners(seed=0):
    """The ten learners of Niculescu-Mizil & Caruana (2005), as scikit-learn models.

    Chapters 1 and 4 use them to show each learner's typical distortion and what calibration
    does to it. The margin and distance methods get standardised inputs.

    Parameters
    ----------
    seed : int, default 0
        ``random_state`` of every learner that has one.

    Returns
    -------
    dict
        Name to unfitted estimator, in the paper's order of discussion.
    """
    from sklearn.ensemble import AdaBoostClassifier, BaggingClassifier, RandomForestClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.naive_bayes import GaussianNB
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.neural_network import MLPClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVC
    from sklearn.tree import DecisionTreeClassifier

    def scaled(model):
        return make_pipeline(StandardScaler(), model)

    return {
        "boosted trees": AdaBoostClassifier(
            DecisionTreeClassifier(max_depth=3), n_estimators=200, random_state=seed
        ),
        "boosted stumps": AdaBoostClassifier(
            DecisionTreeClassifier(max_depth=1), n_estimators=300, random_state=seed
        ),
        "SVM": scaled(SVC(kernel="rbf")),
        "naive Bayes": GaussianNB(),
        "random forest": RandomForestClassifier(n_estimators=200, random_state=seed),
        "bagged trees": BaggingClassifier(
            DecisionTreeClassifier(), n_estimators=50, random_state=seed
        ),
        "neural net": scaled(
            MLPClassifier(
                hidden_layer_sizes=(32,),
                alpha=1e-3,
                max_iter=500,
                early_stopping=True,
                random_state=seed,
            )
        ),
        "logistic regression": scaled(LogisticRegression(max_iter=2000)),
        "KNN": scaled(KNeighborsClassifier(n_neighbors=50)),
        "decision tree": DecisionTreeClassifier(min_samples_leaf=10, random_state=seed),
    }


def best_time(func, repeats=3):
    """The shortest wall time of ``repeats`` calls of ``func()``, and the last call's result."""
    times, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = func()
        times.append(time.perf_counter() - start)
    return min(times), result
