"""Every error leaves the service as ``{"error": {"code": ..., "message": ...}}``."""

from __future__ import annotations

import logging

import orjson
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from app.observability import note_error
from gridpath.errors import ServiceError

log = logging.getLogger(__name__)

_HTTP_CODES = {
    404: "not_found",
    405: "method_not_allowed",
    413: "payload_too_large",
    415: "unsupported_media_type",
    401: "unauthorized",
}


def error_response(
    status: int, code: str, message: str, headers: dict[str, str] | None = None
) -> Response:
    note_error(code)  # the request's log line and gridpath_rejected_requests_total
    body = orjson.dumps({"error": {"code": code, "message": message}})
    return Response(body, status_code=status, media_type="application/json", headers=headers)


# Option fields whose bad values get a code naming the field (``invalid_<field>``); the
# foundation's fields (map, start, goal, smooth) and malformed bodies get ``invalid_request``.
OPTION_FIELDS = frozenset(
    {
        "algorithm",
        "heuristic",
        "heuristic_weight",
        "connectivity",
        "diagonal",
        "cost_model",
        "max_expanded",
        "max_cost",
        "time_budget_ms",
        "closest",
        "blocked",
        "goals",
        "include",
        "terrain_costs",
        "turn_penalty",
        "clearance",
        "format",
    }
)


def _field_name(loc: list[str]) -> str:
    field = ""
    for p in loc:
        field += f"[{p}]" if p.isdigit() else (f".{p}" if field else p)
    return field


def error_code_for(errors: list[dict]) -> str:
    """``invalid_<option>`` for a bad option value, else ``invalid_request``."""
    for err in errors[:1]:
        loc = [str(p) for p in err.get("loc", ()) if p != "body"]
        if loc and loc[0] in OPTION_FIELDS and err.get("type") != "extra_forbidden":
            return f"invalid_{loc[0]}"
    return "invalid_request"


def describe_errors(errors: list[dict]) -> str:
    """One readable sentence per problem, naming the field, e.g. ``start[0]: ...``."""
    parts = []
    for err in errors[:5]:
        loc = [str(p) for p in err.get("loc", ()) if p != "body"]
        field = _field_name(loc)
        kind = err.get("type")
        if kind == "json_invalid":
            parts.append("request body is not valid JSON")
        elif kind == "missing":
            parts.append(f"missing field {field!r}" if field else "missing request body")
        elif kind == "extra_forbidden":
            parts.append(f"unknown field {field!r}")
        elif not field and kind in ("model_attributes_type", "dict_type", "model_type"):
            parts.append("request body must be a JSON object (Content-Type: application/json)")
        else:
            msg = err.get("msg", "invalid value")
            parts.append(f"{field}: {msg}" if field else msg)
    return "; ".join(parts) or "invalid request"


async def _service_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, ServiceError)
    return error_response(exc.status, exc.code, exc.message, exc.headers)


async def _validation_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, RequestValidationError)
    errors = list(exc.errors())
    return error_response(422, error_code_for(errors), describe_errors(errors))


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, StarletteHTTPException)
    if exc.status_code == 400:  # FastAPI could not even decode the body (e.g. not UTF-8)
        return error_response(422, "invalid_request", "request body is not valid JSON")
    code = _HTTP_CODES.get(exc.status_code, "http_error")
    message = exc.detail if isinstance(exc.detail, str) else code.replace("_", " ")
    if exc.status_code == 404 and message == "Not Found":
        message = f"no such endpoint: {request.method} {request.url.path}"
    headers = exc.headers  # they go along: 405 keeps its Allow (RFC 9110 requires it)
    if exc.status_code == 405:
        headers = {**(headers or {}), "Allow": allowed_methods(request)}
    return error_response(exc.status_code, code, message, headers)


def allowed_methods(request: Request) -> str:
    """Every method some route serves at this path. The router's 405 names only the first
    route whose path matched (``GET /maps/{name}``, not its PATCH, PUT and DELETE).

    A concrete path is matched before its templated counterparts, as OpenAPI reads paths:
    ``/maps/reload`` is the reload action (POST), not the map named ``reload``."""
    concrete: set[str] = set()
    templated: set[str] = set()
    path = request.scope["path"]
    app = request.app  # its own routes, and those of the routers it included (main.py)
    routers = getattr(app.state, "routers", ())
    for route in [*app.routes, *(r for router in routers for r in router.routes)]:
        path_regex = getattr(route, "path_regex", None)
        if path_regex is not None and path_regex.match(path):
            methods = set(getattr(route, "methods", None) or ())
            (templated if "{" in getattr(route, "path", "{") else concrete).update(methods)
    return ", ".join(sorted(concrete or templated))


def internal_error(method: str, path: str) -> Response:
    """The 500 answer to an unexpected exception (call it while handling the exception: the
    traceback is logged)."""
    log.exception("unexpected error on %s %s", method, path)
    return error_response(500, "internal_error", "internal error; the incident was logged")


def shutting_down(method: str, path: str) -> Response:
    """The answer to a request still running when the graceful shutdown's time ran out
    (uvicorn cancels it): 503 ``shutting_down``, never uvicorn's plain-text 500. Whatever
    it was doing is abandoned: a change not yet acknowledged by the store did not happen."""
    log.warning("%s %s cut off by the shutdown: answered 503 shutting_down", method, path)
    return error_response(
        503,
        "shutting_down",
        "the server is shutting down and could not finish this request within its grace "
        "period; retry (another replica or this one once it is back)",
        {"Retry-After": "1", "Connection": "close"},
    )


async def _unexpected_error(request: Request, exc: Exception) -> Response:
    return internal_error(request.method, request.url.path)


def install_error_handlers(app: FastAPI) -> None:
    app.add_exception_handler(ServiceError, _service_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    app.add_exception_handler(Exception, _unexpected_error)
