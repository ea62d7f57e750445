"""book/booktools.py, the chapters' presentation helpers.

What a table shows is what nbval checks.
"""

import importlib.util
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

pytest.importorskip("IPython")
_spec = importlib.util.spec_from_file_location(
    "booktools", Path(__file__).resolve().parents[2] / "book" / "booktools.py"
)
booktools = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(booktools)


@pytest.fixture
def shown(monkeypatch):
    outputs = []
    monkeypatch.setattr(booktools, "display", lambda bundle, raw: outputs.append(bundle))
    return outputs


def test_show_table_plain_text_and_html_carry_the_same_rounded_numbers(shown):
    rng = np.random.default_rng(0)
    table = pd.DataFrame(rng.random((4, 3)), columns=["ECE", "MCE", "AUC"], index=list("abcd"))
    table["n"] = [10, 200, 3, 4000]
    booktools.show_table(table, digits=3)
    (bundle,) = shown
    plain_numbers = re.findall(r"\d+\.\d+", bundle["text/plain"])
    html_numbers = re.findall(r">(\d+\.\d+)<", bundle["text/html"])
    expected = [f"{v:.3f}" for v in table[["ECE", "MCE", "AUC"]].to_numpy().ravel()]
    assert plain_numbers == expected
    assert html_numbers == expected
    assert "4000" in bundle["text/plain"] and ">4000<" in bundle["text/html"]


def test_show_table_is_stable_across_calls_and_keeps_a_stylers_styling(shown):
    table = pd.DataFrame({"ECE": [0.2, 0.1]}, index=["x", "y"])
    booktools.show_table(table.style.highlight_min(color="yellow"), digits=2)
    booktools.show_table(table.style.highlight_min(color="yellow"), digits=2)
    assert shown[0] == shown[1]  # same ids: re-running a cell changes nothing
    assert "yellow" in shown[0]["text/html"]


def test_a_format_for_one_column_leaves_the_others_rounded(shown):
    table = pd.DataFrame({"share": [0.125], "ECE": [0.123456789]})
    booktools.show_table(table, digits=3, formats={"share": "{:.1%}"})
    assert ">0.123<" in shown[0]["text/html"] and "0.123456" not in shown[0]["text/html"]
    assert ">12.5%<" in shown[0]["text/html"]


def test_show_table_formats_and_hidden_index(shown):
    table = pd.DataFrame({"share": [0.125, np.nan]}, index=["a", "b"])
    booktools.show_table(table, formats={"share": "{:.1%}"}, index=False)
    plain = shown[0]["text/plain"]
    assert "12.5%" in plain and "nan" not in plain.lower() and "a" not in plain.replace("share", "")


def test_glue_values_glues_python_floats(monkeypatch):
    glued = {}
    import types

    fake = types.SimpleNamespace(glue=lambda key, value, display: glued.__setitem__(key, value))
    monkeypatch.setitem(__import__("sys").modules, "myst_nb", fake)
    booktools.glue_values(ece=np.float64(0.25), n=np.int64(3))
    assert glued == {"ece": 0.25, "n": 3.0} and all(type(v) is float for v in glued.values())


def test_best_time_returns_the_shortest_run_and_the_result():
    calls = []
    seconds, result = booktools.best_time(lambda: calls.append(1) or len(calls), repeats=3)
    assert result == 3 and len(calls) == 3 and seconds >= 0


def test_claim_passes_a_true_condition_and_names_a_false_one():
    booktools.claim("k", np.float64(1.0) < 2.0, "one is below two")
    with pytest.raises(booktools.ClaimError, match=r"claim 'ranks' no longer holds: A ranks best"):
        booktools.claim("ranks", 2 < 1, "A ranks best")
    with pytest.raises(TypeError, match="one boolean"):
        booktools.claim("k", np.array([True, False]), "all hold")


# ---------------------------------------------------------------------------
# the book's one rounding rule (format_number, readable_number)
# ---------------------------------------------------------------------------
_E = re.compile(r"[eE]")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("7.12e-02", "0.0712"),  # same three significant digits, fixed
        ("6.9e+00", "6.9"),
        ("3.2e+04", "32000"),
        ("1.2e-03", "0.0012"),
        ("0e+00", "0"),
        ("0.0e+00", "0"),
        ("-0.000", "0.000"),
        ("-0%", "0%"),
        ("-0.0000", "0.0000"),
        ("3.20e-05", "3.20e-05"),  # below 1e-4: stays
        ("1.50e+07", "1.50e+07"),  # from 1e6 up: stays
        ("-0.012", "-0.012"),
        ("< 1e-6", "< 1e-6"),  # not a number: unchanged
    ],
)
def test_readable_number_by_hand(text, expected):
    assert booktools.readable_number(text) == expected


@pytest.mark.parametrize(
    ("value", "digits", "expected"),
    [
        (0.123456, 3, "0.123"),
        (0.00012, 3, "0.00012"),  # would print as 0.000: two significant digits
        (-0.0004, 3, "-0.00040"),
        (-1e-12, 3, "-1.00e-12"),
        (-0.0, 3, "0.000"),
        (2.5e7, 3, "2.50e+07"),
        (123456.789, 2, "123456.79"),
        (float("nan"), 3, ""),
    ],
)
def test_format_number_by_hand(value, digits, expected):
    assert booktools.format_number(value, digits) == expected


@given(
    st.floats(allow_nan=False, allow_infinity=False, min_value=-1e12, max_value=1e12),
    st.integers(0, 5),
)
def test_format_number_rule(value, digits):
    text = booktools.format_number(value, digits)
    shown = float(text)
    size = abs(value)
    # e-notation exactly outside [1e-4, 1e6), and never for zero
    assert bool(_E.search(text)) == (value != 0 and (size < 1e-4 or size >= 1e6))
    # the number shown is the value, rounded
    if _E.search(text):
        assert shown == pytest.approx(value, rel=5e-3)
    elif float(f"{value:.{digits}f}") != 0.0:  # a nonzero result: plain rounding
        assert abs(shown - value) <= 0.5 * 10.0**-digits * (1 + 1e-9) + 1e-9 * size
    else:
        assert shown == pytest.approx(value, rel=0.05, abs=0.0 if value else 1e-12)
    # never a negative zero
    assert not (text.startswith("-") and shown == 0.0)


def test_show_table_html_follows_the_rule_and_plain_text_keeps_its_format(shown):
    table = pd.DataFrame(
        {"gap": [-0.0001, 0.25], "tiny": [0.0712, 2e-5], "n": [3.0e7, 12.0]}, index=["a", "b"]
    )
    booktools.show_table(table, digits=3, formats={"tiny": "{:.2e}"})
    html, plain = shown[0]["text/html"], shown[0]["text/plain"]
    assert ">-0.00010<" in html and ">0.250<" in html  # no "-0.000"
    assert ">0.0712<" in html and ">2.00e-05<" in html  # the column's e-format, readable
    assert ">3.00e+07<" in html and ">12.000<" in html
    assert "7.12e-02" in plain and "-0.000" in plain  # what nbval compares is unchanged


def test_labels_that_are_powers_of_ten_read_as_powers(shown):
    assert booktools.readable_label("1e4") == "10\u2074"
    assert booktools.readable_label("1e-3") == "10\u207b\u00b3"
    assert booktools.readable_label("base SVM") == "base SVM"
    table = pd.DataFrame({"1e2": [0.5], "1e3": [0.25]}, index=["ECE"])
    booktools.show_table(table)
    html, plain = shown[0]["text/html"], shown[0]["text/plain"]
    assert ">10\u00b2<" in html and ">10\u00b3<" in html and ">1e2<" not in html
    assert "1e2" in plain  # the checked text keeps the data's own labels
