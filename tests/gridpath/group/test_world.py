"""Group moves through a world (gridpath.group.world): every plan through the independent
checker extended to worlds (tests/gridpath/group/checker.py), lower bounds and reachability
against an independent breadth-first search over the maps and the links, and the world
validator's codes."""

from __future__ import annotations

from collections import deque
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gridpath.grid import Grid
from gridpath.group.solve import solve_order
from gridpath.group.world import validate_world_plans, world_graph, world_order
from gridpath.world.model import Link, Place, World, WorldMaps
from gridpath.world.overlay import NO_FILTER, LinkFilter
from tests.gridpath.group.checker import check_world_plans, sum_of_costs
from tests.reference import grid_from_ascii

ROOM = """
....
....
"""
CORRIDOR = "....."


def _maps(texts: dict[str, str], links: list[Link]) -> WorldMaps:
    grids = {name: Grid.from_walkable(name, grid_from_ascii(text)) for name, text in texts.items()}
    return WorldMaps(World("w", tuple(texts), tuple(links)), grids)


def _link(id_, a, b, **kw) -> Link:
    return Link(id_, Place(a[0], tuple(a[1])), Place(b[0], tuple(b[1])), **kw)


def _checker_links(maps: WorldMaps, excluded=frozenset()) -> list[dict]:
    index = {name: m for m, name in enumerate(maps.world.maps)}
    return [
        {
            "from": (*link.source.cell, index[link.source.map]),
            "to": (*link.target.cell, index[link.target.map]),
            "bidirectional": link.bidirectional,
            "enabled": link.enabled,
            "excluded": link.id in excluded,
        }
        for link in maps.world.links
    ]


def _frees(maps: WorldMaps) -> list[np.ndarray]:
    return [maps.grids[name].walkable.astype(bool) for name in maps.world.maps]


def _solve(maps, starts, goals, links=NO_FILTER, connectivity=4, work=400_000, assign=False):
    world = world_graph(maps, connectivity=connectivity, links=links)
    order = world_order(world, [Place(*s) for s in starts], [Place(*g) for g in goals])
    result, goal_of = solve_order(order, work, assign=assign)
    return world, result, goal_of


def _as_xym(maps: WorldMaps, places) -> list[tuple[int, int, int]]:
    return [(p[1][0], p[1][1], maps.world.maps.index(p[0])) for p in places]


def _checked(maps, starts, goals, links=NO_FILTER, connectivity=4, assign=False):
    world, result, goal_of = _solve(maps, starts, goals, links, connectivity, assign=assign)
    assert result.found, result.reason
    plans = world.plans(result.configs).tolist()
    targets = _as_xym(maps, goals)
    if goal_of is not None:
        targets = [targets[k] for k in goal_of]
    problems = check_world_plans(
        _frees(maps), _checker_links(maps, links.exclude_ids), plans, _as_xym(maps, starts),
        targets, connectivity,
    )  # fmt: skip
    assert problems == []
    assert result.sum_of_costs == sum_of_costs(plans, targets)
    assert validate_world_plans(world, maps.world.links, links, plans) == []
    return world, result, plans


def _reference_distance(maps: WorldMaps, start, goal, excluded=frozenset()) -> int | None:
    """Steps from ``start`` to ``goal`` (``(map, (x, y))``): 4 moves on a map, one per link
    way (enabled, not excluded, both ends walkable); None if unreachable."""
    frees = {name: maps.grids[name].walkable.astype(bool) for name in maps.world.maps}

    def free(place):
        name, (x, y) = place
        f = frees[name]
        return 0 <= y < f.shape[0] and 0 <= x < f.shape[1] and bool(f[y, x])

    jumps: dict = {}
    for link in maps.world.links:
        if link.enabled and link.id not in excluded:
            for a, b in link.ways():
                ends = ((a.map, a.cell), (b.map, b.cell))
                if free(ends[0]) and free(ends[1]):
                    jumps.setdefault(ends[0], []).append(ends[1])
    start, goal = (start[0], tuple(start[1])), (goal[0], tuple(goal[1]))
    seen, queue = {start: 0}, deque([start])
    while queue:
        here = queue.popleft()
        if here == goal:
            return seen[here]
        name, (x, y) = here
        steps = [(name, (x + dx, y + dy)) for dx, dy in ((1, 0), (0, 1), (-1, 0), (0, -1))]
        for there in [s for s in steps if free(s)] + jumps.get(here, []):
            if there not in seen:
                seen[there] = seen[here] + 1
                queue.append(there)
    return None


def test_units_cross_to_another_map_by_the_only_link():
    maps = _maps({"a": ROOM, "b": ROOM}, [_link("stairs", ("a", (3, 1)), ("b", (0, 0)))])
    starts = [("a", (0, 0)), ("a", (1, 1)), ("a", (2, 0))]
    goals = [("b", (3, 1)), ("b", (2, 0)), ("b", (1, 1))]
    world, result, plans = _checked(maps, starts, goals)
    crossings = sum(p[t][2] != p[t + 1][2] for p in plans for t in range(len(p) - 1))
    assert crossings == 3  # each unit takes the stairs once: one tick each
    lower = sum(_reference_distance(maps, s, g) for s, g in zip(starts, goals))
    assert result.lower_bound == lower
    assert world.maps == ("a", "b") and np.array(plans).shape[-1] == 3


def test_a_one_way_link_is_taken_only_in_its_direction():
    links = [
        _link("drop", ("a", (0, 0)), ("b", (0, 0))),  # one-way down
        _link("ladder", ("b", (3, 1)), ("a", (3, 0))),  # one-way up, at the other end
    ]
    maps = _maps({"a": CORRIDOR, "b": ROOM}, links)
    starts = [("b", (1, 0)), ("a", (4, 0))]
    goals = [("a", (2, 0)), ("b", (2, 1))]
    _, result, plans = _checked(maps, starts, goals)
    for p in plans:
        for a, b in zip(p, p[1:]):
            if a[2] != b[2]:  # a change of map: only drop (a -> b) and ladder (b -> a)
                assert (tuple(a), tuple(b)) in {((0, 0, 0), (0, 0, 1)), ((3, 1, 1), (3, 0, 0))}
    lower = sum(_reference_distance(maps, s, g) for s, g in zip(starts, goals))
    assert result.lower_bound == lower


def test_against_a_one_way_link_the_goal_is_unreachable():
    maps = _maps({"a": CORRIDOR, "b": ROOM}, [_link("drop", ("a", (0, 0)), ("b", (0, 0)))])
    _, result, _ = _solve(maps, [("a", (1, 0)), ("b", (2, 1))], [("b", (3, 1)), ("a", (4, 0))])
    assert not result.found and result.reason == "unreachable"
    assert result.unreachable == (1,)  # unit 1 cannot climb back up; unit 0 can drop


def test_a_closed_door_or_an_excluded_link_is_no_way():
    door = _link("gate", ("a", (4, 0)), ("b", (0, 0)), bidirectional=True, tags=("door",))
    starts, goals = [("a", (0, 0))], [("b", (3, 1))]
    closed = _maps({"a": CORRIDOR, "b": ROOM}, [replace(door, enabled=False)])
    _, result, _ = _solve(closed, starts, goals)
    assert result.reason == "unreachable" and result.unreachable == (0,)
    opened = _maps({"a": CORRIDOR, "b": ROOM}, [door])
    _checked(opened, starts, goals)
    for links in (LinkFilter(exclude_tags=frozenset({"door"})), LinkFilter(frozenset({"gate"}))):
        _, result, _ = _solve(opened, starts, goals, links)
        assert result.reason == "unreachable"


def test_a_link_whose_end_is_blocked_is_no_way():
    blocked_end = """
    #....
    """
    maps = _maps({"a": CORRIDOR, "b": blocked_end}, [_link("s", ("a", (0, 0)), ("b", (0, 0)))])
    _, result, _ = _solve(maps, [("a", (1, 0))], [("b", (3, 0))])
    assert result.reason == "unreachable"


def test_two_units_never_take_one_bidirectional_link_in_opposite_directions():
    # Two rooms joined by stairs both ways; each unit starts on the other's goal side of
    # the stairs: swapping through the link in one tick would be shortest, and is illegal.
    maps = _maps(
        {"a": ROOM, "b": ROOM}, [_link("stairs", ("a", (3, 0)), ("b", (0, 0)), bidirectional=True)]
    )
    starts, goals = [("a", (3, 0)), ("b", (0, 0))], [("b", (0, 0)), ("a", (3, 0))]
    _, result, plans = _checked(maps, starts, goals)
    assert result.sum_of_costs > 2  # they cannot both arrive in one tick
    swap = [[(3, 0, 0), (0, 0, 1)], [(0, 0, 1), (3, 0, 0)]]
    world = world_graph(maps)
    codes = [v.code for v in validate_world_plans(world, maps.world.links, LinkFilter(), swap)]
    assert codes == ["edge_conflict"]


def test_a_link_pair_of_opposite_one_way_links_is_no_swap_either():
    links = [_link("down", ("a", (3, 0)), ("b", (0, 0))), _link("up", ("b", (0, 0)), ("a", (3, 0)))]
    maps = _maps({"a": ROOM, "b": ROOM}, links)
    swap = [[(3, 0, 0), (0, 0, 1)], [(0, 0, 1), (3, 0, 0)]]
    world = world_graph(maps)
    codes = [v.code for v in validate_world_plans(world, maps.world.links, LinkFilter(), swap)]
    assert codes == ["edge_conflict"]
    _checked(maps, [("a", (3, 0)), ("b", (0, 0))], [("b", (0, 0)), ("a", (3, 0))])


def test_a_same_map_teleporter_and_assignment_through_links():
    maps = _maps({"a": "..#..\n..#.."}, [_link("tp", ("a", (1, 0)), ("a", (3, 1)))])
    starts = [("a", (0, 0)), ("a", (0, 1))]
    goals = [("a", (4, 0)), ("a", (4, 1))]
    _checked(maps, starts, goals, assign=True)
    _checked(maps, starts, goals, connectivity=8)


def test_the_validator_names_each_illegal_link_step():
    links = [
        _link("drop", ("a", (0, 0)), ("b", (0, 0))),
        _link("gate", ("a", (4, 0)), ("b", (3, 1)), enabled=False),
        _link("rope", ("a", (2, 0)), ("b", (2, 1)), tags=("rope",)),
    ]
    maps = _maps({"a": CORRIDOR, "b": ROOM}, links)
    world = world_graph(maps, links=LinkFilter(exclude_tags=frozenset({"rope"})))

    def codes(plan):
        found = validate_world_plans(world, maps.world.links, world_filter, [plan])
        return [(v.code, v.tick) for v in found]

    world_filter = LinkFilter(exclude_tags=frozenset({"rope"}))
    assert codes([(1, 0, 0), (0, 0, 0), (0, 0, 1)]) == []  # a move, then the drop
    assert codes([(1, 0, 1), (0, 0, 1), (0, 0, 0)]) == [("link_one_way", 2)]
    assert codes([(4, 0, 0), (3, 1, 1)]) == [("link_disabled", 1)]
    assert codes([(2, 0, 0), (2, 1, 1)]) == [("link_disabled", 1)]  # excluded for this unit
    assert codes([(0, 0, 0), (3, 0, 0)]) == [("link_missing", 1)]  # a jump on one map
    assert codes([(1, 0, 0), (1, 0, 1)]) == [("link_missing", 1)]  # across maps
    assert codes([(0, 0, 1), (1, 1, 1)]) == [("illegal_step", 1)]  # a diagonal, 4 moves
    assert codes([(0, 0, 0), (0, 0, 7)]) == [("illegal_step", 1)]  # no map 7
    assert codes([(9, 0, 0)]) == [("illegal_step", 0)]  # off its map
    two = [[(1, 0, 0)], [(1, 0, 1)]]  # one cell, two maps: no conflict
    assert validate_world_plans(world, maps.world.links, world_filter, two) == []
    same = [[(1, 0, 0)], [(1, 0, 0)]]
    found = validate_world_plans(world, maps.world.links, world_filter, same)
    assert [v.code for v in found] == ["vertex_conflict"]
    assert "on map 'a'" in found[0].message


def test_same_request_same_plans():
    maps = _maps(
        {"a": ROOM, "b": ROOM}, [_link("s", ("a", (3, 1)), ("b", (0, 0)), bidirectional=True)]
    )
    starts = [("a", (0, 0)), ("b", (3, 1)), ("a", (1, 0))]
    goals = [("b", (3, 0)), ("a", (0, 1)), ("b", (1, 1))]
    runs = [_solve(maps, starts, goals)[1].configs.tobytes() for _ in range(2)]
    assert runs[0] == runs[1]


@st.composite
def _worlds(draw):
    count = draw(st.integers(1, 3))
    texts = {}
    for m in range(count):
        h, w = draw(st.integers(2, 5)), draw(st.integers(2, 6))
        cells = draw(st.lists(st.booleans(), min_size=h * w, max_size=h * w))
        rows = ["".join("." if cells[y * w + x] or (x + y) % 3 else "#" for x in range(w))
                for y in range(h)]  # fmt: skip
        texts[f"m{m}"] = "\n".join(rows)
    places = [
        (name, (x, y))
        for name, text in texts.items()
        for y, row in enumerate(text.split("\n"))
        for x, c in enumerate(row)
        if c == "."
    ]
    links = []
    for k in range(draw(st.integers(0, 4))):
        a, b = draw(st.sampled_from(places)), draw(st.sampled_from(places))
        if a != b:
            links.append(_link(f"l{k}", a, b, bidirectional=draw(st.booleans()),
                               enabled=draw(st.booleans())))  # fmt: skip
    units = draw(st.integers(1, min(4, len(places) // 2)))
    picks = draw(st.permutations(places))
    return _maps(texts, links), picks[:units], picks[units : 2 * units]


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(_worlds())
def test_random_worlds_every_plan_checked_and_reachability_as_the_reference(case):
    maps, starts, goals = case
    world, result, _ = _solve(maps, starts, goals, work=200_000)
    apart = tuple(
        i for i, (s, g) in enumerate(zip(starts, goals)) if _reference_distance(maps, s, g) is None
    )
    if apart:
        assert not result.found and result.reason == "unreachable"
        assert set(result.unreachable) <= set(apart) and result.unreachable
        return
    if not result.found:
        assert result.reason in ("no_solution", "limit_reached")
        return
    plans = world.plans(result.configs).tolist()
    problems = check_world_plans(
        _frees(maps), _checker_links(maps), plans, _as_xym(maps, starts), _as_xym(maps, goals)
    )
    assert problems == []
    lower = sum(_reference_distance(maps, s, g) for s, g in zip(starts, goals))
    assert result.lower_bound == lower


@pytest.mark.parametrize("connectivity", [4, 8])
def test_a_world_of_one_map_without_links_plans_as_the_map_does(connectivity):
    from gridpath.group.graph import build_graph
    from gridpath.group.solve import make_order

    text = "....#\n.#...\n....."
    maps = _maps({"a": text}, [])
    world = world_graph(maps, connectivity=connectivity)
    starts, goals = [(0, 0), (4, 2)], [(4, 2), (0, 0)]
    order = world_order(world, [Place("a", s) for s in starts], [Place("a", g) for g in goals])
    alone = make_order(build_graph(grid_from_ascii(text), connectivity), starts, goals)
    assert np.array_equal(
        solve_order(order, 100_000)[0].configs, solve_order(alone, 100_000)[0].configs
    )
