"""POST /table through the real app: pairwise /path costs, nulls, bounds, refusals,
determinism, and the OpenAPI declaration."""

from __future__ import annotations

import base64
import shutil

import numpy as np
import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.config import Settings
from app.main import create_app
from tests.conftest import MAPS_DIR, MOVINGAI_DIR, MOVINGAI_MISSING, wait_ready
from tests.reference import assert_costs_match

TOKEN = "table-admin"
ADMIN = {"Authorization": f"Bearer {TOKEN}"}


def serve(maps, **settings):
    app = create_app(Settings(maps_dir=maps, admin_token=TOKEN, **settings))
    client = TestClient(app)
    client.__enter__()
    wait_ready(client)
    return client


@pytest.fixture(scope="module")
def maps(tmp_path_factory):
    """The bundled maps, and a Moving AI map when the shared benchmarks are present."""
    maps = tmp_path_factory.mktemp("table") / "maps"
    shutil.copytree(MAPS_DIR, maps)
    movingai = MOVINGAI_DIR / "arena.map"
    if movingai.is_file():
        shutil.copy(movingai, maps / "movingai_arena.map")
    return maps


@pytest.fixture(scope="module")
def server(maps):
    """An app that takes uploads (random maps), with a small MAX_TABLE_CELLS."""
    client = serve(maps, max_table_cells=400)
    yield client
    client.__exit__(None, None, None)


def path_costs(client, name, sources, targets, **options):
    out = []
    for s in sources:
        row = []
        for t in targets:
            body = {"map": name, "start": s, "goal": t, "include": [], **options}
            r = client.post("/path", json=body)
            if r.status_code == 422 and r.json()["error"]["code"] in (
                "start_blocked",
                "goal_blocked",
            ):
                row.append(None)
                continue
            assert r.status_code == 200, r.text
            row.append(r.json()["cost"])
        out.append(row)
    return out


def movingai_text(walkable: np.ndarray) -> str:
    rows = ["".join("." if c else "@" for c in row) for row in walkable]
    h, w = walkable.shape
    return f"type octile\nheight {h}\nwidth {w}\nmap\n" + "\n".join(rows) + "\n"


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_random_maps_equal_pairwise_path_costs(server, data):
    width, height = data.draw(st.integers(2, 16)), data.draw(st.integers(2, 16))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    walkable = rng.random((height, width)) >= data.draw(st.sampled_from([0.0, 0.25, 0.4]))
    put = server.put("/maps/random", headers=ADMIN, content=movingai_text(walkable))
    assert put.status_code in (200, 201), put.text
    cells = st.tuples(st.integers(0, width - 1), st.integers(0, height - 1)).map(list)
    sources = data.draw(st.lists(cells, min_size=1, max_size=4))
    targets = data.draw(st.lists(cells, min_size=1, max_size=4))
    options = data.draw(
        st.fixed_dictionaries(
            {},
            optional={
                "connectivity": st.sampled_from([4, 8]),
                "diagonal": st.sampled_from(["never", "no_corner_cut", "one_free", "always"]),
                "cost_model": st.sampled_from(["float", "integer"]),
                "clearance": st.sampled_from([1, 2]),
            },
        )
    )
    r = server.post(
        "/table",
        json={"map": "random", "sources": sources, "targets": targets, **options},
    )
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["revision"] == put.json()["revision"]
    assert body["limit_reached"] == []
    assert_costs_match(body["costs"], path_costs(server, "random", sources, targets, **options))


@pytest.mark.parametrize("name", ["arena", "maze", "field", "village", "movingai_arena"])
def test_bundled_maps_equal_pairwise_path_costs(server, name):
    info = server.get(f"/maps/{name}")
    if info.status_code == 404:
        pytest.skip(MOVINGAI_MISSING)
    cells = server.get(f"/maps/{name}/cells").json()
    raw = base64.b64decode(cells["cells"]["data"])
    grid = np.frombuffer(raw, dtype=cells["cells"]["dtype"]).reshape(cells["cells"]["shape"])
    walkable = [[int(x), int(y)] for y, x in np.argwhere(grid > 0)]
    rng = np.random.default_rng(11)
    pick = [walkable[i] for i in rng.choice(len(walkable), 7, replace=False)]
    sources, targets = pick[:3], pick[3:]
    r = server.post("/table", json={"map": name, "sources": sources, "targets": targets})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["searched_from"] == "sources"
    assert body["searches"] == (3 if name == "village" else 12)  # floods, or JPS per pair
    assert body["limit_reached"] == []
    want = path_costs(server, name, sources, targets)
    assert_costs_match(body["costs"], want)
    if name != "village":  # uniform terrain: the very same numbers as /path
        assert body["costs"] == want


def test_unreachable_and_blocked_are_null(server):
    text = "type octile\nheight 3\nwidth 5\nmap\n..@..\n..@..\n..@.@\n"
    assert server.put("/maps/split", headers=ADMIN, content=text).status_code in (200, 201)
    r = server.post(
        "/table",
        json={"map": "split", "sources": [[0, 0], [4, 2]], "targets": [[1, 1], [3, 1], [0, 1]],
              "blocked": [[0, 1]]},
    )  # fmt: skip
    body = r.json()
    assert r.status_code == 200
    assert body["costs"] == [[2.0, None, None], [None, None, None]]  # no corner cut by (0, 1)
    assert body["blocked_sources"] == [1] and body["blocked_targets"] == [2]
    assert body["options"]["blocked"] == [[0, 1]]


def test_expansion_budget_names_the_entries_not_computed(tmp_path):
    # 20 expansions over 2 searches on a 300-cell corridor: each settles only its near target.
    # A folder of its own: the module's server holds the shared one (one writer per folder).
    shutil.copytree(MAPS_DIR, tmp_path / "maps")
    client = serve(tmp_path / "maps", max_batch_expanded=20)
    try:
        corridor = "type octile\nheight 1\nwidth 300\nmap\n" + "." * 300 + "\n"
        assert client.put("/maps/corridor", headers=ADMIN, content=corridor).status_code == 201
        r = client.post(
            "/table",
            json={
                "map": "corridor",
                "sources": [[0, 0], [299, 0]],
                "targets": [[1, 0], [298, 0]],
                "connectivity": 4,  # floods: jump point search does not apply
            },
        )
    finally:
        client.__exit__(None, None, None)
    body = r.json()
    assert r.status_code == 200
    assert body["costs"] == [[1.0, None], [None, 1.0]]
    assert body["limit_reached"] == [[0, 1], [1, 0]]
    assert body["expanded"] == 20


@pytest.mark.parametrize(
    "extra,status,code",
    [
        ({"sources": [[0, 0]] * 21, "targets": [[1, 1]] * 20}, 422, "table_too_large"),
        ({"sources": [[0, 0], [64, 0]]}, 422, "out_of_bounds"),
        ({"targets": [[2, 2], [2, -1]]}, 422, "out_of_bounds"),
        ({"sources": []}, 422, "invalid_request"),
        ({"targets": [[1, "2"]]}, 422, "invalid_request"),
        ({"turn_penalty": 1}, 422, "invalid_request"),
        ({"connectivity": 6}, 422, "invalid_connectivity"),
        ({"terrain_costs": {"lava": 2}}, 422, "invalid_terrain_costs"),
        ({"blocked": [[99, 99]]}, 422, "out_of_bounds"),
        ({"revision": 999}, 409, "stale_revision"),
        ({"map": "nowhere"}, 404, "map_not_found"),
    ],
)
def test_refusals(server, extra, status, code):
    body = {"map": "arena", "sources": [[2, 2]], "targets": [[24, 9]], **extra}
    r = server.post("/table", json=body)
    assert r.status_code == status, r.text
    assert r.json()["error"]["code"] == code
    if code == "out_of_bounds":
        assert "sources[1]" in r.text or "targets[1]" in r.text or "blocked" in r.text


def test_deterministic_body_and_revision(server):
    body = {"map": "arena", "sources": [[2, 2], [30, 30], [2, 2]], "targets": [[24, 9], [40, 50]]}
    first = server.post("/table", json=body)
    assert first.status_code == 200
    assert all(server.post("/table", json=body).content == first.content for _ in range(3))
    assert first.headers["server-timing"].startswith("search;dur=")
    revision = first.json()["revision"]
    again = server.post("/table", json={**body, "revision": revision})
    assert again.content == first.content


def test_openapi_declares_table(server):
    spec = server.get("/openapi.json").json()
    responses = spec["paths"]["/table"]["post"]["responses"]
    for status in ("404", "409", "422", "503"):
        schema = responses[status]["content"]["application/json"]["schema"]
        assert schema["$ref"].endswith("/ErrorResponse")
    answers = responses["200"]["content"]["application/json"]["schema"]["anyOf"]
    assert [a["$ref"].rsplit("/", 1)[1] for a in answers] == ["TableResponse", "WorldTableResponse"]
    body = spec["paths"]["/table"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    assert [b["$ref"].rsplit("/", 1)[1] for b in body["oneOf"]] == [
        "TableRequest",
        "WorldTableRequest",
    ]  # a map's table, or a world's
