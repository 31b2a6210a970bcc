"""The kernels and map model stay pure: no HTTP or pydantic below the API layer."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import ROOT


def test_grid_and_search_import_no_web_stack():
    code = (
        "import sys, gridpath.grid, gridpath.grid.tiled, gridpath.grid.upload, gridpath.search\n"
        "import gridpath.search.warmup\n"
        "bad = [m for m in ('fastapi', 'pydantic', 'starlette', 'uvicorn') if m in sys.modules]\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.strip()
    assert out == "", f"imported by gridpath.grid/gridpath.search: {out}"


def _imports(path) -> set[str]:
    """Every module ``path`` imports (``from a import b`` gives ``a`` and ``a.b``)."""
    import ast

    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


SERVICE = (
    "fastapi",
    "starlette",
    "pydantic",
    "pydantic_settings",
    "uvicorn",
    "redis",
    "prometheus_client",
    "app",
)


def test_the_library_imports_nothing_of_the_service():
    """Statically, every module under gridpath/ (also those the import above does not reach):
    no web framework, pydantic, Redis, Prometheus, uvicorn or ``app`` import, function-level
    imports included; gridpath/grid imports nothing from gridpath/search (the search layer
    keeps its per-revision tables on a Grid through ``Grid.derived``)."""
    for path in sorted((ROOT / "gridpath").rglob("*.py")):
        for name in _imports(path):
            assert name.split(".")[0] not in SERVICE, f"{path.relative_to(ROOT)} imports {name}"
            if path.parent.name == "grid":
                assert not name.startswith("gridpath.search"), f"{path.name} imports {name}"


def test_the_library_imports_no_service_module_at_run_time():
    code = (
        "import sys, gridpath.grid, gridpath.grid.tiled, gridpath.grid.upload, gridpath.search\n"
        "import gridpath.search.warmup, gridpath.nav, gridpath.cli.__main__, gridpath.picture\n"
        f"bad = [m for m in {SERVICE!r} if m in sys.modules]\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.strip()
    assert out == "", f"imported by the library: {out}"


def test_routes_import_no_kernel_module():
    """Routes reach the search through its public modules: no kernel module (the
    underscore modules of gridpath/search, which hold the numba kernels) and no runner."""
    paths = sorted((ROOT / "app" / "api").rglob("*.py"))
    assert paths, "no route modules found"
    for path in paths:
        for name in _imports(path):
            parts = name.split(".")
            if parts[:2] != ["gridpath", "search"]:
                continue
            assert not any(p.startswith("_") for p in parts[2:]), (
                f"{path.relative_to(ROOT)} imports the kernel module {name}"
            )
            assert "runners" not in parts, f"{path.relative_to(ROOT)} imports a runner: {name}"


PACKAGES = ("gridpath", "app")


def _modules() -> dict[str, object]:
    """Every module of the two packages by dotted name (a package by its own name)."""
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def _import_graph() -> dict[str, set[str]]:
    """Module -> the modules of the two packages it imports, function-level imports
    included: ``from a import b`` names the module ``a.b`` where there is one, else ``a``;
    a name outside the packages' modules maps to its nearest enclosing module."""
    import ast

    modules = _modules()
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = package[: len(package) - (node.level - 1)]
                    base = ".".join(up + ([base] if base else []))
                targets = [
                    f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base
                    for a in node.names
                ]
            else:
                continue
            for target in targets:
                while target and target not in modules:
                    target = target.rpartition(".")[0]
                if target and target != name:
                    graph[name].add(target)
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            step = next(edges, None)
            if step is not None:
                if step not in index:
                    index[step] = low[step] = len(index)
                    stack.append(step)
                    on_stack.add(step)
                    work.append((step, iter(sorted(graph[step]))))
                elif step in on_stack:
                    low[node] = min(low[node], index[step])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_the_cycle_finder_finds_a_cycle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert _cycles(graph) == [["a", "b", "c"]]


def test_no_import_cycles_between_modules():
    """No module of gridpath/ or app/ reaches itself through imports, imports inside
    functions included (they only hide a cycle from the interpreter, not from a reader)."""
    graph = _import_graph()
    assert "gridpath.search.find" in graph["gridpath.search.warmup"]  # the graph is real
    assert _cycles(graph) == []


# Framework internals the service once read (gone: tests/system/test_layering.py keeps them
# out): FastAPI's own request handling, its route tree walker, its placeholders.
FRAMEWORK_INTERNALS = frozenset(
    {"request_body_to_args", "iter_route_contexts", "DefaultPlaceholder", "solve_dependencies"}
)


def test_nothing_imports_a_private_framework_name():
    """No module under app/ or gridpath/ imports a private (underscore) name or module of
    FastAPI or Starlette, nor one of the internals above: a FastAPI release may change them
    (and an older one, which pyproject.toml allows, may not have them)."""
    for path in sorted([*(ROOT / "app").rglob("*.py"), *(ROOT / "gridpath").rglob("*.py")]):
        for name in _imports(path):
            parts = name.split(".")
            if parts[0] not in ("fastapi", "starlette"):
                continue
            where = f"{path.relative_to(ROOT)} imports {name}"
            assert not any(p.startswith("_") for p in parts[1:]), where
            assert parts[-1] not in FRAMEWORK_INTERNALS, where


def test_a_route_module_imports_no_other_route_module():
    for path in sorted((ROOT / "app" / "api" / "routes").glob("*.py")):
        for name in _imports(path):
            if name.startswith("app.api.routes."):
                assert name.split(".")[3] == path.stem, f"{path.name} imports {name}"
