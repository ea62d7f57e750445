"""The API reference (book/api: an index and a page per group) covers every public name, and
each docstring meets the book's standard: Parameters, Returns, Raises (where the code raises),
References, a runnable example and a link to the chapter that derives the method.

The examples themselves run as doctests in ``make test`` (pytest --doctest-modules calibbook).
"""

from __future__ import annotations

import importlib
import inspect
import re
from pathlib import Path

import pytest

import calibbook

ROOT = Path(__file__).resolve().parents[2]
API_PAGES = sorted((ROOT / "book" / "api").glob("*.md"))  # the index and a page per group

# Modules whose ``__all__`` is public API. The private helpers (_utils, _kernels) are not.
MODULES = calibbook._PUBLIC_MODULES

# Docstrings that do not meet the standard yet, with who owns them. Marked xfail(strict):
# once a docstring is complete the test passes, fails as XPASS, and the entry must go.
PENDING: dict[str, str] = {}

# Names whose method or formula does not come from a paper, so a References section would only
# pad citations: they may omit it (and must not pad it back). Everything else cites its source.
NO_PAPER: dict[str, str] = {
    "calibbook.plotting.label_outer": "a layout helper",
    "calibbook.InvalidParameterError": "an exception type",
    "calibbook.LowWeightWarning": "a warning type",
    "calibbook.experiments.guide.auc_changes": "reads the book's own comparison",
    "calibbook.experiments.guide.book_recommendations": "reads the book's own comparison",
    "calibbook.experiments.guide.recommendations": "reads the book's own comparison",
    "calibbook.experiments.recommended_calibrators": "the book's own recommendation",
    **{
        f"calibbook.registry.{name}": "a table of names"
        for name in (
            "registered",
            "calibrator_names",
            "calibrator_entry",
            "make_calibrator",
            "CalibratorEntry",
        )
    },
}


def public_names() -> list[str]:
    """Documented path of every public object: top level for the lazy exports, else the module."""
    names = {f"calibbook.{name}" for name in calibbook._LAZY}
    for module in MODULES:
        mod = importlib.import_module(f"calibbook.{module}")
        for name in getattr(mod, "__all__", []):
            if name not in calibbook._LAZY:
                names.add(f"calibbook.{module}.{name}")
    return sorted(names)


def documented_names() -> list[str]:
    """Entries of the autosummary tables of the API pages, as full dotted paths."""
    names, module, in_table = [], None, False
    lines = [line for page in API_PAGES for line in page.read_text(encoding="utf-8").splitlines()]
    for line in lines:
        if m := re.match(r"\.\. (?:current)?module:: (\S+)", line):
            module = m.group(1)
        elif line.startswith(".. autosummary::"):
            in_table = True
        elif in_table and re.match(r"   [A-Za-z_][\w.]*$", line):
            entry = line.strip()
            names.append(entry if entry.startswith("calibbook.") else f"{module}.{entry}")
        elif in_table and line.strip() and not line.startswith("   :"):
            in_table = False
    return names


def resolve(path: str):
    module, _, name = path.rpartition(".")
    return getattr(importlib.import_module(module), name)


def test_api_index_lists_every_public_name():
    documented = documented_names()
    duplicates = sorted({n for n in documented if documented.count(n) > 1})
    assert not duplicates, f"listed twice in book/api: {duplicates}"
    public = set(public_names())
    missing = sorted(public - set(documented))
    extra = sorted(set(documented) - public)
    assert not missing, f"public names missing from the pages of book/api: {missing}"
    assert not extra, f"book/api lists names that are not public: {extra}"


def test_documented_names_import():
    for path in documented_names():
        assert resolve(path) is not None, path


# ---------------------------------------------------------------------------
# the docstring standard
# ---------------------------------------------------------------------------
def sections(doc: str) -> set[str]:
    return set(re.findall(r"^(\w[\w ]*)\n-{3,}$", doc, flags=re.MULTILINE))


def chapter_links(doc: str) -> list[str]:
    return re.findall(r":doc:`(?:[^`<]*<)?/book/([\w/]+)>?`", doc)


def _takes_arguments(func) -> bool:
    params = [p for p in inspect.signature(func).parameters if p not in ("self", "cls")]
    return bool(params)


def _raises(func) -> bool:
    try:
        return re.search(r"^\s+raise \w", inspect.getsource(func), flags=re.MULTILINE) is not None
    except (OSError, TypeError):
        return False


def _doc_problems(path: str) -> list[str]:
    obj = resolve(path)
    problems = []
    if not (inspect.isclass(obj) or callable(obj)):
        # data: documented by a ``#:`` comment above the assignment
        ModuleAnalyzer = pytest.importorskip("sphinx.pycode").ModuleAnalyzer

        module, _, name = path.rpartition(".")
        attr_docs = ModuleAnalyzer.for_module(module).find_attr_docs()
        if ("", name) not in attr_docs:
            problems.append("no #: doc comment")
        return problems

    doc = inspect.getdoc(obj) or ""
    found = sections(doc)
    if inspect.isclass(obj):
        init = obj.__init__
        if init is not object.__init__ and _takes_arguments(init) and "Parameters" not in found:
            problems.append("class docstring has no Parameters")
        for method_name in ("fit", "predict", "predict_proba"):
            method = getattr(obj, method_name, None)
            if method is None:
                continue
            mdoc = inspect.getdoc(method) or ""
            msec = sections(mdoc)
            for needed in ("Parameters", "Returns"):
                if needed not in msec:
                    problems.append(f"{method_name}() has no {needed}")
            if _raises(method) and "Raises" not in msec:
                problems.append(f"{method_name}() raises, but has no Raises section")
    else:
        if _takes_arguments(obj) and "Parameters" not in found:
            problems.append("no Parameters")
        if not ({"Returns", "Yields"} & found):
            problems.append("no Returns")
        if _raises(obj) and "Raises" not in found:
            problems.append("raises, but has no Raises section")
    if "References" not in found and path not in NO_PAPER:
        problems.append("no References")
    if "References" in found and path in NO_PAPER:
        problems.append("a References section, though NO_PAPER says nothing here is from a paper")
    if "Examples" not in found or ">>>" not in doc:
        problems.append("no Examples with a doctest")
    links = chapter_links(doc)
    if not links:
        problems.append("no :doc:`/book/...` link to the chapter that derives it")
    for link in links:
        if not any((ROOT / "book" / f"{link}{suffix}").is_file() for suffix in (".ipynb", ".md")):
            problems.append(f"link to a missing chapter: /book/{link}")
    return problems


PARAMS = [
    pytest.param(path, marks=pytest.mark.xfail(reason=PENDING[path], strict=True))
    if path in PENDING
    else path
    for path in public_names()
]


@pytest.mark.parametrize("path", PARAMS)
def test_docstring_meets_the_standard(path):
    problems = _doc_problems(path)
    assert not problems, f"{path}: " + "; ".join(problems)


def test_pending_entries_are_public():
    stale = sorted((set(PENDING) | set(NO_PAPER)) - set(public_names()))
    assert not stale, f"PENDING or NO_PAPER lists names that are not public any more: {stale}"


def test_standard_detects_gaps():
    """The checker itself: a bare function fails on every count."""

    def bare(x):
        raise ValueError(x)

    bare.__module__ = __name__
    globals()["bare"] = bare
    try:
        problems = _doc_problems(f"{__name__}.bare")
    finally:
        del globals()["bare"]
    assert {
        "no Parameters",
        "no Returns",
        "raises, but has no Raises section",
        "no References",
        "no Examples with a doctest",
    } <= set(problems)
