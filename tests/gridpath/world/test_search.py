"""find_world_path against an independent Dijkstra over the stacked move graphs of the
world's maps joined by the usable links (tests/gridpath/world/scenes.py), on random small
worlds: zero-cost teleporters, one-way, disabled and excluded links, links whose end cell is
blocked (by the map or by the request), several maps, same-map links, terrain, 4/8
connectivity. The counts of checks are printed at the end of the module (``-s``)."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from gridpath.errors import AlgorithmUnsupported, GoalBlocked, MapNotFound, StartBlocked
from gridpath.search import Algorithm, Diagonal, SearchOptions
from gridpath.world import search as world_search
from gridpath.world.model import Place, WorldMaps, parse_world
from gridpath.world.search import WorldQuery, find_world_path
from tests.conftest import make_grid
from tests.gridpath.world.scenes import lookup_of, reference_cost, scenes, usable
from tests.reference import step_is_legal

CHECKS: Counter[str] = Counter()
OPTIMAL = (Algorithm.ASTAR, Algorithm.DIJKSTRA, Algorithm.AUTO, Algorithm.JPS, Algorithm.SUBGOAL)


@pytest.fixture(scope="module", autouse=True)
def _report_counts():
    yield
    print(f"\nworld optimality checks: {dict(sorted(CHECKS.items()))}")


def _query(scene, algorithm: Algorithm, **extra) -> WorldQuery:
    options = replace(scene.options, algorithm=algorithm, **extra)
    return WorldQuery(scene.maps, scene.start, scene.goal, options, scene.links, scene.blocked)


def _run(scene, algorithm: Algorithm, **extra):
    try:
        return find_world_path(_query(scene, algorithm, **extra))
    except AlgorithmUnsupported:  # jps off its movement rules: as /path
        return None


def check_walk(scene, answer) -> None:
    """The answer is a legal walk: legal moves on each map, the named link from each leg's
    last cell to the next leg's first, and its cost the legs' plus the links'."""
    world, diagonal = scene.maps.world, scene.options.resolved().diagonal.value
    ways = {(a, b, i): c for a, b, c, i in usable(world, scene.walkable, scene.links)}
    legs = answer.legs
    assert legs[0].path[0].tolist() == list(scene.start.cell) and legs[0].map == scene.start.map
    assert legs[-1].link is None and list(answer.links) == [leg.link for leg in legs[:-1]]
    total = 0.0
    for k, leg in enumerate(legs):
        cells = [tuple(c) for c in leg.path.tolist()]
        assert all(step_is_legal(scene.walkable[leg.map], a, b, diagonal)
                   for a, b in zip(cells, cells[1:]))  # fmt: skip
        assert scene.walkable[leg.map][cells[0][1], cells[0][0]]
        total += leg.cost
        if leg.link is not None:
            nxt = legs[k + 1]
            exit_ = Place(nxt.map, tuple(nxt.path[0].tolist()))
            hop = (Place(leg.map, cells[-1]), exit_, leg.link)
            assert hop in ways, hop
            total += ways[hop]
    if not answer.partial:
        assert legs[-1].path[-1].tolist() == list(scene.goal.cell)
        assert legs[-1].map == scene.goal.map
    assert math.isclose(answer.cost, total, rel_tol=1e-9, abs_tol=1e-9)


@settings(max_examples=500, deadline=None)
@given(scene=scenes(), pick=st.integers(0, len(OPTIMAL) - 1))
def test_optimal_algorithms_cost_the_world_dijkstra(scene, pick):
    assume(scene is not None)
    if OPTIMAL[pick] == Algorithm.JPS:  # its movement rules, so that it serves
        scene.options = replace(scene.options, connectivity=8, diagonal=Diagonal.NO_CORNER_CUT)
    want = reference_cost(scene)
    for algorithm in (OPTIMAL[pick], Algorithm.DIJKSTRA):
        answer = _run(scene, algorithm)
        if answer is None:
            continue
        assert answer.found == math.isfinite(want), (algorithm, want, answer)
        if answer.found:
            assert answer.optimal
            assert math.isclose(answer.cost, want, rel_tol=1e-9, abs_tol=1e-9), (algorithm, want)
            check_walk(scene, answer)
        CHECKS[algorithm.value] += 1


@settings(max_examples=150, deadline=None)
@given(scene=scenes())
def test_bfs_takes_fewest_steps_and_is_optimal_where_it_says(scene):
    assume(scene is not None)
    scene.options = replace(scene.options, connectivity=4)
    answer = _run(scene, Algorithm.BFS)
    steps = reference_cost(scene, bfs=True)
    assert answer.found == math.isfinite(steps)
    if answer.found:
        check_walk(scene, answer)
        assert sum(len(leg.path) - 1 for leg in answer.legs) + len(answer.links) == steps
        if answer.optimal:
            want = reference_cost(scene)
            assert math.isclose(answer.cost, want, rel_tol=1e-9, abs_tol=1e-9)
            CHECKS["bfs"] += 1


@settings(max_examples=150, deadline=None)
@given(scene=scenes(), algorithm=st.sampled_from([Algorithm.GREEDY, Algorithm.THETA]))
def test_suboptimal_algorithms_walk_legally_never_below_optimal(scene, algorithm):
    assume(scene is not None)
    want = reference_cost(scene)
    answer = _run(scene, algorithm)
    assume(answer is not None)  # Theta* off its movement rules: as /path
    assert answer.found == math.isfinite(want) and not answer.optimal
    if answer.found:
        check_walk(scene, answer)
        if algorithm == Algorithm.GREEDY:  # Theta*'s cost is any-angle, below a grid walk's
            assert answer.cost >= want - 1e-9
        CHECKS[algorithm.value] += 1


@settings(max_examples=100, deadline=None)
@given(scene=scenes())
def test_max_cost_and_closest(scene):
    assume(scene is not None)
    want = reference_cost(scene)
    assume(math.isfinite(want) and want > 1e-9)  # zero-cost links weigh 5e-324
    within = _run(scene, Algorithm.ASTAR, max_cost=want)
    assert within.found and math.isclose(within.cost, want, rel_tol=1e-9, abs_tol=1e-9)
    below = _run(scene, Algorithm.ASTAR, max_cost=max(0.0, want * 0.99 - 1e-6))
    assert not below.found and below.reason == "unreachable" and below.legs == ()
    closest = _run(scene, Algorithm.ASTAR, max_cost=max(0.0, want * 0.99 - 1e-6), closest=True)
    assert not closest.found and closest.partial == bool(closest.legs)
    if closest.legs:
        check_walk(scene, closest)
        assert closest.legs[-1].map == scene.goal.map
    CHECKS["max_cost"] += 1


def keep():
    """Two floors: stairs both ways, a one-way trapdoor, a closed gate, a zero-cost
    teleporter."""
    grids = {
        "k1": make_grid("........\n.######.\n........", "k1"),
        "k2": make_grid("........\n........\n........", "k2"),
    }
    document = {"maps": ["k1", "k2"], "links": [
        {"id": "stairs", "from": {"map": "k1", "cell": [7, 0]}, "to": {"map": "k2", "cell": [7, 0]},
         "cost": 2.0, "bidirectional": True},
        {"id": "trapdoor", "from": {"map": "k2", "cell": [0, 2]},
         "to": {"map": "k1", "cell": [0, 2]}, "cost": 0},
        {"id": "gate", "from": {"map": "k1", "cell": [0, 0]}, "to": {"map": "k1", "cell": [0, 2]},
         "cost": 0.5, "bidirectional": True, "enabled": False, "tags": ["door"]},
        {"id": "tele", "from": {"map": "k1", "cell": [1, 0]}, "to": {"map": "k2", "cell": [6, 2]},
         "cost": 0}]}  # fmt: skip
    return WorldMaps(parse_world("keep", document, lookup_of(grids)), grids)


def test_keep_takes_the_teleporter_and_names_the_legs():
    maps = keep()
    answer = find_world_path(WorldQuery(maps, Place("k1", (0, 0)), Place("k2", (7, 2)),
                                        SearchOptions()))  # fmt: skip
    assert answer.found and answer.links == ("tele",) and answer.cost == 2.0
    assert [leg.map for leg in answer.legs] == ["k1", "k2"]
    assert answer.legs[0].path.tolist() == [[0, 0], [1, 0]] and answer.legs[0].link == "tele"
    assert answer.legs[1].path.tolist()[0] == [6, 2]
    # Deterministic: the same query gives the same answer.
    again = find_world_path(WorldQuery(maps, Place("k1", (0, 0)), Place("k2", (7, 2)),
                                       SearchOptions()))  # fmt: skip
    assert [leg.path.tolist() for leg in again.legs] == [leg.path.tolist() for leg in answer.legs]


def test_one_way_trapdoor_is_not_climbed_and_single_cell_legs():
    maps = keep()
    # From k1 (0, 2) up to k2 (0, 2): not by the trapdoor (one way down).
    up = find_world_path(WorldQuery(maps, Place("k1", (0, 2)), Place("k2", (0, 2)),
                                    SearchOptions()))  # fmt: skip
    assert up.found and "trapdoor" not in up.links
    # Down the trapdoor from its entrance: a single-cell first leg.
    down = find_world_path(WorldQuery(maps, Place("k2", (0, 2)), Place("k1", (0, 2)),
                                      SearchOptions()))  # fmt: skip
    assert down.links == ("trapdoor",) and down.cost == 0.0
    assert [leg.path.tolist() for leg in down.legs] == [[[0, 2]], [[0, 2]]]


def test_errors_as_path():
    maps = keep()
    with pytest.raises(MapNotFound):
        find_world_path(WorldQuery(maps, Place("nowhere", (0, 0)), Place("k2", (0, 0)),
                                   SearchOptions()))  # fmt: skip
    with pytest.raises(StartBlocked):
        find_world_path(WorldQuery(maps, Place("k1", (1, 1)), Place("k2", (0, 0)),
                                   SearchOptions()))  # fmt: skip
    with pytest.raises(GoalBlocked):
        find_world_path(WorldQuery(maps, Place("k1", (0, 0)), Place("k2", (0, 0)),
                                   SearchOptions(), blocked={"k2": ((0, 0),)}))  # fmt: skip


def test_max_expanded_bounds_the_legs_sum():
    maps = keep()
    query = WorldQuery(maps, Place("k1", (0, 2)), Place("k2", (0, 0)),
                       SearchOptions(algorithm=Algorithm.DIJKSTRA))  # fmt: skip
    full = find_world_path(query)
    assert full.found
    capped = find_world_path(replace(query, options=replace(query.options, max_expanded=3)))
    assert not capped.found and capped.reason == "limit_reached" and capped.expanded <= 3
    assert np.isfinite(full.expanded)


@settings(max_examples=200, deadline=None)
@given(scene=scenes(max_side=10, max_links=24), pick=st.integers(0, len(OPTIMAL) - 1),
       after=st.sampled_from([0, 1, 8]), steps=st.sampled_from([0, 1, 16]))  # fmt: skip
def test_flooded_legs_keep_the_world_optimum(scene, pick, after, steps):
    """Legs costed by bounded floods (from the first leg on, radii from zero up, or the
    default threshold on worlds with many links): still the world Dijkstra's cost, legal
    walks, and the same answer twice."""
    assume(scene is not None)
    if OPTIMAL[pick] == Algorithm.JPS:
        scene.options = replace(scene.options, connectivity=8, diagonal=Diagonal.NO_CORNER_CUT)
    want = reference_cost(scene)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(world_search, "FLOOD_AFTER", after)
        patch.setattr(world_search, "MIN_RADIUS_STEPS", steps)
        answer = _run(scene, OPTIMAL[pick])
        again = _run(scene, OPTIMAL[pick])
    if answer is None:
        return
    assert answer.found == math.isfinite(want)
    if answer.found:
        assert answer.optimal
        assert math.isclose(answer.cost, want, rel_tol=1e-9, abs_tol=1e-9), (want, answer)
        check_walk(scene, answer)
        CHECKS["flooded"] += 1
    assert (again.cost, again.links, again.expanded) == (answer.cost, answer.links,
                                                         answer.expanded)  # fmt: skip
    assert all(np.array_equal(a.path, b.path) for a, b in zip(answer.legs, again.legs))


def test_max_expanded_counts_the_floods():
    """A flood's expansions count against max_expanded like a leg's."""
    query = WorldQuery(keep(), Place("k1", (0, 2)), Place("k2", (0, 0)),
                       SearchOptions(algorithm=Algorithm.ASTAR))  # fmt: skip
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(world_search, "FLOOD_AFTER", 0)
        full = find_world_path(query)
        assert full.found
        cut = find_world_path(
            replace(query, options=replace(query.options, max_expanded=full.expanded - 1))
        )
    assert not cut.found and cut.reason == "limit_reached" and cut.expanded < full.expanded
