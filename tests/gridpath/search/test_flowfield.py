"""Flow fields: cost to the goal for every cell, and a next step that follows it."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gridpath.grid import Grid
from gridpath.grid.terrain import TerrainClass
from gridpath.search import Diagonal, InvalidOption, SearchOptions
from gridpath.search.flowfield import flow_field
from tests.reference import SQRT2, reference_costs

OFFSETS = [(0, -1), (1, 0), (0, 1), (-1, 0), (1, -1), (1, 1), (-1, 1), (-1, -1)]


@st.composite
def case(draw):
    width, height = draw(st.integers(1, 12)), draw(st.integers(1, 12))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    walkable = rng.random((height, width)) >= draw(st.sampled_from([0.0, 0.2, 0.35]))
    terrain = rng.integers(0, 3, size=(height, width)).astype(np.uint8)
    cells = np.argwhere(walkable)
    if len(cells) == 0:
        walkable[0, 0] = True
        cells = np.argwhere(walkable)
    j = draw(st.integers(0, len(cells) - 1))
    return walkable, terrain, (int(cells[j][1]), int(cells[j][0]))


@pytest.mark.parametrize("diagonal", [Diagonal.NO_CORNER_CUT, Diagonal.ONE_FREE, Diagonal.NEVER])
@settings(max_examples=60, deadline=None)
@given(c=case())
def test_costs_and_steps_match_reference(diagonal, c):
    walkable, terrain, goal = c
    classes = (TerrainClass("ground", 1.0), TerrainClass("sand", 2.0), TerrainClass("mud", 3.5))
    grid = Grid.from_walkable("f", walkable, terrain=terrain, terrain_classes=classes)
    field = flow_field(grid, goal, SearchOptions(diagonal=diagonal))
    cell_cost = np.array([1.0, 2.0, 3.5])[terrain]
    expected = reference_costs(walkable, goal, diagonal.value, (1.0, SQRT2), cell_cost)
    h, w = walkable.shape
    for y in range(h):
        for x in range(w):
            if math.isinf(expected[y, x]):
                assert field.cost[y, x] == -1 and field.next[y, x] == -1
                continue
            assert abs(field.cost[y, x] - expected[y, x]) <= 1e-9
            if (x, y) == goal:
                assert field.next[y, x] == -1 and field.cost[y, x] == 0
                continue
            dx, dy = OFFSETS[field.next[y, x]]
            step = (
                (SQRT2 if dx and dy else 1.0) * 0.5 * (cell_cost[y, x] + cell_cost[y + dy, x + dx])
            )
            assert abs(field.cost[y + dy, x + dx] + step - field.cost[y, x]) <= 1e-9
    assert field.reachable == int((~np.isinf(expected)).sum())


def test_turn_penalty_is_refused():
    grid = Grid.from_walkable("g", np.ones((3, 3), dtype=bool))
    with pytest.raises(InvalidOption):
        flow_field(grid, (1, 1), SearchOptions(turn_penalty=1))
