"""tests/conftest.py under CI=true: a test dependency that is not installed fails, not skips.

A small suite runs in a fresh pytest with the real tests/conftest.py: one test imports a
module that does not exist inside the test, one at module level (in its own file), one with
a reason of its own, one needs a module that is installed, and one asks for a newer version of
it than there is. With CI=true the missing ones fail and name the module; without, they skip as
before. The version check still skips.
"""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

CONFTEST = Path(__file__).resolve().parents[1] / "conftest.py"
MISSING = "calibbook_no_such_module"

IN_TEST = f"""
import pytest


def test_missing_inside():
    pytest.importorskip("{MISSING}")


def test_missing_with_a_reason():
    pytest.importorskip("{MISSING}.sub", reason="needs the optional extra")


def test_installed():
    assert pytest.importorskip("json").dumps(1) == "1"


def test_too_old():
    pytest.importorskip("pytest", minversion="999")
"""

AT_MODULE_LEVEL = f"""
import pytest

mod = pytest.importorskip("{MISSING}")


def test_never_runs():
    pass
"""


def run_suite(tmp_path, ci):
    (tmp_path / "conftest.py").write_text(CONFTEST.read_text(encoding="utf-8"))
    (tmp_path / "test_in_test.py").write_text(IN_TEST)
    (tmp_path / "test_at_module_level.py").write_text(AT_MODULE_LEVEL)
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "PYTEST_ADDOPTS")}
    if ci is not None:
        env["CI"] = ci
    args = "-m pytest -p no:cacheprovider -p no:xdist -v -rA --continue-on-collection-errors ."
    proc = subprocess.run(
        [sys.executable, *args.split()],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    outcomes = dict(re.findall(r"^\S+::(\w+) (PASSED|FAILED|SKIPPED)", proc.stdout, re.M))
    return proc, outcomes


def test_ci_true_turns_a_missing_dependency_into_a_failure(tmp_path):
    proc, outcomes = run_suite(tmp_path, "true")
    assert proc.returncode == 1, proc.stdout
    assert outcomes["test_missing_inside"] == "FAILED"
    assert outcomes["test_missing_with_a_reason"] == "FAILED"
    assert outcomes["test_installed"] == "PASSED"
    assert outcomes["test_too_old"] == "SKIPPED"  # present but old: not a missing dependency
    # the module-level import fails the module's collection, naming the module
    assert re.search(r"^ERROR test_at_module_level.py - Failed: CI=true", proc.stdout, re.M)
    assert "test_never_runs" not in outcomes
    message = f"CI=true: the test dependency '{MISSING}' does not import"
    assert proc.stdout.count(message) >= 2
    assert f"'{MISSING}.sub' does not import" in proc.stdout


@pytest.mark.parametrize("ci", [None, "false", "1"])
def test_outside_ci_a_missing_dependency_skips(tmp_path, ci):
    proc, outcomes = run_suite(tmp_path, ci)
    assert proc.returncode == 0, proc.stdout
    assert outcomes["test_missing_inside"] == "SKIPPED"
    assert outcomes["test_missing_with_a_reason"] == "SKIPPED"
    assert outcomes["test_installed"] == "PASSED"
    assert outcomes["test_too_old"] == "SKIPPED"
    assert "needs the optional extra" in proc.stdout
    assert re.search(
        r"^SKIPPED \[1\] test_at_module_level.py:\d+: could not import", proc.stdout, re.M
    )
