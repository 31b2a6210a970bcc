"""The FastAPI application: ``uvicorn app.main:app``."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI

from app.api.auth import TokenGate, include_guarded
from app.api.errors import install_error_handlers, internal_error, shutting_down
from app.api.limits import BodySizeLimit, RequestHeadLimits
from app.api.openapi import install_openapi, operation_id
from app.api.routes import (
    cells,
    flowfield,
    group,
    health,
    maps,
    nearest,
    paths,
    table,
    validate,
    worlds,
)
from app.api.routes import metrics as metrics_route
from app.config import Settings, get_settings
from app.observability import metrics
from app.observability.build import git_commit
from app.observability.logs import configure_logging
from app.observability.requests import RequestObservation
from app.state import ServiceState, reload_on_sighup
from app.web import install_web
from app.web import router as web_router
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
    app.add_middleware(
        BodySizeLimit, max_bytes=settings.max_body_bytes, upload_bytes=settings.max_upload_bytes
    )
    app.add_middleware(TokenGate)  # outside the size limit: 401 before 413 or 422
    install_error_handlers(app)
    # POST /path and /paths: the lean routes, matched first (before the routes that declare
    # them and before the others: each miss costs a match; app/api/routes/paths.py says why).
    app.router.routes[0:0] = [paths.LEAN_PATH_ROUTE, paths.LEAN_PATHS_ROUTE]
    app.include_router(health.router)  # always open: orchestrators probe it
    # Every other router needs API_TOKEN (when set). Routes are matched in order: the hot
    # ones first (each miss costs a pattern match).
    routers = [
        paths.router, validate.router, flowfield.router, table.router, group.router, maps.router,
        worlds.router,
    ]  # fmt: skip
    if settings.metrics_enabled:
        routers.append(metrics_route.router)
    routers += [cells.router, nearest.router]
    for router in routers:
        include_guarded(app, router)
    install_web(app, settings)  # GET /, /static, /docs (open), CORS
    app.add_middleware(
        RequestHeadLimits,
        max_url_bytes=settings.max_url_bytes,
        max_header_bytes=settings.max_header_bytes,
    )
    # The routers included (the OpenAPI document and the 405's Allow read their routes).
    app.state.routers = [health.router, *routers, web_router]
    # Added last, so outermost: every response (CORS preflights and refusals by the size
    # limit included) gets X-Request-ID and is counted.
    app.add_middleware(
        RequestObservation,
        internal_error=internal_error,
        access_log_enabled=settings.access_log,
        cancelled=shutting_down,
    )
    install_openapi(app, settings)
    return app


app = create_app()
