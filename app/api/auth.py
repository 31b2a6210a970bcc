"""Bearer tokens: ``ADMIN_TOKEN`` for changing maps, ``API_TOKEN`` (optional) for everything
else but ``/health``. Tokens are compared in constant time.

One place for the token check: a route declares the token it needs once, as a security
dependency (``API_TOKEN`` on every router ``include_guarded`` adds, ``ADMIN_TOKEN`` on the
routes that change maps). The two ``HTTPBearer`` schemes behind them only declare the
tokens in the OpenAPI document (Swagger UI's Authorize button, generated clients) and never
refuse anything (``auto_error=False``). ``TokenGate``, a pure ASGI middleware outside the
body-size limit, runs the check each declaration stands for, before anything else: a
request without its token gets 401 (or 403 ``admin_disabled``) whatever its body holds,
never 413 or 422. It finds the route in the routers ``include_guarded`` registered (their
own ``APIRoute`` objects, matched with Starlette's public ``Route.matches``), not in
FastAPI's route tree, so it reads no framework internals.
"""

from __future__ import annotations

import hmac
from collections.abc import Callable
from typing import Any

from fastapi import APIRouter, FastAPI, Request, Security
from fastapi.security import HTTPBearer
from starlette.routing import Match
from starlette.types import ASGIApp, Receive, Scope, Send

from app.api.errors import error_response
from app.state import ServiceState
from gridpath.errors import AdminDisabled, ServiceError, Unauthorized

api_bearer = HTTPBearer(
    scheme_name="apiToken",
    description="`Authorization: Bearer <API_TOKEN>` (or the admin token), when the server "
    "sets API_TOKEN.",
    auto_error=False,
)
admin_bearer = HTTPBearer(
    scheme_name="adminToken",
    description="`Authorization: Bearer <ADMIN_TOKEN>`: map changes.",
    auto_error=False,
)
# The declarations a route or router carries (``dependencies=[ADMIN_TOKEN]``).
API_TOKEN = Security(api_bearer)
ADMIN_TOKEN = Security(admin_bearer)

Check = Callable[[Request], None]


def _bearer(request: Request) -> str | None:
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return token.strip()


def _matches(given: str | None, expected: str) -> bool:
    return given is not None and hmac.compare_digest(given.encode(), expected.encode())


def check_api_token(request: Request) -> None:
    """With ``API_TOKEN`` set, the request must carry it (or the admin token)."""
    settings = request.app.state.service.settings
    if settings.api_token is None:
        return
    given = _bearer(request)
    allowed = [settings.api_token] + ([settings.admin_token] if settings.admin_token else [])
    if not any(_matches(given, token.get_secret_value()) for token in allowed):
        raise Unauthorized("this endpoint needs 'Authorization: Bearer <API_TOKEN>'")


def check_admin_token(request: Request) -> None:
    """Map changes need ``ADMIN_TOKEN``; without one configured they are refused."""
    state: ServiceState = request.app.state.service
    token = state.settings.admin_token
    if token is None or not token.get_secret_value():
        raise AdminDisabled("map changes are disabled: the server has no ADMIN_TOKEN")
    if not _matches(_bearer(request), token.get_secret_value()):
        raise Unauthorized("map changes need 'Authorization: Bearer <ADMIN_TOKEN>'")


# The scheme a declaration names -> the check it stands for.
CHECKS: dict[Any, Check] = {api_bearer: check_api_token, admin_bearer: check_admin_token}


def declared_checks(dependencies: list[Any]) -> tuple[Check, ...]:
    """The checks a list of declared dependencies stands for, in FastAPI's order."""
    found = (CHECKS.get(getattr(d, "dependency", None)) for d in dependencies)
    return tuple(check for check in found if check is not None)


# The guarded routes of each app: (route, its checks), in the order the routers were added.
Guarded = list[tuple[Any, tuple[Check, ...]]]


def include_guarded(app: FastAPI, router: APIRouter) -> None:
    """Include ``router`` with ``API_TOKEN`` declared, and have ``TokenGate`` check it (and
    each route's own declarations, ``ADMIN_TOKEN``) before the body."""
    app.include_router(router, dependencies=[API_TOKEN])
    if not hasattr(app.state, "guarded_routes"):
        app.state.guarded_routes = []
    guarded: Guarded = app.state.guarded_routes
    for route in router.routes:
        checks = declared_checks([API_TOKEN, *getattr(route, "dependencies", ())])
        guarded.append((route, checks))


class TokenGate:
    """Pure ASGI middleware: the token checks of the route a request goes to, first."""

    # Remembered decisions, for the paths of routes without parameters only (bounded by
    # the routes; a path with parameters is matched each time).
    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.static: dict[tuple[str, str], tuple[Check, ...]] = {}

    def checks_for(self, scope: Scope) -> tuple[Check, ...]:
        key = (scope["method"], scope["path"])
        found = self.static.get(key)
        if found is not None:
            return found
        for route, checks in getattr(scope["app"].state, "guarded_routes", ()):
            if route.matches(scope)[0] is Match.FULL:
                if not route.param_convertors:
                    self.static[key] = checks
                return checks
        return ()  # an open route, a 404 or a 405: no token is asked

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            checks = self.checks_for(scope)
            if checks:
                request = Request(scope)
                try:
                    for check in checks:
                        check(request)
                except ServiceError as exc:
                    response = error_response(exc.status, exc.code, exc.message, exc.headers)
                    await response(scope, receive, send)
                    return
        await self.app(scope, receive, send)
