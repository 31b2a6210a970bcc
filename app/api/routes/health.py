"""GET /health (readiness, as before, with the build), /health/live and /health/ready."""

from __future__ import annotations

import orjson
from fastapi import APIRouter
from fastapi.responses import Response

from app.api.deps import StateDep
from app.models import Health, Liveness, Readiness
from app.observability.build import VERSION, git_commit

router = APIRouter(tags=["health"])


def _json(body: dict, status: int) -> Response:
    return Response(orjson.dumps(body), status_code=status, media_type="application/json")


@router.get(
    "/health",
    response_model=Health,
    responses={503: {"model": Health, "description": "Still starting."}},
)
async def health(state: StateDep) -> Response:
    """200 once maps are loaded and the kernels compiled; 503 before.

    ``async`` on purpose: it runs on the event loop, never queued behind searches.
    """
    ready = state.ready.is_set()
    store = state.registry
    errors = [{"file": e.file, "reason": e.reason} for e in store.errors + state.worlds.errors]
    if state.startup_error:
        errors.append({"file": "", "reason": state.startup_error})
    body = {"status": "ok" if ready else "starting", "maps": store.names()}
    body |= {"worlds": state.worlds.names(), "errors": errors}
    store_status = state.authority.status()  # degraded stays 200: searches still answer
    body |= {
        "store": store_status.state,
        "store_type": store_status.kind,
        "store_reason": store_status.reason,
    }
    body |= {"version": VERSION, "commit": git_commit()}
    kernels = state.warmup.status()
    waiting = not ready or bool(kernels["waiting"])
    body |= {"waiting_for": state.warmup.describe() if waiting else None, "kernels": kernels}
    return _json(body, 200 if ready else 503)


@router.get("/health/live", response_model=Liveness)
async def live() -> Response:
    """200 whenever the process answers (an orchestrator restarts it when this fails)."""
    return _json({"status": "alive"}, 200)


@router.get(
    "/health/ready",
    response_model=Readiness,
    responses={503: {"model": Readiness, "description": "Not ready; checks says why."}},
)
async def ready(state: StateDep) -> Response:
    """200 when maps are loaded, kernels warm and every readiness check passes (the shared
    store reachable, ...); 503 with the failing checks otherwise (send no traffic yet)."""
    problems = state.readiness()
    return _json(
        {"status": "not_ready" if problems else "ready", "checks": problems},
        503 if problems else 200,
    )
