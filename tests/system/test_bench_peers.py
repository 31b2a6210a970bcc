"""bench.peers' two orders: ``query`` runs every solver per query, round-robin; ``blocks``
runs each solver's queries back to back per round, in a rotating solver order, and keeps
a query's median time over the rounds. Our own solvers only (the peers come from the
``bench`` extra); the calls are recorded as they happen."""

from __future__ import annotations

import dataclasses

import pytest

from bench import peers
from bench.common import Progress
from tests.conftest import MOVINGAI_DIR, MOVINGAI_MISSING

pytestmark = pytest.mark.skipif(not MOVINGAI_DIR.is_dir(), reason=MOVINGAI_MISSING)
QUERIES = 4


def recording(calls: list[tuple[str, tuple]]) -> tuple[peers.Solver, ...]:
    """Our solvers, each call logged as (solver, start) before it runs."""

    def wrap(solver: peers.Solver) -> peers.Solver:
        def prepare(grid):
            solve, to_path = solver.prepare(grid)

            def logged(start, goal):
                calls.append((solver.name, start))
                return solve(start, goal)

            return logged, to_path

        return dataclasses.replace(solver, prepare=prepare)

    return tuple(wrap(s) for s in peers.SOLVERS if s.ours)


def run_arena(monkeypatch, order: str, rounds: int) -> tuple[peers.MapRun, list, tuple]:
    calls: list[tuple[str, tuple]] = []
    solvers = recording(calls)
    monkeypatch.setattr(peers, "SOLVERS", solvers)
    result = peers.run_map(MOVINGAI_DIR / "arena.map", QUERIES, 1, Progress(1), order, rounds)
    timed = calls[len(solvers) :]  # after one untimed call each
    return result, timed, solvers


def test_blocks_order_runs_each_solvers_queries_back_to_back(monkeypatch):
    run, timed, solvers = run_arena(monkeypatch, "blocks", 2)
    names = [s.name for s in solvers]
    starts = [s.start for s in run.scenarios]
    expected = []
    for r in range(2):
        for name in names[r:] + names[:r]:  # rotated one further each round
            expected += [(name, start) for start in starts]
    assert timed == expected
    assert not run.failures
    for name in names:  # every query answered, timed and optimal
        answers = run.answers[name]
        assert sorted(answers) == list(range(QUERIES))
        assert all(a.problem is None and a.ns > 0 and a.kernel_ns >= 0 for a in answers.values())


def test_query_order_is_round_robin_per_query(monkeypatch):
    run, timed, solvers = run_arena(monkeypatch, "query", 3)  # rounds do not apply
    names = [s.name for s in solvers]
    expected = []
    for i, scenario in enumerate(run.scenarios):
        k = i % len(names)
        expected += [(name, scenario.start) for name in names[k:] + names[:k]]
    assert timed == expected
    assert not run.failures
