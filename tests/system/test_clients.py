"""The clients generated from the OpenAPI document work against a real server.

- the Python client (openapi-python-client) computes a path, validates an honest and a
  tampered claim, and gets 409 stale_revision, through examples/python/authoritative.py;
- the TypeScript types (openapi-typescript) compile with tsc (pinned) against
  examples/typescript/find_path.ts, and the compiled example runs on Node against the server.

Node and npm come from Debian (`nodejs`, `npm`). Without them the TypeScript test skips
outside CI and fails under CI=true.
"""

from __future__ import annotations

import importlib
import json
import subprocess
import sys

import pytest

from bench.server import ServerSpec, running_server
from tests.clients import TS_EXAMPLE, generate_python, generate_typescript, npm_tools
from tests.clients import write_document as write_openapi
from tests.conftest import MAPS_DIR, ROOT
from tests.packages import require


@pytest.fixture(scope="module")
def server():
    with running_server(ServerSpec({"MAPS_DIR": str(MAPS_DIR), "LOG_LEVEL": "warning"})) as server:
        base = server.url
        yield base


@pytest.fixture(scope="module")
def document(tmp_path_factory):
    return write_openapi(tmp_path_factory.mktemp("clients") / "openapi.json")


def test_generated_python_client_calls_the_server(server, document, tmp_path):
    generate_python(document, tmp_path)
    sys.path[:0] = [str(tmp_path), str(ROOT / "examples" / "python")]
    try:
        for name in [m for m in sys.modules if m.startswith("gridpath_client")]:
            del sys.modules[name]
        example = importlib.import_module("authoritative")
        result = example.run(server)
        from gridpath_client import AuthenticatedClient
        from gridpath_client.api.paths import find_paths
        from gridpath_client.models import BatchRequest, ErrorResponse, PathQuery, PathResponse

        with AuthenticatedClient(base_url=server, token="unused") as client:
            batch = find_paths.sync(
                client=client,
                body=BatchRequest(
                    map_="maze",
                    queries=[PathQuery(start=[1, 1], goal=[127, 127]), PathQuery(start=[-1, 0])],
                ),
            )
    finally:
        del sys.path[:2]
        sys.modules.pop("authoritative", None)
    assert result["steps"] > 60 and result["cost"] > 59 and len(result["path_hash"]) == 64
    assert result["honest_valid"] is True
    assert result["cheat_valid"] is False and "not_adjacent" in result["cheat_violations"]
    assert result["stale"] == "stale_revision"
    first, second = batch.results
    assert isinstance(first, PathResponse) and first.found
    assert isinstance(second, ErrorResponse) and second.error.code == "invalid_request"


def _node_or_skip() -> None:
    require("nodejs", "npm")


def test_typescript_types_compile_and_the_example_runs(server, document, tmp_path):
    _node_or_skip()
    types = generate_typescript(document, tmp_path / "gridpath.d.ts")
    config = tmp_path / "tsconfig.json"
    config.write_text(
        json.dumps(
            {
                "extends": str(TS_EXAMPLE / "tsconfig.json"),
                "compilerOptions": {
                    "outDir": str(tmp_path / "dist"),
                    "rootDir": str(TS_EXAMPLE),
                    "baseUrl": str(TS_EXAMPLE),
                    "typeRoots": [str(TS_EXAMPLE / "node_modules" / "@types")],
                    "paths": {"gridpath": [str(types)]},
                },
                "include": [str(TS_EXAMPLE / "*.ts")],
            }
        )
    )
    compiled = subprocess.run(
        [str(npm_tools() / "tsc"), "-p", str(config)], capture_output=True, text=True
    )
    assert compiled.returncode == 0, compiled.stdout + compiled.stderr
    ran = subprocess.run(
        ["node", str(tmp_path / "dist" / "find_path.js"), server],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert ran.returncode == 0, ran.stdout + ran.stderr
    summary = json.loads(ran.stdout)
    assert summary["found"] is True and summary["valid"] is True
    assert summary["waypoints"] >= 2 and len(summary["path_hash"]) == 64


def test_the_types_catch_a_wrong_field(document, tmp_path):
    """tsc really checks against the generated types: a misspelt field fails to compile."""
    _node_or_skip()
    types = generate_typescript(document, tmp_path / "gridpath.d.ts")
    wrong = tmp_path / "wrong.ts"
    wrong.write_text(
        'import type { components } from "./gridpath";\n'
        'const request: components["schemas"]["PathRequest"] = '
        '{ map: "arena", start: [1, 1], gaol: [2, 2] };\n'
        "console.log(request);\n"
    )
    assert types.exists()
    checked = subprocess.run(
        [str(npm_tools() / "tsc"), "--noEmit", "--strict", str(wrong)],
        capture_output=True,
        text=True,
    )
    assert checked.returncode != 0 and "gaol" in checked.stdout
