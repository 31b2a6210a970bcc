"""What a browser needs, served by the service itself so it works without internet access:
the map editor and path visualiser page at ``GET /`` (plain HTML/CSS/JS in ``static/``, no
build step), the interactive API docs with Swagger UI's files from the ``swagger-ui-bundle``
package instead of a CDN, and CORS for studios that host their own tools page elsewhere.

The page and its assets are open like ``/health``: they hold no data, and every API call the
page makes carries the user's token when the server asks for one.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter, FastAPI
from fastapi.middleware.cors import CORSMiddleware
from fastapi.openapi.docs import get_swagger_ui_html, get_swagger_ui_oauth2_redirect_html
from fastapi.responses import FileResponse, HTMLResponse
from fastapi.staticfiles import StaticFiles
from swagger_ui_bundle import swagger_ui_path

from app.config import Settings

STATIC_DIR = Path(__file__).resolve().parent / "static"
DOCS_URL = "/docs"
_OAUTH2_REDIRECT_URL = "/docs/oauth2-redirect"
_SWAGGER_ASSETS = "/static/swagger-ui"

router = APIRouter(include_in_schema=False)


@router.get("/")
async def page() -> FileResponse:
    return FileResponse(STATIC_DIR / "index.html", media_type="text/html")


def cors_origins(settings: Settings) -> list[str]:
    return [origin.strip() for origin in settings.cors_origins.split(",") if origin.strip()]


def install_web(app: FastAPI, settings: Settings) -> None:
    """Serve ``/``, ``/static/...`` and ``/docs`` on ``app``, and CORS if configured.

    ``app`` must be created with ``docs_url=None, redoc_url=None``: FastAPI's own pages load
    Swagger UI and ReDoc from a CDN. ReDoc is not served (no package ships it for Python).
    """
    app.include_router(router)

    @app.get(DOCS_URL, include_in_schema=False)
    async def swagger_ui() -> HTMLResponse:
        return get_swagger_ui_html(
            openapi_url=app.openapi_url or "/openapi.json",
            title=f"{app.title} - API docs",
            oauth2_redirect_url=_OAUTH2_REDIRECT_URL,
            swagger_js_url=f"{_SWAGGER_ASSETS}/swagger-ui-bundle.js",
            swagger_css_url=f"{_SWAGGER_ASSETS}/swagger-ui.css",
            swagger_favicon_url=f"{_SWAGGER_ASSETS}/favicon-32x32.png",
        )

    @app.get(_OAUTH2_REDIRECT_URL, include_in_schema=False)
    async def swagger_ui_redirect() -> HTMLResponse:
        return get_swagger_ui_oauth2_redirect_html()

    # The more specific mount first: /static/swagger-ui/... is the package's folder.
    app.mount(_SWAGGER_ASSETS, StaticFiles(directory=str(swagger_ui_path)), name="swagger-ui")
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
