"""The papers' published numbers live in data/papers/*.csv (issue 16), not typed into cells:
each file is documented in data/README.md, read by a chapter, tidy, and no chapter keeps a
typed-in copy of a published table."""

import json
import re
from pathlib import Path

import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[2]
PAPERS = sorted((ROOT / "data" / "papers").glob("*.csv"))


def _code(notebook):
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    return "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")


def test_there_are_paper_files():
    assert len(PAPERS) >= 6


@pytest.mark.parametrize("path", PAPERS, ids=lambda p: p.name)
def test_each_file_is_documented_read_and_tidy(path):
    readme = (ROOT / "data" / "README.md").read_text(encoding="utf-8")
    assert f"papers/{path.name}" in readme, f"data/README.md does not describe {path.name}"
    # the file is named after the chapter that reads it
    chapter = ROOT / "book" / (re.split(r"_tables?", path.name)[0] + ".ipynb")
    assert chapter.is_file() and path.name in _code(chapter), (
        f"{chapter.name} does not read {path.name}"
    )
    table = pd.read_csv(path)
    assert len(table) > 0 and not table.columns.duplicated().any()
    assert all(re.fullmatch(r"[A-Za-z_][\w ]*", str(c)) for c in table.columns), list(table.columns)


def test_no_chapter_types_a_published_table_into_a_cell():
    # a literal named after a paper (PAPER_TABLE2 = {...}, paper_table1 = {...}) that holds a
    # table's worth of decimal numbers
    typed = re.compile(r"^\s*(PAPER\w*|paper_\w*)\s*=\s*[{\[(]", re.MULTILINE | re.IGNORECASE)
    offenders = {}
    for nb in sorted((ROOT / "book").glob("*.ipynb")):
        code = _code(nb)
        for m in typed.finditer(code):
            literal = code[m.end() : m.end() + 800].split("\n\n")[0]
            if len(re.findall(r"(?<![\w.])\d*\.\d+", literal)) >= 6:
                offenders.setdefault(nb.name, []).append(m.group(1))
    assert not offenders, (
        f"published numbers typed into cells (move them to data/papers/): {offenders}"
    )
