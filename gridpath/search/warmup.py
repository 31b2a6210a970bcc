"""Compile every kernel once (or load it from numba's on-disk cache), in steps.

:data:`STEPS` splits the kernels by what needs them, in steps derived from the registry
(:mod:`gridpath.search.algorithms`): first the serving steps, one per runner ``auto`` may
choose (so its answer on any map, with the default options, needs nothing more), then the
shared smoothing and sight lines, one step per other runner, and the other features, each
with the gates (:mod:`gridpath.search.warming`) its queries wait on. :func:`warm_up` runs
them all here, one after the other (image build, benches, ``make warmup``); the service
starts with :class:`StagedWarmUp` (:mod:`gridpath.search.staged`): the serving steps
before it answers (here and in worker processes, in parallel), the rest compiled by
worker processes and loaded from the shared cache as each is done.

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
from functools import partial
from pathlib import Path

import numpy as np

from gridpath.grid.model import Grid
from gridpath.group.budget import machine_rate
from gridpath.group.solve import warm_up as group_warm_up
from gridpath.kernel_cache import cache_base, sources_key
from gridpath.search.algorithms import ALGORITHMS, AlgorithmSpec, runners_of
from gridpath.search.batch import find_pairs
from gridpath.search.find import find_path
from gridpath.search.flowfield import flow_field
from gridpath.search.options import Algorithm
from gridpath.search.runner import Runner
from gridpath.search.scratch import SearchScratch
from gridpath.search.smooth import line_of_sight, smooth, turning_points
from gridpath.search.table import cost_table
from gridpath.search.validate import validate_path
from gridpath.search.warmup_grids import corridor, room, terrain_room
from gridpath.world.warmup import warm_up as worlds_warm_up


@dataclass(frozen=True)
class Step:
    """Kernels compiled together: ``run(scratch)`` calls each with the service's argument
    types; ``gates`` are what queries needing them wait on while they compile; ``serving``:
    the service compiles it before it answers (every runner ``auto`` may choose)."""

    name: str
    run: Callable[[SearchScratch], None]
    gates: tuple[str, ...]
    serving: bool = False


def _shared(scratch: SearchScratch) -> None:
    """What the other runners share: smoothing and sight lines (with and without per-request
    walls), and the labels of maps with over 254 connected components."""
    grid = corridor()
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
    flow_field(room(), (4, 3), blocked=[(1, 1)], scratch=scratch)
    flow_field(terrain_room(), (4, 3), scratch=scratch)


def _table(scratch: SearchScratch) -> None:
    cost_table(terrain_room(), [(0, 0), (4, 3)], [(4, 3)], scratch=scratch)  # searched back


def _validate(scratch: SearchScratch) -> None:
    grid = room()
    path = find_path(grid, (0, 0), (4, 3), scratch=scratch).path
    for blocked in ([], [(1, 1)]):  # without and with an overlay: two specialisations
        validate_path(grid, path, blocked=blocked, compare_optimal=True, scratch=scratch)
        validate_path(grid, path, mode="waypoints", blocked=blocked, scratch=scratch)


def _warm_runner(runner: Runner, scratch: SearchScratch) -> None:
    """Send the runner's declared warm-up queries through ``find_path`` (the runner as the
    service reaches it, with waypoints), and the common ones through ``find_pairs`` too (its
    batch loop), then compile the kernels no query reaches."""
    for query in runner.warm_ups:
        grid = query.grid()
        if query.prepare is not None:
            query.prepare(grid)
        find_path(
            grid, query.start, query.goal, query.options, goals=query.goals,
            blocked=query.blocked, explored_limit=query.explored_limit, waypoints=True,
            scratch=scratch,
        )  # fmt: skip
        if query.goal is not None and not (query.goals or query.blocked or query.explored_limit):
            ends = np.array([query.start], dtype=np.int64), np.array([query.goal], np.int64)
            answers = find_pairs(grid, *ends, query.options, scratch)
            if answers is not None:  # its runner has a batch loop
                answers.texts()
    if runner.warm_kernels is not None:
        runner.warm_kernels()


def runner_steps(algorithms: dict[Algorithm, AlgorithmSpec] = ALGORITHMS) -> tuple[Step, ...]:
    """A step per runner of the registry with kernels of its own, in its order, named after
    it: its gates are its name and those of the runners that run its kernels
    (``Runner.kernels_of``); a step holding a runner ``auto`` lists is a serving step."""
    auto = {runner.name for runner, _ in algorithms[Algorithm.AUTO].runners}
    owners: dict[str, Runner] = {}
    gates: dict[str, list[str]] = {}
    for runner in runners_of(algorithms):
        owner = runner.kernels_of or runner
        owners.setdefault(owner.name, owner)
        gates.setdefault(owner.name, []).append(runner.name)
    return tuple(
        Step(name, partial(_warm_runner, owner), tuple(dict.fromkeys([name, *gates[name]])),
             serving=not auto.isdisjoint(gates[name]))
        for name, owner in owners.items()
    )  # fmt: skip


def steps(algorithms: dict[Algorithm, AlgorithmSpec] = ALGORITHMS) -> tuple[Step, ...]:
    """Every step, in the order a staged warm-up loads them: the serving steps, then the rest
    (a step may use the kernels of those before it: table, JPS per pair and general floods)."""
    runners = runner_steps(algorithms)
    return (
        *(step for step in runners if step.serving),
        Step("shared", _shared, ()),  # before the other runners' steps: they wait for it
        *(step for step in runners if not step.serving),
        Step("flowfield", _flowfield, ("flowfield",)),
        Step("table", _table, ("table",)),
        Step("validate", _validate, ("validate",)),
        # POST /group's kernels, then the machine's work rate (measured once, kept beside them)
        Step("group", lambda scratch: (group_warm_up(), machine_rate()), ("group",)),
        Step("worlds", worlds_warm_up, ("worlds",)),  # world legs use the steps above
    )


STEPS: tuple[Step, ...] = steps()
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
