"""Every path body the service returns validates against ``PathResponse``: the body is
built by hand (straight from numpy, app.api.path_body), so this is what keeps it from
drifting away from the documented schema. Every runner (JPS, the fast A*, the general
search), every outcome (found, unreachable, limit reached, partial) and every
combination of ``include`` is reached."""

from __future__ import annotations

import itertools

import pytest

from app.models import EffectiveOptions, ErrorResponse, PathResponse

ARENA = {"map": "arena", "start": [2, 2], "goal": [40, 50]}
INCLUDES = [
    list(c)
    for n in range(5)
    for c in itertools.combinations(["path", "waypoints", "explored", "timing"], n)
]
WALLED_IN = [[x, y] for x in (1, 2, 3) for y in (1, 2, 3) if (x, y) != (2, 2)]  # round start
QUERIES = {
    "auto (jps)": {},
    "astar (fast kernel)": {"algorithm": "astar"},
    "dijkstra, 4-connected": {"algorithm": "dijkstra", "connectivity": 4},
    "bfs": {"algorithm": "bfs"},
    "greedy, not smoothed": {"algorithm": "greedy", "smooth": False},
    "weighted, euclidean": {"heuristic": "euclidean", "heuristic_weight": 1.5},
    "integer cost model": {"cost_model": "integer", "diagonal": "always"},
    "several goals, blocked cells": {
        "goal": None,
        "goals": [[40, 50], [3, 3]],
        "blocked": [[3, 2]],
    },
    "terrain override, turn penalty": {"terrain_costs": {"ground": 2.0}, "turn_penalty": 0.5},
    "unit of size 2": {"clearance": 2},
    "limit reached": {"max_expanded": 3},
    "limit reached, closest (partial)": {"max_expanded": 3, "closest": True},
    "over budget (max_cost)": {"max_cost": 1.0},
    "unreachable (start walled in)": {"blocked": WALLED_IN},
}


def check_body(body: dict) -> PathResponse:
    """Valid under ``PathResponse``, and no key the schema does not document."""
    model = PathResponse.model_validate(body)
    assert set(body) <= set(PathResponse.model_fields), set(body) - set(PathResponse.model_fields)
    assert set(body["options"]) == set(EffectiveOptions.model_fields)
    return model


@pytest.mark.parametrize("name", QUERIES)
def test_every_path_body_matches_the_schema(client, name):
    query = {**ARENA, **QUERIES[name]}
    query = {k: v for k, v in query.items() if v is not None}
    for include in INCLUDES:
        response = client.post("/path", json={**query, "include": include})
        assert response.status_code == 200, response.text
        body = response.json()
        check_body(body)
        for part in ("path", "waypoints", "explored"):
            assert (part in body) == (part in include), (name, include, part)
        assert ("search_us" in body) == ("timing" in include)


def test_every_batch_entry_matches_the_schema(client):
    queries = [{**ARENA, **q} for q in QUERIES.values()]
    queries = [{k: v for k, v in q.items() if v is not None and k != "map"} for q in queries]
    queries.append({"start": [2, 2]})  # an error entry: no goal
    for include in INCLUDES:
        batch = {"map": "arena", "queries": [{**q, "include": include} for q in queries]}
        response = client.post("/paths", json=batch)
        assert response.status_code == 200, response.text
        *answers, error = response.json()["results"]
        for body in answers:
            check_body(body)
        ErrorResponse.model_validate(error)


def test_the_outcomes_are_reached(client):
    """The queries above do reach each outcome (else the schema test proves less)."""
    seen = set()
    for extra in QUERIES.values():
        query = {k: v for k, v in {**ARENA, **extra}.items() if v is not None}
        body = client.post("/path", json=query).json()
        seen.add((body["found"], body["reason"], body["partial"], body["algorithm"]))
    reasons = {(found, reason, partial) for found, reason, partial, _ in seen}
    assert {(True, None, False), (False, "unreachable", False)} <= reasons
    assert {(False, "limit_reached", False), (False, "limit_reached", True)} <= reasons
    assert {a for *_, a in seen} >= {"jps", "astar", "dijkstra", "bfs", "greedy"}


def test_a_query_of_ends_only_shares_the_defaults_options():
    """A query that sets only its ends (and what the options do not read) gets the
    defaults' options made once per caps: equal to those made for it afresh, for each
    cap, and following the settings when they change."""
    from app.api.path_body import _query_options, query_options
    from app.config import Settings
    from app.models import PathQuery
    from gridpath.grid import Grid

    grid = Grid.from_walkable("open", [[True] * 4] * 4)
    settings = Settings()
    ends = PathQuery.model_validate({"start": [0, 0], "goal": [3, 3], "include": ["path"]})
    for cap in (None, 7, 640_000):
        shared = query_options(ends, grid, settings, cap)
        assert shared == _query_options(ends, grid, settings, cap)
        assert query_options(ends, grid, settings, cap) is shared
    settings.max_expanded = 5
    assert query_options(ends, grid, settings).max_expanded == 5
    weighted = PathQuery.model_validate({"start": [0, 0], "goal": [3, 3], "max_expanded": 3})
    assert query_options(weighted, grid, settings).max_expanded == 3
    several = PathQuery.model_validate({"start": [0, 0], "goals": [[3, 3]] * 99})
    with pytest.raises(Exception, match="goals lists 99"):
        query_options(several, grid, Settings(max_goals=10))
