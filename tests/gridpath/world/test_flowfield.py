"""world_flowfield against the independent Dijkstra from the goal over the reversed world
graph (tests/gridpath/world/scenes.py) on random small worlds: zero-cost and one-way links,
disabled and excluded links, links whose end cell is blocked (by the map or the request),
several maps, same-map links, terrain, 4/8 connectivity. Every cell's cost is the
reference's, and following ``next`` / ``link`` from any reached cell arrives at the goal
at exactly that cost."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import assume, given, settings

from gridpath.errors import GoalBlocked, InvalidOption, MapNotFound, OutOfBounds
from gridpath.grid import Grid
from gridpath.search import SearchOptions
from gridpath.search.flowfield import flow_field
from gridpath.world.flowfield import world_flowfield
from gridpath.world.model import Place, WorldMaps, parse_world
from tests.gridpath.world.scenes import lookup_of, reference_costs_to_goal, scenes, usable
from tests.reference import step_is_legal

CHECKS: Counter[str] = Counter()
OFFSETS = ((0, -1), (1, 0), (0, 1), (-1, 0), (1, -1), (1, 1), (-1, 1), (-1, -1))


@pytest.fixture(scope="module", autouse=True)
def _report_counts():
    yield
    print(f"\nworld flow field checks: {dict(sorted(CHECKS.items()))}")


def _field(scene, **extra):
    options = replace(scene.options, **extra)
    return world_flowfield(scene.maps, scene.goal, options, scene.links, scene.blocked)


def _walk_cost(scene, fields, start: Place) -> float:
    """Follow the field from ``start`` to the goal, checking each step; the cost walked."""
    world, diagonal = scene.maps.world, scene.options.resolved().diagonal.value
    ways = {(a, b, world.index_of(i)): c for a, b, c, i in usable(world, scene.walkable,
                                                                  scene.links)}  # fmt: skip
    orth, diag = scene.options.resolved().step_weights
    here, total = start, 0.0
    for _ in range(sum(open_.size for open_ in scene.walkable.values()) + 1):
        if here == scene.goal:
            return total
        field = fields[here.map]
        x, y = here.cell
        step, link = int(field.next[y, x]), int(field.link[y, x])
        assert (step >= 0) != (link >= 0), (here, step, link)  # exactly one first step
        if link >= 0:
            found = [(b, c) for (a, b, i), c in ways.items() if a == here and i == link]
            assert found, (here, link)  # a usable way of that link enters here
            there, cost = found[0]
        else:
            dx, dy = OFFSETS[step]
            there = Place(here.map, (x + dx, y + dy))
            assert step_is_legal(scene.walkable[here.map], here.cell, there.cell, diagonal)
            cost = diag if dx and dy else orth
            cells = scene.cell_cost[here.map]
            if cells is not None:
                cost *= 0.5 * (cells[y, x] + cells[there.cell[1], there.cell[0]])
        total += cost
        here = there
    raise AssertionError(f"following the field from {start} never reaches the goal")


@settings(max_examples=120, deadline=None)
@given(scene=scenes())
def test_every_cell_is_the_world_dijkstra_and_its_steps_reach_the_goal(scene):
    assume(scene is not None)
    result = _field(scene)
    want = reference_costs_to_goal(scene)
    assert list(result.fields) == list(scene.maps.world.maps)
    assert not result.limit_reached
    reached = 0
    for name, field in result.fields.items():
        ref = want[name]
        assert field.cost.shape == ref.shape == field.next.shape == field.link.shape
        assert field.link.dtype == np.int32 and field.next.dtype == np.int8
        assert np.array_equal(field.cost < 0, ~np.isfinite(ref)), name
        finite = np.isfinite(ref)
        assert np.allclose(field.cost[finite], ref[finite], rtol=1e-9, atol=1e-9), name
        unreached = ~finite
        assert (field.next[unreached] == -1).all() and (field.link[unreached] == -1).all()
        reached += int(finite.sum())
        for y, x in zip(*np.nonzero(finite), strict=True):
            start = Place(name, (int(x), int(y)))
            walked = _walk_cost(scene, result.fields, start)
            assert math.isclose(walked, field.cost[y, x], rel_tol=1e-9, abs_tol=1e-9), start
            CHECKS["walks"] += 1
        CHECKS["cells"] += ref.size
        CHECKS["links taken"] += int((field.link >= 0).sum())
    goal = result.fields[scene.goal.map]
    gx, gy = scene.goal.cell
    assert (goal.cost[gy, gx], goal.next[gy, gx], goal.link[gy, gx]) == (0.0, -1, -1)
    assert result.expanded == reached


@settings(max_examples=40, deadline=None)
@given(scene=scenes(max_links=0))
def test_a_world_of_one_map_without_links_is_the_maps_flow_field(scene):
    assume(scene is not None)
    name = scene.goal.map
    grid = scene.maps.grids[name]
    world = parse_world("one", {"maps": [name], "links": []}, lookup_of({name: grid}))
    maps = WorldMaps(world, {name: grid})
    blocked = {name: scene.blocked[name]}
    ours = world_flowfield(maps, scene.goal, scene.options, blocked=blocked).fields[name]
    theirs = flow_field(grid, scene.goal.cell, scene.options, blocked=scene.blocked[name])
    assert np.array_equal(ours.cost, theirs.cost) and np.array_equal(ours.next, theirs.next)
    assert (ours.link == -1).all()


def _corridor(links: list[dict], width: int = 6, wall: int | None = None):
    """One map, one row of ``width`` open cells (``wall``: a blocked cell), and ``links``."""
    walkable = np.ones((1, width), dtype=bool)
    if wall is not None:
        walkable[0, wall] = False
    grid = Grid.from_walkable("row", walkable)
    world = parse_world("w", {"maps": ["row"], "links": links}, lookup_of({"row": grid}))
    return WorldMaps(world, {"row": grid})


def _link(source: int, target: int, cost: float, **extra) -> dict:
    return {"id": f"l{source}_{target}", "from": {"map": "row", "cell": [source, 0]},
            "to": {"map": "row", "cell": [target, 0]}, "cost": cost, **extra}  # fmt: skip


def test_one_way_links_are_followed_only_in_their_direction():
    maps = _corridor([_link(1, 4, 2.0)], wall=2)  # 0 1 | 3 4 5, a drop from 1 to 4
    down = world_flowfield(maps, Place("row", (5, 0))).fields["row"]
    assert down.cost[0].tolist() == [4.0, 3.0, -1.0, 2.0, 1.0, 0.0]
    assert down.link[0].tolist() == [-1, 0, -1, -1, -1, -1]
    back = world_flowfield(maps, Place("row", (0, 0))).fields["row"]
    assert back.cost[0].tolist() == [0.0, 1.0, -1.0, -1.0, -1.0, -1.0]
    both = _corridor([_link(1, 4, 2.0, bidirectional=True)], wall=2)
    back = world_flowfield(both, Place("row", (0, 0))).fields["row"]
    assert back.cost[0].tolist() == [0.0, 1.0, -1.0, 4.0, 3.0, 4.0]
    assert back.link[0].tolist() == [-1, -1, -1, -1, 0, -1]


def test_moves_win_ties_with_links_and_cheaper_links_win():
    # from cell 3 to the goal at 0: walking costs 3; the link to 1 costs 2 + 1 (a tie)
    tie = world_flowfield(_corridor([_link(3, 1, 2.0)]), Place("row", (0, 0))).fields["row"]
    assert tie.cost[0, 3] == 3.0 and tie.link[0, 3] == -1 and tie.next[0, 3] == 3  # W
    cheap = world_flowfield(_corridor([_link(3, 1, 1.5)]), Place("row", (0, 0))).fields["row"]
    assert cheap.cost[0, 3] == 2.5 and cheap.link[0, 3] == 0 and cheap.next[0, 3] == -1
    # a zero-cost teleporter onto the goal: every cell beyond it takes it
    zero = world_flowfield(_corridor([_link(5, 0, 0.0)]), Place("row", (0, 0))).fields["row"]
    assert zero.cost[0].tolist() == [0.0, 1.0, 2.0, 2.0, 1.0, 0.0]
    assert zero.link[0].tolist() == [-1, -1, -1, -1, -1, 0]


def test_max_expanded_bounds_the_work():
    maps = _corridor([_link(5, 1, 0.0)])
    field = world_flowfield(maps, Place("row", (0, 0)), SearchOptions(max_expanded=3))
    assert field.limit_reached and field.expanded == 3
    assert int((field.fields["row"].cost >= 0).sum()) == 3
    whole = world_flowfield(maps, Place("row", (0, 0)), SearchOptions(max_expanded=6))
    assert not whole.limit_reached and whole.fields["row"].reachable == 6


def test_refusals():
    maps = _corridor([_link(1, 4, 2.0)], wall=2)
    with pytest.raises(GoalBlocked):
        world_flowfield(maps, Place("row", (2, 0)))
    with pytest.raises(GoalBlocked):
        world_flowfield(maps, Place("row", (3, 0)), blocked={"row": [(3, 0)]})
    with pytest.raises(OutOfBounds):
        world_flowfield(maps, Place("row", (9, 0)))
    with pytest.raises(MapNotFound):
        world_flowfield(maps, Place("elsewhere", (0, 0)))
    with pytest.raises(InvalidOption):
        world_flowfield(maps, Place("row", (0, 0)), SearchOptions(turn_penalty=1.0))


def test_a_blocked_link_end_is_unusable():
    maps = _corridor([_link(1, 4, 2.0)], wall=2)
    field = world_flowfield(maps, Place("row", (5, 0)), blocked={"row": [(4, 0)]})
    assert field.fields["row"].cost[0].tolist() == [-1.0, -1.0, -1.0, -1.0, -1.0, 0.0]
