"""The algorithms ``find_path`` offers and the runners that serve each (:func:`choose_runner`).

One line per algorithm in :data:`ALGORITHMS`: what it is (the text the API's request
schema shows), its runners in order of preference (the first that does not refuse a
query serves it, reporting the algorithm named beside it), and whether its cost is
optimal or bounded. The request schema's description, the ``optimal`` and
``bounded_suboptimal`` flags and the warm-up follow from here. Adding an algorithm:
a member of :class:`~gridpath.search.options.Algorithm`, a runner module under
:mod:`gridpath.search.runners` (or an existing runner), one line below, its tests (the
shared scenarios in ``tests/gridpath/search/scenarios.py`` run every line automatically).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from gridpath.search.options import Algorithm, SearchOptions
from gridpath.search.runner import Query, Runner
from gridpath.search.runners import fast_astar, general, jps, jps_blocks, subgoal, theta
from gridpath.search.warming import require as require_warm

FAST, GENERAL, JPS, THETA = fast_astar.RUNNER, general.RUNNER, jps.RUNNER, theta.RUNNER
JPS_BLOCKS = jps_blocks.RUNNER  # JPS where a revision has no JPS+ jump distances (see its module)
SUBGOAL = subgoal.RUNNER
SUBGOAL_AUTO = subgoal.AUTO_RUNNER


def _never(options: SearchOptions) -> bool:
    return False


def _exact_astar(options: SearchOptions) -> bool:
    return options.admissible and options.heuristic_weight == 1


def _weighted_astar(options: SearchOptions) -> bool:
    return options.admissible and options.heuristic_weight > 1


@dataclass(frozen=True)
class AlgorithmSpec:
    description: str
    runners: tuple[tuple[Runner, Algorithm], ...]  # (runner, the algorithm it reports)
    optimal: Callable[[SearchOptions], bool]  # on uniform terrain (BFS: see find_path)
    bounded_suboptimal: Callable[[SearchOptions], bool] = _never


A = Algorithm
# fmt: off
ALGORITHMS: dict[Algorithm, AlgorithmSpec] = {
    A.AUTO: AlgorithmSpec("auto (default: the subgoal tier where the map revision has it "
                          "and the map is not small, else jps where it applies, else astar)",
                          ((SUBGOAL_AUTO, A.SUBGOAL), (JPS_BLOCKS, A.JPS), (JPS, A.JPS),
                           (FAST, A.ASTAR), (GENERAL, A.ASTAR)),
                          _exact_astar, _weighted_astar),
    A.JPS: AlgorithmSpec("jps (jump point search: uniform cost, 8-connected, no corner cutting)",
                         ((JPS_BLOCKS, A.JPS), (JPS, A.JPS)), _exact_astar),
    A.ASTAR: AlgorithmSpec("astar", ((FAST, A.ASTAR), (GENERAL, A.ASTAR)),
                           _exact_astar, _weighted_astar),
    A.DIJKSTRA: AlgorithmSpec("dijkstra", ((GENERAL, A.DIJKSTRA),), lambda o: True),
    A.BFS: AlgorithmSpec("bfs (fewest steps; ignores terrain)", ((GENERAL, A.BFS),),
                         lambda o: not o.diagonals),  # fewest steps is cheapest if steps cost alike
    A.GREEDY: AlgorithmSpec("greedy (greedy best-first: fast, NOT optimal)",
                            ((GENERAL, A.GREEDY),), _never),
    A.THETA: AlgorithmSpec("theta (Lazy Theta*: any-angle, continuous segment cost, NOT optimal)",
                           ((THETA, A.THETA),), _never),
    A.SUBGOAL: AlgorithmSpec("subgoal (preprocessed subgoal graph with a contraction hierarchy "
                             "where the map revision has one, else as auto; optimal)",
                             ((SUBGOAL, A.SUBGOAL), (JPS_BLOCKS, A.JPS), (JPS, A.JPS),
                              (FAST, A.ASTAR), (GENERAL, A.ASTAR)), _exact_astar,
                             _weighted_astar),
}
# fmt: on


def runners_of(algorithms: dict[Algorithm, AlgorithmSpec]) -> tuple[Runner, ...]:
    """Every runner of ``algorithms`` once, in the order listed."""
    return tuple(dict.fromkeys(r for spec in algorithms.values() for r, _ in spec.runners))


# What the warm-up compiles (gridpath.search.warmup.steps): the serving steps hold every
# runner auto lists, so its answer on any map waits for no kernel once the service is up.
RUNNERS: tuple[Runner, ...] = runners_of(ALGORITHMS)


def is_optimal(options: SearchOptions) -> bool:
    """The returned cost is the minimum under the cost model (on uniform terrain)."""
    return ALGORITHMS[options.algorithm].optimal(options)


def is_bounded_suboptimal(options: SearchOptions) -> bool:
    """Weighted A* with an admissible heuristic: cost <= heuristic_weight x optimal."""
    return ALGORITHMS[options.algorithm].bounded_suboptimal(options)


def algorithm_description() -> str:
    """The request schema's description of ``algorithm``, from the list above."""
    return ", ".join(spec.description for spec in ALGORITHMS.values()) + "."


@dataclass(frozen=True)
class RunnerChoice:
    """Which runner serves a query and which algorithm it reports, or why none can."""

    runner: Runner | None
    algorithm: Algorithm
    reason: str | None = None


def choose_runner(query: Query) -> RunnerChoice:
    """The first runner of the query's algorithm that does not refuse it (else the last
    runner's reason)."""
    reason = None
    for runner, reports in ALGORITHMS[query.options.algorithm].runners:
        reason = runner.refuses(query)
        if reason is None:
            require_warm(runner.name)  # never another runner while this one compiles
            return RunnerChoice(runner, reports)
    return RunnerChoice(None, query.options.algorithm, reason)
