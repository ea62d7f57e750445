"""scripts/make_venv.sh, the `make env` step: interpreter checks and rebuilding a stale .venv.

The installs are made to fail fast (no package index), which is enough to see what the script
decides before and after an install: whether it stops, rebuilds, and what it records.
"""

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "make_venv.sh"

pytestmark = pytest.mark.skipif(
    shutil.which("bash") is None or sys.platform == "win32", reason="needs bash"
)


def make_venv(python, venv, chosen="yes", low="3.11", high="3.13"):
    env = {**os.environ, "PIP_NO_INDEX": "1", "PIP_FIND_LINKS": "", "PIP_QUIET": "2"}
    return subprocess.run(
        ["bash", str(SCRIPT), str(python), str(venv), chosen, low, high],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def install_digest():
    """What make_venv.sh writes to .installed: the hash of pyproject.toml and constraints.txt."""
    return subprocess.run(
        "cat pyproject.toml constraints.txt | sha256sum | cut -d' ' -f1",
        shell=True,
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()


def this_minor():
    return f"{sys.version_info[0]}.{sys.version_info[1]}"


def test_interpreter_outside_the_range_stops_at_once_with_one_line(tmp_path):
    start = time.monotonic()
    run = make_venv(sys.executable, tmp_path / "venv", low="3.99", high="3.99")
    assert run.returncode != 0
    lines = run.stderr.strip().splitlines()
    assert (
        len(lines) == 1 and "needs CPython 3.99 to 3.99" in lines[0] and "make PYTHON=" in lines[0]
    ), run.stderr
    assert time.monotonic() - start < 10
    assert not (tmp_path / "venv").exists()


def test_missing_interpreter_is_named(tmp_path):
    run = make_venv("no-such-python3.99", tmp_path / "venv")
    assert run.returncode != 0
    assert "'no-such-python3.99' does not run here" in run.stderr


def test_venv_from_another_interpreter_or_failed_install_is_rebuilt(tmp_path):
    venv = tmp_path / "venv"
    venv.mkdir()
    (venv / ".interpreter").write_text("/some/other/python\n3.9.0\n")
    (venv / "left-over").write_text("from the old environment")
    run = make_venv(sys.executable, venv, low=this_minor(), high=this_minor())
    assert "rebuilding" in run.stdout and "/some/other/python" in run.stdout, (
        run.stdout + run.stderr
    )
    assert not (venv / "left-over").exists()
    recorded = (venv / ".interpreter").read_text().splitlines()
    assert recorded[1] == ".".join(map(str, sys.version_info[:3]))
    # No package index: the install failed, so no stamp, and the next call rebuilds again.
    assert run.returncode != 0 and not (venv / ".installed").exists()
    again = make_venv(sys.executable, venv, chosen="no", low=this_minor(), high=this_minor())
    assert "rebuilding" in again.stdout and "the last install did not finish" in again.stdout, (
        again.stdout
    )


def test_complete_venv_is_left_alone(tmp_path):
    venv = tmp_path / "venv"
    venv.mkdir()
    digest = install_digest()
    (venv / ".interpreter").write_text("/some/python\n3.12.1\n")
    (venv / ".installed").write_text(digest + "\n")
    run = make_venv("python3", venv, chosen="no")
    assert run.returncode == 0 and run.stdout == "" and run.stderr == ""


def test_venv_made_with_the_chosen_interpreter_is_left_alone(tmp_path):
    venv = tmp_path / "venv"
    venv.mkdir()
    digest = install_digest()
    python = shutil.which(sys.executable) or sys.executable
    (venv / ".interpreter").write_text(
        f"{python}\n" + ".".join(map(str, sys.version_info[:3])) + "\n"
    )
    (venv / ".installed").write_text(digest + "\n")
    run = make_venv(python, venv, chosen="yes", low=this_minor(), high=this_minor())
    assert run.returncode == 0 and run.stdout == "" and run.stderr == "", run.stdout + run.stderr
