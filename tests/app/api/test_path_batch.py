"""A ``/paths`` chunk through :mod:`app.api.path_batch` (the common queries in one
``find_pairs`` call) answers the same bytes as each query run alone (``BatchQuery.run``,
the road every query took before): found, unreachable, capped (``limit_reached``), wrong
ends, other fields and malformed queries mixed in one batch, on maps served by each batch
loop and on a map whose plan has none; and over HTTP, a /paths body is the same whichever
way its queries went."""

from __future__ import annotations

import numpy as np
import orjson
import pytest

from app.api import path_batch
from app.api.path_batch import answer_chunk
from app.api.path_request import batch_requests
from app.config import Settings
from gridpath.grid import Grid, load_map
from gridpath.grid.terrain import TerrainClass
from gridpath.search import SearchScratch, prepare_jps
from tests.conftest import MAPS_DIR

MIXED = [
    {"start": [0, 0], "goal": [39, 19]},  # across the wall: unreachable, no search
    {"start": [0, 0], "goal": [15, 3]},
    {"start": [3, 3], "goal": [3, 3]},
    {"start": [0, 0], "goal": [20, 5]},  # the wall: goal_blocked
    {"start": [-1, 0], "goal": [3, 3]},  # out_of_bounds
    {"start": [0, 0], "goal": [3, 2**40]},  # beyond int32: one by one, out_of_bounds
    {"start": [0, 0], "goal": [3, True]},  # a bool is no integer: invalid_request
    {"start": [0, 0], "goal": [3.0, 3]},
    {"start": [0, 0]},
    {"start": [0, 0], "goal": [9, 9], "smooth": False},  # other options: one by one
    {"start": [0, 0], "goal": [9, 9], "include": ["path"]},
    {"start": [0, 0], "goal": [9, 9], "revision": 1},
    {"start": [0, 0], "goal": [9, 9], "mode": "exact"},  # a polygon field
    {"start": [1, 1], "goals": [[9, 9], [2, 2]]},
    "not an object",
    {"start": [19, 19], "goal": [2, 18]},
    {"start": [2, 18], "goal": [19, 0]},
]


def _split() -> Grid:
    walkable = np.ones((20, 41), dtype=bool)
    walkable[:, 20] = False
    walkable[5:15, 10] = False
    return Grid.from_walkable("split", walkable)


def _arena() -> Grid:
    return load_map(MAPS_DIR / "arena.png", max_cells=10**7, max_bytes=10**8)


def _maze() -> Grid:
    walkable = np.random.default_rng(5).random((40, 60)) >= 0.35
    walkable[0, :2] = walkable[3, 3] = walkable[19, 39] = True
    return Grid.from_walkable("maze", walkable)


def _random_pairs(grid: Grid, count: int, seed: int) -> list[dict]:
    ys, xs = np.nonzero(grid.flat.reshape(-1, grid.width + 2)[1:-1, 1:-1] >= 1)
    picks = np.random.default_rng(seed).integers(0, xs.size, size=(count, 2)).tolist()
    return [{"start": [int(xs[a]), int(ys[a])], "goal": [int(xs[b]), int(ys[b])]} for a, b in picks]


def _bodies(answers) -> list[bytes]:
    return [orjson.dumps(body, option=orjson.OPT_SERIALIZE_NUMPY) for body, _ in answers]


@pytest.fixture
def batched(monkeypatch) -> list:
    """How many queries each ``find_pairs`` call answered (None: no batch loop): those
    whose ends are open."""
    calls: list = []

    def find_pairs(*args, **kwargs):
        found = real(*args, **kwargs)
        calls.append(None if found is None else int(found.answered.sum()))
        return found

    real = path_batch.find_pairs
    monkeypatch.setattr(path_batch, "find_pairs", find_pairs)
    return calls


def _same_bytes(grid: Grid, queries: list, settings: Settings) -> None:
    prepare_jps(grid)
    requests = batch_requests(queries, grid, settings)
    scratch = SearchScratch()
    alone = _bodies(request.run(grid, scratch) for request in requests)
    assert _bodies(answer_chunk(requests, grid, scratch)) == alone


@pytest.mark.parametrize("make", [_split, _arena, _maze], ids=["split", "arena", "maze"])
def test_a_chunk_answers_each_querys_bytes(make, batched) -> None:
    grid = make()
    queries = MIXED + _random_pairs(grid, 80, seed=1)
    _same_bytes(grid, queries, Settings(maps_dir=MAPS_DIR))
    assert len(batched) == 1 and batched[0] >= 80  # the random pairs and the open MIXED


def test_capped_queries_keep_their_reason(batched) -> None:
    """A batch's share of MAX_BATCH_EXPANDED caps each query: past it, limit_reached."""
    grid = _arena()
    queries = _random_pairs(grid, 50, seed=2)
    settings = Settings(maps_dir=MAPS_DIR, max_batch_expanded=50 * 3)
    _same_bytes(grid, queries, settings)
    answers = answer_chunk(batch_requests(queries, grid, settings), grid, SearchScratch())
    reasons = {body["reason"] for body, _ in answers}
    assert "limit_reached" in reasons and None in reasons
    assert batched == [50, 50]


def test_a_plan_without_a_batch_loop(batched) -> None:
    """Terrain with costs: the general runner, one query at a time."""
    walkable = np.ones((12, 12), dtype=bool)
    terrain = np.zeros((12, 12), dtype=np.uint8)
    terrain[4:8] = 1
    classes = (TerrainClass("ground", 1.0), TerrainClass("mud", 3.0))
    grid = Grid.from_walkable("mud", walkable, terrain=terrain, terrain_classes=classes)
    _same_bytes(grid, _random_pairs(grid, 20, seed=3), Settings(maps_dir=MAPS_DIR))
    assert batched == [None]


def test_a_paths_body_over_http(client, batched) -> None:
    """The route's bytes equal the bodies of each query run alone, in order."""
    queries = _random_pairs(_arena(), 40, seed=4) + MIXED[1:3]
    response = client.post("/paths", json={"map": "arena", "queries": queries})
    assert response.status_code == 200
    state = client.app.state.service
    grid = state.registry.get("arena")
    requests = batch_requests(queries, grid, state.settings)
    alone = _bodies(request.run(grid, SearchScratch()) for request in requests)
    want = b'{"map":"arena","results":[' + b",".join(alone) + b"]}"
    assert response.content == want
    assert sum(batched) == 41  # in chunks, one call each ([0, 0] is a wall on arena)
