"""The movement graph of a group request: the cells a unit of the request's clearance may
stand on, and the moves between them in one tick.

Positions inside the solver are *vertex ids*: the free cells numbered in row-major order
(a compact numbering, so per-goal distances hold one entry per free cell). Moves
follow a fixed direction order (:data:`DIRECTIONS`), which with seeded tie-breaks makes
every plan deterministic.
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
    not cross one 2x2 square diagonally in one tick."""

    width: int
    height: int
    vertex_of: np.ndarray  # int32 (height, width): vertex id of each cell, -1 blocked
    xs: np.ndarray  # int32 (V,)
    ys: np.ndarray  # int32 (V,)
    neighbours: np.ndarray  # int32 (V, K)
    cross: np.ndarray  # int32 (V, K, 2)
    component: np.ndarray  # int32 (V,): connected-component label under these moves
    degree: np.ndarray  # int32 (V,): the number of moves from each vertex

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
