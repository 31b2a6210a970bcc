"""Compile every kernel once (or load it from numba's on-disk cache), in steps.

:data:`STEPS` splits the kernels by what needs them: ``serving`` (loading maps, ``auto``'s
common query on a map without JPS+ jump distances, smoothing, sight lines) first, then one step
per other runner or feature, each with the gates (:mod:`gridpath.search.warming`) its
queries wait on. :func:`warm_up` runs them all here, one after the other (image build,
benches, ``make warmup``); the service starts with :class:`StagedWarmUp`
(:mod:`gridpath.search.staged`): ``serving`` before it answers, the rest compiled by worker
processes in parallel and loaded from the shared cache as each is done.

``python -m gridpath.search.warmup`` compiles every step with a progress line per step;
``--step NAME`` compiles one (what a staged warm-up's worker runs).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from gridpath.grid.model import Grid
from gridpath.grid.terrain import TerrainClass
from gridpath.group.solve import warm_up as group_warm_up
from gridpath.kernel_cache import cache_base, sources_key
from gridpath.search.algorithms import FAST, GENERAL, JPS, JPS_BLOCKS, SUBGOAL, THETA
from gridpath.search.batch import find_pairs
from gridpath.search.find import find_path
from gridpath.search.flowfield import flow_field
from gridpath.search.runner import Runner
from gridpath.search.scratch import SearchScratch
from gridpath.search.smooth import line_of_sight, smooth, turning_points
from gridpath.search.table import cost_table
from gridpath.search.validate import validate_path
from gridpath.world.warmup import warm_up as worlds_warm_up


@dataclass(frozen=True)
class Step:
    """Kernels compiled together: ``run(scratch)`` calls each with the service's argument
    types; ``gates`` are what queries needing them wait on while they compile."""

    name: str
    run: Callable[[SearchScratch], None]
    gates: tuple[str, ...]


def _tiny() -> Grid:
    walkable = np.ones((4, 5), dtype=bool)
    walkable[1, 2] = False
    return Grid.from_walkable("_warmup", walkable)


def _terrain() -> Grid:
    walkable = np.ones((4, 5), dtype=bool)
    walkable[1, 2] = False
    return Grid.from_walkable(
        "_warmup_terrain",
        walkable,
        terrain=(walkable * 1).astype(np.uint8),
        terrain_classes=(TerrainClass("ground", 1.0), TerrainClass("sand", 2.0)),
    )


def _serving(scratch: SearchScratch) -> None:
    """Loading maps and ``auto``'s common query where a map has no JPS+ jump distances: block JPS
    (the bitsets, their edits, the search) and its path finishing (waypoints included)."""
    _warm_runner(JPS_BLOCKS, scratch)
    grid = Grid.from_walkable("_warmup_blocks", np.ones((8, 70), dtype=bool))
    find_path(grid, (0, 0), (69, 5), scratch=scratch, waypoints=True)


def _shared(scratch: SearchScratch) -> None:
    """What the other runners share: smoothing and sight lines (with and without per-request
    walls), and the labels of maps with over 254 connected components."""
    grid = Grid.from_walkable("_warmup_blocks", np.ones((8, 70), dtype=bool))
    result = find_path(grid, (0, 0), (69, 5), scratch=scratch)
    smooth(grid, result.path)
    turning_points(result.path)
    line_of_sight(grid, (0, 0), (69, 5))
    line_of_sight(grid, (0, 0), (69, 5), blocked=[(1, 1)], scratch=scratch)
    smooth(grid, result.path, blocked=[(1, 1)], scratch=scratch)
    # over 254 components, a few of them too small for a label of their own: 360 single
    # cells below one open region (gridpath.grid.components)
    islands = np.zeros((40, 80), dtype=bool)
    islands[:20] = True
    islands[22::2, ::2] = True
    assert Grid.from_walkable("_warmup_islands", islands).components().minor_cells is not None


def _flowfield(scratch: SearchScratch) -> None:
    flow_field(_tiny(), (4, 3), blocked=[(1, 1)], scratch=scratch)
    flow_field(_terrain(), (4, 3), scratch=scratch)


def _table(scratch: SearchScratch) -> None:
    cost_table(_terrain(), [(0, 0), (4, 3)], [(4, 3)], scratch=scratch)  # a flood, searched back


def _validate(scratch: SearchScratch) -> None:
    grid = _tiny()
    path = find_path(grid, (0, 0), (4, 3), scratch=scratch).path
    for blocked in ([], [(1, 1)]):  # without and with an overlay: two specialisations
        validate_path(grid, path, blocked=blocked, compare_optimal=True, scratch=scratch)
        validate_path(grid, path, mode="waypoints", blocked=blocked, scratch=scratch)


def _warm_runner(runner: Runner, scratch: SearchScratch) -> None:
    """Send the runner's declared warm-up queries through ``find_path`` (the runner as the
    service reaches it), and the common ones through ``find_pairs`` too (its batch loop),
    then compile the kernels no query reaches."""
    for query in runner.warm_ups:
        grid = query.grid()
        if query.prepare is not None:
            query.prepare(grid)
        find_path(
            grid, query.start, query.goal, query.options, goals=query.goals,
            blocked=query.blocked, explored_limit=query.explored_limit,
            waypoints=query.waypoints, scratch=scratch,
        )  # fmt: skip
        if query.goal is not None and not (query.goals or query.blocked or query.explored_limit):
            ends = np.array([query.start], dtype=np.int64), np.array([query.goal], np.int64)
            answers = find_pairs(grid, *ends, query.options, scratch)
            if answers is not None:  # its runner has a batch loop
                answers.texts()
    if runner.warm_kernels is not None:
        runner.warm_kernels()


def _runner_step(name: str, runner: Runner, gates: tuple[str, ...]) -> Step:
    return Step(name, lambda scratch: _warm_runner(runner, scratch), gates)


# In the order a staged warm-up loads them: a step may use the kernels of those before it
# (table: JPS per pair and general floods).
STEPS: tuple[Step, ...] = (
    Step("serving", _serving, ("jps_blocks",)),
    Step("shared", _shared, ()),  # before every runner's step below: they wait for it
    _runner_step("jps", JPS, ("jps",)),  # JPS+ jump distances: auto on maps that have one
    _runner_step("astar", FAST, ("fast_astar",)),
    _runner_step("general", GENERAL, ("general",)),  # dijkstra, bfs, greedy, terrain costs
    _runner_step("theta", THETA, ("theta",)),
    _runner_step("subgoal", SUBGOAL, ("subgoal", "subgoal_auto")),
    Step("flowfield", _flowfield, ("flowfield",)),
    Step("table", _table, ("table",)),
    Step("validate", _validate, ("validate",)),
    Step("worlds", worlds_warm_up, ("worlds",)),  # world legs use the steps above
    Step("group", lambda scratch: group_warm_up(), ("group",)),  # POST /group's kernels
)
BY_NAME = {step.name: step for step in STEPS}


def stamp_dir() -> Path:
    return cache_base() / "gridpath-warmup"


def _stamp_path(step: Step) -> Path:
    return stamp_dir() / f"{step.name}-{sources_key()}"


def stamped(step: Step) -> bool:
    """Whether ``step`` was compiled into the cache before (same sources, numba, CPU)."""
    return _stamp_path(step).exists()


def stamp(step: Step) -> None:
    """Record that the cache holds ``step``'s kernels (a read-only cache: nothing)."""
    with contextlib.suppress(OSError):
        _stamp_path(step).parent.mkdir(parents=True, exist_ok=True)
        _stamp_path(step).touch()


def warm_up(progress: Callable[[str], None] | None = None) -> float:
    """Every step, here, one after the other; returns the seconds it took (compile time on
    a cold cache, milliseconds when warm). ``progress`` gets one line per step."""
    began = time.perf_counter()
    scratch = SearchScratch()
    for n, step in enumerate(STEPS, 1):
        if progress is not None:
            elapsed = time.perf_counter() - began
            progress(f"compiling kernels: {step.name} ({n} of {len(STEPS)}), {elapsed:.0f} s")
        step.run(scratch)
        stamp(step)
    return time.perf_counter() - began


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m gridpath.search.warmup")
    parser.add_argument("--step", choices=sorted(BY_NAME), help="compile this step only")
    parser.add_argument("--nice", type=int, default=0, help="lower this process's priority")
    args = parser.parse_args(argv)
    if args.nice > 0:
        os.nice(args.nice)
    if args.step:  # a staged warm-up's worker: the server stamps the step once it loads it
        BY_NAME[args.step].run(SearchScratch())
        return
    seconds = warm_up(lambda line: print(line, flush=True))
    print(f"kernels ready in {seconds:.2f} s", flush=True)


if __name__ == "__main__":
    main()
