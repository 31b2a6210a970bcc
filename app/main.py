"""The FastAPI application: ``uvicorn app.main:app``."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import Depends, FastAPI

from app.api.auth import require_api_token
from app.api.direct import DirectRoutes
from app.api.errors import install_error_handlers, internal_error
from app.api.guards import TokensBeforeBody
from app.api.limits import BodySizeLimit
from app.api.openapi import install_openapi, operation_id
from app.api.routes import cells, flowfield, group, health, maps, nearest, paths, table, validate
from app.api.routes import metrics as metrics_route
from app.config import Settings, get_settings
from app.observability import metrics
from app.observability.build import git_commit
from app.observability.logs import configure_logging
from app.observability.requests import RequestObservation
from app.state import ServiceState, reload_on_sighup
from app.web import install_web
from gridpath import __version__


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or get_settings()
    configure_logging(settings.log_level, settings.log_format)
    metrics.configure(settings.metrics_enabled, __version__, git_commit())

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        state = ServiceState(settings)
        app.state.service = state
        state.start(asyncio.get_running_loop())
        reload_on_sighup(state)
        try:
            yield
        finally:
            await state.aclose()

    app = FastAPI(
        title="gridpath",
        version=__version__,
        summary="Authoritative grid pathfinding for multiplayer game servers.",
        lifespan=lifespan,
        generate_unique_id_function=operation_id,
        docs_url=None,  # served by app.web without a CDN
        redoc_url=None,
        # The service's own observability is Prometheus and its request log
        # (app/observability); FastAPI's native OpenTelemetry would look up the global
        # providers on every request, for nothing.
        telemetry={"tracing": False, "metrics": False, "logs": False},
    )
    # Innermost: POST /path and the like without FastAPI's per-request machinery (its
    # docstring says what is kept); inside the size limit and the token checks.
    app.add_middleware(DirectRoutes)
    app.add_middleware(
        BodySizeLimit, max_bytes=settings.max_body_bytes, upload_bytes=settings.max_upload_bytes
    )
    app.add_middleware(TokensBeforeBody)  # outside the size limit: 401 before 413 or 422
    install_error_handlers(app)
    app.include_router(health.router)  # always open: orchestrators probe it
    guarded = [Depends(require_api_token)]
    # Routes are matched in order: the hot ones first (each miss costs a pattern match).
    app.include_router(paths.router, dependencies=guarded)
    app.include_router(validate.router, dependencies=guarded)
    app.include_router(flowfield.router, dependencies=guarded)
    app.include_router(table.router, dependencies=guarded)
    app.include_router(group.router, dependencies=guarded)
    app.include_router(maps.router, dependencies=guarded)
    if settings.metrics_enabled:
        app.include_router(metrics_route.router, dependencies=guarded)
    app.include_router(cells.router, dependencies=guarded)
    app.include_router(nearest.router, dependencies=guarded)
    install_web(app, settings)  # GET /, /static, /docs (open), CORS
    # Added last, so outermost: every response (CORS preflights and refusals by the size
    # limit included) gets X-Request-ID and is counted.
    app.add_middleware(
        RequestObservation, internal_error=internal_error, access_log_enabled=settings.access_log
    )
    install_openapi(app, settings)
    return app


app = create_app()
