"""Parameters are validated through declared constraints, never by hand.

Public functions declare theirs with ``validate_params`` and estimators in
``_parameter_constraints`` (``calibbook._utils.params``). This test reads the source of
every module outside ``_utils`` and ``_kernels`` and fails on a hand-written check:
a call of the constraint checkers themselves, or an ``if`` that raises ValueError or
TypeError on a condition that involves exactly one parameter (directly, through a
local variable computed from it, or as ``self.<parameter>`` in an estimator). A
condition on two parameters or more is a combination rule and may stay in the body;
so may a check of the *content* of a data argument (an array, labels, weights).
"""

import ast
import importlib
import inspect
from pathlib import Path

import pytest

import calibbook
from calibbook._utils.params import check_parameter

PACKAGE = Path(calibbook.__file__).parent

# Arguments that carry data: their content is checked by calibbook._utils.validation.
DATA = {
    "X",
    "y",
    "y_true",
    "y_prob",
    "scores",
    "sample_weight",
    "s",
    "p",
    "w",
    "x",
    "xs",
    "weights",
    "sums",
    "labels",
    "table",
    "results",
    "average_ranks",
    "values",
    "targets",
    "a",
    "b",
    "estimates",
    "probabilities",
    "decision",
    "fit_params",
    "params",
    "calibrator",
    "estimator",
    "run_scores",
    "run_values",
    "name",
}
CHECKERS = {"check_parameter", "check_option", "check_n_bins"}
RAISED = {"ValueError", "TypeError", "InvalidParameterError"}

# module:function -> why its hand-written check is not a parameter check
ALLOWED = {
    "datasets:_normalise_name": "benchmark names match case-insensitively, with suggestions",
    "datasets:load_benchmark": "benchmark names match case-insensitively, with suggestions",
    "registry:calibrator_entry": "registered names match case-insensitively, with aliases",
    "calibrators.isotonic:_predict": "scores outside the training range: a check of the data",
    "calibrators.bbq:_model_range": "the weights' total sets the bin count: a check of the data",
    "experiments.estimator_study:run_study": "each size in a sequence: its content, not its type",
    "experiments.statistics:friedman_test": "n_datasets is required when the data are ranks",
    "experiments.statistics:holm_test": "control must be among the methods of the data",
    "distributed:cells": "scores outside the grid: a check of the data",
    "distributed:aggregate": "no rows of positive weight: a check of the data",
    "distributed:_block_labels": "an array's length against the scores': a check of the data",
    "distributed:_block_weights": "an array's length against the scores': a check of the data",
}


def _modules():
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE)
        if rel.parts[0] in ("_utils", "_kernels"):
            continue
        yield ".".join(rel.with_suffix("").parts), ast.parse(path.read_text(encoding="utf-8"))


def _init_params(cls_node):
    for item in cls_node.body:
        if isinstance(item, ast.FunctionDef) and item.name == "__init__":
            return {a.arg for a in item.args.args + item.args.kwonlyargs} - {"self"}
    return set()


def _origins(node, taint, self_params):
    """The parameters an expression depends on."""
    found = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name):
            found |= taint.get(sub.id, set())
        elif (
            isinstance(sub, ast.Attribute)
            and isinstance(sub.value, ast.Name)
            and sub.value.id == "self"
            and sub.attr in self_params
        ):
            found.add(sub.attr)
    return found


def _raises(if_node):
    for stmt in if_node.body:
        if isinstance(stmt, ast.Raise) and stmt.exc is not None:
            exc = stmt.exc.func if isinstance(stmt.exc, ast.Call) else stmt.exc
            if isinstance(exc, ast.Name) and exc.id in RAISED:
                return True
    return False


def hand_checks(module, tree):
    """(where, what) of every hand-written parameter check in one module's tree."""
    found = []
    classes = {n: _init_params(n) for n in ast.walk(tree) if isinstance(n, ast.ClassDef)}
    owner = {}
    for cls, _ in classes.items():
        for item in ast.walk(cls):
            if isinstance(item, ast.FunctionDef):
                owner.setdefault(item, cls)
    for func in [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]:
        where = f"{module}:{func.name}"
        if where in ALLOWED:
            continue
        args = func.args.args + func.args.kwonlyargs + func.args.posonlyargs
        params = {a.arg for a in args} - {"self", "cls"} - DATA
        taint = {name: {name} for name in params}
        self_params = classes.get(owner.get(func), set()) - DATA
        for node in ast.walk(func):
            if isinstance(node, ast.Call):
                called = node.func.id if isinstance(node.func, ast.Name) else None
                if called in CHECKERS:
                    found.append((where, f"line {node.lineno}: calls {called} by hand"))
            elif isinstance(node, ast.Assign):
                origin = _origins(node.value, taint, self_params)
                for target in node.targets:
                    for name in ast.walk(target):
                        if isinstance(name, ast.Name) and name.id not in params:
                            taint[name.id] = taint.get(name.id, set()) | origin
            elif isinstance(node, ast.If) and _raises(node):
                origin = _origins(node.test, taint, self_params)
                if len(origin) == 1:
                    found.append((where, f"line {node.lineno}: checks {origin.pop()} by hand"))
    return found


def test_no_parameter_is_validated_by_hand():
    found = [
        f"{where} ({what})" for mod, tree in _modules() for where, what in hand_checks(mod, tree)
    ]
    assert not found, "declare these in validate_params or _parameter_constraints:\n" + "\n".join(
        found
    )


def test_the_scan_finds_a_hand_written_check():
    source = """
def f(y_prob, *, n_bins=10):
    k = int(n_bins)
    if k < 1:
        raise ValueError("n_bins must be positive")

def g(y_prob, *, lo=0.0, hi=1.0):
    if not lo < hi:  # a combination: allowed
        raise ValueError("lo < hi")

class E:
    def __init__(self, alpha=1.0):
        self.alpha = alpha
    def fit(self, X):
        if self.alpha <= 0:
            raise ValueError("alpha")
        check_parameter(self.alpha, "alpha", [])
"""
    found = hand_checks("demo", ast.parse(source))
    assert [w for w, _ in found] == ["demo:f", "demo:fit", "demo:fit"]


def _declared():
    """(name, function, constraints) of every function declared with validate_params."""
    for module in ["metrics", "datasets", "distributed", *calibbook._PUBLIC_MODULES]:
        mod = importlib.import_module(f"calibbook.{module}")
        for name, obj in vars(mod).items():
            constraints = getattr(obj, "_parameter_constraints", None)
            if inspect.isfunction(obj) and constraints is not None:
                yield f"{obj.__module__}.{name}", obj, constraints


@pytest.mark.parametrize("name, func, constraints", sorted(_declared(), key=lambda t: t[0]))
def test_declared_defaults_satisfy_their_constraints(name, func, constraints):
    # validate_params checks only the arguments given: a bad default would pass unseen
    for param, spec in inspect.signature(func).parameters.items():
        if param in constraints and spec.default is not inspect.Parameter.empty:
            check_parameter(spec.default, param, constraints[param])
