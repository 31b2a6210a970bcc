"""The plan and the registry: which runner serves a query, the flags and texts that
follow from the registry, and what adding a runner takes (one module, one line)."""

from __future__ import annotations

import time
from collections import deque
from dataclasses import replace

import numpy as np
import pytest

from app.models import PathOptions
from gridpath.errors import AlgorithmUnsupported
from gridpath.grid import Grid
from gridpath.search import Algorithm, SearchOptions, SearchScratch, find_path, warmup
from gridpath.search._frontier import FOUND, UNREACHABLE
from gridpath.search.algorithms import (
    ALGORITHMS,
    FAST,
    GENERAL,
    JPS,
    RUNNERS,
    AlgorithmSpec,
    algorithm_description,
    choose_runner,
    is_bounded_suboptimal,
    is_optimal,
)
from gridpath.search.find import checked_query
from gridpath.search.runner import Outcome, Query, Runner, WarmUp
from gridpath.search.scratch import SearchScratch as Scratch
from gridpath.search.warmup_grids import room
from tests.conftest import make_grid
from tests.gridpath.search.test_scenarios import run_scenarios

ROOM = make_grid(".......\n..##...\n.......\n.......\n.......")


def query(options: SearchOptions, blocked=()) -> Query:
    return checked_query(ROOM, (0, 0), (4, 2), None, options, blocked, 0)


@pytest.mark.parametrize(
    ("options", "blocked", "runner", "reports"),
    [
        (SearchOptions(), (), JPS, Algorithm.JPS),
        (SearchOptions(), [(4, 0)], GENERAL, Algorithm.ASTAR),  # JPS: no blocked cells
        (SearchOptions(algorithm=Algorithm.ASTAR), (), FAST, Algorithm.ASTAR),
        (SearchOptions(algorithm=Algorithm.ASTAR, clearance=2), (), GENERAL, Algorithm.ASTAR),
        (SearchOptions(connectivity=4), (), GENERAL, Algorithm.ASTAR),
        (SearchOptions(algorithm=Algorithm.DIJKSTRA), (), GENERAL, Algorithm.DIJKSTRA),
        (SearchOptions(algorithm=Algorithm.JPS, clearance=2), (), JPS, Algorithm.JPS),
    ],
)
def test_the_plan_names_the_runner(options, blocked, runner, reports):
    chosen = choose_runner(query(options, blocked=blocked))
    assert (chosen.runner, chosen.algorithm, chosen.reason) == (runner, reports, None)


def test_the_plan_says_why_no_runner_can():
    chosen = choose_runner(query(SearchOptions(algorithm=Algorithm.JPS, connectivity=4)))
    assert chosen.runner is None and "8-connected" in chosen.reason
    with pytest.raises(AlgorithmUnsupported, match="algorithm jps does not apply here"):
        find_path(ROOM, (0, 0), (4, 2), SearchOptions(algorithm=Algorithm.JPS, connectivity=4))


def test_every_algorithm_has_one_registry_line_and_the_schema_follows_it():
    assert list(ALGORITHMS) == list(Algorithm)
    assert PathOptions.model_fields["algorithm"].description == algorithm_description()
    for algorithm, spec in ALGORITHMS.items():
        assert spec.description.split(" ")[0] == algorithm.value
        assert spec.runners, algorithm


def test_the_flags_follow_the_registry():
    assert is_optimal(SearchOptions()) and not is_bounded_suboptimal(SearchOptions())
    weighted = SearchOptions(heuristic_weight=2.0)
    assert is_bounded_suboptimal(weighted) and not is_optimal(weighted)
    assert not is_optimal(SearchOptions(algorithm=Algorithm.GREEDY))
    assert is_optimal(SearchOptions(algorithm=Algorithm.BFS, connectivity=4))


# --- What adding a runner takes: this module, and one registry line (added for the test
# below with monkeypatch, removed after it). A breadth-first search in plain Python for
# 4-connected movement on uniform terrain, nothing per request.


def _refuses(query: Query) -> str | None:
    o = query.options
    if o.connectivity != 4 or not query.uniform or o.clearance != 1:
        return "it runs 4-connected on uniform terrain, units of size 1"
    if len(query.goals) != 1 or query.blocked or query.explored_limit or o.closest:
        return "it searches for one goal, nothing per request"
    return None


def _run(query: Query, scratch: Scratch) -> Outcome:
    grid, goal = query.grid, query.goals[0]
    began = time.perf_counter_ns()
    parent = {query.start: None}
    frontier = deque([query.start])
    expanded = 0
    while frontier:
        cell = frontier.popleft()
        expanded += 1
        if cell == goal:
            break
        x, y = cell
        for nxt in ((x, y - 1), (x + 1, y), (x, y + 1), (x - 1, y)):  # N E S W
            if grid.is_walkable(*nxt) and nxt not in parent:
                parent[nxt] = cell
                frontier.append(nxt)
    search_us = (time.perf_counter_ns() - began) / 1000
    if goal not in parent:
        return Outcome(UNREACHABLE, expanded, search_us)
    path = [goal]
    while parent[path[-1]] is not None:
        path.append(parent[path[-1]])
    steps = len(path) - 1
    cost = steps * query.options.step_weights[0]
    return Outcome(FOUND, expanded, search_us, np.array(path[::-1], np.int32), cost, 0)


PYTHON_BFS = Runner.plain("python_bfs", _refuses, _run)


def test_a_new_runner_is_one_module_and_one_registry_line(monkeypatch):
    spec = ALGORITHMS[Algorithm.BFS]
    line = replace(spec, runners=((PYTHON_BFS, Algorithm.BFS), *spec.runners))  # the line
    monkeypatch.setitem(ALGORITHMS, Algorithm.BFS, line)
    assert isinstance(line, AlgorithmSpec)
    options = SearchOptions(algorithm=Algorithm.BFS, connectivity=4)
    assert choose_runner(query(options)).runner is PYTHON_BFS
    # A revision of its own: find_path keeps the plans it makes with the revision.
    room = Grid.from_walkable("room", ROOM.walkable > 0)
    result = find_path(room, (0, 0), (4, 2), options, scratch=SearchScratch())
    assert result.found and result.cost == 6 and result.optimal
    assert run_scenarios(Algorithm.BFS, PYTHON_BFS, Algorithm.BFS) > 0  # the shared scenarios


def test_the_new_runner_is_gone_after_the_test():
    assert all(r is not PYTHON_BFS for r, _ in ALGORITHMS[Algorithm.BFS].runners)


def test_a_grid_revision_keeps_its_own_derived_tables():
    grid = Grid.from_walkable("t", np.ones((3, 3), dtype=bool))
    calls = []

    def build(g: Grid) -> np.ndarray:
        calls.append(g.revision)
        return np.zeros(4)

    assert grid.derived(("x", 1), build) is grid.derived(("x", 1), build)  # built once
    later = Grid.from_walkable("t", np.ones((3, 3), dtype=bool), revision=2).derive_like(grid)
    assert calls == [1, 2] and later.nbytes == grid.nbytes


# --- the warm-up follows the registry -------------------------------------------------


def test_every_runner_is_warmed_in_one_step_and_auto_before_serving():
    steps = warmup.steps()
    gates = [gate for step in steps for gate in step.gates]
    runners = {runner.name for runner in RUNNERS}
    assert runners <= set(gates) and len(gates) == len(set(gates))  # each gate in one step
    auto = {runner.name for runner, _ in ALGORITHMS[Algorithm.AUTO].runners}
    serving = [step for step in steps if step.serving]
    assert steps[: len(serving)] == tuple(serving)  # first: the service answers after them
    assert auto <= {gate for step in serving for gate in step.gates}
    assert {g for s in serving for g in s.gates} & runners - auto <= {"subgoal"}  # its kernels
    shape = [(s.name, s.gates, s.serving) for s in steps]
    assert [(s.name, s.gates, s.serving) for s in warmup.STEPS] == shape


def test_a_new_runner_gets_a_warm_up_step_of_its_own(monkeypatch):
    """One registry line is all it takes: a runner of ``bfs`` gets a later step running its
    warm-up queries; one that ``auto`` lists is compiled before the service answers; one
    running another's kernels (``kernels_of``) is warmed in that runner's step."""
    warm = WarmUp(room, (0, 0), (4, 3), SearchOptions(algorithm=Algorithm.BFS, connectivity=4))
    runs = []
    toy = Runner.plain("toy_bfs", _refuses, lambda q, s: runs.append(q) or _run(q, s), (warm,))
    alias = Runner.plain("toy_alias", _refuses, _run, kernels_of=toy)
    bfs, auto = ALGORITHMS[Algorithm.BFS], ALGORITHMS[Algorithm.AUTO]
    monkeypatch.setitem(ALGORITHMS, Algorithm.BFS, replace(bfs, runners=((toy, Algorithm.BFS),)))
    step = {s.name: s for s in warmup.steps()}["toy_bfs"]
    assert not step.serving and step.gates == ("toy_bfs",)
    step.run(Scratch())
    assert runs  # its warm-up query went through find_path to it
    line = replace(auto, runners=((alias, Algorithm.BFS), *auto.runners))
    monkeypatch.setitem(ALGORITHMS, Algorithm.AUTO, line)
    by_name = {s.name: s for s in warmup.steps()}
    assert "toy_alias" not in by_name and by_name["toy_bfs"].serving
    assert by_name["toy_bfs"].gates == ("toy_bfs", "toy_alias")
