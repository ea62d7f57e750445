"""Function size limits of the package (issue 27): no function in ``calibbook/`` longer
than ``MAX_CODE_LINES`` code lines, none more complex than ruff's mccabe limit (C901,
configured in pyproject.toml and run by ``ruff check``).

A code line carries a token of code: blank lines, comment-only lines and docstrings do
not count, so that explaining a function never pushes it over the limit.
"""

import ast
import fnmatch
import io
import tokenize
from pathlib import Path

import pytest

try:  # Python 3.11+
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - Python 3.10
    try:
        import tomli as tomllib
    except ModuleNotFoundError:
        tomllib = None

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "calibbook"
MAX_CODE_LINES = 80
MAX_COMPLEXITY = 20

# "module:qualified.name" -> why it may be longer than MAX_CODE_LINES
EXCEPTIONS: dict[str, str] = {}

_NOT_CODE = {
    tokenize.COMMENT,
    tokenize.NL,
    tokenize.NEWLINE,
    tokenize.INDENT,
    tokenize.DEDENT,
    tokenize.ENCODING,
    tokenize.ENDMARKER,
}


def _docstring_lines(tree):
    """Line numbers spanned by the docstrings of the module, its classes and functions."""
    lines = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if (
                body
                and isinstance(body[0], ast.Expr)
                and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)
            ):
                lines.update(range(body[0].lineno, body[0].end_lineno + 1))
    return lines


def _code_lines(source, tree):
    """The set of line numbers that carry a code token (docstrings excluded)."""
    docstrings = _docstring_lines(tree)
    lines = set()
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type in _NOT_CODE:
            continue
        for line in range(tok.start[0], tok.end[0] + 1):
            if line not in docstrings:
                lines.add(line)
    return lines


def _functions(tree):
    """(qualified name, node) of every function, nested ones and methods included."""

    def walk(node, prefix):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = f"{prefix}{child.name}"
                if not isinstance(child, ast.ClassDef):
                    yield name, child
                yield from walk(child, name + ".")
            else:
                yield from walk(child, prefix)

    yield from walk(tree, "")


def function_sizes(package=PACKAGE):
    """{"module:function": (code lines, path, line)} for every function under ``package``
    (from its ``def`` line to its end; decorators not counted)."""
    sizes = {}
    for path in sorted(package.rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        tree = ast.parse(source)
        code = _code_lines(source, tree)
        rel = path.relative_to(package.parent)
        module = ".".join(rel.with_suffix("").parts)
        for name, node in _functions(tree):
            n = sum(1 for line in range(node.lineno, node.end_lineno + 1) if line in code)
            sizes[f"{module}:{name}"] = (n, rel.as_posix(), node.lineno)
    return sizes


def test_code_lines_are_counted_as_documented():
    source = (
        "def f(x):\n"
        '    """Doc\n'
        '    string."""\n'
        "    # a comment\n"
        "\n"
        "    y = (x +  # trailing comment\n"
        "         1)\n"
        "    s = '''a\n"
        "b'''\n"
        "    return y\n"
    )
    tree = ast.parse(source)
    code = _code_lines(source, tree)
    assert code == {1, 6, 7, 8, 9, 10}


def test_no_function_is_too_long():
    sizes = function_sizes()
    assert len(sizes) > 100  # the walk found the package
    stale = set(EXCEPTIONS) - set(sizes)
    assert not stale, f"exceptions for functions that no longer exist: {sorted(stale)}"
    too_long = [
        f"{path}:{line} {name}: {n} code lines"
        for name, (n, path, line) in sorted(sizes.items(), key=lambda kv: kv[1][1:])
        if n > MAX_CODE_LINES and name not in EXCEPTIONS
    ]
    assert not too_long, (
        f"functions over {MAX_CODE_LINES} code lines (split them, or add "
        "a reason to EXCEPTIONS):\n" + "\n".join(too_long)
    )


def _silences_c901(rules):
    return any("C901".startswith(rule) or rule == "ALL" for rule in rules)


def test_ruff_enforces_the_complexity_limit():
    if tomllib is None:
        pytest.skip("needs tomllib (Python 3.11+) or tomli to read pyproject.toml")
    with (ROOT / "pyproject.toml").open("rb") as fh:
        lint = tomllib.load(fh)["tool"]["ruff"]["lint"]
    assert _silences_c901(lint["select"]), "ruff's select must hold C90 (mccabe)"
    assert lint["mccabe"]["max-complexity"] == MAX_COMPLEXITY
    assert not _silences_c901(lint.get("ignore", []) + lint.get("extend-ignore", []))
    # no per-file ignore of C901 reaches the package, and no noqa in it
    files = [p.relative_to(ROOT).as_posix() for p in PACKAGE.rglob("*.py")]
    for pattern, rules in lint.get("per-file-ignores", {}).items():
        if _silences_c901(rules):
            reached = [f for f in files if fnmatch.fnmatch(f, pattern)]
            assert not reached, f"per-file-ignores {pattern!r} lifts C901 from {reached[:3]}"
    noqa = [f for f in files if "C901" in (ROOT / f).read_text(encoding="utf-8")]
    assert not noqa, f"C901 silenced inline in {noqa}"
