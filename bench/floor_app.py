"""The HTTP floor of ``bench.ratios``: a bare FastAPI app that reads the ``POST /path``
body with orjson and answers a two-point path with gridpath's fields (no search), so a request
costs what HTTP, routing and JSON cost. ``GET /health`` answers 200 at once."""

from __future__ import annotations

import math

import orjson
from fastapi import FastAPI, Request
from fastapi.responses import Response

app = FastAPI(title="gridpath HTTP floor", docs_url=None, redoc_url=None, openapi_url=None)

_OPTIONS = {
    "algorithm": "jps", "heuristic": "octile", "heuristic_weight": 1.0, "connectivity": 8,
    "diagonal": "no_corner_cut", "cost_model": "float", "smooth": True,
}  # fmt: skip


@app.get("/health")
async def health() -> Response:
    return Response(b'{"status":"ok"}', media_type="application/json")


@app.post("/path")
async def path(request: Request) -> Response:
    query = orjson.loads(await request.body())
    start, goal = query["start"], query["goal"]
    answer = {
        "map": query["map"], "revision": 1, "found": True, "reason": None, "partial": False,
        "goal_index": 0, "cost": math.dist(start, goal), "path": [start, goal],
        "waypoints": [start, goal], "turns": 0, "expanded": 0, "algorithm": "jps",
        "optimal": True, "options": _OPTIONS,
    }  # fmt: skip
    return Response(orjson.dumps(answer), media_type="application/json")
