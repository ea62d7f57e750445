"""The package's layers import downwards only, as DESIGN.md draws them.

Every ``import`` of calibbook inside calibbook (at module level or inside a function) is
read from the source; the importing and the imported module are reduced to their layer
(the first name below ``calibbook``), and each layer may import only the layers listed
here. The top level holds no private module besides the two infrastructure packages.
"""

import ast
from pathlib import Path

import calibbook

PACKAGE = Path(calibbook.__file__).parent

# layer -> the layers it may import (besides itself); DESIGN.md, "Layers"
ALLOWED = {
    "_kernels": set(),
    "_utils": {"_kernels"},
    "base": {"_utils", "_kernels"},
    "calibrators": {"_utils", "_kernels", "base"},
    "registry": set(),  # names its classes by path; imports them only when asked
    "meta": {"_utils", "_kernels", "base", "calibrators", "registry"},
    "metrics": {"_utils", "_kernels"},
    "datasets": {"_utils"},
    "distributed": {"_utils", "_kernels", "base"},
    "plotting": {"_utils", "metrics", "experiments"},
    "experiments": {
        "__init__",
        "_utils",
        "_kernels",
        "base",
        "calibrators",
        "registry",
        "meta",
        "metrics",
        "datasets",
        "plotting",
    },
    "__init__": {"_utils"},
    # python -m calibbook.warmup: runs the calibrators and measures to compile their kernels
    "warmup": {"_kernels", "calibrators", "registry", "metrics"},
}


def _layer(module):
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def imports(package=PACKAGE):
    """(importing layer, imported layer, where) of every calibbook import in calibbook."""
    for path in sorted(package.rglob("*.py")):
        rel = path.relative_to(package.parent).with_suffix("")
        layer = _layer(".".join(p for p in rel.parts if p != "__init__"))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level:
                names = [".".join((*rel.parts[: -node.level], node.module or ""))]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                continue
            for name in names:
                if name.startswith("calibbook"):
                    yield layer, _layer(name), f"{path.relative_to(package)}:{node.lineno}"


def test_every_layer_is_known():
    top = {p.stem for p in PACKAGE.glob("*.py")} | {
        p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").exists()
    }
    assert top == set(ALLOWED)


def test_no_private_module_at_the_top_level_but_the_infrastructure():
    private = {p.stem for p in PACKAGE.glob("_*.py")} | {
        p.name for p in PACKAGE.glob("_*") if p.is_dir() and (p / "__init__.py").exists()
    }
    assert private == {"__init__", "_utils", "_kernels"}


def test_imports_point_down():
    upward = [
        f"{where}: {layer} imports {target}"
        for layer, target, where in imports()
        if target != layer and target not in ALLOWED[layer]
    ]
    assert not upward, "\n".join(upward)


def test_the_check_sees_an_upward_import(tmp_path):
    # a metrics module that imports a calibrator (relative) and the experiments (absolute)
    metrics = tmp_path / "calibbook" / "metrics"
    metrics.mkdir(parents=True)
    (metrics / "_binned.py").write_text(
        "from ..calibrators import platt\n"
        "def f():\n    from calibbook.experiments import tables\n"
        "from calibbook._utils import params\n"
    )
    found = {(layer, target) for layer, target, _ in imports(tmp_path / "calibbook")}
    assert found == {("metrics", "calibrators"), ("metrics", "experiments"), ("metrics", "_utils")}
    assert {t for _, t in found if t not in ALLOWED["metrics"]} == {"calibrators", "experiments"}
