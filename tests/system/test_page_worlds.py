"""The page's worlds (issue 27) in real Chromium, as ``test_page.py`` drives the page (its
browser, tab and helpers): a world's links drawn over the shown map, an admin's link edits
(one ``PATCH /worlds/{name}`` each), a path through the world leg by leg.

What is drawn is checked on screenshots (the arrow's colour along its shaft: solid, or
dashed when the link is disabled), what is sent on the wire (Playwright's request log), and
what the server holds afterwards (``GET /worlds``, ``POST /path``), never only the page's
own account of itself.
"""

from __future__ import annotations

import io
import json
import shutil

import pytest
from PIL import Image

from bench.server import ServerSpec, running_server
from tests.conftest import MAPS_DIR
from tests.system.test_page import (  # noqa: F401  (browser and page: the fixtures)
    ADMIN_TOKEN,
    API_TOKEN,
    browser,
    call,
    click_cell,
    page,
    settle,
    shot,
)

pytestmark = pytest.mark.timeout(900)
WORLD = "keep"
LINK_RGB = (176, 0, 160)  # worlds.js LINK_RGB
KEEP = json.loads((MAPS_DIR / "keep.world.json").read_text())


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("page_worlds")
    for name in ("keep_1.png", "keep_2.png", "keep.world.json", "arena.png"):
        shutil.copy(MAPS_DIR / name, folder / name)
    env = {"MAPS_DIR": str(folder), "API_TOKEN": API_TOKEN, "ADMIN_TOKEN": ADMIN_TOKEN}
    with running_server(ServerSpec(env)) as server:
        yield server.url


@pytest.fixture
def keep(server) -> dict:
    """The example keep as its file has it (each test starts from it): ``GET /worlds/keep``."""
    status, body = call(server, "PUT", f"/worlds/{WORLD}", KEEP, token=ADMIN_TOKEN)
    assert status in (200, 201), body
    return call(server, "GET", f"/worlds/{WORLD}")[1]


def open_world(tab, name: str = WORLD, shown: str = "keep_1") -> None:
    tab.wait_for_function(f"document.querySelector('#world-select option[value=\"{name}\"]')")
    tab.select_option("#world-select", name)
    tab.wait_for_function(
        f"document.body.dataset.world === '{name}' && document.body.dataset.map === '{shown}'",
        timeout=60_000,
    )
    settle(tab)


def show_map(tab, name: str) -> None:
    tab.click(f"#world-maps button[data-world-map='{name}']")
    tab.wait_for_function(f"document.body.dataset.map === '{name}'", timeout=30_000)
    settle(tab)


def drawn(tab) -> dict[str, dict]:
    return {d["id"]: d for d in tab.evaluate("window.gridpath.world.drawn")}


def client_point(tab, cell) -> tuple[float, float]:
    point = tab.evaluate(f"window.gridpath.cellToClient({cell[0]}, {cell[1]})")
    return point["x"], point["y"]


def link_share(tab, link: dict) -> float:
    """The share of the screenshot's pixels along the middle of a link's shaft (from 30 % to
    70 % of the way between its cells' centres) in the links' colour: about 1 for a solid
    line, about a half for a dashed one."""
    image = Image.open(io.BytesIO(tab.screenshot())).convert("RGB")
    (x0, y0), (x1, y1) = (client_point(tab, link[end]["cell"]) for end in ("from", "to"))
    samples = max(8, int(0.4 * max(abs(x1 - x0), abs(y1 - y0))))
    hits = 0
    for k in range(samples + 1):
        t = 0.3 + 0.4 * k / samples
        pixel = image.getpixel((round(x0 + t * (x1 - x0)), round(y0 + t * (y1 - y0))))
        hits += all(abs(a - b) < 40 for a, b in zip(pixel, LINK_RGB))
    return hits / (samples + 1)


def patches(log: list) -> list[dict]:
    return [json.loads(r.post_data) for r in log if r.method == "PATCH" and "/worlds/" in r.url]


def test_links_drawn_as_arrows_dashed_when_disabled(page, server, keep):  # noqa: F811
    open_world(page)
    links = {link["id"]: link for link in keep["links"]}
    for shown in ("keep_1", "keep_2"):
        show_map(page, shown)
        marks = drawn(page)
        # an arrow for each link with both ends on the shown map, a marker for each one end
        arrows = {i for i, k in links.items() if k["from"]["map"] == k["to"]["map"] == shown}
        ends = {i for i, k in links.items() if shown in (k["from"]["map"], k["to"]["map"])}
        assert {i for i, d in marks.items() if d["kind"] == "arrow"} == arrows
        assert {i for i, d in marks.items() if d["kind"] == "end"} == ends - arrows
        for i in arrows:
            assert marks[i]["dashed"] is not links[i]["enabled"]
            assert marks[i]["heads"] == (2 if links[i]["bidirectional"] else 1)
            share = link_share(page, links[i])
            assert (share > 0.9) if links[i]["enabled"] else (0.2 < share < 0.8), (i, share)
        for i in ends - arrows:
            other = {links[i]["from"]["map"], links[i]["to"]["map"]} - {shown}
            assert marks[i]["text"].endswith(other.pop())
        shot(page, f"world_links_{shown}")
    # keep_1: the gate (disabled, both ways) and the teleporter (one way), as the file has them
    show_map(page, "keep_1")
    assert {i for i, d in drawn(page).items() if d["kind"] == "arrow"} == {"gate", "teleporter"}
    # the link's id on hover
    x0, y0 = client_point(page, links["teleporter"]["from"]["cell"])
    x1, y1 = client_point(page, links["teleporter"]["to"]["cell"])
    page.mouse.move((x0 + x1) / 2, (y0 + y1) / 2)
    page.wait_for_selector("#link-tip:not([hidden])")
    assert page.inner_text("#link-tip").startswith("teleporter:")
    shot(page, "world_hover")
    # a plain map leaves the world: nothing of it is drawn there
    page.select_option("#map-select", "arena")
    page.wait_for_function("document.body.dataset.map === 'arena'")
    settle(page)
    assert page.get_attribute("body", "data-world") == ""
    assert drawn(page) == {} and page.is_hidden("#world-panel")


def test_toggle_sends_one_patch_and_the_arrow_turns_solid_then_dashed(page, server, keep):  # noqa: F811
    page.evaluate(f"sessionStorage.setItem('gridpath.adminToken', '{ADMIN_TOKEN}')")
    log: list = []
    page.on("request", lambda request: log.append(request))
    open_world(page)
    gate = next(link for link in keep["links"] if link["id"] == "gate")
    assert not gate["enabled"] and drawn(page)["gate"]["dashed"]
    revision = keep["revision"]
    for enabled in (True, False):
        page.click("#world-links li[data-link='gate'] input[data-action='toggle']")
        revision += 1
        page.wait_for_function(f"document.body.dataset.worldRevision === '{revision}'")
        settle(page)
        assert patches(log)[-1] == {
            "set": [{"id": "gate", "enabled": enabled}],
            "if_revision": revision - 1,
        }
        served = call(server, "GET", f"/worlds/{WORLD}")[1]
        assert served["revision"] == revision
        assert next(li for li in served["links"] if li["id"] == "gate")["enabled"] is enabled
        assert drawn(page)["gate"]["dashed"] is not enabled
        share = link_share(page, gate)
        assert (share > 0.9) if enabled else (0.2 < share < 0.8), share
        if enabled:
            shot(page, "world_gate_open")
    assert len(patches(log)) == 2  # one PATCH a toggle

    # someone else changes the world meanwhile: the page's PATCH is refused, nothing changes
    other = {"set": [{"id": "trapdoor", "cost": 1.5}]}
    assert call(server, "PATCH", f"/worlds/{WORLD}", other, token=ADMIN_TOKEN)[0] == 200
    page.click("#world-links li[data-link='gate'] input[data-action='toggle']")
    page.wait_for_selector("#error:not([hidden])")
    assert "409 revision_conflict" in page.inner_text("#error-text")
    assert len(patches(log)) == 3
    served = call(server, "GET", f"/worlds/{WORLD}")[1]
    assert served["revision"] == revision + 1
    assert not next(li for li in served["links"] if li["id"] == "gate")["enabled"]
    assert not page.is_checked("#world-links li[data-link='gate'] input[data-action='toggle']")
    page.click("#error-actions button:has-text('Reload the world')")
    page.wait_for_function(f"document.body.dataset.worldRevision === '{revision + 1}'")


def test_add_a_link_across_maps_then_remove_it(page, server, keep):  # noqa: F811
    page.evaluate(f"sessionStorage.setItem('gridpath.adminToken', '{ADMIN_TOKEN}')")
    log: list = []
    page.on("request", lambda request: log.append(request))
    open_world(page)
    page.click('button[data-tool="link"]')
    page.click("#link-form summary")
    click_cell(page, 10, 10)  # from, on keep_1...
    show_map(page, "keep_2")
    click_cell(page, 12, 11)  # ...to, on keep_2
    page.fill("#link-id", "ladder")
    page.fill("#link-cost", "3")
    page.check("#link-bidirectional")
    page.click("#link-add")
    page.wait_for_function(f"document.body.dataset.worldRevision === '{keep['revision'] + 1}'")
    settle(page)
    ladder = {
        "id": "ladder",
        "from": {"map": "keep_1", "cell": [10, 10]},
        "to": {"map": "keep_2", "cell": [12, 11]},
        "cost": 3,
        "bidirectional": True,
    }
    assert patches(log) == [{"add": [ladder], "if_revision": keep["revision"]}]
    served = call(server, "GET", f"/worlds/{WORLD}")[1]
    assert {**ladder, "cost": 3.0, "enabled": True, "tags": []} in served["links"]
    mark = drawn(page)["ladder"]
    assert mark["kind"] == "end" and mark["text"] == "↔ keep_1"
    shot(page, "world_link_added")

    # a refused link (an id the world has) is shown, and nothing changes
    click_cell(page, 5, 5)
    click_cell(page, 6, 5)
    page.fill("#link-id", "gate")
    page.click("#link-add")
    page.wait_for_selector("#error:not([hidden])")
    assert "422 invalid_world" in page.inner_text("#error-text")
    assert call(server, "GET", f"/worlds/{WORLD}")[1]["revision"] == served["revision"]

    page.click("#world-links li[data-link='ladder'] button[data-action='remove']")
    page.wait_for_function(f"document.body.dataset.worldRevision === '{keep['revision'] + 2}'")
    settle(page)
    assert patches(log)[-1] == {"remove": ["ladder"], "if_revision": keep["revision"] + 1}
    assert len(patches(log)) == 3
    served = call(server, "GET", f"/worlds/{WORLD}")[1]
    assert "ladder" not in {link["id"] for link in served["links"]}
    assert "ladder" not in drawn(page)


def test_path_across_two_maps_lists_its_legs_and_switches_maps(page, server, keep):  # noqa: F811
    open_world(page)
    click_cell(page, 2, 2)  # start on keep_1...
    show_map(page, "keep_2")
    click_cell(page, 40, 9)  # ...goal on keep_2
    page.wait_for_function("window.gridpath.world.result !== null", timeout=30_000)
    settle(page)
    shown = page.evaluate("window.gridpath.world.result")
    request = shown["request"]
    assert request["world"] == WORLD and request["world_revision"] == keep["revision"]
    assert request["start"] == {"map": "keep_1", "cell": [2, 2]}
    assert request["goal"] == {"map": "keep_2", "cell": [40, 9]}
    status, expected = call(server, "POST", "/path", request)
    assert status == 200 and expected["found"]
    assert shown["response"]["legs"] == expected["legs"]
    legs = expected["legs"]
    assert {leg["map"] for leg in legs} == {"keep_1", "keep_2"} and expected["links"]
    # the list: one item a leg, its map, its cost and the link taken
    items = page.eval_on_selector_all(
        "#world-legs li", "lis => lis.map(li => [li.dataset.map, li.dataset.link || null])"
    )
    assert items == [[leg["map"], leg["link"]] for leg in legs]
    # the last leg is drawn on keep_2, where the goal is: its middle cell is the path's red
    middle = legs[-1]["path"][len(legs[-1]["path"]) // 2]
    r, g, b, _ = page.evaluate(f"window.gridpath.pixel({middle[0]}, {middle[1]})")
    assert r > 180 and g < 95, (r, g, b)
    shot(page, "world_path_keep_2")
    # a leg clicked shows its map
    for i in (0, len(legs) - 1):
        page.click(f"#world-legs li[data-leg='{i}']")
        page.wait_for_function(f"document.body.dataset.map === '{legs[i]['map']}'")
        settle(page)
        assert page.evaluate("window.gridpath.world.leg") == i
    shot(page, "world_path_leg")
    # the play-through switches maps at each link, as the legs do
    page.click("#world-play")
    page.wait_for_function("document.body.dataset.worldPlay === 'done'", timeout=60_000)
    switches = [
        leg["map"] for i, leg in enumerate(legs) if i == 0 or legs[i - 1]["map"] != leg["map"]
    ]
    assert page.evaluate("window.gridpath.world.play.maps") == switches
    assert page.get_attribute("body", "data-map") == legs[-1]["map"]
