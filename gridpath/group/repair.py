"""Repairing a LaCAM search stuck near its end: when the search keeps reaching the same
few units off their goals (a knot PIBT cannot untie: say two dead ends meeting at one
cell, each holding the other's unit), solve the neighbourhood of those units alone.

The units inside a region around the stuck units (and their goals) form a small group
order on the cells of that region; everyone outside stays where they are. Those outside
units are all on their goals (every unit off its goal is inside the region), so a plan of
the small order, appended to the search's path to the stuck configuration, is a plan of
the whole order: units inside the region move only inside it, units outside never move,
so no conflict can involve both. The small order is solved by the same solver, complete
on it, within its own share of the budget; the region grows if it has no plan.
"""

from __future__ import annotations

import numpy as np

from gridpath.group.distances import label_components
from gridpath.group.graph import MoveGraph

MAX_STUCK = 12  # units off their goals that a repair takes on
RADII = (3, 5, 8)  # the region: cells within this many moves of a stuck unit or its goal
ATTEMPT_WORK = 500_000  # the most work one region gets (a crowded small one may have no plan)


def region(graph: MoveGraph, sources: np.ndarray, radius: int) -> np.ndarray:
    """The vertices within ``radius`` moves of ``sources`` (bool over vertices)."""
    keep = np.zeros(graph.vertex_count, dtype=bool)
    keep[sources] = True
    frontier = np.unique(sources)
    for _ in range(radius):
        reached = graph.neighbours[frontier].ravel()
        reached = np.unique(reached[reached >= 0])
        frontier = reached[~keep[reached]]
        keep[frontier] = True
    return keep


def subgraph(graph: MoveGraph, keep: np.ndarray) -> tuple[MoveGraph, np.ndarray, np.ndarray]:
    """The move graph on the vertices ``keep`` only, the old id of each new vertex, and the
    new id of each old one (-1: not kept; one entry more, so that -1 maps to -1)."""
    old = np.nonzero(keep)[0].astype(np.int32)
    new_of = np.full(graph.vertex_count + 1, -1, dtype=np.int32)  # [-1] maps -1 to -1
    new_of[old] = np.arange(old.shape[0], dtype=np.int32)
    neighbours = np.ascontiguousarray(new_of[graph.neighbours[old]])
    symmetric = graph.reverse is graph.neighbours
    reverse = neighbours if symmetric else np.ascontiguousarray(new_of[graph.reverse[old]])
    either = neighbours if symmetric else np.ascontiguousarray(np.hstack((neighbours, reverse)))
    vertex_of = np.full_like(graph.vertex_of, -1)
    vertex_of[graph.ys[old], graph.xs[old]] = new_of[old]
    sub = MoveGraph(
        width=graph.width,
        height=graph.height,
        vertex_of=vertex_of,
        xs=graph.xs[old],
        ys=graph.ys[old],
        neighbours=neighbours,
        cross=np.ascontiguousarray(new_of[graph.cross[old]]),
        component=label_components(either),
        degree=(neighbours >= 0).sum(axis=1).astype(np.int32),
        reverse=reverse,
    )
    return sub, old, new_of


def repair(graph: MoveGraph, config: np.ndarray, goals: np.ndarray, max_work: int, solve):
    """Ticks that take the units from ``config`` to their goals, moving only the region
    around the units off their goals: ``(configs from config on, or None, work)``.
    ``solve(graph, starts, goals, max_work)`` solves the small order (a GroupResult)."""
    away = np.nonzero(config != goals)[0]
    work = 0
    if away.size == 0 or away.size > MAX_STUCK:
        return None, work
    for radius in RADII:
        keep = region(graph, np.concatenate((config[away], goals[away])), radius)
        units = np.nonzero(keep[config])[0]
        sub, old, new_of = subgraph(graph, keep)
        budget = min(ATTEMPT_WORK, max_work - work)
        result = solve(sub, new_of[config[units]], new_of[goals[units]], budget)
        work += result.work
        if result.found:
            ticks = np.repeat(config[None, :], result.configs.shape[0], axis=0)
            ticks[:, units] = old[result.configs]
            return ticks, work
        if work >= max_work:
            break
    return None, work
