"""Token checks before the body: a request without its token gets 401, whatever it sends.

FastAPI reads and decodes a route's body before it solves the route's dependencies, so
with the checks only as dependencies a body that is not JSON got 422 before the token was
looked at, which told an unauthenticated caller how its body was judged. This middleware
runs the token checks of every body-taking route (``app.api.auth.GUARDS``, found in the
route's dependencies) before the body is read; a refusal is answered like any other
``ServiceError``. Requests without a body (GET, HEAD, OPTIONS) pass straight through: for
them the dependencies already run before anything else is looked at. The dependencies
stay: they declare the bearer schemes in the OpenAPI document. A request that passed here
carries the checks it passed in its scope (``CHECKED``), so the direct lane
(``app.api.direct``) does not run them a second time.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from fastapi import Request
from fastapi.dependencies.models import Dependant
from fastapi.routing import APIRoute, iter_route_contexts
from starlette.types import ASGIApp, Receive, Scope, Send

from app.api.auth import GUARDS
from app.api.errors import error_response
from gridpath.errors import ServiceError

Check = Callable[[Request], None]
_BODY_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
# The scope key of the token checks a request passed here (a tuple of checks).
CHECKED = "gridpath.tokens_checked"


def token_checks(dependant: Dependant) -> list[Check]:
    """The token checks a route depends on, in the order FastAPI would run them."""
    checks: list[Check] = []
    pending = list(dependant.dependencies)
    while pending:
        dependency = pending.pop(0)
        check = GUARDS.get(dependency.call)  # type: ignore[arg-type]
        if check is not None and check not in checks:
            checks.append(check)
        pending.extend(dependency.dependencies)
    return checks


@dataclass(frozen=True)
class _Guarded:
    methods: frozenset[str]
    path: re.Pattern[str]
    checks: tuple[Check, ...]


def guarded_routes(app: ASGIApp) -> list[_Guarded]:
    """Every route that may take a body and depends on a token check."""
    found = []
    for context in iter_route_contexts(app.routes):  # type: ignore[attr-defined]
        if not isinstance(context.original_route, APIRoute):
            continue
        methods = frozenset(context.methods or ()) & _BODY_METHODS
        checks = token_checks(context.dependant)
        if methods and checks:
            found.append(_Guarded(methods, context.path_regex, tuple(checks)))
    return found


class TokensBeforeBody:
    """Pure ASGI middleware; the routes are read at the first request (all included by then)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.guarded: list[_Guarded] | None = None
        # (method, path) -> the checks of the first guarded route matching it, remembered
        # for the paths of routes without parameters (bounded by the routes).
        self.static: dict[tuple[str, str], tuple[Check, ...] | None] = {}
        self.static_paths: frozenset[str] = frozenset()

    def _checks_for(self, method: str, path: str) -> tuple[Check, ...] | None:
        key = (method, path)
        if key in self.static:
            return self.static[key]
        found = None
        for route in self.guarded or ():
            if method in route.methods and route.path.match(path):
                found = route.checks
                break
        if path in self.static_paths:
            self.static[key] = found
        return found

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] in _BODY_METHODS:
            if self.guarded is None:
                self.guarded = guarded_routes(scope["app"])
                self.static_paths = static_paths(scope["app"])
            checks = self._checks_for(scope["method"], scope["path"])
            if checks is not None:
                request = Request(scope)
                try:
                    for check in checks:
                        check(request)
                except ServiceError as exc:
                    response = error_response(exc.status, exc.code, exc.message, exc.headers)
                    await response(scope, receive, send)
                    return
                scope[CHECKED] = checks
        await self.app(scope, receive, send)


def static_paths(app: ASGIApp) -> frozenset[str]:
    """The paths of the app's routes without path parameters (matched only by themselves)."""
    return frozenset(
        route.path
        for route in app.routes  # type: ignore[attr-defined]
        if getattr(route, "path", None) and not getattr(route, "param_convertors", None)
    )
