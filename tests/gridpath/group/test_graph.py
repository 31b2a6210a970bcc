"""The move graph's lanes (gridpath.group.graph.lane_costs): one-way streets in a
criss-cross, counted only where the lane along is open."""

from __future__ import annotations

import numpy as np
import pytest

from gridpath.group.graph import DIRECTIONS, build_graph, lane_costs


def _cost(graph, costs, x, y, dx, dy) -> int:
    return int(costs[graph.vertex(x, y), DIRECTIONS.index((dx, dy))])


@pytest.mark.parametrize("connectivity", [4, 8])
def test_open_ground_has_criss_crossing_one_way_lanes(connectivity):
    graph = build_graph(np.ones((6, 6), dtype=bool), connectivity)
    costs = lane_costs(graph)
    assert costs.shape == graph.neighbours.shape
    for x in range(1, 5):
        for y in range(1, 5):
            assert _cost(graph, costs, x, y, 1, 0) == (y % 2)  # even rows run east
            assert _cost(graph, costs, x, y, -1, 0) == 1 - (y % 2)
            assert _cost(graph, costs, x, y, 0, 1) == (x % 2)  # even columns run south
            assert _cost(graph, costs, x, y, 0, -1) == 1 - (x % 2)
    if connectivity == 8:
        assert not costs[:, 4:].any()  # diagonals keep no lane


def test_a_one_cell_corridor_is_every_way_s_only_way():
    free = np.zeros((3, 9), dtype=bool)
    free[1, :] = True  # one row: no lane along it
    free[:, 4] = True  # one column across it
    graph = build_graph(free)
    costs = lane_costs(graph)
    assert not costs.any()


def test_a_move_off_the_map_or_into_a_wall_costs_nothing():
    free = np.ones((4, 4), dtype=bool)
    free[1, 2] = False
    graph = build_graph(free)
    costs = lane_costs(graph)
    assert (costs[graph.neighbours < 0] == 0).all()
