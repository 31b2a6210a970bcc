"""Turn penalty: optimal for the penalised cost, and the straightest among shortest paths."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import dijkstra

from gridpath.grid import Grid
from gridpath.search import CostModel, Diagonal, InvalidOption, SearchOptions, find_path
from gridpath.search.find import count_turns
from tests.reference import SQRT2, path_cost, reference_costs, step_is_legal

HEADINGS = [(0, -1), (1, 0), (0, 1), (-1, 0), (1, -1), (1, 1), (-1, 1), (-1, -1)]


def reference_penalised(walkable, start, goal, penalty, diagonal="no_corner_cut"):
    """Shortest penalised cost on the explicit (cell, heading) graph."""
    h, w = walkable.shape
    index = lambda x, y, k: (y * w + x) * 9 + k  # noqa: E731
    rows, cols, costs = [], [], []
    for y in range(h):
        for x in range(w):
            for k, (dx, dy) in enumerate(HEADINGS):
                if not step_is_legal(walkable, (x, y), (x + dx, y + dy), diagonal):
                    continue
                step = SQRT2 if dx and dy else 1.0
                for heading in range(9):
                    turn = penalty if heading != 8 and heading != k else 0.0
                    rows.append(index(x, y, heading))
                    cols.append(index(x + dx, y + dy, k))
                    costs.append(step + turn)
    graph = coo_matrix((costs, (rows, cols)), shape=(h * w * 9, h * w * 9)).tocsr()
    dist = dijkstra(graph, indices=index(*start, 8))
    return min(dist[index(*goal, k)] for k in range(9))


@st.composite
def case(draw):
    width, height = draw(st.integers(1, 8)), draw(st.integers(1, 8))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    walkable = rng.random((height, width)) >= draw(st.sampled_from([0.0, 0.2, 0.35]))
    cells = np.argwhere(walkable)
    if len(cells) < 1:
        walkable[0, 0] = True
        cells = np.argwhere(walkable)
    i, j = draw(st.integers(0, len(cells) - 1)), draw(st.integers(0, len(cells) - 1))
    return walkable, (int(cells[i][1]), int(cells[i][0])), (int(cells[j][1]), int(cells[j][0]))


@pytest.mark.parametrize("penalty", [0.5, 1.0, 3.0])
@settings(max_examples=50, deadline=None)
@given(c=case())
def test_penalised_cost_is_optimal(penalty, c):
    walkable, start, goal = c
    result = find_path(
        Grid.from_walkable("t", walkable), start, goal, SearchOptions(turn_penalty=penalty)
    )
    expected = reference_penalised(walkable, start, goal, penalty)
    if math.isinf(expected):
        assert not result.found
        return
    cells = [tuple(p) for p in result.path.tolist()]
    assert all(step_is_legal(walkable, a, b) for a, b in zip(cells, cells[1:]))
    assert result.optimal
    assert abs(path_cost(cells) + penalty * result.turns - expected) <= 1e-9
    assert abs(result.cost - path_cost(cells)) <= 1e-9  # cost stays the movement cost


def test_open_field_path_has_fewest_turns_among_shortest():
    walkable = np.ones((12, 12), dtype=bool)
    grid = Grid.from_walkable("field", walkable)
    start, goal = (0, 0), (11, 5)
    shortest = reference_costs(walkable, start)[goal[1], goal[0]]
    # A tiny penalty keeps the path shortest and picks the fewest turns: one turn at most.
    straight = find_path(grid, start, goal, SearchOptions(turn_penalty=1e-3))
    assert abs(straight.cost - shortest) <= 1e-9
    assert straight.turns == 1
    assert count_turns(find_path(grid, start, goal).path) >= straight.turns


def test_turn_penalty_in_integer_model_and_validation():
    grid = Grid.from_walkable("g", np.ones((5, 5), dtype=bool))
    result = find_path(
        grid, (0, 0), (4, 2), SearchOptions(turn_penalty=5, cost_model=CostModel.INTEGER)
    )
    assert isinstance(result.cost, int) and result.turns == 1
    with pytest.raises(InvalidOption):
        SearchOptions(turn_penalty=-1)
    with pytest.raises(InvalidOption):
        SearchOptions(turn_penalty=0.5, cost_model=CostModel.INTEGER)


def test_turn_penalty_with_4_connectivity():
    walkable = np.ones((6, 6), dtype=bool)
    result = find_path(
        Grid.from_walkable("g", walkable),
        (0, 0),
        (5, 5),
        SearchOptions(turn_penalty=2, connectivity=4),
    )
    assert result.cost == 10 and result.turns == 1
    assert Diagonal.NEVER == SearchOptions(connectivity=4).resolved().diagonal
