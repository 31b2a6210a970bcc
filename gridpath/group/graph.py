"""The movement graph of a group request: the cells a unit of the request's clearance may
stand on, and the moves between them in one tick.

Positions inside the solver are *vertex ids*: the free cells numbered in row-major order
(a compact numbering, so per-goal distances hold one entry per free cell). Moves
follow a fixed direction order (:data:`DIRECTIONS`), which with seeded tie-breaks makes
every plan deterministic.

A graph may also have *extra moves* (:func:`with_links`: the link ways of a world, one tick
each) in columns after the grid's directions; they may be one-way, so every search that
runs from a goal backwards (the per-goal distances, the goal assignment) reads
:attr:`MoveGraph.reverse`, the moves into each vertex. Grid moves are symmetric (every
diagonal rule is), so a graph without extra moves has ``reverse is neighbours``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

# (dx, dy): the four orthogonal moves, then the four diagonals.
DIRECTIONS = ((1, 0), (0, 1), (-1, 0), (0, -1), (1, 1), (-1, 1), (-1, -1), (1, -1))

# Diagonal rules, the codes of gridpath.search._records.
DIAGONAL_NEVER = 0
NO_CORNER_CUT = 1
ONE_FREE = 2
ALWAYS = 3


@dataclass(frozen=True, eq=False)
class MoveGraph:
    """Free cells and one-tick moves. ``neighbours[v, k]`` is the vertex reached from ``v``
    in direction ``k`` (-1: no such move); ``cross[v, k]`` (diagonal ``k`` only) holds the
    two cells whose diagonal crosses that move, as vertex ids or -1 (walls): two units may
    not cross one 2x2 square diagonally in one tick. Columns past the grid's directions are
    extra moves (:func:`with_links`; no crossing: ``cross`` -1). ``reverse[v]`` lists the
    vertices with a move into ``v`` (-1 padded); ``component`` labels the weakly connected
    components (moves taken either way), a necessary condition of reachability only when
    some extra move is one-way."""

    width: int
    height: int
    vertex_of: np.ndarray  # int32 (height, width): vertex id of each cell, -1 blocked
    xs: np.ndarray  # int32 (V,)
    ys: np.ndarray  # int32 (V,)
    neighbours: np.ndarray  # int32 (V, K)
    cross: np.ndarray  # int32 (V, K, 2)
    component: np.ndarray  # int32 (V,): connected-component label under these moves
    degree: np.ndarray  # int32 (V,): the number of moves from each vertex
    reverse: np.ndarray = None  # type: ignore[assignment]  # int32 (V, K'); None: neighbours

    def __post_init__(self) -> None:
        if self.reverse is None:  # grid moves only: symmetric
            object.__setattr__(self, "reverse", self.neighbours)

    @property
    def vertex_count(self) -> int:
        return int(self.xs.shape[0])

    def vertex(self, x: int, y: int) -> int:
        """The vertex id of cell (x, y), -1 if blocked or outside the map."""
        if 0 <= x < self.width and 0 <= y < self.height:
            return int(self.vertex_of[y, x])
        return -1


def free_cells(passable: np.ndarray, clearance: int, blocked=()) -> np.ndarray:
    """The (height, width) bool mask of the cells a unit of ``clearance`` may stand on:
    ``passable`` is the grid's padded clearance array; ``blocked`` extra walls (x, y)."""
    free = np.asarray(passable)[1:-1, 1:-1] >= clearance
    free = np.array(free, dtype=bool)
    for x, y in blocked:
        if 0 <= y < free.shape[0] and 0 <= x < free.shape[1]:
            free[y, x] = False
    return free


def build_graph(
    free: np.ndarray, connectivity: int = 4, diagonal: int = NO_CORNER_CUT
) -> MoveGraph:
    """The move graph of the cells ``free`` (bool (height, width)) with 4 or 8 moves a tick;
    with 8, diagonals follow ``diagonal`` (as the single-unit searches do)."""
    height, width = free.shape
    vertex_of = np.full((height, width), -1, dtype=np.int32)
    ys, xs = np.nonzero(free)
    vertex_of[ys, xs] = np.arange(ys.shape[0], dtype=np.int32)
    k = 8 if connectivity == 8 and diagonal != DIAGONAL_NEVER else 4
    pad = np.full((height + 2, width + 2), -1, dtype=np.int32)
    pad[1:-1, 1:-1] = vertex_of
    neighbours = np.full((ys.shape[0], k), -1, dtype=np.int32)
    cross = np.full((ys.shape[0], k, 2), -1, dtype=np.int32)
    for d in range(k):
        dx, dy = DIRECTIONS[d]
        target = pad[ys + 1 + dy, xs + 1 + dx]
        if d >= 4:
            side_x = pad[ys + 1, xs + 1 + dx]  # the cell beside, then the one above/below
            side_y = pad[ys + 1 + dy, xs + 1]
            open_sides = (side_x >= 0).astype(np.int8) + (side_y >= 0)
            need = {NO_CORNER_CUT: 2, ONE_FREE: 1, ALWAYS: 0}[diagonal]
            target = np.where(open_sides >= need, target, -1)
            cross[:, d, 0] = side_x
            cross[:, d, 1] = side_y
        neighbours[:, d] = target
    graph = MoveGraph(
        width=int(width),
        height=int(height),
        vertex_of=vertex_of,
        xs=xs.astype(np.int32),
        ys=ys.astype(np.int32),
        neighbours=neighbours,
        cross=cross,
        component=np.empty(0, dtype=np.int32),
        degree=(neighbours >= 0).sum(axis=1).astype(np.int32),
    )
    from gridpath.group.distances import label_components  # compiled; after the arrays

    object.__setattr__(graph, "component", label_components(neighbours))
    return graph


def _columns(rows: np.ndarray, values: np.ndarray, vertex_count: int) -> np.ndarray:
    """``(V, k)`` int32: each vertex's ``values`` (those whose ``rows`` entry is that vertex,
    in the given order), -1 padded; ``k`` the most any vertex has."""
    order = np.argsort(rows, kind="stable")
    rows, values = rows[order], values[order]
    counts = np.bincount(rows, minlength=vertex_count)
    out = np.full((vertex_count, int(counts.max(initial=0))), -1, dtype=np.int32)
    first = np.concatenate(([0], np.cumsum(counts)[:-1]))
    out[rows, np.arange(rows.shape[0]) - first[rows]] = values
    return out


def with_links(graph: MoveGraph, ways: np.ndarray) -> MoveGraph:
    """``graph`` with the extra moves ``ways`` (``(L, 2)`` vertex ids, entrance then exit,
    in a fixed order; a way that repeats a move already there is dropped) as columns after
    its own, so every solver takes them like any move of one tick."""
    ways = np.asarray(ways, dtype=np.int32).reshape(-1, 2)
    fresh: list[int] = []
    seen: set[tuple[int, int]] = set()
    for k, (a, b) in enumerate(ways.tolist()):
        if a != b and (a, b) not in seen and b not in graph.neighbours[a]:
            seen.add((a, b))
            fresh.append(k)
    ways = ways[fresh]
    if ways.shape[0] == 0:
        return graph
    count = graph.vertex_count
    out = _columns(ways[:, 0], ways[:, 1], count)
    into = _columns(ways[:, 1], ways[:, 0], count)
    neighbours = np.ascontiguousarray(np.hstack((graph.neighbours, out)))
    reverse = np.ascontiguousarray(np.hstack((graph.reverse, into)))
    cross = np.full((count, neighbours.shape[1], 2), -1, dtype=np.int32)
    cross[:, : graph.cross.shape[1]] = graph.cross
    from gridpath.group.distances import label_components  # compiled; after the arrays

    return MoveGraph(
        width=graph.width,
        height=graph.height,
        vertex_of=graph.vertex_of,
        xs=graph.xs,
        ys=graph.ys,
        neighbours=neighbours,
        cross=cross,
        component=label_components(np.ascontiguousarray(np.hstack((neighbours, into)))),
        degree=(neighbours >= 0).sum(axis=1).astype(np.int32),
        reverse=reverse,
    )


def lane_costs(graph: MoveGraph) -> np.ndarray:
    """``(V, K)`` int32: 1 where a straight move goes against its lane, else 0 (a soft rule
    for SIPP's order, never for arrivals: :mod:`gridpath.group.sipp`). The lanes criss-cross
    like one-way streets: even rows east, odd rows west, even columns south, odd columns
    north, so two streams that meet in a passage two or more cells wide pass side by side
    instead of taking turns. A move counts against its lane only where the next row (or
    column) offers the lane along: in a one-cell corridor every way is the only way."""
    free = graph.vertex_of >= 0
    height, width = free.shape
    pad = np.zeros((height + 2, width + 2), dtype=bool)
    pad[1:-1, 1:-1] = free
    xs, ys = graph.xs + 1, graph.ys + 1
    costs = np.zeros(graph.neighbours.shape, dtype=np.int32)
    for d in range(4):
        dx, dy = DIRECTIONS[d]
        if dx:
            against = (graph.ys % 2 == 0) != (dx > 0)
            beside = [(pad[ys + s, xs] & pad[ys + s, xs + dx]) for s in (-1, 1)]
        else:
            against = (graph.xs % 2 == 0) != (dy > 0)
            beside = [(pad[ys, xs + s] & pad[ys + dy, xs + s]) for s in (-1, 1)]
        along = beside[0] | beside[1]
        costs[:, d] = against & along & (graph.neighbours[:, d] >= 0)
    return costs
