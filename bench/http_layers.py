"""Where a ``POST /path`` request's time goes inside the app, layer by layer.

    python -m bench.http_layers [--requests N] [--rounds R]

The app (``app.main:app`` on the demo ``maps/``, and the bare endpoint of
:mod:`bench.floor_app` for comparison) is called in-process as an ASGI callable, on uvloop,
with issue 15's body ``{"map": "arena", "start": [2, 2], "goal": [24, 9]}``: no sockets, no
HTTP parsing (what uvicorn adds is the server CPU per request of ``make bench-http``'s floor
run minus the total here). Each layer's callable is wrapped to add up the thread CPU time
spent inside it; a layer's own time is its inclusive time minus that of the layer it calls
(the wrappers' own cost, about a microsecond each, lands in the outer layers). The best of
``rounds`` rounds of ``requests`` requests is printed as a Markdown table.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import importlib
import inspect
import os
import time
from collections.abc import Callable, Sequence
from typing import Any

from bench.common import REPO_ROOT

BODY = b'{"map": "arena", "start": [2, 2], "goal": [24, 9]}'
HEADERS = [
    (b"host", b"127.0.0.1:8000"),
    (b"content-type", b"application/json"),
    (b"content-length", str(len(BODY)).encode()),
]
# (module, attribute path, label), outermost first; each nested in the one before it.
LAYERS = (
    ("fastapi.applications", "FastAPI.__call__", "FastAPI's and Starlette's outer middlewares"),
    ("app.observability.requests", "RequestObservation.__call__", "RequestObservation"),
    ("app.api.auth", "TokenGate.__call__", "TokenGate"),
    ("app.api.limits", "BodySizeLimit.__call__", "BodySizeLimit"),
    ("app.state", "ServiceState.search", "state.search (FastAPI's routing, body, deps above)"),
    ("app.state", "ServiceState.run_search", "run_search: inline admission, scratch"),
    ("app.api.path_request", "GridPath.run", "GridPath.run: the search and its body"),
    ("app.api.path_body", "find_path", "find_path (gridpath.search, kernel included)"),
)
# Called by the layers above but not nested in one another: inclusive times only.
PARTS = (
    ("app.api.routes.paths", "json_response", "json_response: orjson, headers"),
    ("app.api.routes.paths", "path_snapshot", "path_snapshot: step 1"),
    ("app.api.routes.paths", "path_request", "path_request: step 2 (parse, caps, cost)"),
    ("app.api.path_body", "path_body", "path_body: hash, echo"),
    ("app.api.path_request", "query_options", "query_options"),
    ("app.api.path_body", "record_search", "record_search: metrics, request record"),
)


def _wrap(owner: Any, attr: str, label: str, spent: dict[str, int]) -> None:
    original = inspect.getattr_static(owner, attr)
    function = original.__func__ if isinstance(original, staticmethod) else original

    if inspect.iscoroutinefunction(function):

        @functools.wraps(function)
        async def timed(*args: Any, **kwargs: Any) -> Any:
            began = time.thread_time_ns()
            try:
                return await function(*args, **kwargs)
            finally:
                spent[label] = spent.get(label, 0) + time.thread_time_ns() - began
    else:

        @functools.wraps(function)
        def timed(*args: Any, **kwargs: Any) -> Any:
            began = time.thread_time_ns()
            try:
                return function(*args, **kwargs)
            finally:
                spent[label] = spent.get(label, 0) + time.thread_time_ns() - began

    setattr(owner, attr, staticmethod(timed) if isinstance(original, staticmethod) else timed)


def instrument(spent: dict[str, int]) -> None:
    for module_name, path, label in LAYERS + PARTS:
        owner: Any = importlib.import_module(module_name)
        *parents, attr = path.split(".")
        for parent in parents:
            owner = getattr(owner, parent)
        _wrap(owner, attr, label, spent)


async def _request(app: Callable, path: str = "/path", method: str = "POST") -> int:
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": HEADERS if method == "POST" else HEADERS[:1],
        "client": ("127.0.0.1", 1),
        "server": ("127.0.0.1", 8000),
        "state": {},
    }
    sent = False
    status = 0

    async def receive() -> dict:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": BODY, "more_body": False}
        await asyncio.sleep(3600)
        return {"type": "http.disconnect"}

    async def send(message: dict) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]

    await app(scope, receive, send)
    return status


async def measure(app: Callable, requests: int, rounds: int, spent: dict[str, int]) -> dict:
    """Best round's µs per request: ``total`` and each label of ``spent``."""
    started: asyncio.Queue = asyncio.Queue()

    async def lifespan_receive() -> dict:
        if not hasattr(lifespan_receive, "done"):
            lifespan_receive.done = True  # type: ignore[attr-defined]
            return {"type": "lifespan.startup"}
        await asyncio.Event().wait()  # never shut down: the process ends instead
        return {}

    async def lifespan_send(message: dict) -> None:
        await started.put(message)

    lifespan = {"type": "lifespan", "asgi": {"version": "3.0"}, "state": {}}
    task = asyncio.create_task(app(lifespan, lifespan_receive, lifespan_send))
    await started.get()
    deadline = time.monotonic() + 600
    while await _request(app, "/health", "GET") != 200:
        if time.monotonic() > deadline:
            raise TimeoutError("not ready")
        await asyncio.sleep(0.2)
    for _ in range(500):  # warm: first calls compile, cache, allocate scratch
        assert await _request(app) == 200
    best: dict | None = None
    for _ in range(rounds):
        spent.clear()
        began = time.thread_time_ns()
        for _ in range(requests):
            await _request(app)
        total = time.thread_time_ns() - began
        row = {label: ns / requests / 1000 for label, ns in spent.items()}
        row["total"] = total / requests / 1000
        if best is None or row["total"] < best["total"]:
            best = row
    task.cancel()
    assert best is not None
    return best


def table(ours: dict, bare: dict) -> str:
    labels = [label for _, _, label in LAYERS]
    out = [
        "| layer | inclusive µs | own µs |",
        "|---|---:|---:|",
        f"| the whole app call (harness included) | {ours['total']:.1f} | |",
    ]
    for i, label in enumerate(labels):
        inner = ours.get(labels[i + 1], 0.0) if i + 1 < len(labels) else 0.0
        out.append(f"| {label} | {ours.get(label, 0.0):.1f} | {ours.get(label, 0.0) - inner:.1f} |")
    for _, _, label in PARTS:
        out.append(f"| (within the above) {label} | {ours.get(label, 0.0):.1f} | |")
    out.append(f"| the bare endpoint's whole app call, for comparison | {bare['total']:.1f} | |")
    return "\n".join(out)


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.http_layers", description=__doc__)
    parser.add_argument("--requests", type=int, default=3000, help="requests per round")
    parser.add_argument("--rounds", type=int, default=5, help="rounds (the best is kept)")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    os.environ.setdefault("MAPS_DIR", str(REPO_ROOT / "maps"))
    os.environ.setdefault("LOG_LEVEL", "warning")  # as bench-http's servers run
    try:
        import uvloop

        uvloop.install()
    except ImportError:
        pass
    from bench.floor_app import app as bare_app

    bare = asyncio.run(measure(bare_app, args.requests, args.rounds, {}))
    spent: dict[str, int] = {}
    instrument(spent)
    from app.main import app

    ours = asyncio.run(measure(app, args.requests, args.rounds, spent))
    print(
        f"POST /path {BODY.decode()} in-process (thread CPU µs per request, best of "
        f"{args.rounds} x {args.requests}):\n"
    )
    print(table(ours, bare))


if __name__ == "__main__":
    main()
