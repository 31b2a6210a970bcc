"""``/path``, ``/paths``, ``/table``, ``/flowfield`` and ``/validate`` through a world, against
an independent reference: ``scipy.sparse.csgraph.dijkstra`` over the stacked world graph (each
map's moves by the rule of tests/reference.py, joined by the usable links), built here.

The world: two floors, each split by a wall so that crossing a floor needs a link; stairs
both ways, a one-way zero-cost trapdoor, a closed gate (tag ``door``), a zero-cost same-map
teleporter and a ladder (tag ``ladder``)."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator

import numpy as np
import pytest
from fastapi.testclient import TestClient
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import dijkstra

from app.config import Settings
from app.main import create_app
from tests.conftest import wait_ready
from tests.reference import SQRT2, step_is_legal

TOKEN = "world-admin"
ADMIN = {"authorization": f"Bearer {TOKEN}"}
W, H = 20, 12
LINKS = [
    {"id": "stairs", "from": {"map": "floor_a", "cell": [3, 3]},
     "to": {"map": "floor_b", "cell": [3, 3]}, "cost": 2.0, "bidirectional": True},
    {"id": "trapdoor", "from": {"map": "floor_b", "cell": [16, 8]},
     "to": {"map": "floor_a", "cell": [15, 9]}, "cost": 0},
    {"id": "gate", "from": {"map": "floor_a", "cell": [8, 5]},
     "to": {"map": "floor_a", "cell": [12, 5]}, "cost": 5, "bidirectional": True,
     "enabled": False, "tags": ["door"]},
    {"id": "teleporter", "from": {"map": "floor_b", "cell": [1, 10]},
     "to": {"map": "floor_b", "cell": [18, 1]}, "cost": 0},
    {"id": "ladder", "from": {"map": "floor_b", "cell": [14, 2]},
     "to": {"map": "floor_a", "cell": [17, 2]}, "cost": 1.5, "bidirectional": True,
     "tags": ["ladder"]},
]  # fmt: skip
MAPS = ("floor_a", "floor_b")


def _floor(seed: int) -> np.ndarray:
    """Walkable cells: random walls (a fifth), a full wall at x = 10, link ends open."""
    rng = np.random.default_rng(seed)
    walkable = rng.random((H, W)) > 0.2
    walkable[:, 10] = False
    return walkable


def _floors() -> dict[str, np.ndarray]:
    floors = {name: _floor(seed) for seed, name in enumerate(MAPS)}
    for link in LINKS:
        for end in (link["from"], link["to"]):
            x, y = end["cell"]
            floors[end["map"]][y, x] = True
    return floors


FLOORS = _floors()


def _map_text(walkable: np.ndarray) -> str:
    rows = ["".join("." if v else "@" for v in row) for row in walkable]
    return f"type octile\nheight {H}\nwidth {W}\nmap\n" + "\n".join(rows) + "\n"


@pytest.fixture(scope="module")
def client(tmp_path_factory) -> Iterator[TestClient]:
    folder = tmp_path_factory.mktemp("maps")
    for name, walkable in FLOORS.items():
        (folder / f"{name}.map").write_text(_map_text(walkable))
    world = {"maps": list(MAPS), "links": LINKS}
    (folder / "tower.world.json").write_text(json.dumps(world))
    with TestClient(create_app(Settings(maps_dir=folder, admin_token=TOKEN))) as test_client:
        wait_ready(test_client)
        yield test_client


# -- the reference: Dijkstra over the stacked world graph ---------------------------------


def _node(name: str, cell) -> int:
    return MAPS.index(name) * W * H + cell[1] * W + cell[0]


def world_graph(links=LINKS, exclude_ids=(), exclude_tags=(), blocked=()):
    """The world's move graph: each map's moves (8-connected, no corner cutting, 1 and
    sqrt 2), and each usable link way (enabled, not excluded, both ends open)."""
    rows, cols, costs = [], [], []
    closed = {(p["map"], tuple(p["cell"])) for p in blocked}
    for name in MAPS:
        walkable = FLOORS[name].copy()
        for m, (x, y) in closed:
            if m == name:
                walkable[y, x] = False
        for y in range(H):
            for x in range(W):
                for dx in (-1, 0, 1):
                    for dy in (-1, 0, 1):
                        if (dx or dy) and step_is_legal(walkable, (x, y), (x + dx, y + dy)):
                            rows.append(_node(name, (x, y)))
                            cols.append(_node(name, (x + dx, y + dy)))
                            costs.append(SQRT2 if dx and dy else 1.0)
    for link in links:
        tags = set(link.get("tags", ()))
        if not link.get("enabled", True) or link["id"] in exclude_ids or tags & set(exclude_tags):
            continue
        ends = [(link["from"]["map"], tuple(link["from"]["cell"])),
                (link["to"]["map"], tuple(link["to"]["cell"]))]  # fmt: skip
        if any(end in closed for end in ends):
            continue
        ways = [ends, ends[::-1]] if link.get("bidirectional") else [ends]
        for a, b in ways:
            rows.append(_node(*a))
            cols.append(_node(*b))
            # csgraph drops explicit zeros of a sparse matrix: a zero-cost link is 1e-300
            costs.append(float(link.get("cost", 1.0)) or 1e-300)
    n = len(MAPS) * W * H
    return coo_matrix((costs, (rows, cols)), shape=(n, n)).tocsr()


def reference(graph, source: dict) -> np.ndarray:
    return dijkstra(graph, directed=True, indices=_node(source["map"], source["cell"]))


def _open_places(rng, count: int) -> list[dict]:
    places = []
    while len(places) < count:
        name = MAPS[int(rng.integers(len(MAPS)))]
        x, y = int(rng.integers(W)), int(rng.integers(H))
        if FLOORS[name][y, x]:
            places.append({"map": name, "cell": [x, y]})
    return places


def _approx(got, want) -> bool:
    if not math.isfinite(want):
        return got is None
    return got is not None and abs(got - want) < 1e-9


PAIRS = list(
    zip(_open_places(np.random.default_rng(7), 24), _open_places(np.random.default_rng(8), 24))
)


# -- /path ---------------------------------------------------------------------------------


def _check_legs(body: dict) -> None:
    """Each leg but the last ends on its link's entrance, the next starts on its exit; each
    step of a leg is a legal move; cost is the legs' plus the links'."""
    by_id = {link["id"]: link for link in LINKS}
    total = 0.0
    for leg, after in zip(body["legs"], body["legs"][1:] + [None]):
        path = [tuple(c) for c in leg["path"]]
        assert all(step_is_legal(FLOORS[leg["map"]], a, b) for a, b in zip(path, path[1:]))
        total += leg["cost"]
        if after is None:
            assert leg["link"] is None
            continue
        link = by_id[leg["link"]]
        here = {"map": leg["map"], "cell": list(path[-1])}
        there = {"map": after["map"], "cell": list(after["path"][0])}
        assert (here, there) == (link["from"], link["to"]) or (
            link.get("bidirectional") and (here, there) == (link["to"], link["from"])
        )
        total += link.get("cost", 1.0)
    assert body["links"] == [leg["link"] for leg in body["legs"][:-1]]
    assert abs(total - body["cost"]) < 1e-9


@pytest.mark.parametrize("algorithm", ["auto", "astar", "dijkstra", "jps"])
def test_path_is_world_optimal(client, algorithm):
    graph = world_graph()
    checked = 0
    for start, goal in PAIRS:
        body = {"world": "tower", "start": start, "goal": goal, "algorithm": algorithm}
        answer = client.post("/path", json=body)
        assert answer.status_code == 200, answer.text
        got = answer.json()
        want = reference(graph, start)[_node(goal["map"], goal["cell"])]
        assert _approx(got["cost"], want), (start, goal, got["cost"], want)
        assert got["found"] == math.isfinite(want) and got["optimal"]
        assert (got["world"], got["world_revision"]) == ("tower", 1)
        if got["found"]:
            _check_legs(got)
            checked += 1
    assert checked >= len(PAIRS) // 3  # most pairs need a link, and are reachable


def test_excluded_links_and_blocked_places(client):
    blocked = [{"map": "floor_a", "cell": [3, 3]}]  # the stairs' end on floor_a
    graph = world_graph(exclude_tags=["ladder"], exclude_ids=["trapdoor"], blocked=blocked)
    for start, goal in PAIRS[:12]:
        if start in blocked or goal in blocked:
            continue
        body = {"world": "tower", "start": start, "goal": goal, "blocked": blocked,
                "links": {"exclude_ids": ["trapdoor"], "exclude_tags": ["ladder"]}}  # fmt: skip
        got = client.post("/path", json=body).json()
        want = reference(graph, start)[_node(goal["map"], goal["cell"])]
        assert _approx(got["cost"], want)
        assert not {"ladder", "trapdoor", "stairs"} & set(got["links"])


def test_same_request_same_bytes(client):
    start, goal = PAIRS[0]
    body = {"world": "tower", "start": start, "goal": goal}
    assert client.post("/path", json=body).content == client.post("/path", json=body).content


# -- /paths, /table, /flowfield --------------------------------------------------------------


def test_paths_answer_as_path(client):
    queries = [{"start": s, "goal": g} for s, g in PAIRS[:10]]
    batch = client.post("/paths", json={"world": "tower", "queries": [*queries, {"start": [1, 1]}]})
    assert batch.status_code == 200, batch.text
    results = batch.json()["results"]
    for query, result in zip(queries, results):
        alone = client.post("/path", json={"world": "tower", **query}).json()
        del alone["options"]["max_expanded"], result["options"]["max_expanded"]  # the batch's share
        assert result == alone
    assert results[-1]["error"]["code"] == "invalid_request"


def test_table_entries_are_world_optimal(client):
    sources, targets = [s for s, _ in PAIRS[:5]], [g for _, g in PAIRS[5:12]]
    answer = client.post("/table", json={"world": "tower", "sources": sources, "targets": targets})
    assert answer.status_code == 200, answer.text
    costs = answer.json()["costs"]
    graph = world_graph()
    for i, source in enumerate(sources):
        dist = reference(graph, source)
        for j, target in enumerate(targets):
            assert _approx(costs[i][j], dist[_node(target["map"], target["cell"])]), (i, j)


def _decode(encoded: dict) -> np.ndarray:
    import base64

    data = base64.b64decode(encoded["data"])
    return np.frombuffer(data, dtype=encoded["dtype"]).reshape(encoded["shape"])


def test_flowfield_through_links(client):
    goal = {"map": "floor_b", "cell": [18, 1]}  # the teleporter's exit
    answer = client.post("/flowfield", json={"world": "tower", "goal": goal})
    assert answer.status_code == 200, answer.text
    body = answer.json()
    back = dijkstra(
        world_graph().T.tocsr(), directed=True, indices=_node(goal["map"], goal["cell"])
    )
    index = {link["id"]: i for i, link in enumerate(LINKS)}
    assert [f["map"] for f in body["fields"]] == list(MAPS)
    costs = {f["map"]: _decode(f["cost"]) for f in body["fields"]}
    for field in body["fields"]:
        name = field["map"]
        want = back[MAPS.index(name) * W * H : (MAPS.index(name) + 1) * W * H].reshape(H, W)
        got = costs[name]
        assert np.allclose(np.where(np.isfinite(want), want, -1), got, atol=1e-9)
        for y, x in zip(*np.nonzero(_decode(field["link"]) >= 0)):
            link = LINKS[int(_decode(field["link"])[y, x])]
            way = (link["from"], link["to"])
            if way[0] != {"map": name, "cell": [int(x), int(y)]}:
                assert link.get("bidirectional")
                way = way[::-1]
            exit_cost = costs[way[1]["map"]][way[1]["cell"][1], way[1]["cell"][0]]
            assert abs(got[y, x] - (link.get("cost", 1.0) + exit_cost)) < 1e-9
            assert index[link["id"]] >= 0


# -- /validate -------------------------------------------------------------------------------


def _walk(body: dict) -> list[dict]:
    return [{"map": leg["map"], "cell": cell} for leg in body["legs"] for cell in leg["path"]]


def test_validate_a_found_path_and_link_violations(client):
    start, goal = next((s, g) for s, g in PAIRS if s["map"] != g["map"])
    found = client.post("/path", json={"world": "tower", "start": start, "goal": goal}).json()
    assert found["found"]
    claim = {"world": "tower", "path": _walk(found), "start": start, "goal": goal,
             "compare_optimal": True}  # fmt: skip
    verdict = client.post("/validate", json=claim).json()
    assert verdict["valid"], verdict
    assert abs(verdict["cost"] - found["cost"]) < 1e-9
    assert abs(verdict["optimal_cost"] - found["cost"]) < 1e-9

    def codes(path):
        answer = client.post("/validate", json={"world": "tower", "path": path})
        assert answer.status_code == 200, answer.text
        return [(v["index"], v["code"]) for v in answer.json()["violations"]]

    trap = LINKS[1]
    assert codes([trap["to"], trap["from"]]) == [(1, "link_one_way")]
    gate = LINKS[2]
    assert codes([gate["from"], gate["to"]]) == [(1, "link_disabled")]
    far = [{"map": "floor_a", "cell": [3, 3]}, {"map": "floor_b", "cell": [16, 8]}]
    assert codes(far) == [(1, "link_missing")]


# -- read your writes, errors ------------------------------------------------------------------


def test_a_patch_read_through_world_revision(client):
    gate = LINKS[2]
    opened = client.patch("/worlds/tower", headers=ADMIN,
                          json={"set": [{"id": "gate", "enabled": True}]})  # fmt: skip
    assert opened.status_code == 200, opened.text
    revision = opened.json()["revision"]
    try:
        links = [dict(link, enabled=True) if link["id"] == "gate" else link for link in LINKS]
        body = {"world": "tower", "world_revision": revision, "start": gate["from"],
                "goal": gate["to"]}  # fmt: skip
        got = client.post("/path", json=body).json()
        want = reference(world_graph(links), gate["from"])[_node("floor_a", gate["to"]["cell"])]
        assert got["world_revision"] == revision and _approx(got["cost"], want)
        stale = client.post("/path", json={**body, "world_revision": revision - 1})
        assert stale.status_code == 409
        assert stale.json()["error"]["code"] == "stale_revision"
    finally:
        client.patch(
            "/worlds/tower", headers=ADMIN, json={"set": [{"id": "gate", "enabled": False}]}
        )


START, GOAL = PAIRS[0]
BAD = [
    ({"world": "nowhere", "start": START, "goal": GOAL}, 404, "world_not_found"),
    ({"world": "tower", "map": "floor_a", "start": START, "goal": GOAL}, 422, "invalid_request"),
    ({"world": "tower", "start": [1, 1], "goal": GOAL}, 422, "invalid_request"),
    ({"world": "tower", "start": {"map": "arena", "cell": [1, 1]}, "goal": GOAL}, 404,
     "map_not_found"),
    ({"world": "tower", "start": START, "goal": GOAL, "snap": True}, 422, "invalid_request"),
    ({"world": "../x", "start": START, "goal": GOAL}, 422, "invalid_request"),
]  # fmt: skip


@pytest.mark.parametrize("body,status,code", BAD, ids=range(len(BAD)))
def test_bad_world_requests(client, body, status, code):
    for route in ("/path", "/table", "/flowfield", "/validate"):
        answer = client.post(route, json=_for(route, body))
        assert answer.status_code == status, (route, answer.text)
        assert answer.json()["error"]["code"] == code, (route, answer.text)
    batch = {"world": body["world"], "queries": [{"start": START, "goal": GOAL}]}
    if "map" in body:
        batch["map"] = body["map"]
    answer = client.post("/paths", json=batch)
    assert answer.status_code in (200, 404, 422)


def _for(route: str, body: dict) -> dict:
    """``body`` (a /path request) as the same mistake on ``route``."""
    common = {k: v for k, v in body.items() if k in ("world", "map")}
    start, goal = body["start"], body["goal"]
    extra = {"snap": True} if "snap" in body else {}
    if route == "/table":
        return {**common, "sources": [start], "targets": [goal], **extra}
    if route == "/flowfield":
        return {**common, "goal": start, **extra}
    if route == "/validate":
        return {**common, "path": [start, goal], **extra}
    return body


def test_bodies_are_one_of_a_map_or_a_world(client):
    document = client.get("/openapi.json").json()
    for path in ("/path", "/paths", "/table", "/flowfield", "/validate"):
        body = document["paths"][path]["post"]["requestBody"]["content"]["application/json"]
        options = body["schema"]["oneOf"]
        assert options[-1]["$ref"].rsplit("/", 1)[1].startswith("World"), path
        assert len(options) == 2, path
