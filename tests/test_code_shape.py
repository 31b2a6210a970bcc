"""The shape of the code under gridpath/ and app/: short functions (a nested function, such
as a numba closure, counts as its own, and its lines not as its parent's), few parameters
in the search package, short modules. What is still over a limit is listed below with its
size today: it may shrink, not grow, and leaves the list when it fits."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from tests.conftest import ROOT

MAX_FUNCTION_LINES = 80
MAX_SEARCH_PARAMETERS = 10
MAX_MODULE_LINES = 500
# Still over a limit (to be split), with the size they have now: nothing today.
LONG_FUNCTIONS: dict[str, int] = {}
MANY_PARAMETERS: dict[str, int] = {}
LONG_MODULES: dict[str, int] = {}

FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def _sources() -> list[Path]:
    return sorted(p for package in ("gridpath", "app") for p in (ROOT / package).rglob("*.py"))


def _own_lines(node: ast.AST) -> int:
    """The function's lines, less those of the functions defined inside it."""
    lines = set(range(node.lineno, node.end_lineno + 1))
    for inner in ast.walk(node):
        if inner is not node and isinstance(inner, FUNCTIONS):
            lines -= set(range(inner.lineno, inner.end_lineno + 1))
    return len(lines)


def _parameters(node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    a = node.args
    return len(a.posonlyargs) + len(a.args) + len(a.kwonlyargs) + bool(a.vararg) + bool(a.kwarg)


def _functions() -> list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef, Path]]:
    found = []
    for path in _sources():
        relative = path.relative_to(ROOT).as_posix()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, FUNCTIONS):
                found.append((f"{relative}::{node.name}", node, path))
    return found


def _over(measured: dict[str, int], limit: int, known: dict[str, int]) -> list[str]:
    problems = [f"{k}: {v} (limit {limit})" for k, v in measured.items() if v > known.get(k, limit)]
    problems += [f"{k}: listed as over the limit but is {measured.get(k, 0)}; drop it from the list"
                 for k in known if measured.get(k, 0) <= limit]  # fmt: skip
    return problems


def test_functions_are_short():
    measured = {}
    for key, node, _ in _functions():
        measured[key] = max(measured.get(key, 0), _own_lines(node))
    assert _over(measured, MAX_FUNCTION_LINES, LONG_FUNCTIONS) == []


def test_search_functions_take_few_parameters():
    measured = {}
    for key, node, path in _functions():
        if (ROOT / "gridpath" / "search") in path.parents:
            measured[key] = max(measured.get(key, 0), _parameters(node))
    assert _over(measured, MAX_SEARCH_PARAMETERS, MANY_PARAMETERS) == []


def test_modules_are_short():
    measured = {p.relative_to(ROOT).as_posix(): len(p.read_text().splitlines()) for p in _sources()}
    assert _over(measured, MAX_MODULE_LINES, LONG_MODULES) == []


def test_a_nested_function_counts_as_its_own():
    code = "def outer():\n    x = 1\n    def inner():\n        return 2\n    return inner\n"
    outer = ast.parse(code).body[0]
    assert _own_lines(outer) == 3 and _own_lines(outer.body[1]) == 2


# A branch on a map's kind ("if snapshot.kind == 'polygon'"): callers dispatch by the
# snapshot's methods (gridpath.maps.snapshot.MapSnapshot) or the service's table of kinds
# (app.api.kinds), never by comparing ``kind`` with a kind's name.
KIND_BRANCH = re.compile(
    r"""kind\s*(==|!=)\s*["'](grid|polygon)["']|["'](grid|polygon)["']\s*(==|!=)\s*\S*kind\b"""
)


def _kind_branches() -> list[str]:
    return [
        f"{p.relative_to(ROOT).as_posix()}:{n}: {line.strip()}"
        for p in _sources()
        for n, line in enumerate(p.read_text().splitlines(), 1)
        if KIND_BRANCH.search(line)
    ]


def test_no_caller_branches_on_a_map_kind():
    assert _kind_branches() == []


def test_the_kind_branch_check_sees_one():
    assert KIND_BRANCH.search('    if snapshot.kind == "polygon":')
    assert KIND_BRANCH.search("x = 'polygon' if kind != 'grid' else 'grid'")
    assert KIND_BRANCH.search('if "grid" == snapshot.kind:')
    assert not KIND_BRANCH.search('kind: ClassVar[str] = "grid"')
