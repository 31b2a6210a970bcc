"""The link graph of a query: what its overlay search needs that does not depend on the
query's start and goal, built once and kept in a small cache.

A :class:`LinkGraph` holds the usable link ways (:func:`gridpath.world.overlay.usable_ways`),
their ends numbered in the world's link order, the leg bound and the entrances' boxes
(:func:`gridpath.world.bounds.boxes`). It depends only on the world revision, the maps'
snapshots, the link filter, the request's blocked cells and the options that shape a leg,
so it is keyed by those. Worlds and map snapshots are immutable: the key holds their
identities, and the entry holds weak references to the objects, so an entry serves only
while the very objects it was built from are alive (an identity reused by a later object
finds a dead reference: a miss) and the cache never keeps an old revision's maps in memory
(a big map's revisions would stay alive as long as their entries). The cache is
a small LRU behind a lock; a graph is built outside the lock (two threads may build the same
one; both are equal, one is kept).

The per-query part (:func:`heuristics`) is the bound to the goal of every place (a backward
Dijkstra over the boxes) and of every leg's arrival: a place reached by a leg may only take
a link, so its bound is ``min(cost + H(exit))`` over its ways (zero at the goal), which is
never below ``H`` at that place and keeps the overlay's heuristic consistent.
"""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, replace

import numpy as np

from gridpath.search.options import Algorithm, SearchOptions
from gridpath.world import bounds
from gridpath.world.model import Place, WorldMaps
from gridpath.world.overlay import LegBound, LinkFilter, Way, leg_bound, usable_ways

Cell = tuple[int, int]
CACHE_SIZE = 16  # link graphs kept (world revision x maps x filter x blocked x options)
_NO_ROWS = np.empty((0, 3), dtype=np.int64)


@dataclass(frozen=True, eq=False)
class LinkGraph:
    ways: tuple[Way, ...]
    places: tuple[Place, ...]  # the ways' ends, in the world's link order
    index: Mapping[Place, int]
    rows: np.ndarray  # int64 (map number, x, y) per place
    map_no: Mapping[str, int]
    out: Mapping[int, tuple[int, ...]]  # entrance place -> its ways
    entrance: np.ndarray  # int64, per way
    exit: np.ndarray  # int64, per way
    weight: np.ndarray  # float64 overlay weight per way (1 for BFS: a link is one step)
    entrances: tuple[np.ndarray, ...]  # per map number: its entrance places, ascending
    bound: LegBound
    scale: np.ndarray  # per map number
    measure: np.ndarray  # (kind, orth, diag)
    boxes: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]


# key -> (weak references to the world and its maps' snapshots, the graph)
_cache: OrderedDict[tuple, tuple[tuple[weakref.ref, ...], LinkGraph]] = OrderedDict()
_lock = threading.Lock()


def _sources(maps: WorldMaps) -> tuple:
    return (maps.world, *(maps.grids.get(name) for name in maps.world.maps))


def _alive(refs: tuple[weakref.ref, ...], sources: tuple) -> bool:
    return all(ref() is source for ref, source in zip(refs, sources))


def link_graph(
    maps: WorldMaps,
    links: LinkFilter,
    walls: Mapping[str, frozenset[Cell]],
    options: SearchOptions,
) -> LinkGraph:
    """The link graph of ``maps`` for this filter, these blocked cells and options (cached)."""
    shape = replace(options, max_expanded=None, max_cost=None, closest=False, smooth=False)
    sources = _sources(maps)
    key = (
        tuple(map(id, sources)),
        links,
        tuple(sorted((name, cells) for name, cells in walls.items() if cells)),
        shape,
    )
    with _lock:
        entry = _cache.get(key)
        if entry is not None and _alive(entry[0], sources):
            _cache.move_to_end(key)
            return entry[1]
    graph = _build(maps, links, walls, options)
    refs = tuple(weakref.ref(source) for source in sources)
    with _lock:
        _cache[key] = (refs, graph)
        _cache.move_to_end(key)
        while len(_cache) > CACHE_SIZE:
            _cache.popitem(last=False)
    return graph


def _build(maps: WorldMaps, links: LinkFilter, walls, options: SearchOptions) -> LinkGraph:
    ways = usable_ways(maps, links, walls, options.clearance)
    index: dict[Place, int] = {}
    for way in ways:
        index.setdefault(way.entrance, len(index))
        index.setdefault(way.exit, len(index))
    places = tuple(index)
    map_no = {name: m for m, name in enumerate(maps.world.maps)}
    rows = np.array([(map_no[p.map], *p.cell) for p in places], dtype=np.int64).reshape(-1, 3)
    out: dict[int, list[int]] = {}
    for w, way in enumerate(ways):
        out.setdefault(index[way.entrance], []).append(w)
    entrance = np.array([index[w.entrance] for w in ways], dtype=np.int64)
    exit_ = np.array([index[w.exit] for w in ways], dtype=np.int64)
    bfs = options.algorithm == Algorithm.BFS
    weight = np.array([1.0 if bfs else w.cost for w in ways], dtype=np.float64)
    starts = np.unique(entrance)
    entrances = tuple(starts[rows[starts, 0] == m] for m in range(len(map_no)))
    bound = leg_bound(maps, options)
    scale = np.array([bound.scale[name] for name in maps.world.maps], dtype=np.float64)
    measure = np.array([bound.kind, bound.orth, bound.diag], dtype=np.float64)
    if ways:
        at = rows[entrance]
        boxes = bounds.boxes(at[:, 0], at[:, 1:].astype(np.float64), len(map_no))
    else:
        boxes = (np.empty(0, np.int64), np.empty((0, 2)), np.empty((0, 2)), np.empty(0, np.int64))
    return LinkGraph(
        ways, places, index, rows, map_no,
        {k: tuple(v) for k, v in out.items()}, entrance, exit_, weight, entrances, bound,
        scale, measure, boxes,
    )  # fmt: skip


def with_ends(graph: LinkGraph, start: Place, goal: Place) -> tuple[dict[Place, int], np.ndarray]:
    """The query's places: the graph's, then the start and the goal unless they are ends of
    ways already (``(index, rows)``; the graph's own are not changed)."""
    extra = [p for p in dict.fromkeys((start, goal)) if p not in graph.index]
    if not extra:
        return dict(graph.index), graph.rows
    index = dict(graph.index)
    for place in extra:
        index[place] = len(index)
    more = np.array([(graph.map_no[p.map], *p.cell) for p in extra], dtype=np.int64)
    return index, np.concatenate([graph.rows if graph.rows.size else _NO_ROWS, more])


def heuristics(graph: LinkGraph, rows: np.ndarray, goal: int, dijkstra: bool):
    """``(H, H_leg)`` per place: the bound to the goal through the links from a place
    arrived at by a link (or the start), and from a place arrived at by a leg (module
    docstring). Zero for Dijkstra."""
    n = rows.shape[0]
    if dijkstra:
        return np.zeros(n), np.zeros(n)
    goal_row = rows[goal]
    box_map, box_lo, box_hi, box_of = graph.boxes
    if graph.ways:
        exits = np.empty((len(graph.ways), 4), dtype=np.float64)
        exits[:, :3] = rows[graph.exit]
        exits[:, 3] = graph.weight
        value = bounds.box_values(graph.measure, graph.scale, goal_row.astype(np.float64), exits,
                                  box_map, box_lo, box_hi, box_of)  # fmt: skip
    else:
        value = np.empty(0)
    h = bounds.place_bounds(graph.measure, graph.scale, goal_row, rows, box_map, box_lo, box_hi,
                            value)  # fmt: skip
    h_leg = np.full(n, np.inf)
    if graph.ways:
        np.minimum.at(h_leg, graph.entrance, graph.weight + h[graph.exit])
    h_leg[goal] = 0.0
    return h, h_leg
