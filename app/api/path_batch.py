"""A ``/paths`` chunk's common queries in one compiled call.

A query that is only ``{"start": [x, y], "goal": [x, y]}`` (integers: the common one, every
query of a typical batch) searches under the defaults' options, which its batch shares
(``query_options``: they depend only on the caps, the same for every query of a batch).
Such queries, with both ends where the unit can stand, go to
:func:`gridpath.search.batch.find_pairs` together, and the found ones' bodies are built
here from its flat arrays; every other query (other fields, an end that is wrong, an
unfound answer, a plan without a batch loop) is answered one by one as before. The bytes
are the same either way (``tests/app/api/test_path_batch.py``): ``find_pairs`` gives
``find_path``'s answers, and the body is :func:`app.api.path_body.path_body`'s.
"""

from __future__ import annotations

from collections.abc import Sequence
from hashlib import sha256
from typing import Any, Protocol

import numpy as np
import orjson
from orjson import Fragment

from app.api.echo import path_options
from app.api.path_body import path_body, query_options
from app.config import Settings
from app.models import PathQuery
from app.observability import record_searches
from gridpath.errors import ServiceError
from gridpath.grid import Grid
from gridpath.search.batch import FOUND, PairAnswers, find_pairs
from gridpath.search.cost import reported_cost, reported_walk
from gridpath.search.scratch import SearchScratch

_PAIR_KEYS = frozenset({"start", "goal"})
_INT32 = 2**31  # ends beyond int32 are out of every map: answered one by one (their error)
_INCLUDE = frozenset(PathQuery.model_fields["include"].get_default(call_default_factory=True))


class BatchedQuery(Protocol):
    raw: Any
    settings: Settings
    share: int

    def run(self, snapshot: Any, scratch: SearchScratch) -> tuple[dict, float]: ...


def answer_chunk(
    queries: Sequence[BatchedQuery], grid: Grid, scratch: SearchScratch
) -> list[tuple[dict, float]]:
    """Each query's ``(body, search µs)`` on a grid, in order: the common ones through
    ``find_pairs``, the others through their own ``run``."""
    answers: list[tuple[dict, float] | None] = [None] * len(queries)
    plain = [i for i, q in enumerate(queries) if _is_pair(q.raw)]
    if plain:
        _answer_pairs(queries, plain, grid, scratch, answers)
    return [
        answer if answer is not None else query.run(grid, scratch)
        for query, answer in zip(queries, answers, strict=True)
    ]


def _is_pair(raw: Any) -> bool:
    """``{"start": [x, y], "goal": [x, y]}`` with int32 integers, nothing else."""
    if type(raw) is not dict or raw.keys() != _PAIR_KEYS:
        return False
    start, goal = raw["start"], raw["goal"]
    if type(start) is not list or type(goal) is not list or len(start) != 2 or len(goal) != 2:
        return False
    (x, y), (gx, gy) = start, goal
    return (
        type(x) is int and type(y) is int and type(gx) is int and type(gy) is int
        and -_INT32 <= x < _INT32 and -_INT32 <= y < _INT32
        and -_INT32 <= gx < _INT32 and -_INT32 <= gy < _INT32
    )  # fmt: skip


def _answer_pairs(
    queries: Sequence[BatchedQuery],
    plain: list[int],
    grid: Grid,
    scratch: SearchScratch,
    answers: list,
) -> None:
    """``answers[i]`` for the queries ``plain`` names whose ends are open (the others'
    errors come from their own run)."""
    first = queries[plain[0]]
    options = query_options(PathQuery.model_validate(first.raw), grid, first.settings, first.share)
    raws = [queries[i].raw for i in plain]
    starts = np.array([raw["start"] for raw in raws], dtype=np.int64)
    goals = np.array([raw["goal"] for raw in raws], dtype=np.int64)
    try:
        found = find_pairs(grid, starts, goals, options, scratch)
    except ServiceError:  # the plan's error: every query gets it from its own run
        return
    if found is None:
        return
    bodies = _Bodies(grid, found)
    rows = found.table.tolist()
    for row, (i, answered) in enumerate(zip(plain, found.answered.tolist(), strict=True)):
        if answered:
            answers[i] = bodies.answer(rows, row)
    record_searches(bodies.algorithm, bodies.searches)


class _Bodies:
    """The ``PathResponse`` bodies of one ``find_pairs`` call (what ``path_body`` builds
    for a query including path and waypoints), the parts every query shares made once,
    the table read as Python numbers once (``rows``). The paths and waypoints go into the
    bodies as their JSON text (``PairAnswers.texts``, the bytes orjson writes for an
    ``(n, 2)`` array, in orjson fragments: writing a small array costs orjson about a
    microsecond, as much as the rest of the body)."""

    def __init__(self, grid: Grid, found: PairAnswers) -> None:
        plan = found.plan
        self.grid, self.found, self.plan = grid, found, plan
        self.walked = found.walked.tolist()
        self.steps = plan.options.step_weights
        self.algorithm = plan.options.algorithm.value
        self.optimal, self.bounded = plan.optimal, plan.bounded_suboptimal
        # the echo serialised once (orjson writes a fragment's bytes as they are)
        self.echo = orjson.Fragment(orjson.dumps(path_options(grid, plan.options)))
        self.searches: list[tuple[int, float, str | None]] = []  # for record_searches
        self.paths, self.path_ends, self.ways, self.ways_ends = found.texts()
        used = found.table[-1, 2] if len(found) else 0
        # path_hash's bytes: int32 little-endian x, y pairs, 8 bytes a cell
        self.bytes = found.cells[:used].astype("<i4", copy=False).tobytes()

    def answer(self, rows: list[list[int]], row: int) -> tuple[dict, float]:
        found, search_us = self.found, self.found.search_us_of(row)
        status, expanded, path_end, _, orth, diag, turns = rows[row]
        if status != FOUND:
            result = found.result(row)
            self.searches.append((result.expanded, search_us, result.reason))
            return path_body(self.grid, result, _INCLUDE), search_us
        path_begin = path_text = ways_text = 0
        if row > 0:
            path_begin, path_text, ways_text = (
                rows[row - 1][2],
                self.path_ends[row - 1],
                self.ways_ends[row - 1],
            )
        integer = self.plan.integer
        cost = reported_cost(orth * self.steps[0] + diag * self.steps[1], integer)
        walked = reported_walk(self.walked[row], integer)
        self.searches.append((expanded, search_us, None))
        body = {
            "map": self.grid.name, "revision": self.grid.revision, "found": True,
            "reason": None, "partial": False, "goal_index": 0, "cost": cost,
            "path": Fragment(self.paths[path_text : self.path_ends[row]]),
            "waypoints": Fragment(self.ways[ways_text : self.ways_ends[row]]),
            "waypoints_cost": walked,
            "path_hash": sha256(self.bytes[8 * path_begin : 8 * path_end]).hexdigest(),
            "turns": turns, "expanded": expanded, "algorithm": self.algorithm,
            "optimal": self.optimal, "bounded_suboptimal": self.bounded, "options": self.echo,
        }  # fmt: skip
        return body, search_us
