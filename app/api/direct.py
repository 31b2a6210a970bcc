"""The direct lane: the hottest routes served without FastAPI's per-request machinery.

For every request FastAPI matches the routes in turn, wraps the route in an exception
handler and two exit stacks, reads and decodes the body, then walks the route's dependency
tree (cache keys, scope checks, generator checks, for each dependency, every time). On
``POST /path`` that machinery cost several times the search itself (bench/README.md,
'bench-http', has the breakdown). For the routes of ``DIRECT_ROUTES``, this pure ASGI
middleware (the innermost one) does the same work itself, in FastAPI's order:

1. the body is read and decoded as FastAPI decodes it: the same content-type rule (a JSON
   media type; without ``Content-Type`` the bytes are validated as they are, and fail), the
   same values as the standard library's ``json`` (Starlette's ``Request.json``) decodes:
   orjson decodes the body when it can and the body holds no run of 19 digits or more
   (orjson reads an integer past 64 bits as a float, which would change the error a
   client gets); any body orjson refuses (not UTF-8, ``NaN``, ``1e400``, too deep, not
   JSON) or with such a run goes to ``json``, so its value or its error is ``json``'s, the
   same ``json_invalid`` error, or 400 for a body that is not text;
2. the route's dependencies are resolved in FastAPI's order by the resolvers of
   ``RESOLVERS`` (each stands for the whole dependency: the token checks, the service state,
   the map store once it is ready); a refusal raises, as in FastAPI, before the body is
   validated;
3. the body is validated by the route's own body field (its ``validate``, as FastAPI's
   ``request_body_to_args`` calls it for a body that is one model; that function itself
   for anything else): the same pydantic errors, so the same 422 codes and messages;
4. the route's endpoint function is called and its response sent; an exception goes to the
   handler the app registered for it (``app.api.errors``), and one without a handler
   goes up to ``RequestObservation``'s 500 answer, as it does from FastAPI's router.

The route stays a FastAPI route, declared where it always was: the OpenAPI document, and
every method, path or request shape the lane does not take (a 405, a trailing slash, an app
mounted under a root path), are FastAPI's. A route whose endpoint needs anything the lane
does not resolve (an unknown dependency, a query parameter, the ``Request``) is left to
FastAPI entirely. ``tests/app/api/test_direct.py`` checks that ``/path`` takes the lane and that
the lane answers byte for byte what FastAPI answers, for good and bad requests alike.
"""

from __future__ import annotations

import email.message
import inspect
import json
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import orjson
from fastapi import params
from fastapi.datastructures import DefaultPlaceholder
from fastapi.dependencies.utils import request_body_to_args
from fastapi.exceptions import RequestValidationError
from fastapi.routing import APIRoute, iter_route_contexts
from pydantic_core import PydanticUndefined
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response
from starlette.types import ASGIApp, Receive, Scope, Send

from app.api.auth import check_admin_token, check_api_token, require_admin, require_api_token
from app.api.deps import get_registry, get_state
from app.api.guards import CHECKED
from app.models import any_object

# The routes the lane serves, as (method, path); each must be a route without path parameters.
DIRECT_ROUTES = frozenset({("POST", "/path")})

Resolver = Callable[[Request], Any]


def _once(check: Callable[[Request], None]) -> Resolver:
    """``check``, unless ``TokensBeforeBody`` ran it on this request already (same answer)."""

    def resolve(request: Request) -> None:
        if check not in request.scope.get(CHECKED, ()):
            check(request)

    return resolve


# A dependency the lane knows -> what it computes, from the request alone. Each resolver
# replaces the dependency with all its sub-dependencies (the bearer schemes under the token
# checks only declare the tokens in the OpenAPI document, and never refuse anything).
RESOLVERS: dict[Callable[..., Any], Resolver] = {
    require_api_token: _once(check_api_token),
    require_admin: _once(check_admin_token),
    get_state: lambda request: request.app.state.service,
    get_registry: lambda request: request.app.state.service.require_ready(),
}


@dataclass(frozen=True)
class _Plan:
    route: APIRoute
    endpoint: Callable[..., Awaitable[Response]]
    dependencies: tuple[tuple[str | None, Resolver], ...]
    body_fields: list[Any]
    embed_body_fields: bool
    strict_content_type: bool
    # The one body field when the body is the field itself (FastAPI's "single, not
    # embedded" case), validated without request_body_to_args' per-call checks.
    single_body_field: Any | None
    # That field takes any JSON object as it is (``app.models.any_object``: the route
    # validates it against the model of the map's kind): a dict is not run through it.
    takes_any_object: bool = False


def plan_for(context: Any) -> _Plan | None:
    """How the lane serves a route (a ``RouteContext``), or None to leave it to FastAPI."""
    route, dependant = context.original_route, context.dependant
    if not isinstance(route, APIRoute) or not inspect.iscoroutinefunction(dependant.call):
        return None
    takes_more = (
        dependant.path_params
        or dependant.query_params
        or dependant.header_params
        or dependant.cookie_params
        or dependant.http_connection_param_name
        or dependant.request_param_name
        or dependant.websocket_param_name
        or dependant.response_param_name
        or dependant.background_tasks_param_name
        or dependant.security_scopes_param_name
    )
    body_field = context.body_field
    if takes_more or body_field is None or isinstance(body_field.field_info, params.Form):
        return None
    dependencies = []
    for dependency in dependant.dependencies:
        resolver = RESOLVERS.get(dependency.call)
        if resolver is None:
            return None
        dependencies.append((dependency.name, resolver))
    strict = context.strict_content_type
    body_fields = dependant.body_params
    single = (
        len({field.name for field in body_fields}) == 1
        and not context._embed_body_fields
        and not getattr(body_field.field_info, "embed", None)
    )
    return _Plan(
        route=route,
        endpoint=dependant.call,
        dependencies=tuple(dependencies),
        body_fields=body_fields,
        embed_body_fields=context._embed_body_fields,
        strict_content_type=strict.value if isinstance(strict, DefaultPlaceholder) else strict,
        single_body_field=body_fields[0] if single else None,
        takes_any_object=single and _takes_any_object(body_fields[0]),
    )


def _takes_any_object(field: Any) -> bool:
    """The field's only validation is ``any_object`` (which returns a dict as it is)."""
    metadata = getattr(field.field_info, "metadata", ())
    return len(metadata) == 1 and getattr(metadata[0], "func", None) is any_object


def direct_plans(app: Any) -> dict[tuple[str, str], _Plan]:
    """The lane's plan for each route of ``DIRECT_ROUTES`` it can serve."""
    plans: dict[tuple[str, str], _Plan] = {}
    for context in iter_route_contexts(app.routes):
        for method in context.methods or ():
            key = (method, context.path)
            if key in DIRECT_ROUTES and key not in plans:  # the first match, as routing does
                plan = plan_for(context)
                if plan is not None:
                    plans[key] = plan
    return plans


@lru_cache(maxsize=64)
def _is_json_media_type(content_type: str) -> bool:
    """FastAPI's rule, with its own parser: ``application/json`` or ``application/*+json``."""
    message = email.message.Message()
    message["content-type"] = content_type
    if message.get_content_maintype() != "application":
        return False
    subtype = message.get_content_subtype()
    return subtype == "json" or subtype.endswith("+json")


async def _read_body(receive: Receive) -> bytes:
    """The whole body, as Starlette's ``Request.body`` reads it (without its stream object)."""
    chunks: list[bytes] = []
    while True:
        message = await receive()
        if message["type"] == "http.request":
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                return chunks[0] if len(chunks) == 1 else b"".join(chunks)
        elif message["type"] == "http.disconnect":
            raise ClientDisconnect()


def _content_type(scope: Scope) -> str | None:
    """The first ``Content-Type`` header, as Starlette's ``Headers.get`` finds it."""
    for key, value in scope["headers"]:
        if key == b"content-type":
            return value.decode("latin-1")
    return None


_LONG_NUMBER = re.compile(rb"[0-9]{19}")


def _json(body: bytes) -> Any:
    """``json.loads(body)``: the same value, or the same exception (see the module docstring)."""
    if _LONG_NUMBER.search(body) is None:
        try:
            return orjson.loads(body)
        except orjson.JSONDecodeError:
            pass  # json's own verdict, below
    return json.loads(body)


async def _decoded_body(scope: Scope, receive: Receive, strict_content_type: bool) -> Any:
    """The body as FastAPI hands it to validation (``PydanticUndefined`` when empty)."""
    try:
        body = await _read_body(receive)
        if not body:
            return PydanticUndefined
        content_type = _content_type(scope)
        if not content_type:
            return body if strict_content_type else _json(body)
        return _json(body) if _is_json_media_type(content_type) else body
    except json.JSONDecodeError as exc:
        error = {
            "type": "json_invalid",
            "loc": ("body", exc.pos),
            "msg": "JSON decode error",
            "input": {},
            "ctx": {"error": exc.msg},
        }
        raise RequestValidationError([error], body=exc.doc) from exc
    except HTTPException:
        raise
    except Exception as exc:  # not text (e.g. invalid UTF-8), or the client left: FastAPI's 400
        raise HTTPException(400, "There was an error parsing the body") from exc


class DirectRoutes:
    """Pure ASGI middleware; the routes are read at the first request (all included by then)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.plans: dict[tuple[str, str], _Plan] | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and not scope.get("root_path"):
            if self.plans is None:
                self.plans = direct_plans(scope["app"])
            plan = self.plans.get((scope["method"], scope["path"]))
            if plan is not None:
                await self._serve(plan, scope, receive, send)
                return
        await self.app(scope, receive, send)

    async def _serve(self, plan: _Plan, scope: Scope, receive: Receive, send: Send) -> None:
        scope["route"] = plan.route  # as the router sets it (the metrics' route label)
        request = Request(scope, receive, send)
        try:
            response = await self._call(plan, request)
        except Exception as exc:
            handler = _handler_for(scope["app"], exc)
            if handler is None:
                raise
            response = handler(request, exc)
            if inspect.isawaitable(response):
                response = await response
        await response(scope, receive, send)

    @staticmethod
    async def _call(plan: _Plan, request: Request) -> Response:
        body = await _decoded_body(request.scope, request.receive, plan.strict_content_type)
        values = {}
        for name, resolve in plan.dependencies:
            value = resolve(request)
            if name is not None:
                values[name] = value
        field = plan.single_body_field
        if field is not None and body is not PydanticUndefined:
            # What request_body_to_args does for such a field and a body that is there.
            if plan.takes_any_object and type(body) is dict:
                value, errors = body, None  # what any_object returns: the body itself
            else:
                value, errors = field.validate(body, {}, loc=("body",))
            body_values = {field.name: value}
        else:
            body_values, errors = await request_body_to_args(
                plan.body_fields, body, plan.embed_body_fields
            )
        if errors:
            raise RequestValidationError(errors, body=body)
        return await plan.endpoint(**values, **body_values)


def _handler_for(app: Any, exc: Exception) -> Callable[..., Any] | None:
    """The handler FastAPI's exception middleware would call for ``exc`` (by status code for
    an HTTP error, then by class); None for what only the outermost 500 handler answers
    (``Exception`` and 500 are left out of that middleware)."""
    handlers = app.exception_handlers
    if isinstance(exc, HTTPException) and exc.status_code != 500:
        handler = handlers.get(exc.status_code)
        if handler is not None:
            return handler
    for cls in type(exc).__mro__:
        if cls is Exception:
            return None
        if cls in handlers:
            return handlers[cls]
    return None
