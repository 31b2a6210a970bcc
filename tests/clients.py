"""Clients generated from the OpenAPI document: ``make clients`` and the tests that use them.

- ``clients/openapi.json``: the document as a server with ``API_TOKEN`` set serves it (so
  the 401s and the bearer schemes are in it);
- ``clients/python/gridpath_client``: a Python package by ``openapi-python-client`` (PyPI);
- ``clients/typescript/gridpath.d.ts``: TypeScript types by ``openapi-typescript`` (npm, the
  version pinned in ``examples/typescript/package.json``; ``npm ci`` installs it there).

``clients/`` is not committed: it is rebuilt from the code, the one source of truth.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CLIENTS = ROOT / "clients"
TS_EXAMPLE = ROOT / "examples" / "typescript"


def write_document(path: Path) -> Path:
    from app.config import Settings
    from app.main import create_app

    settings = Settings(api_token="set", admin_token="set")  # only the document is read
    document = create_app(settings).openapi()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, indent=2) + "\n")
    return path


def generate_python(document: Path, out: Path) -> Path:
    """The ``gridpath_client`` package in ``out`` (import it with ``out`` on ``sys.path``)."""
    package = out / "gridpath_client"
    shutil.rmtree(package, ignore_errors=True)
    out.mkdir(parents=True, exist_ok=True)
    # Raw bodies and PNG answers as File (the generator knows binary only as octet-stream).
    config = out / "openapi-python-client.json"
    binary = "application/octet-stream"
    overrides = {media: binary for media in ("image/png", "text/plain", "application/xml")}
    config.write_text(json.dumps({"content_type_overrides": overrides}))
    generator = Path(sys.executable).parent / "openapi-python-client"
    subprocess.run(
        [str(generator), "generate", "--path", str(document), "--output-path", str(package)]
        + ["--meta", "none", "--overwrite", "--config", str(config)],
        env={**os.environ, "PATH": f"{generator.parent}{os.pathsep}{os.environ['PATH']}"},  # ruff
        check=True,
        capture_output=True,
        text=True,
    )
    return package


def npm_tools() -> Path:
    """``examples/typescript/node_modules/.bin`` with the pinned versions (``npm ci``)."""
    tools = TS_EXAMPLE / "node_modules" / ".bin"
    if not (tools / "tsc").exists() or not (tools / "openapi-typescript").exists():
        subprocess.run(
            ["npm", "ci", "--no-audit", "--no-fund"],
            cwd=TS_EXAMPLE,
            check=True,
            capture_output=True,
            text=True,
        )
    return tools


def generate_typescript(document: Path, out: Path) -> Path:
    out.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        # Fields with a default stay optional in request bodies (the server fills them in);
        # cells (arrays of exactly two integers) become [number, number] tuples.
        [str(npm_tools() / "openapi-typescript"), str(document), "-o", str(out)]
        + ["--default-non-nullable", "false", "--array-length"],
        check=True,
        capture_output=True,
        text=True,
    )
    return out


def main() -> None:
    document = write_document(CLIENTS / "openapi.json")
    print(f"clients: {document.relative_to(ROOT)}")
    print(f"clients: {generate_python(document, CLIENTS / 'python').relative_to(ROOT)}")
    typescript = generate_typescript(document, CLIENTS / "typescript" / "gridpath.d.ts")
    print(f"clients: {typescript.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
