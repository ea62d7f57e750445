"""Every ```python block of README.md runs as written.

The blocks run in order in one namespace, in a fresh interpreter, with the
non-interactive matplotlib backend. The test fails if the README has no Python block.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"

_PYTHON_BLOCK = re.compile(r"^```python[ \t]*\n(.*?)^```[ \t]*$", re.DOTALL | re.MULTILINE)


def python_blocks(text: str) -> list[str]:
    return [m.group(1) for m in _PYTHON_BLOCK.finditer(text)]


def test_readme_has_python_blocks():
    assert python_blocks(README.read_text(encoding="utf-8")), "README.md has no ```python block"


def test_readme_python_blocks_run(tmp_path):
    blocks = python_blocks(README.read_text(encoding="utf-8"))
    if not blocks:
        pytest.fail("README.md has no ```python block")
    script = tmp_path / "readme_blocks.py"
    script.write_text(
        "\n\n".join(f"# --- README block {i}\n{code}" for i, code in enumerate(blocks, 1)),
        encoding="utf-8",
    )
    env = {**os.environ, "MPLBACKEND": "Agg"}
    proc = subprocess.run(
        [sys.executable, str(script)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, (
        f"README python blocks failed (exit {proc.returncode})\n"
        f"--- script ---\n{script.read_text()}\n"
        f"--- stdout ---\n{proc.stdout}\n--- stderr ---\n{proc.stderr}"
    )
    assert proc.stdout.strip(), "README python blocks printed nothing"


def test_block_extraction():
    text = "intro\n```python\nx = 1\n```\n```bash\nls\n```\n```python\nprint(x)\n```\n"
    assert python_blocks(text) == ["x = 1\n", "print(x)\n"]
    assert python_blocks("```py\nx\n```\n") == []
