"""Group moves through a world (``POST /group`` and group ``/validate`` with ``"world"``).

The move graph of a world is one :class:`~gridpath.group.graph.MoveGraph`, so every solver
(PIBT, LaCAM*, SIPP, LNS, the repair, the goal assignment) runs on it unchanged:

- the maps' free cells on one *canvas*, map after map down its rows: each map starts on an
  even row after at least one row of wall, so no grid move joins two maps, vertex ids run map
  by map and row-major within a map, and every row keeps the parity of its own map's row
  (the lanes of ``graph.lane_costs`` are the map's own);
- the usable link ways (:func:`gridpath.world.ways.usable_ways`: enabled, not excluded,
  both end cells free for this request) as extra moves of one tick (``graph.with_links``),
  in the world's link order. A one-way link is a move one way only; the per-goal distances
  read the moves backwards, so they count links in their direction.

The rules of a group plan then hold through links as on one map: never two units on one
cell of one map at one tick, never two units swapping cells in one tick (two units taking
one bidirectional link, or a link and its opposite, in opposite directions).

The canvas is as wide as the widest map: a world of maps of very different widths costs a
canvas of ``widest x sum of heights`` cells (:data:`MAX_CANVAS_CELLS`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from gridpath.errors import (
    DuplicateCells,
    GoalBlocked,
    GroupTooLarge,
    InvalidRequest,
    MapNotFound,
    OutOfBounds,
    StartBlocked,
)
from gridpath.grid.model import as_cells
from gridpath.group.graph import NO_CORNER_CUT, MoveGraph, build_graph, free_cells, with_links
from gridpath.group.solve import GroupOrder
from gridpath.group.validate import Violation, conflicts
from gridpath.world.model import Link, Place, WorldMaps
from gridpath.world.overlay import NO_FILTER, LinkFilter, Way, usable_ways

MAX_CANVAS_CELLS = 1 << 28  # widest map x the maps' heights: about 1.3 GB of arrays at most
Cell = tuple[int, int]


@dataclass(frozen=True, eq=False)
class WorldGraph:
    """A world's move graph and where each vertex is: map index (in :attr:`maps`) and cell."""

    graph: MoveGraph
    maps: tuple[str, ...]  # the world's maps, in its order: a plan's ``m``
    tops: np.ndarray  # int64 (M,): the canvas row of each map's row 0
    sizes: tuple[tuple[int, int], ...]  # (width, height) of each map
    map_of: np.ndarray  # int32 (V,): each vertex's map index
    ways: tuple[Way, ...]  # the usable link ways the graph holds as moves
    grid_moves: int  # the graph's grid directions (4 or 8); the columns after are links

    def index(self, name: str) -> int:
        try:
            return self.maps.index(name)
        except ValueError:
            raise MapNotFound(f"map {name!r} is not a map of the world") from None

    def canvas_cell(self, m: int, cell: Cell) -> Cell | None:
        """``cell`` of map ``m`` on the canvas, None outside the map."""
        x, y = cell
        width, height = self.sizes[m]
        if 0 <= x < width and 0 <= y < height:
            return x, int(self.tops[m]) + y
        return None

    def vertex(self, m: int, cell: Cell) -> int:
        """The vertex of ``cell`` on map ``m``: -1 if blocked or outside the map."""
        at = self.canvas_cell(m, cell)
        return -1 if at is None else self.graph.vertex(*at)

    def plans(self, configs: np.ndarray) -> np.ndarray:
        """``(units, ticks, 3)`` int64 ``[x, y, m]`` of ``configs`` (``(ticks, units)``
        vertex ids), as ``POST /group`` answers them."""
        m = self.map_of[configs]
        xs, ys = self.graph.xs[configs], self.graph.ys[configs] - self.tops[m]
        return np.ascontiguousarray(np.stack((xs.T, ys.T, m.T), axis=-1), dtype=np.int64)


def _canvas(free: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """The maps' free masks stacked down one canvas, and each one's top row."""
    tops, row = [], 0
    for mask in free:
        tops.append(row)
        row += mask.shape[0] + 1
        row += row % 2  # the next map starts on an even row
    width = max(mask.shape[1] for mask in free)
    if width * row > MAX_CANVAS_CELLS:
        raise GroupTooLarge(
            f"the world's maps make a canvas of {width} x {row} cells (the widest map x the "
            f"maps' heights), over {MAX_CANVAS_CELLS}"
        )
    canvas = np.zeros((row, width), dtype=bool)
    for top, mask in zip(tops, free):
        canvas[top : top + mask.shape[0], : mask.shape[1]] = mask
    return canvas, np.array(tops, dtype=np.int64)


def world_graph(
    maps: WorldMaps,
    clearance: int = 1,
    blocked: Mapping[str, Sequence[Cell]] | None = None,
    connectivity: int = 4,
    diagonal: int = NO_CORNER_CUT,
    links: LinkFilter = NO_FILTER,
) -> WorldGraph:
    """The move graph of a group request through ``maps``: the request's clearance,
    ``blocked`` cells (per map name), moves, and the link ways it may take."""
    names = tuple(maps.world.maps)
    blocked = blocked or {}
    free = [
        free_cells(maps.grids[name].passable, clearance, blocked.get(name, ())) for name in names
    ]
    canvas, tops = _canvas(free)
    base = build_graph(canvas, connectivity, diagonal)
    ways = usable_ways(maps, links, blocked, clearance)
    pairs = []
    for way in ways:
        at = [_place_vertex(base, names, tops, p) for p in (way.entrance, way.exit)]
        if at[0] >= 0 and at[1] >= 0:  # always, for a usable way: its ends are free
            pairs.append(at)
    graph = with_links(base, np.array(pairs, dtype=np.int32).reshape(-1, 2))
    map_of = (np.searchsorted(tops, graph.ys, side="right") - 1).astype(np.int32)
    sizes = tuple((int(mask.shape[1]), int(mask.shape[0])) for mask in free)
    moves = base.neighbours.shape[1]
    return WorldGraph(graph, names, tops, sizes, map_of, ways, moves)


def _place_vertex(graph: MoveGraph, names: tuple[str, ...], tops: np.ndarray, place: Place) -> int:
    x, y = place.cell
    m = names.index(place.map)
    return graph.vertex(x, int(tops[m]) + y) if y < _height(graph, tops, m) else -1


def _height(graph: MoveGraph, tops: np.ndarray, m: int) -> int:
    end = int(tops[m + 1]) if m + 1 < tops.shape[0] else graph.height
    return end - int(tops[m])


def _vertices(world: WorldGraph, places: Sequence[Place], what: str) -> np.ndarray:
    out = np.empty(len(places), dtype=np.int32)
    for i, place in enumerate(places):
        m = world.index(place.map)
        width, height = world.sizes[m]
        x, y = place.cell
        if world.canvas_cell(m, place.cell) is None:
            raise OutOfBounds(
                f"unit {i}: {what} ({x}, {y}) is outside map {place.map!r} ({width}x{height})"
            )
        v = world.vertex(m, place.cell)
        if v < 0:
            error = StartBlocked if what == "start" else GoalBlocked
            raise error(
                f"unit {i}: {what} ({x}, {y}) on map {place.map!r} is blocked (for this clearance)"
            )
        out[i] = v
    seen: dict[int, int] = {}
    for i, v in enumerate(out.tolist()):
        if v in seen:
            raise DuplicateCells(
                f"units {seen[v]} and {i} have the same {what} {list(places[i].cell)} "
                f"on map {places[i].map!r}"
            )
        seen[v] = i
    return out


def world_order(world: WorldGraph, starts: Sequence[Place], goals: Sequence[Place]) -> GroupOrder:
    """Check the units' places against the world's graph: a map not in the world is 404
    ``map_not_found``, the other errors are 422 and name the unit (as on one map)."""
    if len(starts) != len(goals):
        raise InvalidRequest(f"{len(starts)} starts but {len(goals)} goals")
    return GroupOrder(
        world.graph, _vertices(world, starts, "start"), _vertices(world, goals, "goal")
    )


# Group /validate through a world.


def _show(world: WorldGraph):
    def show(place: tuple[int, ...]) -> str:
        x, y, m = place
        name = repr(world.maps[m]) if 0 <= m < len(world.maps) else f"#{m}"
        return f"({x}, {y}) on map {name}"

    return show


def _padded(plans: Sequence[Sequence[Sequence[int]]]) -> np.ndarray:
    """(ticks, units, 3) ``[x, y, m]``, each plan held at its last place to the longest's end."""
    ticks = max(len(p) for p in plans)
    out = np.empty((ticks, len(plans), 3), dtype=np.int64)
    for i, plan in enumerate(plans):
        places = as_cells(plan, columns=3)  # clamped: any integer stays off the world
        out[: len(places), i] = places
        out[len(places) :, i] = places[-1]
    return out


def _place_checks(world: WorldGraph, places: np.ndarray, out: list) -> np.ndarray:
    """Places off the world or blocked; returns the vertex of each (tick, unit), -1 if none."""
    x, y, m = places[..., 0], places[..., 1], places[..., 2]
    known = (m >= 0) & (m < len(world.maps))
    mm = np.where(known, m, 0)
    widths, heights = (np.array([size[k] for size in world.sizes]) for k in (0, 1))
    inside = known & (x >= 0) & (x < widths[mm]) & (y >= 0) & (y < heights[mm])
    vertex = np.full(x.shape, -1, dtype=np.int64)
    vertex[inside] = world.graph.vertex_of[(world.tops[mm] + y)[inside], x[inside]]
    show = _show(world)
    for t, i in zip(*np.nonzero(vertex < 0)):
        place = tuple(int(v) for v in places[t, i])
        if inside[t, i]:
            out.append(Violation(int(i), int(t), "blocked_cell", f"{show(place)} is blocked"))
        else:
            out.append(Violation(int(i), int(t), "illegal_step", f"{show(place)} is off the world"))
    return vertex


def _link_index(world_links: Sequence[Link]) -> dict[tuple[Place, Place], list[Link]]:
    """Every way of every link (enabled or not), by its ``(entrance, exit)``."""
    index: dict[tuple[Place, Place], list[Link]] = {}
    for link in world_links:
        for way in link.ways():
            index.setdefault(way, []).append(link)
    return index


def _step_violation(world: WorldGraph, index: dict, links: LinkFilter, a, b) -> tuple[str, str]:
    """Why ``a -> b`` (``[x, y, m]`` places, both free, not a move of the graph) is illegal;
    ``index`` is :func:`_link_index` of the world's links."""
    show = _show(world)
    at, to = (Place(world.maps[p[2]], (p[0], p[1])) for p in (a, b))
    forward = index.get((at, to), [])
    backward = [link for link in index.get((to, at), []) if not link.bidirectional]
    step = f"{show(a)} -> {show(b)}"
    for link in forward:
        if not link.enabled:
            return "link_disabled", f"{step} takes link {link.id!r}, which is disabled"
        if not links.allows(link):
            return "link_disabled", f"{step} takes link {link.id!r}, excluded for this unit"
    if backward:
        return "link_one_way", f"{step} takes link {backward[0].id!r} against its direction"
    if a[2] == b[2] and max(abs(a[0] - b[0]), abs(a[1] - b[1])) == 1:
        return "illegal_step", f"{step} is not a move of one tick"
    return "link_missing", f"{step}: no link makes this jump"


def validate_world_plans(
    world: WorldGraph, world_links: Sequence[Link], links: LinkFilter, plans, limit: int = 100
) -> list[Violation]:
    """Every violation of the plans (lists of ``[x, y, m]`` per tick, ``m`` the index of a
    map in ``world.maps``), in (tick, unit) order, at most ``limit``: a step is a wait, a
    move on one map, or a usable link way (``world_links`` are all the world's links, to name
    the one a step took illegally: ``link_disabled``, ``link_one_way``; ``link_missing``
    when none makes the jump)."""
    if not plans:
        return []
    places = _padded(plans)
    out: list[Violation] = []
    vertex = _place_checks(world, places, out)
    moves, index = world.graph.neighbours, None
    for t in range(1, places.shape[0]):
        for i in range(places.shape[1]):
            u, v = vertex[t - 1, i], vertex[t, i]
            if u < 0 or v < 0 or u == v or v in moves[u]:
                continue
            a, b = (tuple(int(c) for c in places[s, i]) for s in (t - 1, t))
            index = _link_index(world_links) if index is None else index
            code, message = _step_violation(world, index, links, a, b)
            out.append(Violation(i, t, code, message))
    conflicts(places, world.grid_moves > 4, out, _show(world))
    out.sort(key=lambda v: (v.tick, v.unit, v.code))
    return out[:limit]
