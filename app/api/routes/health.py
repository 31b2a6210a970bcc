"""GET /health: readiness (maps loaded and kernels compiled)."""

from __future__ import annotations

import orjson
from fastapi import APIRouter
from fastapi.responses import Response

from app.api.deps import StateDep
from app.schemas import Health

router = APIRouter(tags=["health"])


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
    store = state.store
    errors = [{"file": e.file, "reason": e.reason} for e in store.errors]
    if state.startup_error:
        errors.append({"file": "", "reason": state.startup_error})
    body = {"status": "ok" if ready else "starting", "maps": store.names(), "errors": errors}
    store_status = state.authority.status()  # degraded stays 200: searches still answer
    body |= {
        "store": store_status.state,
        "store_type": store_status.kind,
        "store_reason": store_status.reason,
    }
    return Response(
        orjson.dumps(body), status_code=200 if ready else 503, media_type="application/json"
    )
