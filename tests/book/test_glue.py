"""Every number pasted into a chapter's prose with myst-nb's glue exists in the committed outputs.

A ``{glue:text}`key:fmt``` role whose key was never glued, or whose value cannot be formatted,
would print a warning at build time and leave a gap in the sentence; this test finds it without
building the book, and also fails on glued values that are NumPy reprs (``np.float64(...)``),
which myst-nb cannot format.
"""

import json
import re
from pathlib import Path

import pytest

from tests._support.notebooks import glued_values

BOOK = Path(__file__).resolve().parents[2] / "book"
NOTEBOOKS = sorted(BOOK.glob("*.ipynb"))
ROLE = re.compile(r"\{glue:(text|md|any)\}`([^`]*)`")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_glue_role_has_a_formattable_value(path):
    # myst-nb's own formatter is the oracle: what {glue:text} does at build time
    format_plain_text = pytest.importorskip("myst_nb.core.variables").format_plain_text
    nb = json.loads(path.read_text())
    glued = glued_values(nb)
    problems = []
    for cell in nb["cells"]:
        if cell["cell_type"] != "markdown":
            continue
        for match in ROLE.finditer("".join(cell["source"])):
            key, _, fmt = match.group(2).partition(":")
            if "::" in key:
                continue  # pasted from another page
            if key not in glued or glued[key] is None:
                problems.append(f"{key}: never glued")
                continue
            if glued[key].startswith(("np.", "numpy.")):
                problems.append(
                    f"{key}: glued as a NumPy repr {glued[key]!r}; glue a Python number"
                )
                continue
            try:
                format_plain_text(glued[key], fmt or "s")  # the role's default type is "s"
            except (TypeError, ValueError) as exc:
                problems.append(f"{key}: {glued[key]!r} cannot take the format {fmt!r} ({exc})")
    assert not problems, problems
