"""Shared fixtures: small grids from ASCII art, and the app with its lifespan running."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.config import Settings
from app.grid import Grid
from app.main import create_app
from tests.reference import grid_from_ascii

ROOT = Path(__file__).resolve().parents[1]
MAPS_DIR = ROOT / "maps"
MOVINGAI_DIR = ROOT.parent / "shared" / "benchmarks" / "movingai"


def make_grid(text: str, name: str = "test") -> Grid:
    return Grid.from_walkable(name, grid_from_ascii(text))


def wait_ready(client: TestClient, timeout: float = 600.0) -> None:
    deadline = time.monotonic() + timeout
    while client.get("/health").status_code != 200:
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
