"""Shared fixtures: small grids from ASCII art, and the app with its lifespan running."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.config import Settings
from app.main import create_app
from gridpath.grid import Grid
from tests.packages import require
from tests.redis_server import RedisServer
from tests.reference import grid_from_ascii

# The folder store keeps its lock and revision records in MAP_STATE_DIR (app/authority/folder.py):
# one fresh dir per test session, so runs do not see each other's revisions.
_STATE_DIR = tempfile.mkdtemp(prefix="gridpath-test-state-")
os.environ.setdefault("MAP_STATE_DIR", _STATE_DIR)
atexit.register(shutil.rmtree, _STATE_DIR, ignore_errors=True)

ROOT = Path(__file__).resolve().parents[1]
MAPS_DIR = ROOT / "maps"
# The Moving AI benchmark maps and scenarios (X.map and X.map.scen, third-party data, not in
# this repository): MOVINGAI_DIR, else ../shared/benchmarks/movingai beside the checkout.
MOVINGAI_DIR = Path(
    os.environ.get("MOVINGAI_DIR") or ROOT.parent / "shared" / "benchmarks" / "movingai"
)
MOVINGAI_MISSING = (
    f"Moving AI maps not found in {MOVINGAI_DIR}: put the benchmark .map and .map.scen files "
    "from https://movingai.com/benchmarks/grids.html there (or set MOVINGAI_DIR)"
)


def make_grid(text: str, name: str = "test") -> Grid:
    return Grid.from_walkable(name, grid_from_ascii(text))


def wait_ready(client: TestClient, timeout: float = 600.0) -> None:
    """Until /health is 200 and every kernel is loaded (on a cold numba cache some compile
    after 200: their queries answer 503 warming_up until then)."""
    deadline = time.monotonic() + timeout
    while True:
        health = client.get("/health")
        if health.status_code == 200 and health.json().get("waiting_for") is None:
            return
        if time.monotonic() > deadline:
            raise TimeoutError("service did not become ready")
        time.sleep(0.02)


@pytest.fixture(scope="session")
def client() -> Iterator[TestClient]:
    """The real app serving the bundled maps."""
    app = create_app(Settings(maps_dir=MAPS_DIR))
    with TestClient(app) as test_client:
        wait_ready(test_client)
        yield test_client


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[RedisServer]:
    """A real redis-server of the test's own (tests/redis_server.py), stopped afterwards."""
    require("redis-server")
    server = RedisServer(tmp_path / "redis").start()
    try:
        yield server
    finally:
        server.kill()
