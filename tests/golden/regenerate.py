"""Write the golden vectors: ``python -m tests.golden.regenerate``.

Each ``tests/golden/<family>.json`` holds requests to ``POST /path`` on the bundled maps and
the ``path_hash`` and ``cost`` the service answered. ``tests/gridpath/search/test_golden.py``
replays them on every run. Regenerate only on purpose, when a change is meant to alter paths,
and say so in the commit message.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from fastapi.testclient import TestClient

from app.api.path_body import path_hash
from app.config import Settings
from app.main import create_app
from gridpath.search.algorithms import ALGORITHMS
from tests.conftest import MAPS_DIR, wait_ready

HERE = Path(__file__).resolve().parent

QUERIES = [
    ("arena", [2, 2], [40, 50]),
    ("arena", [60, 3], [3, 60]),
    ("maze", [1, 1], [127, 127]),
    ("field", [1, 1], [254, 254]),
    ("field", [200, 10], [10, 200]),
]

FAMILIES = {
    "default": [{}],
    "algorithms": [{"algorithm": a.value} for a in ALGORITHMS],  # a new one joins by itself
    "heuristics": [
        {"heuristic": h} for h in ("octile", "manhattan", "euclidean", "chebyshev", "zero")
    ]
    + [{"heuristic_weight": 2.5}],
    "movement": [{"connectivity": 4}] + [{"diagonal": d} for d in ("never", "one_free", "always")],
    "cost_model": [{"cost_model": "integer"}, {"cost_model": "integer", "connectivity": 4}],
    "terrain": [{"terrain_costs": {"ground": 2}}],
    "turns": [{"turn_penalty": 1}, {"turn_penalty": 0.25, "connectivity": 4}],
    "clearance": [{"clearance": 2}],
    "limits": [{"max_expanded": 50, "closest": True}, {"max_cost": 20, "closest": True}],
    "overlay": [{"blocked": [[20, 20], [21, 21], [100, 100], [50, 60]], "goals_extra": True}],
}


def build() -> dict[str, list[dict]]:
    app = create_app(Settings(maps_dir=MAPS_DIR))
    vectors: dict[str, list[dict]] = {}
    with TestClient(app) as client:
        wait_ready(client)
        for family, variants in FAMILIES.items():
            entries = []
            for variant in variants:
                for name, start, goal in QUERIES:
                    options = {k: v for k, v in variant.items() if k != "goals_extra"}
                    request = {"map": name, "start": start, "goal": goal, **options}
                    if variant.get("goals_extra"):
                        del request["goal"]
                        request["goals"] = [goal, [start[0] + 30, start[1] + 30]]
                    response = client.post("/path", json=request)
                    if response.status_code != 200:
                        continue  # e.g. an overlay cell that is a wall on this map
                    body = response.json()
                    entry = {
                        "request": request,
                        "found": body["found"],
                        "partial": body["partial"],
                        "cost": body["cost"],
                        "path_hash": body["path_hash"],
                        "expanded": body["expanded"],
                        # string-pulled (smooth by default), hashed as path_hash hashes cells
                        "waypoints_hash": path_hash(np.array(body["waypoints"]).reshape(-1, 2)),
                    }
                    if "waypoints_cost" in body:  # since issue 20
                        entry["waypoints_cost"] = body["waypoints_cost"]
                    entries.append(entry)
            vectors[family] = entries
    return vectors


def main() -> None:
    for family, entries in build().items():
        (HERE / f"{family}.json").write_text(json.dumps(entries, indent=1) + "\n")
        print(f"{family}: {len(entries)} vectors")


if __name__ == "__main__":
    main()
