"""What every chapter notebook offers its three readers (issue 16): the experimenter's single
parameters cell, a rerun box and a "Try this" box, and no private names or scattered
environment variables."""

import json
import re
from pathlib import Path

import pytest

BOOK = Path(__file__).resolve().parents[2] / "book"
NOTEBOOKS = sorted(BOOK.glob("*.ipynb"))


def _cells(path):
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_the_first_code_cell_is_the_only_parameters_cell(path):
    code = [c for c in _cells(path) if c["cell_type"] == "code"]
    tagged = [i for i, c in enumerate(code) if "parameters" in c["metadata"].get("tags", [])]
    assert tagged == [0], f"parameters cells at code cells {tagged} (want exactly the first)"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_rerun_and_try_this_boxes(path):
    prose = "\n".join("".join(c["source"]) for c in _cells(path) if c["cell_type"] == "markdown")
    assert re.search(r"\{admonition\} Try this", prose), "no 'Try this' box"
    assert re.search(r"Rerun this (chapter|page)", prose), "no 'Rerun this chapter' box"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_no_private_names_and_no_settings_from_the_environment(path):
    text = "\n".join("".join(c["source"]) for c in _cells(path))
    assert not re.search(r"calibbook\._", text), "a chapter names a private calibbook module"
    code = "\n".join("".join(c["source"]) for c in _cells(path) if c["cell_type"] == "code")
    assert "os.environ" not in code, "settings belong in the parameters cell (booktools.full_run())"
