"""book/booktools.py, the chapters' presentation helpers.

What a table shows is what nbval checks.
"""

import importlib.util
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

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
