"""The test suite's own layout: test modules in tests/unit, tests/book and tests/repo (the
folders pyproject.toml's testpaths names), shared code in tests/_support and tests/_reference,
and no test importing benchmarks/ or another test module."""

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TESTS = ROOT / "tests"
LAYERS = ("unit", "book", "repo")


def imported_modules(source: str, package: str) -> set[str]:
    """Absolute names of what a module of ``package`` imports (relative imports resolved)."""
    names = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{parent}.{base}" if base else parent
            names.add(base)
            names.update(f"{base}.{alias.name}" for alias in node.names)
    return names


def test_modules_live_in_the_layers_that_testpaths_names():
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    testpaths = re.search(r"^testpaths = \[(.*)\]$", pyproject, re.M).group(1)
    assert [p.strip().strip('"') for p in testpaths.split(",")] == [f"tests/{d}" for d in LAYERS]
    misplaced = [
        p.relative_to(ROOT).as_posix()
        for p in TESTS.rglob("test_*.py")
        if p.relative_to(TESTS).parts[0] not in LAYERS
    ]
    assert not misplaced, f"test modules outside tests/unit, tests/book, tests/repo: {misplaced}"


def test_no_test_imports_benchmarks_or_another_test_module():
    problems = []
    for path in sorted(TESTS.rglob("*.py")):
        package = ".".join(path.relative_to(ROOT).parent.parts)
        for name in sorted(imported_modules(path.read_text(encoding="utf-8"), package)):
            last = name.rsplit(".", 1)[-1]
            if name.split(".")[0] == "benchmarks":
                problems.append(f"{path.relative_to(ROOT)} imports {name}")
            elif name.startswith("tests.") and last.startswith("test_"):
                problems.append(f"{path.relative_to(ROOT)} imports the test module {name}")
    assert not problems, "shared code goes in tests/_support or tests/_reference:\n" + "\n".join(
        problems
    )


def test_the_checker_sees_relative_and_absolute_imports():
    source = (
        "from .test_other import x\nfrom .._support import contract\n"
        "from tests.book import test_glue\nimport benchmarks.run_all\n"
    )
    names = imported_modules(source, "tests.unit")
    assert {
        "tests.unit.test_other",
        "tests._support.contract",
        "tests.book.test_glue",
        "benchmarks.run_all",
    } <= names


def test_the_design_document_names_test_files_that_exist():
    """DESIGN.md points maintainers at test files: each path it names is there."""
    named = set(re.findall(r"`(tests/[\w/]+\.py)`", (ROOT / "DESIGN.md").read_text()))
    assert named, "DESIGN.md names no test file"
    assert sorted(p for p in named if not (ROOT / p).is_file()) == []
