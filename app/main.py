"""The FastAPI application: ``uvicorn app.main:app``."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import Depends, FastAPI

from app import __version__
from app.api.auth import require_api_token
from app.api.errors import install_error_handlers
from app.api.limits import BodySizeLimit
from app.api.routes import cells, flowfield, health, maps, paths, table, validate
from app.config import Settings, get_settings
from app.service import ServiceState
from app.web import install_web


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or get_settings()
    logging.basicConfig(
        level=settings.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        state = ServiceState(settings)
        app.state.service = state
        state.start()
        try:
            yield
        finally:
            state.close()

    app = FastAPI(
        title="gridpath",
        version=__version__,
        summary="Authoritative grid pathfinding for multiplayer game servers.",
        lifespan=lifespan,
        docs_url=None,  # served by app.web without a CDN
        redoc_url=None,
    )
    app.add_middleware(
        BodySizeLimit, max_bytes=settings.max_body_bytes, upload_bytes=settings.max_upload_bytes
    )
    install_error_handlers(app)
    app.include_router(health.router)  # always open: orchestrators probe it
    guarded = [Depends(require_api_token)]
    # Routes are matched in order: the hot ones first (each miss costs a pattern match).
    app.include_router(paths.router, dependencies=guarded)
    app.include_router(validate.router, dependencies=guarded)
    app.include_router(flowfield.router, dependencies=guarded)
    app.include_router(table.router, dependencies=guarded)
    app.include_router(maps.router, dependencies=guarded)
    app.include_router(cells.router, dependencies=guarded)
    install_web(app, settings)  # GET /, /static, /docs (open), CORS
    return app


app = create_app()
