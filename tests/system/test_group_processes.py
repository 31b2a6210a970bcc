"""POST /group across two real server processes: byte-identical answers (the budget counts
work, not time), and every plan through the independent checker."""

from __future__ import annotations

import json
import urllib.request

import numpy as np
import pytest

from bench.server import ServerSpec, running_server
from gridpath.group.graph import build_graph
from tests.gridpath.group.checker import check_plans

pytestmark = pytest.mark.timeout(900)


def _post(base: str, body: dict) -> bytes:
    request = urllib.request.Request(
        base + "/group",
        data=json.dumps(body).encode(),
        headers={"content-type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=120) as response:
        assert response.status == 200
        return response.read()


def test_two_processes_answer_byte_identical_plans(tmp_path):
    rng = np.random.default_rng(5)
    free = rng.random((32, 32)) >= 0.2
    rows = ["".join("." if f else "@" for f in row) for row in free]
    (tmp_path / "rand.map").write_text(
        "type octile\nheight 32\nwidth 32\nmap\n" + "\n".join(rows) + "\n"
    )
    graph = build_graph(free)
    cells = np.nonzero(graph.component == np.bincount(graph.component).argmax())[0]
    pick = np.random.default_rng(9).choice(cells, 300, replace=False)
    starts = [[int(graph.xs[v]), int(graph.ys[v])] for v in pick[:150]]
    goals = [[int(graph.xs[v]), int(graph.ys[v])] for v in pick[150:]]
    body = {
        "map": "rand",
        "units": [{"start": s, "goal": g} for s, g in zip(starts, goals)],
        "time_budget_ms": 300,
    }
    answers = []
    for _ in range(2):
        with running_server(ServerSpec({"MAPS_DIR": str(tmp_path)})) as server:
            answers.append(_post(server.url, body))
    assert answers[0] == answers[1]
    out = json.loads(answers[0])
    assert out["found"]
    assert check_plans(free, out["plans"], starts, goals) == []
