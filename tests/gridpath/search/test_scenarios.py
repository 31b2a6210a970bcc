"""Every registered runner against the shared scenarios (tests/gridpath/search/scenarios.py).

For each algorithm of the registry and each runner it lists, every scenario that runner
does not refuse is searched under each movement rule and cost model. A runner whose
algorithm is optimal there must find exactly the expected cost; any other must return a
legal path between the endpoints whose cost is the path's own, at least the optimum. A
new runner or a new registry line is tested here without a line of test code.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from gridpath.grid import Grid
from gridpath.search import (
    Algorithm,
    CostModel,
    Diagonal,
    SearchOptions,
    SearchScratch,
    subgoal_graph,
)
from gridpath.search._frontier import FOUND, UNREACHABLE
from gridpath.search.algorithms import ALGORITHMS, RUNNERS, is_optimal
from gridpath.search.find import checked_query
from gridpath.search.runner import Runner
from gridpath.search.runners import subgoal as subgoal_runner
from tests.gridpath.search.scenarios import RULES, SCENARIOS, Scenario
from tests.reference import (
    SQRT2,
    grid_from_ascii,
    path_cost,
    reference_costs,
    reference_line_of_sight_rule,
    step_is_legal,
)

MOVEMENT = {
    "4": {"connectivity": 4},
    "never": {"diagonal": Diagonal.NEVER},
    "no_corner_cut": {"diagonal": Diagonal.NO_CORNER_CUT},
    "one_free": {"diagonal": Diagonal.ONE_FREE},
    "always": {"diagonal": Diagonal.ALWAYS},
}
WEIGHTS = {CostModel.FLOAT: (1.0, SQRT2), CostModel.INTEGER: (10.0, 14.0)}


def expected_cost(scenario: Scenario, rule: str, model: CostModel) -> float | None:
    steps = scenario.expected[rule]
    if steps is None:
        return None
    orth, diag = WEIGHTS[model]
    return steps[0] * orth + steps[1] * diag


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.name)
def test_the_scenarios_hold_against_the_reference(scenario):
    """The hand-written figures agree with an independent Dijkstra (scipy)."""
    walkable = grid_from_ascii(scenario.ascii)
    assert set(scenario.expected) == set(RULES)
    for rule in RULES:
        corner = "never" if rule == "4" else rule
        cost = reference_costs(walkable, scenario.start, corner)[scenario.goal[::-1]]
        want = expected_cost(scenario, rule, CostModel.FLOAT)
        assert (want is None and np.isinf(cost)) or want == pytest.approx(cost, abs=1e-9)


CASES = [
    (algorithm, runner, reports)
    for algorithm, spec in ALGORITHMS.items()
    for runner, reports in spec.runners
]


def run_scenarios(algorithm, runner: Runner, reports, options_for=SearchOptions) -> int:
    """Run ``runner`` (serving ``algorithm``, reporting ``reports``) on every scenario it
    does not refuse (with the default JPS+ jump distances limit, or failing that without tables),
    under each rule and cost model; returns how many it served."""
    scratch = SearchScratch()
    served = 0
    for scenario in SCENARIOS:
        walkable = grid_from_ascii(scenario.ascii)
        grid = Grid.from_walkable("scenario", walkable)
        subgoal_graph(grid)  # a revision as the service publishes it: with its subgoal tier
        for rule in RULES:
            for model in CostModel:
                options = options_for(algorithm=algorithm, cost_model=model, **MOVEMENT[rule])
                query = checked_query(grid, scenario.start, scenario.goal, None, options, (), 0)
                if runner.refuses(query) is not None:
                    continue
                served += 1
                chosen = replace(query.options, algorithm=reports)
                outcome = runner.run(replace(query, options=chosen), scratch)
                check(scenario, rule, model, chosen, walkable, outcome)
    return served


def check(scenario, rule, model, options, walkable, outcome) -> None:
    where = f"{scenario.name}, rule {rule}, {model.value}"
    want = expected_cost(scenario, rule, model)
    if want is None:
        assert outcome.status == UNREACHABLE and outcome.path.shape == (0, 2), where
        return
    assert outcome.status == FOUND, where
    cells = [tuple(c) for c in outcome.path.tolist()]
    assert cells[0] == scenario.start and cells[-1] == scenario.goal, where
    corner = "never" if rule == "4" else rule
    for a, b in zip(cells, cells[1:]):
        assert step_is_legal(walkable, a, b, corner), f"{where}: illegal step {a} -> {b}"
    if options.algorithm == Algorithm.THETA:  # any-angle: the cost is its polyline's length
        check_any_angle(where, corner, walkable, outcome, want)
        return
    own = path_cost(cells, WEIGHTS[model])
    assert outcome.cost == pytest.approx(own, abs=1e-9), where
    if is_optimal(options):
        assert outcome.cost == pytest.approx(want, abs=1e-9), where
    else:
        assert outcome.cost >= want - 1e-9, where


def check_any_angle(where, corner, walkable, outcome, want) -> None:
    """Vertices between the ends, each segment in sight (the independent reference), the
    cost their polyline's length: between the straight line and the optimal grid cost."""
    vertices = [tuple(v) for v in outcome.waypoints.tolist()]
    assert vertices[0] == tuple(outcome.path[0]) and vertices[-1] == tuple(outcome.path[-1])
    for a, b in zip(vertices, vertices[1:]):
        assert reference_line_of_sight_rule(walkable, a, b, corner), f"{where}: {a} -> {b}"
    length = sum(math.dist(a, b) for a, b in zip(vertices, vertices[1:]))
    assert outcome.cost == pytest.approx(length, abs=1e-9), where
    assert math.dist(vertices[0], vertices[-1]) - 1e-9 <= outcome.cost <= want + 1e-9, where


@pytest.mark.parametrize(
    ("algorithm", "runner", "reports"),
    CASES,
    ids=[f"{a.value}-{r.name}" for a, r, _ in CASES],
)
def test_every_runner_on_every_scenario(algorithm, runner, reports, monkeypatch):
    if runner is subgoal_runner.AUTO_RUNNER:  # the scenarios are small maps: open auto's
        monkeypatch.setattr(subgoal_runner, "AUTO_MIN_CELLS", 1)  # size gate (test_subgoal)
    assert run_scenarios(algorithm, runner, reports) > 0, "the runner refused every scenario"


def test_every_runner_is_registered_for_some_algorithm():
    assert {r.name for r in RUNNERS} == {
        "jps_blocks",
        "jps",
        "fast_astar",
        "general",
        "theta",
        "subgoal",
        "subgoal_auto",
    }
    assert len({r.name for r in RUNNERS}) == len(RUNNERS)
