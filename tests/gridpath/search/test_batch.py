"""``find_pairs`` (gridpath/search/batch.py): one compiled call per batch gives every query
``find_path``'s answer field by field (status, reason, path, cost, expansions, turns,
waypoints and what walking them costs), under each exact-pair runner (block JPS, JPS+ and
its byte scan, fast A*), with caps hit, ends in other components, flat buffers that grow,
and scratch generations that wrap; a plan without a batch loop answers None."""

from __future__ import annotations

import numpy as np
import orjson
import pytest

from gridpath.grid import Grid
from gridpath.search import Algorithm, CostModel, SearchOptions, SearchScratch, find_path
from gridpath.search import scratch as scratch_module
from gridpath.search._batch import runs_json
from gridpath.search.batch import find_pairs
from gridpath.search.plan import plan_for
from gridpath.search.runners.jps import jump_distances
from gridpath.search.runners.jps_blocks import prepare_jps

FIELDS = (
    "found", "cost", "expanded", "reason", "goal_index", "partial", "options", "optimal",
    "bounded_suboptimal", "turns", "waypoints_cost",
)  # fmt: skip


def _grid(name: str, density: float, seed: int, shape=(48, 130)) -> Grid:
    walkable = np.random.default_rng(seed).random(shape) >= density
    return Grid.from_walkable(name, walkable)


def _split() -> Grid:
    """Two open halves and a wall between: half the pairs are unreachable without a search."""
    walkable = np.ones((20, 41), dtype=bool)
    walkable[:, 20] = False
    return Grid.from_walkable("split", walkable)


def _pairs(grid: Grid, count: int, seed: int, unit: int = 1) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    ys, xs = np.nonzero(_open(grid, unit))
    picks = rng.integers(0, xs.size, size=(count, 2))
    starts = np.stack([xs[picks[:, 0]], ys[picks[:, 0]]], axis=1).astype(np.int64)
    goals = np.stack([xs[picks[:, 1]], ys[picks[:, 1]]], axis=1).astype(np.int64)
    return starts, goals


def _open(grid: Grid, unit: int) -> np.ndarray:
    """Where a unit of size ``unit`` can stand (the padded clearance, unpadded)."""
    stride = grid.width + 2
    flat = grid.flat.reshape(-1, stride)[1 : grid.height + 1, 1 : grid.width + 1]
    return flat >= unit


def _same_as_find_path(grid, starts, goals, options, scratch=None) -> None:
    answers = find_pairs(grid, starts, goals, options, scratch or SearchScratch())
    assert answers is not None and len(answers) == starts.shape[0]
    for i in range(starts.shape[0]):
        start, goal = tuple(map(int, starts[i])), tuple(map(int, goals[i]))
        want = find_path(grid, start, goal, options, waypoints=True)
        got = answers.result(i)
        for name in FIELDS:
            assert getattr(got, name) == getattr(want, name), (i, name)
            assert type(getattr(got, name)) is type(getattr(want, name)), (i, name)
        assert np.array_equal(got.path, want.path) and np.array_equal(got.waypoints, want.waypoints)
        assert answers.found(i) == want.found
        if want.found:
            assert np.array_equal(answers.path(i), want.path)


def _jps_plus(grid: Grid) -> Grid:
    jump_distances(grid)
    return grid


CASES = {
    "block JPS": (lambda: _grid("open", 0.05, 1), SearchOptions()),
    "JPS byte scan": (lambda: _grid("maze", 0.35, 2), SearchOptions()),
    "JPS+": (lambda: _jps_plus(_grid("jumps", 0.3, 3)), SearchOptions()),
    "JPS, size 2": (lambda: _grid("wide", 0.03, 4), SearchOptions(clearance=2)),
    "fast A*": (lambda: _grid("astar", 0.2, 5), SearchOptions(algorithm=Algorithm.ASTAR)),
    "integer, unsmoothed": (
        lambda: _grid("integer", 0.1, 6),
        SearchOptions(cost_model=CostModel.INTEGER, smooth=False),
    ),
    "capped": (lambda: _grid("capped", 0.2, 7), SearchOptions(max_expanded=5)),
    "components": (_split, SearchOptions(smooth=True)),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_every_answer_is_find_paths(case: str) -> None:
    make, options = CASES[case]
    grid = make()
    prepare_jps(grid)
    starts, goals = _pairs(grid, 60, seed=len(case), unit=options.clearance)
    _same_as_find_path(grid, starts, goals, options)


def test_the_cases_cover_each_runner_and_outcome() -> None:
    """The cases above reach each batch loop, a cap and a skipped search (else they
    would test less than they say)."""
    loops = set()
    for make, options in CASES.values():
        grid = make()
        prepare_jps(grid)
        loops.add(plan_for(grid, options, 0).run.many.__name__)
        starts, goals = _pairs(grid, 60, seed=0, unit=options.clearance)
        answers = find_pairs(grid, starts, goals, options)
        if options.max_expanded == 5:
            assert any(answers.result(i).reason == "limit_reached" for i in range(60))
        if make is _split:
            assert not answers.searched.all() and answers.searched.any()
    assert loops == {"pairs_astar", "pairs_jps", "pairs_blocks"}


def test_long_paths_grow_the_buffers() -> None:
    grid = Grid.from_walkable("long", np.ones((30, 300), dtype=bool))
    starts = np.array([[0, y] for y in range(30)], dtype=np.int64)
    goals = np.array([[299, 29 - y] for y in range(30)], dtype=np.int64)
    _same_as_find_path(grid, starts, goals, SearchOptions(smooth=False))


def test_generations_wrap(monkeypatch: pytest.MonkeyPatch) -> None:
    scratch = SearchScratch()
    grid = _grid("wrap", 0.1, 8)
    starts, goals = _pairs(grid, 20, seed=8)
    find_pairs(grid, starts, goals, SearchOptions(), scratch)  # stamps left in the nodes
    monkeypatch.setattr(scratch_module, "_MAX_GENERATION", scratch.generation + 5)
    _same_as_find_path(grid, starts, goals, SearchOptions(), scratch)
    assert scratch.generation == 20


def test_rows_with_a_wrong_end_are_not_answered() -> None:
    """Outside the map, in the wall: not answered (find_path names the error); the
    others are."""
    grid = _split()
    starts = np.array([[0, 0], [1, 1], [-1, 0], [2, 2], [0, 2**40]], dtype=np.int64)
    goals = np.array([[3, 3], [20, 5], [3, 3], [40, 19], [1, 1]], dtype=np.int64)
    answers = find_pairs(grid, starts, goals, SearchOptions())
    assert answers.answered.tolist() == [True, False, False, True, False]
    assert answers.found(0) and answers.result(3).reason == "unreachable"
    for i in (1, 2, 4):
        with pytest.raises(ValueError):
            answers.result(i)
    _same_as_find_path(grid, starts[[0, 3]], goals[[0, 3]], SearchOptions())


def test_a_plan_without_a_batch_loop_answers_none() -> None:
    grid = _grid("general", 0.1, 9)
    starts, goals = _pairs(grid, 3, seed=9)
    assert find_pairs(grid, starts, goals, SearchOptions(algorithm=Algorithm.DIJKSTRA)) is None


def test_texts_are_orjsons() -> None:
    """``PairAnswers.texts`` writes each path and waypoint list as orjson writes the array
    (``runs_json``, also on runs that are empty and numbers of every size and sign)."""
    grid = _split()
    starts, goals = _pairs(grid, 40, seed=11)
    answers = find_pairs(grid, starts, goals, SearchOptions(smooth=True))
    paths, path_ends, ways, ways_ends = answers.texts()
    numpy = orjson.OPT_SERIALIZE_NUMPY
    for i in range(len(answers)):
        begin = (path_ends[i - 1], ways_ends[i - 1]) if i else (0, 0)
        assert paths[begin[0] : path_ends[i]] == orjson.dumps(answers.path(i), option=numpy)
        assert ways[begin[1] : ways_ends[i]] == orjson.dumps(answers.waypoints_of(i), option=numpy)
    values = np.array([0, 1, 9, 10, 99, 100, -1, -10, 2**31 - 1, -(2**31)], dtype=np.int32)
    cells = np.stack([values, values[::-1]], axis=1)
    text, ends = runs_json(cells, np.array([0, 3, 3, 10], dtype=np.int64))
    runs = [cells[:0], cells[:3], cells[3:3], cells[3:]]
    assert text.tobytes() == b"".join(orjson.dumps(run.tolist()) for run in runs)
    assert ends.tolist() == np.cumsum([len(orjson.dumps(r.tolist())) for r in runs]).tolist()
