"""Random group orders for the solver's tests: a map with random walls and distinct
random starts and goals in its largest component."""

from __future__ import annotations

import numpy as np

from gridpath.group.graph import MoveGraph, build_graph
from gridpath.group.solve import GroupOrder, make_order


def cells_of(graph: MoveGraph, column) -> list[tuple[int, int]]:
    """Vertex ids as (x, y) cells."""
    return [(int(graph.xs[v]), int(graph.ys[v])) for v in column]


def random_order(
    seed: int, n: int, shape=(16, 16), walls=0.2, connectivity=4, *, as_bench=False
) -> tuple[np.ndarray, MoveGraph, GroupOrder]:
    """``(free, graph, order)``. ``as_bench``: the map and the picks each from a generator
    of their own seeded alike, as bench/group.py makes them; else one generator for both."""
    rng = np.random.default_rng(seed)
    free = rng.random(shape) >= walls
    graph = build_graph(free, connectivity)
    cells = np.nonzero(graph.component == np.bincount(graph.component).argmax())[0]
    if as_bench:
        rng = np.random.default_rng(seed)
    starts, goals = (rng.choice(cells, n, replace=False) for _ in range(2))
    return free, graph, make_order(graph, cells_of(graph, starts), cells_of(graph, goals))
