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
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.conftest import MAPS_DIR, ROOT
from tests.system.test_server import free_port

HERE = Path(__file__).resolve().parent
ADMIN = "admin-secret"


@contextmanager
def uvicorn_process(env: dict[str, str], log: Path, ready_within: float = 600.0) -> Iterator[str]:
    """A real ``uvicorn app.main:app`` on a free loopback port; its output goes to ``log`` (a
    pipe nobody reads would fill up under thousands of requests and stall the server)."""
    port = free_port()
    with log.open("wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "uvicorn", "app.main:app", "--host", "127.0.0.1"]
            + ["--port", str(port), "--no-access-log"],
            cwd=ROOT,
            env={**os.environ, **env},
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + ready_within
    try:
        while True:
            if process.poll() is not None:
                pytest.fail(f"uvicorn exited: {log.read_text()[-4000:]}")
            try:
                with urllib.request.urlopen(base + "/health", timeout=5) as response:
                    if response.status == 200:
                        break
            except OSError:  # refused while starting, or 503 until ready
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"uvicorn did not become ready within {ready_within:.0f} s")
            time.sleep(0.1)
        yield base
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()


@pytest.fixture(scope="module")
def guarded_server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("schemathesis")
    maps = folder / "maps"
    shutil.copytree(MAPS_DIR, maps)  # the admin operations change maps
    env = {"MAPS_DIR": str(maps), "API_TOKEN": "api-secret", "ADMIN_TOKEN": ADMIN}
    with uvicorn_process(env, folder / "server.log") as base:
        yield base, folder / "server.log"


def test_schemathesis_finds_nothing(guarded_server, tmp_path):
    base, server_log = guarded_server
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
    print(summary)  # operations, test cases (requests), failures: shown with pytest -s
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-2000:]
    assert "Stateful" in run.stdout and " passed" in summary
    assert "Traceback" not in server_log.read_text()  # nothing unexpected, even answered
