""".pre-commit-config.yaml runs the ruff that constraints.txt pins, with the hooks of make lint."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_pre_commit_runs_the_pinned_ruff():
    config = (ROOT / ".pre-commit-config.yaml").read_text(encoding="utf-8")
    pinned = re.search(r"^ruff==(\S+)", (ROOT / "constraints.txt").read_text(), re.M).group(1)
    repo = re.search(r"repo: https://github.com/astral-sh/ruff-pre-commit\s+rev: v(\S+)", config)
    assert repo and repo.group(1) == pinned, "the ruff-pre-commit rev is not constraints.txt's ruff"
    assert re.findall(r"- id: (\S+)", config) == ["ruff-check", "ruff-format"]


def test_make_lint_runs_the_same_checks():
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    lint = re.search(r"^lint:.*\n((?:\t.*\n)+)", makefile, re.M).group(1)
    assert "$(RUFF_CHECK)" in lint and "ruff format --check ." in lint
    assert re.search(r"^RUFF_CHECK = \$\(VENV\)/bin/ruff check \.$", makefile, re.M)
