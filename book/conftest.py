"""nbval with measured numeric tolerances for the book's checked cells.

nbval compares a re-executed cell's output with the committed one character by character. The
numbers the book checks pass through SIMD, BLAS and JIT-compiled kernels whose last bits depend
on the CPU, and learners can carry those bits into the third decimal. A checked cell may
therefore carry a tolerance in its metadata::

    "metadata": {"calibbook": {"tolerance": {"atol": 0.002, "rtol": 0.0},
                               "measured": {"max_abs_diff": 0.001, "variants": [...]},
                               "ignore": "[*°]"}}

For such a cell, an output passes when its text equals the committed text once every number is
blanked out (white space folded), and every number is within ``atol + rtol * |committed|`` of
the committed one. ``ignore`` (optional) is a regular expression removed from both texts first,
for marks that flip with the arithmetic. Everything else, and every cell without a tolerance,
is compared exactly by nbval as usual, except an output's HTML where it also has plain text (a
table's styled rendering: its plain text is what is checked). Values glued into the prose with
myst-nb's ``glue`` (outputs whose MIME types start with ``application/papermill.record/``) are left
out of the comparison: they carry full float precision to the text, where they are rounded, and what
a checked cell checks is what it prints. ``scripts/output_spread.py`` measures the spread across
arithmetic variants and writes the tolerances; ``tests/book/test_nbval_tolerance.py`` tests this
module.
"""

import math
import re

# A number as printed: optional sign, digits with an optional fraction, optional exponent. Not
# part of a word (the 86 of x86, the 2 of log2) and not the tail of another number.
NUMBER = re.compile(r"(?<![\w.])[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?(?![\w.])")
_SPACE = re.compile(r"\s+")


def numeric_tokens(text):
    """The numbers printed in ``text``, as strings, in order."""
    return NUMBER.findall(text)


def skeleton(text):
    """``text`` with every number blanked out and white space folded (column widths move)."""
    return _SPACE.sub(" ", NUMBER.sub("#", text)).strip()


def checked_text(outputs):
    """The text a checked cell printed: its streams and plain-text results, joined."""
    parts = []
    for out in outputs:
        if out.get("output_type") == "stream":
            parts.append("".join(out.get("text", "")))
        elif "text/plain" in out.get("data", {}):
            parts.append("".join(out["data"]["text/plain"]))
    return "".join(parts)


def worst_number(ref, new, atol=0.0, rtol=0.0):
    """Compare two outputs number by number.

    Returns ``None`` when they agree within the tolerance, else a sentence naming the first
    problem: a difference outside the numbers, or the pair of numbers furthest out of tolerance.
    """
    if skeleton(ref) != skeleton(new):
        return "the text around the numbers differs"
    worst, where = 0.0, None
    for a, b in zip(numeric_tokens(ref), numeric_tokens(new), strict=True):
        x, y = float(a), float(b)
        # The slack absorbs binary rounding of decimal strings (1.01 - 1.00 > 0.01 in floats).
        excess = abs(x - y) - (atol + rtol * abs(x)) - 1e-9 * max(1.0, abs(x))
        if not math.isfinite(excess) or excess > worst:
            worst, where = excess, (a, b)
    if where is None:
        return None
    return f"{where[1]} against the committed {where[0]} is outside atol={atol:g}, rtol={rtol:g}"


CHECK_TAG = "nbval-check-output"


def is_checked(cell):
    """Whether nbval compares this code cell's output (under ``--nbval-lax``).

    A checked cell carries the tag ``nbval-check-output`` in its metadata, which nbval reads
    like its ``# NBVAL_CHECK_OUTPUT`` comment, but which the rendered book does not show.
    """
    return cell.get("cell_type") == "code" and CHECK_TAG in cell.get("metadata", {}).get("tags", [])


def tolerance_of(cell):
    """The (atol, rtol) a checked cell carries in its metadata, or None."""
    tol = cell.get("metadata", {}).get("calibbook", {}).get("tolerance")
    if not tol:
        return None
    return float(tol.get("atol", 0.0)), float(tol.get("rtol", 0.0))


def ignored_of(cell):
    """The regular expression a checked cell says to remove before comparing, or None.

    For marks that flip with the arithmetic although no printed number moves past its
    tolerance: a significance mark on a p-value that sits on the threshold.
    """
    pattern = cell.get("metadata", {}).get("calibbook", {}).get("ignore")
    return re.compile(pattern) if pattern else None


def _texts(output):
    """(container, key) of each text an output holds, for in-place replacement."""
    if output.get("output_type") == "stream":
        yield output, "text"
    elif "text/plain" in output.get("data", {}):
        yield output["data"], "text/plain"


_GLUE_PREFIX = "application/papermill.record/"


def without_glue(outputs):
    """The outputs minus myst-nb glue records (pasted into the prose, not printed)."""
    return [o for o in outputs if not any(k.startswith(_GLUE_PREFIX) for k in o.get("data", {}))]


def without_html_twins(outputs):
    """The outputs with each HTML rendering dropped where the same output has a plain-text one.

    A table is displayed as styled HTML for the book and as rounded plain text for the checks
    (``booktools.show_table``, and pandas' own DataFrame display): the plain text carries the
    numbers, and the tolerance applies to it; the HTML is presentation.
    """
    out = []
    for o in outputs:
        data = o.get("data", {})
        if "text/html" in data and "text/plain" in data:
            o = type(o)(o)  # a copy of the same kind (nbval reads NotebookNode attributes)
            o["data"] = type(data)({k: v for k, v in data.items() if k != "text/html"})
        out.append(o)
    return out


def _install():
    try:
        from nbval.plugin import IPyNbCell
    except ImportError:  # nbval absent: nothing to patch
        return
    exact_compare = IPyNbCell.compare_outputs
    if getattr(exact_compare, "_calibbook_tolerant", False):
        return

    def compare_outputs(self, test, ref, skip_compare=None):
        test, ref = without_html_twins(without_glue(test)), without_html_twins(without_glue(ref))
        tol, ignored = tolerance_of(self.cell), ignored_of(self.cell)
        if ignored is not None:
            tol = tol or (0.0, 0.0)
        notes = []
        if tol is not None and len(test) == len(ref):
            for new_out, ref_out in zip(test, ref, strict=True):
                pairs = zip(_texts(new_out), _texts(ref_out), strict=True)
                for (new_box, new_key), (ref_box, ref_key) in pairs:
                    new_text, ref_text = "".join(new_box[new_key]), "".join(ref_box[ref_key])
                    clean = [self.sanitize(t) for t in (ref_text, new_text)]
                    if ignored is not None:
                        clean = [ignored.sub("", t) for t in clean]
                    problem = worst_number(*clean, *tol)
                    if problem is None:
                        new_box[new_key] = (
                            ref_text  # equal within tolerance: let nbval see equality
                        )
                    else:
                        notes.append(problem)
        same = exact_compare(self, test, ref, skip_compare)
        if not same and notes:
            self.comparison_traceback.append("numeric tolerance of this cell: " + "; ".join(notes))
        return same

    compare_outputs._calibbook_tolerant = True
    IPyNbCell.compare_outputs = compare_outputs


_install()
