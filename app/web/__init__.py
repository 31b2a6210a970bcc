"""What a browser needs, served by the service itself so it works without internet access:
the map editor and path visualiser page at ``GET /`` (plain HTML/CSS/JS in ``static/``, no
build step), the interactive API docs (Swagger UI and ReDoc) with their files from the
``fastapi-offline`` package instead of a CDN, and CORS for studios that host their own tools
page elsewhere.

The page and its assets are open like ``/health``: they hold no data, and every API call the
page makes carries the user's token when the server asks for one.
"""

from __future__ import annotations

import functools
from importlib.resources import files
from pathlib import Path

from fastapi import APIRouter, FastAPI
from fastapi.middleware.cors import CORSMiddleware
from fastapi.openapi.docs import (
    get_redoc_html,
    get_swagger_ui_html,
    get_swagger_ui_oauth2_redirect_html,
)
from fastapi.responses import FileResponse, HTMLResponse, Response
from fastapi.staticfiles import StaticFiles

from app.config import Settings

STATIC_DIR = Path(__file__).resolve().parent / "static"
# Swagger UI 5 (OpenAPI 3.1, what FastAPI writes) and ReDoc 2, as fastapi-offline ships them;
# only its files are used, with FastAPI's own recipe for self-hosted docs.
DOCS_ASSETS_DIR = Path(str(files("fastapi_offline") / "static"))
_DOCS_ASSETS = "/static/docs"
_OAUTH2_REDIRECT_URL = "/docs/oauth2-redirect"

_REDOC_JS = f"{_DOCS_ASSETS}/redoc.local.js"
# ReDoc's sidebar shows a logo from its CDN (which the pages' policy below blocks: a console
# error); ours serves the same script with that logo replaced by our icon.
_REDOC_CDN_LOGO = "https://cdn.redoc.ly/redoc/logo-mini.svg"

router = APIRouter(include_in_schema=False)


@router.get("/")
async def page() -> FileResponse:
    return FileResponse(STATIC_DIR / "index.html", media_type="text/html")


@router.get("/favicon.ico")
async def favicon() -> FileResponse:
    """Browsers ask for it on every page without an icon link (else a 404 in the console)."""
    return FileResponse(STATIC_DIR / "favicon.svg", media_type="image/svg+xml")


@router.get(_REDOC_JS)
async def redoc_script() -> Response:
    return Response(_redoc_script(), media_type="text/javascript")


@functools.cache
def _redoc_script() -> bytes:
    script = (DOCS_ASSETS_DIR / "redoc.standalone.js").read_bytes()
    return script.replace(_REDOC_CDN_LOGO.encode(), b"/static/favicon.svg")


def cors_origins(settings: Settings) -> list[str]:
    return [origin.strip() for origin in settings.cors_origins.split(",") if origin.strip()]


def install_web(app: FastAPI, settings: Settings) -> None:
    """Serve ``/``, ``/static/...`` and ``/docs`` on ``app``, and CORS if configured.

    ``app`` must be created with ``docs_url=None, redoc_url=None``: FastAPI's own pages load
    Swagger UI and ReDoc from a CDN.
    """
    app.include_router(router)

    openapi_url = app.openapi_url or "/openapi.json"
    # The docs pages load nothing from outside: their files are ours, and this policy stops
    # the browser from fetching anything else (ReDoc's sidebar links a logo on its CDN).
    local_only = {
        "Content-Security-Policy": "default-src 'self'; script-src 'self' 'unsafe-inline' blob:; "
        "style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; worker-src 'self' blob:"
    }

    @app.get("/docs", include_in_schema=False)
    async def swagger_ui() -> HTMLResponse:
        page = get_swagger_ui_html(
            openapi_url=openapi_url,
            title=f"{app.title} - API docs",
            oauth2_redirect_url=_OAUTH2_REDIRECT_URL,
            swagger_js_url=f"{_DOCS_ASSETS}/swagger-ui-bundle.js",
            swagger_css_url=f"{_DOCS_ASSETS}/swagger-ui.css",
            swagger_favicon_url=f"{_DOCS_ASSETS}/favicon.png",
        )
        page.headers.update(local_only)
        return page

    @app.get(_OAUTH2_REDIRECT_URL, include_in_schema=False)
    async def swagger_ui_redirect() -> HTMLResponse:
        return get_swagger_ui_oauth2_redirect_html()

    @app.get("/redoc", include_in_schema=False)
    async def redoc() -> HTMLResponse:
        page = get_redoc_html(
            openapi_url=openapi_url,
            title=f"{app.title} - API reference",
            redoc_js_url=_REDOC_JS,
            redoc_favicon_url=f"{_DOCS_ASSETS}/favicon.png",
            with_google_fonts=False,
        )
        page.headers.update(local_only)
        return page

    # The more specific mount first: /static/docs/... is the package's folder.
    app.mount(_DOCS_ASSETS, StaticFiles(directory=DOCS_ASSETS_DIR), name="docs-assets")
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
    origins = cors_origins(settings)
    if origins:
        app.add_middleware(
            CORSMiddleware,
            allow_origins=origins,
            allow_methods=["GET", "POST", "PUT", "PATCH", "DELETE"],
            allow_headers=["authorization", "content-type"],
            expose_headers=["server-timing", "x-cache"],
        )
