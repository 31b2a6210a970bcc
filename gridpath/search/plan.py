"""The plan of a query: which runner serves it and what its answer reports, made once per
map revision, options and query shape and kept with the revision.

A runner's refusal reads only the options, the revision and the query's shape (one goal
or several, blocked cells or none, explored cells or none: :class:`~gridpath.search.
runner.Runner`), so :func:`gridpath.search.algorithms.choose_runner` runs once per plan,
not per query. A plan made before a late preprocessing of its revision appeared (the
data a runner reads, ``Runner.late_preprocessing``) is made again (preprocessing only
appears). Options the map cannot price or an algorithm that cannot serve
raise here, after ``find_path`` checked the endpoints, and are not kept.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import lru_cache

import numpy as np

from gridpath.errors import AlgorithmUnsupported
from gridpath.grid.components import Components
from gridpath.grid.model import Grid
from gridpath.search._records import UNIFORM_COSTS
from gridpath.search.algorithms import (
    ALGORITHMS,
    choose_runner,
    is_bounded_suboptimal,
    is_optimal,
)
from gridpath.search.options import Algorithm, CostModel, Diagonal, InvalidOption, SearchOptions
from gridpath.search.runner import Outcome, Query
from gridpath.search.scratch import SearchScratch

# A query's shape, as the refusals read it: bits of an int (compared without hashing).
SEVERAL_GOALS, BLOCKED, EXPLORED = 1, 2, 4


@dataclass(frozen=True, slots=True)
class Plan:
    """How queries of one shape are served on one map revision under one options."""

    options: SearchOptions  # resolved, with the algorithm the runner reports
    run: Callable[[Query, SearchScratch], Outcome]  # the chosen runner, bound to the plan
    class_cost: np.ndarray  # terrain_prices's: the price of each terrain class
    uniform: bool
    min_cost: float
    optimal: bool
    bounded_suboptimal: bool
    integer: bool  # the integer cost model: costs reported as whole numbers
    components: Components  # for the unit and movement: unreachable without a search
    watch: tuple[str, ...]  # late preprocessing not built yet that the choice depends on
    seen: int  # the revision's derived_count when watch was last found unbuilt


# Per map revision (weakly: a revision no longer served takes its plans with it), under
# (options, shape); under _LAST, the last (options, shape, plan). Bounded per revision;
# past the bound plans are made per query.
_PLANS: weakref.WeakKeyDictionary[Grid, dict] = weakref.WeakKeyDictionary()
_PLANS_LOCK = threading.Lock()
_PLANS_PER_REVISION = 256
_LAST = "last"


def plan_for(grid: Grid, options: SearchOptions, shape: int) -> Plan:
    """The plan for queries of ``shape`` on ``grid`` under ``options`` (unresolved)."""
    plans = _PLANS.get(grid)
    if plans is None:
        with _PLANS_LOCK:
            plans = _PLANS.setdefault(grid, {})
    # The revision's last options first, by identity (the service shares one SearchOptions
    # per distinct request options, and hashing one costs about a microsecond, as much as
    # the rest of this lookup), then by equality.
    last = plans.get(_LAST)
    if last is not None and last[0] is options and last[1] == shape:
        plan = last[2]
    else:
        plan = plans.get((options, shape))
    if plan is not None and plan.watch and grid.derived_count() != plan.seen:
        plan = _rechecked(grid, plan)  # something was built since: is it what plan watches?
        if plan is not None and (options, shape) in plans:
            plans[(options, shape)] = plan
    if plan is None:
        plan = make_plan(grid, options, shape)
        if len(plans) < _PLANS_PER_REVISION:
            plans[(options, shape)] = plan
    plans[_LAST] = (options, shape, plan)
    return plan


def _rechecked(grid: Grid, plan: Plan) -> Plan | None:
    """None if a preprocessing ``plan`` watches has been built (choose again), else
    ``plan`` marked as checked at the revision's current count of derived values (the
    query path then reads one count, not the revision's derived values under its lock)."""
    seen = grid.derived_count()  # read first: a value built during the check is seen later
    if any(grid.built(key) is not None for key in plan.watch):
        return None
    return replace(plan, seen=seen)


def make_plan(grid: Grid, options: SearchOptions, shape: int) -> Plan:
    seen = grid.derived_count()  # before watch is worked out (see _rechecked)
    resolved = options.resolved()
    class_cost, uniform, min_cost = terrain_prices(grid, resolved)
    # No runner's refusal reads the cells (only the shape): placeholders here.
    goals = ((0, 0), (0, 0)) if shape & SEVERAL_GOALS else ((0, 0),)
    blocked = frozenset({(0, 0)}) if shape & BLOCKED else frozenset()
    explored = 1 if shape & EXPLORED else 0
    query = Query(grid, (0, 0), goals, resolved, blocked, explored, class_cost, uniform, min_cost)
    chosen = choose_runner(query)
    if chosen.runner is None:
        raise AlgorithmUnsupported(
            f"algorithm {chosen.algorithm.value} does not apply here: {chosen.reason}"
        )
    chosen_options = query.options = with_algorithm(resolved, chosen.algorithm)
    return Plan(
        options=chosen_options,
        run=chosen.runner.bind(query),
        class_cost=class_cost,
        uniform=uniform,
        min_cost=min_cost,
        optimal=is_optimal(chosen_options) and (uniform or chosen.algorithm != Algorithm.BFS),
        bounded_suboptimal=is_bounded_suboptimal(chosen_options),
        integer=chosen_options.cost_model == CostModel.INTEGER,
        components=grid.components(
            chosen_options.clearance, chosen_options.diagonal == Diagonal.ALWAYS
        ),
        watch=_late_preprocessing(grid, resolved, chosen.runner),
        seen=seen,
    )


def _late_preprocessing(grid: Grid, options: SearchOptions, chosen) -> tuple[str, ...]:
    """The preprocessing not yet built on ``grid`` that the runners up to ``chosen``
    declare as late: what the choice depends on."""
    keys: list[str] = []
    for runner, _ in ALGORITHMS[options.algorithm].runners:
        keys.extend(k for k in runner.late_preprocessing if grid.built(k) is None)
        if runner is chosen:
            break
    return tuple(dict.fromkeys(keys))


@lru_cache(maxsize=1024)
def with_algorithm(options: SearchOptions, algorithm: Algorithm) -> SearchOptions:
    """``options`` with ``algorithm`` (cached: ``replace`` re-validates every field)."""
    if options.algorithm == algorithm:
        return options
    return replace(options, algorithm=algorithm)


def terrain_prices(grid: Grid, options: SearchOptions) -> tuple[np.ndarray, bool, float]:
    """Per-class costs for this search (map costs, then the request's overrides), whether
    every walkable cell costs 1, and the cheapest walkable class cost (scales h)."""
    if not options.terrain_costs and grid.uniform:
        return UNIFORM_COSTS, True, 1.0  # the common case, without per-request work
    costs = [tc.cost for tc in grid.terrain_classes]
    names = [tc.name for tc in grid.terrain_classes]
    for name, cost in options.terrain_costs:
        if name not in names:
            raise InvalidOption(
                "terrain_costs",
                f"map {grid.name!r} has no terrain class {name!r} (classes: {', '.join(names)})",
            )
        costs[names.index(name)] = float(cost)
    present = [costs[i] for i in grid.present_classes] or [1.0]
    if options.cost_model == CostModel.INTEGER:
        for i in grid.present_classes:
            if costs[i] != int(costs[i]):
                raise InvalidOption(
                    "cost_model",
                    f"the integer cost model needs whole-number "
                    f"terrain costs; class {names[i]!r} costs {costs[i]}",
                )
    prices = np.ones(256, dtype=np.float64)
    prices[: len(costs)] = costs
    return prices, all(c == 1.0 for c in present), min(present)
