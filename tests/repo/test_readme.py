"""Every ```python block of README.md runs as written, on its own.

Each block runs as its own script in a fresh interpreter (cwd a temporary directory,
non-interactive matplotlib backend), so a block that leans on an import or a name from an
earlier block fails: a reader copies one block, not the whole README. A block that imports an
optional extra (Dask, for ``calibbook.distributed``) is skipped, saying why, only when that
extra is not importable. The tests fail if the README has no Python block.
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"

BLOCK_TIMEOUT_S = 300

# Imported module (or a parent package of it) -> (module that must be importable, extra).
OPTIONAL_IMPORTS = {
    "dask": ("dask", "distributed"),
    "calibbook.distributed": ("dask", "distributed"),
}

_FENCE = re.compile(r"^(```+)[ \t]*([^\s`]*)[^`]*$")
_HEADING = re.compile(r"^#{1,6}[ \t]+(.+?)[ \t#]*$")


@dataclass(frozen=True)
class Block:
    heading: str  # the Markdown heading the block sits under ("" before the first)
    line: int  # 1-based line of the opening fence
    code: str


def python_blocks(text: str) -> list[Block]:
    """The ```python blocks of a Markdown text, each with the heading it sits under."""
    blocks: list[Block] = []
    heading = ""
    fence = None  # (backticks, language, opening line, body lines) while inside a fence
    for lineno, line in enumerate(text.splitlines(), 1):
        if fence is None:
            m = _FENCE.match(line)
            if m:
                fence = (m.group(1), m.group(2), lineno, [])
            elif h := _HEADING.match(line):
                heading = h.group(1)
        elif line.strip() == fence[0]:
            _, lang, start, body = fence
            if lang == "python":
                blocks.append(Block(heading, start, "".join(f"{b}\n" for b in body)))
            fence = None
        else:
            fence[3].append(line)
    return blocks


def _block_id(block: Block, index: int) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", block.heading.lower()).strip("-")
    return f"{index}-{slug}" if slug else str(index)


def _imported_modules(code: str) -> set[str]:
    mods: set[str] = set()
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Import):
            mods.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            mods.add(node.module)
    return mods


def _needed_extras(code: str) -> set[tuple[str, str]]:
    needed = set()
    for mod in _imported_modules(code):
        for prefix, requirement in OPTIONAL_IMPORTS.items():
            if mod == prefix or mod.startswith(prefix + "."):
                needed.add(requirement)
    return needed


_BLOCKS = python_blocks(README.read_text(encoding="utf-8"))


def test_readme_has_python_blocks():
    assert _BLOCKS, "README.md has no ```python block"


@pytest.mark.parametrize("block", _BLOCKS, ids=[_block_id(b, i) for i, b in enumerate(_BLOCKS, 1)])
def test_readme_python_block_runs_standalone(block: Block, tmp_path):
    for module, extra in sorted(_needed_extras(block.code)):
        pytest.importorskip(
            module,
            reason=f"README block at line {block.line} needs the optional extra "
            f"calibbook[{extra}] ({module} is not importable)",
        )
    env = {**os.environ, "MPLBACKEND": "Agg"}
    proc = subprocess.run(
        [sys.executable, "-c", block.code],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=BLOCK_TIMEOUT_S,
    )
    where = f"README.md line {block.line} (under '{block.heading}')"
    assert proc.returncode == 0, (
        f"the python block at {where} fails on its own in a fresh interpreter "
        f"(exit {proc.returncode}); every block must carry its own imports\n"
        f"--- stderr ---\n{proc.stderr}\n--- stdout ---\n{proc.stdout}\n"
        f"--- block ---\n{block.code}"
    )
    assert proc.stdout.strip(), f"the python block at {where} printed nothing"


def test_block_extraction():
    text = (
        "intro\n```python\nx = 1\n```\n## A heading\n```bash\n# not a heading\nls\n```\n"
        "```python\nprint(x)\n```\n"
    )
    blocks = python_blocks(text)
    assert [b.code for b in blocks] == ["x = 1\n", "print(x)\n"]
    assert [b.heading for b in blocks] == ["", "A heading"]
    assert [b.line for b in blocks] == [2, 10]
    assert [_block_id(b, i) for i, b in enumerate(blocks, 1)] == ["1", "2-a-heading"]
    assert python_blocks("```py\nx\n```\n") == []


def test_optional_extras_detected():
    assert _needed_extras("import dask.array as da\n") == {("dask", "distributed")}
    assert _needed_extras("from calibbook.distributed import fit_distributed\n") == {
        ("dask", "distributed")
    }
    assert _needed_extras("from calibbook import IsotonicCalibration\n") == set()
