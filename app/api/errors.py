"""Every error leaves the service as ``{"error": {"code": ..., "message": ...}}``."""

from __future__ import annotations

import logging

import orjson
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from app.errors import ServiceError

log = logging.getLogger(__name__)

_HTTP_CODES = {404: "not_found", 405: "method_not_allowed", 413: "payload_too_large",
               415: "unsupported_media_type"}


def error_response(status: int, code: str, message: str) -> Response:
    body = orjson.dumps({"error": {"code": code, "message": message}})
    return Response(body, status_code=status, media_type="application/json")


def describe_validation_error(exc: RequestValidationError) -> str:
    """One readable sentence per problem, naming the field, e.g. ``start[0]: ...``."""
    parts = []
    for err in exc.errors()[:5]:
        loc = [str(p) for p in err.get("loc", ()) if p != "body"]
        field = ""
        for p in loc:
            field += f"[{p}]" if p.isdigit() else (f".{p}" if field else p)
        if err.get("type") == "json_invalid":
            parts.append("request body is not valid JSON")
            continue
        if err.get("type") == "missing":
            parts.append(f"missing field {field!r}" if field else "missing request body")
            continue
        if not field and err.get("type") in ("model_attributes_type", "dict_type", "model_type"):
            parts.append("request body must be a JSON object (Content-Type: application/json)")
            continue
        msg = err.get("msg", "invalid value")
        parts.append(f"{field}: {msg}" if field else msg)
    return "; ".join(parts) or "invalid request"


async def _service_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, ServiceError)
    return error_response(exc.status, exc.code, exc.message)


async def _validation_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, RequestValidationError)
    return error_response(422, "invalid_request", describe_validation_error(exc))


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, StarletteHTTPException)
    if exc.status_code == 400:  # FastAPI could not even decode the body (e.g. not UTF-8)
        return error_response(422, "invalid_request", "request body is not valid JSON")
    code = _HTTP_CODES.get(exc.status_code, "http_error")
    message = exc.detail if isinstance(exc.detail, str) else code.replace("_", " ")
    if exc.status_code == 404 and message == "Not Found":
        message = f"no such endpoint: {request.method} {request.url.path}"
    return error_response(exc.status_code, code, message)


async def _unexpected_error(request: Request, exc: Exception) -> Response:
    log.exception("unexpected error on %s %s", request.method, request.url.path)
    return error_response(500, "internal_error", "internal error; the incident was logged")


def install_error_handlers(app: FastAPI) -> None:
    app.add_exception_handler(ServiceError, _service_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    app.add_exception_handler(Exception, _unexpected_error)
