"""The browser page at ``GET /`` in real Chromium (Debian's ``/usr/bin/chromium``, driven by
Playwright; never Playwright's own browser download), against a real uvicorn process with
``API_TOKEN`` and ``ADMIN_TOKEN`` set.

The page's state is read from its ``window.gridpath`` debug object and ``data-*``
attributes (README, "The page"). Screenshots go to ``tests/artifacts/`` (gitignored).
Without Chromium (tests/packages.py) or Playwright the tests skip, except under ``CI=true``,
where they fail.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import urllib.error
import urllib.request
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from bench.server import ServerSpec, running_server
from gridpath.search.algorithms import ALGORITHMS
from tests.conftest import MAPS_DIR, ROOT
from tests.packages import require

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
# the module fixture starts a server, which can take minutes on a cold numba cache
pytestmark = pytest.mark.timeout(900)
ARTIFACTS = ROOT / "tests" / "artifacts"
API_TOKEN = "page-test-api-token"
ADMIN_TOKEN = "page-test-admin-token"
BIG = 1024
FIRST_DRAW_BOUND_MS = 20_000  # generous: a loaded shared machine; the real time is printed


def _unavailable(reason: str) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(f"browser tests cannot run under CI: {reason}")
    pytest.skip(f"browser tests skipped: {reason}")


try:
    from playwright.sync_api import sync_playwright
except ImportError:  # pragma: no cover - the dev extra installs it
    sync_playwright = None


def call(base: str, method: str, path: str, body: dict | None = None, token: str = API_TOKEN):
    data = None if body is None else json.dumps(body).encode()
    headers = {"content-type": "application/json", "authorization": f"Bearer {token}"}
    request = urllib.request.Request(base + path, data=data, headers=headers, method=method)
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def served_cells(base: str, name: str) -> np.ndarray:
    """The map's cells as the server has them (``GET /maps/{name}/cells``), not the page."""
    status, body = call(base, "GET", f"/maps/{name}/cells")
    assert status == 200, body
    cells = body["cells"]
    array = np.frombuffer(base64.b64decode(cells["data"]), dtype=np.dtype(cells["dtype"]))
    return array.reshape(cells["shape"])


def write_maps(folder: Path) -> None:
    shutil.copy(MAPS_DIR / "arena.png", folder / "arena.png")
    shutil.copy(MAPS_DIR / "arena.png", folder / "scratch.png")  # the map the tests edit
    shutil.copy(MAPS_DIR / "maze.png", folder / "maze.png")
    shutil.copy(MAPS_DIR / "village.tmx", folder / "village.tmx")  # a Tiled map, with...
    shutil.copytree(MAPS_DIR / "tiles", folder / "tiles")  # ...its tileset's image
    # terrain from grey levels: ground, grey_223 (cost 2) and grey_159 (cost 4) bands, walls
    rng = np.random.default_rng(13)
    terrain = np.full((48, 64), 255, dtype=np.uint8)
    terrain[10:20, 5:60] = 223
    terrain[28:40, 10:40] = 159
    terrain[rng.random(terrain.shape) < 0.08] = 0
    Image.fromarray(terrain, mode="L").save(folder / "terrain.png")
    # a 1024 x 1024 map: seeded rectangles of wall on an open field
    big = np.full((BIG, BIG), 255, dtype=np.uint8)
    for _ in range(1500):
        x, y = rng.integers(0, BIG - 40, size=2)
        w, h = rng.integers(2, 40, size=2)
        big[y : y + h, x : x + w] = 0
    Image.fromarray(big, mode="L").save(folder / "big.png")


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("page_maps")
    write_maps(folder)
    env = {"MAPS_DIR": str(folder), "LOG_LEVEL": "warning"}
    with running_server(
        ServerSpec({**env, "API_TOKEN": API_TOKEN, "ADMIN_TOKEN": ADMIN_TOKEN})
    ) as server:
        base = server.url
        yield base


@pytest.fixture(scope="module")
def browser():
    if sync_playwright is None:
        _unavailable("the playwright package is not installed (pip install -e '.[dev]')")
    (binary,) = require("chromium")
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=binary, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser, server):
    """A fresh tab on the page with the API token in its session (as if entered once)."""
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    context.add_init_script(f"sessionStorage.setItem('gridpath.apiToken', '{API_TOKEN}')")
    tab = context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda exc: errors.append(str(exc)))
    tab.goto(server + "/")
    yield tab
    context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


def shot(page, name: str) -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"page_{name}.png"
    page.screenshot(path=str(path))
    return path


def settle(page, timeout: float = 30_000) -> None:
    page.wait_for_function("window.gridpath && window.gridpath.idle", timeout=timeout)


def open_map(page, name: str) -> None:
    page.wait_for_function(f"document.querySelector('#map-select option[value=\"{name}\"]')")
    page.select_option("#map-select", name)
    page.wait_for_function(f"document.body.dataset.map === '{name}'", timeout=60_000)
    settle(page)


def click_cell(page, x: int, y: int, **kwargs) -> None:
    point = page.evaluate(f"window.gridpath.cellToClient({x}, {y})")
    page.mouse.click(point["x"], point["y"], **kwargs)


def result(page, slot: str = "a") -> dict:
    return page.evaluate(f"window.gridpath.state.results.{slot}")


def figure(page, name: str, slot: str = "a") -> str:
    return page.inner_text(f'#figures td[data-figure="{name}"][data-slot="{slot}"]')


def rerun(page, condition: str) -> dict:
    """Wait until the page's query A satisfies ``condition`` (JavaScript over ``r``, the
    result), then for the page to settle; the result."""
    page.wait_for_function(
        f"(() => {{ const r = window.gridpath.state.results.a; return r && ({condition}); }})()"
    )
    settle(page)
    return result(page)


def run_query(page, start, goal) -> dict:
    click_cell(page, *start)
    click_cell(page, *goal)
    page.wait_for_function("window.gridpath.state.results.a !== null", timeout=30_000)
    settle(page)
    shown = result(page)
    assert shown.get("error") is None, shown
    return shown


def test_page_asks_for_the_api_token_and_the_docs_need_no_cdn(browser, server):
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    tab = context.new_page()
    external: list[str] = []  # requests that left the server, per page
    blocked: set[str] = set()  # ...and those the browser refused under the docs' policy
    tab.on(
        "request",
        lambda r: None if r.url.startswith((server, "blob:", "data:")) else external.append(r.url),
    )
    tab.on("requestfailed", lambda r: blocked.add(r.url) if r.failure == "csp" else None)
    tab.goto(server + "/")
    tab.wait_for_selector("#error:not([hidden])")
    assert "token" in tab.inner_text("#error-text").lower()
    tab.click("#error-actions button")  # "Enter token..."
    tab.fill("#api-token", API_TOKEN)
    tab.click("#token-save")
    tab.wait_for_function("document.body.dataset.map === 'arena'", timeout=60_000)
    assert tab.is_hidden("#error")
    shot(tab, "token")
    assert external == [], f"the page fetched from outside: {external}"
    tab.goto(server + "/docs")
    tab.wait_for_selector(".swagger-ui .information-container .title", timeout=30_000)
    assert "gridpath" in tab.inner_text(".swagger-ui .information-container .title")
    tab.goto(server + "/redoc")
    tab.wait_for_selector("h1:has-text('gridpath')", timeout=30_000)
    shot(tab, "redoc")
    context.close()
    # ReDoc's sidebar logo comes from the server too (issue 22: from its CDN, blocked)
    assert external == [] and not blocked, f"the docs fetched from outside: {external}"


def test_no_console_error_on_the_page_and_the_docs(browser, server):
    """Every page loads without a console error: no 404 (the favicon: issue 22), nothing
    refused by the docs' Content-Security-Policy (ReDoc's logo), no script error."""
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    context.add_init_script(f"sessionStorage.setItem('gridpath.apiToken', '{API_TOKEN}')")
    tab = context.new_page()
    errors: list[str] = []
    tab.on(
        "console", lambda m: errors.append(f"{tab.url}: {m.text}") if m.type == "error" else None
    )
    tab.on("pageerror", lambda exc: errors.append(f"{tab.url}: {exc}"))
    tab.goto(server + "/")
    tab.wait_for_function("document.body.dataset.map === 'arena'", timeout=60_000)
    settle(tab)
    tab.goto(server + "/docs")
    tab.wait_for_selector(".swagger-ui .information-container .title", timeout=30_000)
    tab.goto(server + "/redoc")
    tab.wait_for_selector("h1:has-text('gridpath')", timeout=30_000)
    tab.wait_for_selector("img[alt='redocly logo']", timeout=30_000)
    tab.wait_for_timeout(500)  # the logo's load settles
    context.close()
    assert errors == [], errors
    with urllib.request.urlopen(server + "/favicon.ico", timeout=10) as response:
        assert response.status == 200 and response.headers["content-type"] == "image/svg+xml"


def test_algorithm_menus_list_every_algorithm_of_the_registry(page, server):
    """Issue 22: theta and subgoal were missing from the menus."""
    registry = [algorithm.value for algorithm in ALGORITHMS]
    assert {"theta", "subgoal"} <= set(registry)
    page.wait_for_function(
        f"document.querySelectorAll('#opt-algorithm option').length === {len(registry)}"
    )
    listed = page.eval_on_selector_all("#opt-algorithm option", "os => os.map(o => o.value)")
    compare = page.eval_on_selector_all("#opt-compare option", "os => os.map(o => o.value)")
    assert listed == registry and compare == ["", *registry]


def test_auto_with_explored_cells_runs_what_the_api_runs(page, server):
    """On terrain the API's auto runs astar: the page shows that, with astar's explored
    cells (asked for in a second request, never by changing auto's request)."""
    open_map(page, "terrain")
    shown = run_query(page, (1, 1), (60, 45))
    assert shown["request"]["algorithm"] == "auto"
    assert "explored" not in shown["request"]["include"]
    status, expected = call(server, "POST", "/path", shown["request"])
    assert status == 200 and expected["algorithm"] == "astar"
    assert shown["response"]["path"] == expected["path"]
    astar = {**shown["request"], "algorithm": "astar", "include": ["path", "explored"]}
    explored = call(server, "POST", "/path", astar)[1]["explored"]
    assert shown["response"]["explored"] == explored and len(explored) > 0
    assert figure(page, "explored") == str(len(explored))


def test_drawn_path_is_the_apis_and_explored_counts_match(page, server):
    open_map(page, "arena")
    shown = run_query(page, (1, 1), (62, 62))
    request = shown["request"]
    assert request["map"] == "arena" and request["start"] == [1, 1] and request["goal"] == [62, 62]
    status, expected = call(server, "POST", "/path", request)
    assert status == 200
    assert shown["response"]["path"] == expected["path"]
    assert shown["response"]["waypoints"] == expected["waypoints"]
    assert shown["response"]["cost"] == expected["cost"]
    shot(page, "path_arena")
    # ...and it is drawn: the middle of the path is painted in the path's red, the waypoint
    # line's blue or a blend of the two: strong red or blue, little green (the map's colours
    # and the heat map over them all have green >= 110)
    path = expected["path"]
    for x, y in path[3:-3]:
        r, g, b, _ = page.evaluate(f"window.gridpath.pixel({x}, {y})")
        assert g < 95 and r + b > 200, ((x, y), (r, g, b))
    assert figure(page, "expanded") == str(expected["expanded"])
    # auto runs what the API's auto runs, "Explored cells" ticked or not (issue 22: with the
    # box ticked the page asked for explored cells, which made auto run astar)
    assert page.is_checked("#opt-explored")
    plain = {"map": "arena", "start": [1, 1], "goal": [62, 62]}
    assert expected["algorithm"] == call(server, "POST", "/path", plain)[1]["algorithm"] == "jps"
    assert shown["response"]["algorithm"] == "jps" and figure(page, "algorithm") == "jps"

    # another algorithm: the page re-runs, and shows the API's counts for it
    page.select_option("#opt-algorithm", "dijkstra")
    shown = rerun(page, "r.request.algorithm === 'dijkstra'")
    status, expected = call(server, "POST", "/path", shown["request"])
    assert status == 200 and expected["algorithm"] == "dijkstra"
    assert figure(page, "expanded") == str(expected["expanded"])
    assert figure(page, "explored") == str(len(expected["explored"]))
    assert shown["response"]["path"] == expected["path"]

    # compare side by side with greedy best-first: both columns are the API's figures
    page.select_option("#opt-compare", "greedy")
    page.wait_for_function(
        "window.gridpath.state.results.b && "
        "window.gridpath.state.results.b.request.algorithm === 'greedy'"
    )
    settle(page)
    other = result(page, "b")
    status, expected_b = call(server, "POST", "/path", other["request"])
    assert status == 200
    assert figure(page, "expanded", "b") == str(expected_b["expanded"])
    assert other["response"]["path"] == expected_b["path"]
    assert figure(page, "optimal", "b") == "no"
    page.click("#toggle-compare")  # the heat map now shows greedy's explored cells
    assert page.evaluate("window.gridpath.state.showB") is True
    shot(page, "compare_arena")

    # an option the search refuses is shown in plain words
    page.select_option("#opt-algorithm", "jps")
    page.fill("#opt-turn_penalty", "2")
    page.dispatch_event("#opt-turn_penalty", "change")
    page.wait_for_selector("#error:not([hidden])")
    assert "algorithm_unsupported" in page.inner_text("#error-text")
    assert "cannot run with these options" in page.inner_text("#error-text")


def test_terrain_legend_and_flow_field(page, server):
    open_map(page, "terrain")
    legend = page.inner_text("#legend")
    for name in ("ground", "grey_223", "grey_159", "blocked"):
        assert name in legend
    colours = page.evaluate(
        "[...document.querySelectorAll('#legend .swatch')].map(s => s.style.background)"
    )
    assert len(set(colours[:4])) == 4  # every class and walls in a colour of their own
    page.click('button[data-tool="flow"]')
    click_cell(page, 50, 44)
    page.wait_for_function("window.gridpath.state.flow !== null")
    settle(page)
    flow = page.evaluate("window.gridpath.state.flow.response")
    status, expected = call(server, "POST", "/flowfield", {"map": "terrain", "goal": [50, 44]})
    assert status == 200
    assert flow["reachable"] == expected["reachable"]
    assert flow["cost"]["data"] == expected["cost"]["data"]
    page.evaluate("window.gridpath.fitView()")  # 64 x 48 fits at over 8 px a cell: arrows drawn
    assert page.evaluate("window.gridpath.state.zoom") >= 8
    settle(page)
    shot(page, "flowfield_terrain")


def test_waypoints_cost_shown_beside_cost_on_terrain(page, server):
    open_map(page, "village")  # roads 1, grass 1.5, mud 4: issue 20's example
    shown = run_query(page, (0, 0), (23, 15))
    status, expected = call(server, "POST", "/path", shown["request"])
    assert status == 200 and shown["request"]["smooth"] is True
    assert shown["response"]["waypoints_cost"] == expected["waypoints_cost"]
    assert expected["waypoints_cost"] <= expected["cost"] * (1 + 1e-9)
    assert float(figure(page, "waypoints_cost")) == round(expected["waypoints_cost"], 6)
    assert float(figure(page, "cost")) == round(expected["cost"], 6)


def test_validate_marks_violations(page, server):
    open_map(page, "arena")
    page.click('button[data-tool="validate"]')
    cells = served_cells(server, "arena")
    wall = next((x, 0) for x in range(64) if cells[0, x] == 0)
    claimed = [[1, 1], [2, 2], [4, 4], [wall[0], wall[1]]]
    page.fill("#val-path", json.dumps(claimed))
    page.click("#val-run")
    page.wait_for_selector("#val-violations li")
    settle(page)
    status, expected = call(
        server, "POST", "/validate", {"map": "arena", "path": claimed, "mode": "cells"}
    )
    codes = page.evaluate(
        "[...document.querySelectorAll('#val-violations li')].map(li => li.dataset.code)"
    )
    assert codes == [v["code"] for v in expected["violations"]]
    assert "not_adjacent" in codes and "blocked_cell" in codes
    assert page.inner_text("#val-verdict").startswith("Invalid")
    shot(page, "validate_arena")


def drag_cells(page, cells: list[tuple[int, int]], modifier: str) -> None:
    page.keyboard.down(modifier)
    first = page.evaluate(f"window.gridpath.cellToClient({cells[0][0]}, {cells[0][1]})")
    page.mouse.move(first["x"], first["y"])
    page.mouse.down()
    for x, y in cells[1:]:
        point = page.evaluate(f"window.gridpath.cellToClient({x}, {y})")
        page.mouse.move(point["x"], point["y"], steps=4)
    page.mouse.up()
    page.keyboard.up(modifier)


def walkable_run(server, name: str) -> list[tuple[int, int]]:
    """Eight walkable cells in a row of map ``name`` (from the API, not the page)."""
    cells = served_cells(server, name)
    height, width = cells.shape
    for y in range(height):
        for x in range(width - 8):
            if cells[y, x : x + 8].all():
                return [(x + i, y) for i in range(8)]
    raise AssertionError("no run of walkable cells")


def test_ctrl_drag_obstacles_and_save(page, server):
    open_map(page, "scratch")
    status, before = call(server, "GET", "/maps/scratch")
    run = walkable_run(server, "scratch")
    drag_cells(page, [run[0], run[-1]], "Control")
    assert all(page.evaluate(f"window.gridpath.cell({x}, {y})") == 0 for x, y in run)
    assert page.get_attribute("body", "data-pending") == "1"
    # undo and redo, then Alt + drag opens a cell again
    page.click("#undo")
    assert page.evaluate(f"window.gridpath.cell({run[0][0]}, {run[0][1]})") != 0
    page.click("#redo")
    drag_cells(page, [run[-1]], "Alt")
    assert page.evaluate(f"window.gridpath.cell({run[-1][0]}, {run[-1][1]})") != 0
    shot(page, "edit_scratch")
    page.click("#save")  # the page asks for the admin token once
    page.wait_for_selector("#token-form:not([hidden])")
    page.fill("#admin-token", ADMIN_TOKEN)
    page.click("#token-save")
    page.wait_for_function(
        f"document.body.dataset.revision === '{before['revision'] + 1}'", timeout=30_000
    )
    settle(page)
    status, after = call(server, "GET", "/maps/scratch")
    assert after["revision"] == before["revision"] + 1
    assert after["walkable"] == before["walkable"] - (len(run) - 1)
    for x, y in run[:-1]:  # blocked on the server: a search cannot start there
        status, body = call(
            server, "POST", "/path", {"map": "scratch", "start": [x, y], "goal": [1, 1]}
        )
        assert status == 422 and body["error"]["code"] == "start_blocked", (x, y)
    assert page.get_attribute("body", "data-pending") == "0"


def save_refused(page) -> str:
    """Click Save, expecting the server to refuse: the error the page shows."""
    page.click("#save")
    page.wait_for_selector("#error:not([hidden])")
    return page.inner_text("#error-text")


def test_wrong_admin_token_is_shown_and_changes_nothing(page, server):
    page.evaluate("sessionStorage.setItem('gridpath.adminToken', 'not-the-token')")
    open_map(page, "maze")
    status, before = call(server, "GET", "/maps/maze")
    run = walkable_run(server, "maze")[:1]
    drag_cells(page, run, "Control")
    text = save_refused(page)
    assert "refused the admin token" in text and "401 unauthorized" in text
    shot(page, "wrong_token")
    status, after = call(server, "GET", "/maps/maze")
    assert after["revision"] == before["revision"] and after["sha256"] == before["sha256"]
    assert page.get_attribute("body", "data-pending") == "1"  # the edit is kept, unsaved


def test_large_map_first_draw(page, server):
    page.wait_for_function("document.body.dataset.map === 'arena'", timeout=60_000)
    open_map(page, "big")
    page.wait_for_function("window.gridpath.state.firstDrawMs !== null")
    first_draw = page.evaluate("window.gridpath.state.firstDrawMs")
    print(f"\n1024x1024 map: first draw {first_draw:.0f} ms after selecting it (fetch included)")
    assert first_draw < FIRST_DRAW_BOUND_MS
    assert page.evaluate("[window.gridpath.state.width, window.gridpath.state.height]") == [
        BIG,
        BIG,
    ]
    # zoom and pan redraw from the bitmap: time ten frames
    frame_ms = page.evaluate(
        """async () => {
            const g = window.gridpath, s = g.state;
            const t0 = performance.now();
            for (let i = 0; i < 10; i++) {
                g.setView(s.zoom * 1.2, s.panX - 30, s.panY - 20);
                await new Promise(r => requestAnimationFrame(() => r()));
            }
            return (performance.now() - t0) / 10;
        }"""
    )
    print(f"1024x1024 map: {frame_ms:.1f} ms per zoom/pan frame")
    assert frame_ms < 1000
    page.evaluate("window.gridpath.fitView()")
    # a long search with its explored cells as a heat map: still one bitmap to draw
    cells = page.evaluate("Array.from(window.gridpath.state.cells)")
    walkable = np.asarray(cells, dtype=np.uint8).reshape(BIG, BIG) != 0

    # under a pixel per cell a click can land on a neighbour: pick cells in open 5 x 5 squares
    def is_open(x: int) -> bool:
        return bool(walkable[x - 2 : x + 3, x - 2 : x + 3].all())

    start = next((x, x) for x in range(2, BIG - 2) if is_open(x))
    goal = next((x, x) for x in range(BIG - 3, 2, -1) if is_open(x))
    shown = run_query(page, start, goal)
    status, expected = call(server, "POST", "/path", shown["request"])
    assert status == 200 and shown["response"]["path"] == expected["path"]
    assert figure(page, "expanded") == str(expected["expanded"])
    shot(page, "big_map")


def set_option(page, name: str, value: str) -> None:
    selector = f"#opt-{name}"
    if page.evaluate(f"document.querySelector('{selector}').tagName") == "SELECT":
        page.select_option(selector, value)
    else:
        page.fill(selector, value)
        page.dispatch_event(selector, "change")


def test_every_search_option_reaches_the_api(page, server):
    open_map(page, "terrain")
    run_query(page, (1, 1), (60, 45))
    options = {
        "algorithm": "astar",
        "heuristic": "euclidean",
        "diagonal": "one_free",
        "cost_model": "integer",
        "heuristic_weight": "1.5",
        "turn_penalty": "2",
        "clearance": "2",
    }
    for name, value in options.items():
        set_option(page, name, value)
    page.fill('#terrain-costs input[data-terrain="grey_159"]', "3")
    page.dispatch_event('#terrain-costs input[data-terrain="grey_159"]', "change")
    shown = rerun(page, "r.request.terrain_costs && r.request.clearance === 2")
    request = shown["request"]
    assert request["algorithm"] == "astar" and request["heuristic"] == "euclidean"
    assert request["diagonal"] == "one_free" and request["cost_model"] == "integer"
    assert request["heuristic_weight"] == 1.5 and request["turn_penalty"] == 2
    assert request["clearance"] == 2 and request["terrain_costs"] == {"grey_159": 3}
    assert shown.get("error") is None, shown
    status, expected = call(server, "POST", "/path", request)
    assert status == 200
    assert shown["response"]["path"] == expected["path"]
    assert shown["response"]["options"] == expected["options"]
    assert figure(page, "optimal") == ("yes" if expected["optimal"] else "bounded")
    shot(page, "options_terrain")
    set_option(page, "connectivity", "4")  # 4-connected: no diagonal rule is sent
    request = rerun(page, "r.request.connectivity === 4")["request"]
    assert "diagonal" not in request
    assert result(page)["response"]["path"] == call(server, "POST", "/path", request)[1]["path"]


def test_new_map_rectangles_put_and_downloads(page, server, tmp_path):
    page.wait_for_function("document.body.dataset.map === 'arena'", timeout=60_000)
    page.click("#new-map-toggle")
    page.fill("#new-name", "fresh")
    page.fill("#new-width", "32")
    page.fill("#new-height", "24")
    page.click("#new-create")
    page.wait_for_function("document.body.dataset.map === 'fresh'")
    assert page.get_attribute("body", "data-revision") == ""
    page.click('button[data-tool="blocked"]')
    page.check("#rect-mode")
    first = page.evaluate("window.gridpath.cellToClient(2, 3)")
    last = page.evaluate("window.gridpath.cellToClient(10, 6)")
    page.mouse.move(first["x"], first["y"])
    page.mouse.down()
    page.mouse.move(last["x"], last["y"], steps=6)
    page.mouse.up()
    page.uncheck("#rect-mode")
    click_cell(page, 20, 20)  # one more obstacle with the brush
    blocked = {(x, y) for x in range(2, 11) for y in range(3, 7)} | {(20, 20)}
    for x, y in [(2, 3), (10, 6), (20, 20), (11, 6), (1, 3)]:
        assert (page.evaluate(f"window.gridpath.cell({x}, {y})") == 0) == ((x, y) in blocked)
    shot(page, "new_map")

    with page.expect_download() as info:
        page.click("#download-png")
    png = tmp_path / "fresh.png"
    info.value.save_as(png)
    walkable = np.asarray(Image.open(png).convert("L")) >= 128
    assert walkable.shape == (24, 32)
    assert {(int(x), int(y)) for y, x in zip(*np.nonzero(~walkable))} == blocked
    with page.expect_download() as info:
        page.click("#download-map")
    text = Path(info.value.path()).read_text().splitlines()
    assert text[:4] == ["type octile", "height 24", "width 32", "map"]
    assert {(x, y) for y, row in enumerate(text[4:]) for x, ch in enumerate(row) if ch == "@"} == (
        blocked
    )

    page.evaluate(f"sessionStorage.setItem('gridpath.adminToken', '{ADMIN_TOKEN}')")
    page.click("#save")  # a new map is uploaded with PUT
    page.wait_for_function("document.body.dataset.revision === '1'", timeout=30_000)
    settle(page)
    status, info_body = call(server, "GET", "/maps/fresh")
    assert status == 200 and (info_body["width"], info_body["height"]) == (32, 24)
    assert info_body["walkable"] == 32 * 24 - len(blocked)
    np.testing.assert_array_equal(served_cells(server, "fresh") != 0, walkable)


def test_conflict_is_shown_with_a_choice_to_reload(page, server):
    page.evaluate(f"sessionStorage.setItem('gridpath.adminToken', '{ADMIN_TOKEN}')")
    open_map(page, "scratch")
    revision = int(page.get_attribute("body", "data-revision"))
    run = walkable_run(server, "scratch")
    drag_cells(page, run[:2], "Control")
    # meanwhile, someone else changes the map
    status, _ = call(
        server,
        "PATCH",
        "/maps/scratch",
        {"set": [{"cells": [list(run[5])], "value": "blocked"}]},
        token=ADMIN_TOKEN,
    )
    assert status == 200
    text = save_refused(page)
    assert "Someone changed this map" in text and "409 revision_conflict" in text
    shot(page, "conflict")
    status, info = call(server, "GET", "/maps/scratch")
    assert info["revision"] == revision + 1  # only the other change
    page.click("#error-actions button:has-text('Reload')")
    page.wait_for_function(f"document.body.dataset.revision === '{revision + 1}'")
    settle(page)
    assert page.get_attribute("body", "data-pending") == "0"
    assert page.evaluate(f"window.gridpath.cell({run[5][0]}, {run[5][1]})") == 0
    assert page.evaluate(f"window.gridpath.cell({run[0][0]}, {run[0][1]})") != 0


def test_without_tokens_searches_run_and_saving_is_refused_plainly(browser, tmp_path):
    """``make run``'s setting: no API_TOKEN (the page never asks) and no ADMIN_TOKEN."""
    write_maps(tmp_path)
    with running_server(ServerSpec({"MAPS_DIR": str(tmp_path), "LOG_LEVEL": "warning"})) as server:
        base = server.url
        context = browser.new_context(viewport={"width": 1400, "height": 900})
        tab = context.new_page()
        tab.goto(base + "/")
        open_map(tab, "arena")
        shown = run_query(tab, (1, 1), (62, 62))
        assert shown["response"]["found"]
        assert tab.is_hidden("#error") and tab.is_hidden("#token-form")
        drag_cells(tab, [(1, 1)], "Control")
        tab.evaluate("sessionStorage.setItem('gridpath.adminToken', 'anything')")
        text = save_refused(tab)
        assert "does not allow map changes" in text and "403 admin_disabled" in text
        context.close()


def test_tiled_map_terrain_painted_and_saved(page, server):
    """The issue's "done when": open a Tiled map, search it, paint a terrain class, save."""
    page.evaluate(f"sessionStorage.setItem('gridpath.adminToken', '{ADMIN_TOKEN}')")
    open_map(page, "village")
    status, before = call(server, "GET", "/maps/village")
    terrain = [tc["name"] for tc in before["terrain"]]
    legend = page.inner_text("#legend")
    assert all(name in legend for name in terrain) and "mud" in terrain
    grid = served_cells(server, "village")
    road = terrain.index("road") + 1
    ys, xs = np.nonzero(grid == road)
    start, goal = (int(xs[0]), int(ys[0])), (int(xs[-1]), int(ys[-1]))
    shown = run_query(page, start, goal)
    assert shown["response"]["path"] == call(server, "POST", "/path", shown["request"])[1]["path"]
    shot(page, "village_path")
    # paint mud over the first road cells with the terrain tool, then save
    mud = terrain.index("mud")
    page.click(f'button[data-tool="terrain:{mud}"]')
    run = [(int(x), int(y)) for x, y in zip(xs[:3], ys[:3])]
    drag_cells(page, run, "Shift")  # no modifier of its own: the tool paints
    assert all(page.evaluate(f"window.gridpath.cell({x}, {y})") == mud + 1 for x, y in run)
    page.click("#save")
    page.wait_for_function(
        f"document.body.dataset.revision === '{before['revision'] + 1}'", timeout=30_000
    )
    settle(page)
    grid = served_cells(server, "village")
    assert all(grid[y, x] == mud + 1 for x, y in run)
    shot(page, "village_painted")


def test_group_plan_plays_tick_by_tick(page, server):
    open_map(page, "arena")
    page.click('button[data-tool="group"]')
    run = walkable_run(server, "arena")
    for cell in run[:3]:
        click_cell(page, *cell)
    page.check("#group-phase-goals")
    for cell in run[5:]:
        click_cell(page, *cell)
    page.click("#group-run")
    page.wait_for_function(
        "document.querySelector('#group-info').textContent.includes('makespan')", timeout=60_000
    )
    settle(page)
    status, expected = call(
        server,
        "POST",
        "/group",
        {
            "map": "arena",
            "connectivity": 4,
            "units": [{"start": s, "goal": g} for s, g in zip(run[:3], run[5:])],
        },
    )
    assert status == 200 and expected["found"]
    assert f"makespan {expected['makespan']}" in page.inner_text("#group-info")
    page.click("#group-play")
    page.wait_for_function("Number(document.body.dataset.groupTick) > 0", timeout=10_000)
    page.click("#group-validate")
    page.wait_for_function(
        "document.querySelector('#group-info').textContent.startsWith('valid')", timeout=30_000
    )
    assert page.evaluate("document.querySelectorAll('#group-violations li').length") == 0
    shot(page, "group_arena")
