"""scripts/check_mutations.py still points at code that exists.

The script mutates one line of calibbook and shows that nbval catches it; a refactor that
moves the line would make the script fail only when someone runs it (it takes minutes).
"""

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _mutations():
    spec = importlib.util.spec_from_file_location(
        "check_mutations", ROOT / "scripts" / "check_mutations.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.MUTATIONS


@pytest.mark.parametrize("name", sorted(_mutations()))
def test_each_mutation_changes_one_existing_line_and_names_existing_notebooks(name):
    path, original, mutated, notebooks = _mutations()[name]
    source = (ROOT / path).read_text()
    assert source.count(original) == 1, f"{name}: the line to mutate is not once in {path}"
    assert mutated != original
    missing = [nb for nb in notebooks if not (ROOT / nb).exists()]
    assert not missing, f"{name}: no such notebooks {missing}"
