"""The link graph cache (gridpath/world/graph.py): one graph per world revision, map
snapshots, link filter, blocked cells and leg-shaping options; bounded; a new revision is
read, never a stale graph; and answers are the same from a cold or a warm cache, from many
threads at once."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

import numpy as np

from gridpath.search import Algorithm, SearchOptions
from gridpath.world import graph as world_graph
from gridpath.world.graph import CACHE_SIZE, heuristics, link_graph, with_ends
from gridpath.world.model import Place, WorldMaps, apply_patch, parse_world
from gridpath.world.overlay import NO_FILTER, LinkFilter
from gridpath.world.search import WorldQuery, find_world_path
from tests.conftest import make_grid
from tests.gridpath.world.scenes import lookup_of

OPTIONS = SearchOptions()


def two_floors():
    grids = {
        "f1": make_grid("........\n.######.\n........", "f1"),
        "f2": make_grid("........\n........\n........", "f2"),
    }
    document = {"maps": ["f1", "f2"], "links": [
        {"id": "stairs", "from": {"map": "f1", "cell": [7, 0]},
         "to": {"map": "f2", "cell": [7, 0]}, "cost": 2.0, "bidirectional": True},
        {"id": "tele", "from": {"map": "f1", "cell": [1, 0]}, "to": {"map": "f2", "cell": [6, 2]},
         "cost": 0, "tags": ["magic"]}]}  # fmt: skip
    return WorldMaps(parse_world("floors", document, lookup_of(grids)), grids), grids


def test_one_graph_per_key_and_a_new_one_per_revision():
    maps, grids = two_floors()
    first = link_graph(maps, NO_FILTER, {}, OPTIONS)
    # Limits and closest do not shape a leg: the same graph.
    assert link_graph(maps, NO_FILTER, {}, replace(OPTIONS, max_expanded=9, closest=True)) is first
    assert [w.link.id for w in first.ways] == ["stairs", "stairs", "tele"]
    no_magic = link_graph(maps, LinkFilter(exclude_tags=frozenset({"magic"})), {}, OPTIONS)
    assert [w.link.id for w in no_magic.ways] == ["stairs", "stairs"]
    walled = link_graph(maps, NO_FILTER, {"f2": frozenset({(7, 0)})}, OPTIONS)
    assert [w.link.id for w in walled.ways] == ["tele"]
    # A toggle is a new world revision: a new graph, the closed link gone.
    patch = {"set": [{"id": "tele", "enabled": False}]}
    toggled = WorldMaps(apply_patch(maps.world, patch, lookup_of(grids), 2), grids)
    assert [w.link.id for w in link_graph(toggled, NO_FILTER, {}, OPTIONS).ways] == ["stairs"] * 2
    answer = find_world_path(WorldQuery(toggled, Place("f1", (0, 0)), Place("f2", (7, 2)), OPTIONS))
    assert answer.found and answer.links == ("stairs",)


def test_the_cache_is_bounded():
    maps, _ = two_floors()
    for clearance in range(1, CACHE_SIZE + 5):
        link_graph(maps, NO_FILTER, {}, replace(OPTIONS, clearance=clearance))
    assert len(world_graph._cache) == CACHE_SIZE


def test_leg_arrival_bound_is_at_least_the_place_bound():
    """H_leg (a place reached by a leg only takes links) never below H, zero at the goal,
    and infinite where no way leaves."""
    maps, _ = two_floors()
    graph = link_graph(maps, NO_FILTER, {}, OPTIONS)
    index, rows = with_ends(graph, Place("f1", (0, 0)), Place("f2", (7, 2)))
    goal = index[Place("f2", (7, 2))]
    h, h_leg = heuristics(graph, rows, goal, dijkstra=False)
    assert np.all(h_leg >= h) and h_leg[goal] == 0.0
    assert np.isinf(h_leg[index[Place("f1", (0, 0))]])  # the start is no entrance
    tele = index[Place("f1", (1, 0))]
    assert h_leg[tele] == h[index[Place("f2", (6, 2))]]  # zero-cost link, then the bound


def test_cold_warm_and_threaded_answers_are_equal():
    maps, _ = two_floors()
    queries = [WorldQuery(maps, Place("f1", (x, 2)), Place("f2", (7 - x, 1)),
                          replace(OPTIONS, algorithm=algorithm))
               for x in range(8) for algorithm in (Algorithm.ASTAR, Algorithm.AUTO)]  # fmt: skip

    def key(answer):
        return answer.cost, answer.links, [leg.path.tolist() for leg in answer.legs]

    world_graph._cache.clear()
    cold = [key(find_world_path(q)) for q in queries]
    warm = [key(find_world_path(q)) for q in queries]
    world_graph._cache.clear()
    with ThreadPoolExecutor(4) as pool:
        threaded = list(pool.map(lambda q: key(find_world_path(q)), queries * 4))
    assert cold == warm and threaded == cold * 4


def test_the_cache_keeps_no_revision_alive():
    """An entry holds weak references: a revision nobody reads any more is freed (a big map's
    old revisions would otherwise stay in memory as long as their entries), and a later
    object that reuses a freed identity finds a miss, never the old graph."""
    import gc
    import weakref

    maps, grids = two_floors()
    link_graph(maps, NO_FILTER, {}, OPTIONS)
    alive = weakref.ref(grids["f1"]), weakref.ref(maps.world)
    del maps, grids
    gc.collect()
    assert alive[0]() is None and alive[1]() is None
    again, _ = two_floors()
    assert [w.link.id for w in link_graph(again, NO_FILTER, {}, OPTIONS).ways] == [
        "stairs", "stairs", "tele"
    ]  # fmt: skip
