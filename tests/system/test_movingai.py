"""The shared Moving AI benchmark scenarios through POST /path: costs equal the published optima.

By default a stratified sample of every scenario file (every bucket's first and last query,
plus every Nth); ``MOVINGAI_FULL=1`` runs every scenario. ``make bench`` always runs all.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.config import Settings
from app.main import create_app
from tests.conftest import MOVINGAI_DIR, MOVINGAI_MISSING, wait_ready

pytestmark = pytest.mark.skipif(not MOVINGAI_DIR.is_dir(), reason=MOVINGAI_MISSING)

FULL = os.environ.get("MOVINGAI_FULL") == "1"
SAMPLE_EVERY = 40


def scenarios(path: Path):
    rows = [line.split("\t") for line in path.read_text().splitlines()[1:] if line.strip()]
    chosen = []
    for k, row in enumerate(rows):
        last_of_bucket = k + 1 == len(rows) or rows[k + 1][0] != row[0]
        if FULL or k % SAMPLE_EVERY == 0 or last_of_bucket and int(row[0]) % 10 == 9:
            chosen.append(((int(row[4]), int(row[5])), (int(row[6]), int(row[7])), float(row[8])))
    return chosen


@pytest.fixture(scope="module")
def movingai_client():
    app = create_app(Settings(maps_dir=MOVINGAI_DIR))
    with TestClient(app) as c:
        wait_ready(c)
        yield c


@pytest.mark.parametrize("scen", sorted(MOVINGAI_DIR.glob("*.map.scen")), ids=lambda p: p.stem)
def test_published_optimal_lengths(movingai_client, scen):
    name = scen.name.removesuffix(".map.scen")
    failures = []
    cases = scenarios(scen)
    for start, goal, optimal in cases:
        body = movingai_client.post(
            "/path", json={"map": name, "start": start, "goal": goal}
        ).json()
        if not body.get("found") or abs(body["cost"] - optimal) > max(1e-4, 1e-5 * optimal):
            failures.append((start, goal, optimal, body.get("cost")))
    assert not failures, f"{len(failures)}/{len(cases)} not optimal, e.g. {failures[:3]}"
    assert len(cases) >= 4
