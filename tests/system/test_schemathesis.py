"""schemathesis (a tool nobody here wrote) against the service's own OpenAPI document.

A real uvicorn process with both tokens set serves a copy of the bundled maps; the
schemathesis CLI loads /openapi.json and runs every phase (examples, coverage, fuzzing,
stateful through the links it infers) on every operation, positive and negative data, with
every check but the two `schemathesis.toml` beside this file excludes, each with its reason.
Zero 5xx, and every answer (status, headers, content type, body) conforms to the document.

`make test` runs it bounded (FUZZ_EXAMPLES examples per operation and phase, default 20);
`make fuzz` runs it longer (FUZZ_EXAMPLES=300, a random seed).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bench.server import ServerSpec, running_server
from tests.conftest import MAPS_DIR

HERE = Path(__file__).resolve().parent
ADMIN = "admin-secret"


@pytest.fixture(scope="module")
def guarded_server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("schemathesis")
    maps = folder / "maps"
    shutil.copytree(MAPS_DIR, maps)  # the admin operations change maps
    env = {"MAPS_DIR": str(maps), "API_TOKEN": "api-secret", "ADMIN_TOKEN": ADMIN}
    with running_server(ServerSpec(env)) as server:
        base = server.url
        yield base


def test_schemathesis_finds_nothing(guarded_server, tmp_path):
    base = guarded_server
    examples = int(os.environ.get("FUZZ_EXAMPLES", "20"))
    seed = os.environ.get("FUZZ_SEED", "1" if examples <= 20 else "")
    command = [
        str(Path(sys.executable).parent / "schemathesis"),
        "--config-file",
        str(HERE / "schemathesis.toml"),
        "run",
        f"{base}/openapi.json",
        # The admin token passes the API_TOKEN check too; ignored_auth still sends requests
        # without it and expects the declared 401.
        "--header",
        f"Authorization: Bearer {ADMIN}",
        "--max-examples",
        str(examples),
        "--request-timeout",
        "30",
        "--no-color",
        "--report",
        "junit",
        "--report-dir",
        str(tmp_path),
        *(["--seed", seed] if seed else []),
    ]
    run = subprocess.run(command, capture_output=True, text=True, timeout=60 + 12 * examples)
    summary = run.stdout[run.stdout.find("SUMMARY") :]
    stateful = [line for line in run.stdout.splitlines() if "Scenarios" in line or "Links" in line]
    print("\n".join(stateful), summary)  # operations, test cases, links: with pytest -s
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-2000:]
    assert "Stateful" in run.stdout and " passed" in summary
