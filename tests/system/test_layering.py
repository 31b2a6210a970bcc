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
