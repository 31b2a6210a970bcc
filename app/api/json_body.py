"""A JSON request body decoded as FastAPI decodes one, for the lean ``POST /path`` route
(``app.api.routes.paths.serve_path``), which validates it itself.

The rules are FastAPI's, kept by ``tests/app/api/test_lean_path.py`` (the lean route and the
FastAPI route that declares it answer every request byte for byte the same):

- a JSON media type (``application/json`` or ``application/*+json``) is decoded; without
  ``Content-Type`` or with another media type, the bytes are handed to validation as they
  are (and fail it: the body must be a JSON object);
- the value, or the error, is the standard library's ``json`` (Starlette's
  ``Request.json``): orjson decodes the body when it can and the body holds no run of 19
  digits or more (orjson reads an integer past 64 bits as a float); any body orjson refuses
  goes to ``json``, so its error is ``json``'s: 422 ``json_invalid``;
- a body that is not text (not UTF-8) is FastAPI's 400, which the service answers as 422.
"""

from __future__ import annotations

import email.message
import json
from functools import lru_cache
from typing import Any

import orjson
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request

MISSING = object()  # an empty body
# A run of 19 ASCII digits, found as b"0" * 19 in the body with every digit made b"0" and
# every other byte b" " (bytes.translate: ten times faster than the regular expression
# [0-9]{19} on a /paths body).
_DIGITS_AS_ZERO = bytes(48 if 48 <= b <= 57 else 32 for b in range(256))
_LONG_NUMBER = b"0" * 19


@lru_cache(maxsize=64)
def is_json_media_type(content_type: str) -> bool:
    """``application/json`` or ``application/*+json``, parsed as FastAPI parses it."""
    message = email.message.Message()
    message["content-type"] = content_type
    if message.get_content_maintype() != "application":
        return False
    subtype = message.get_content_subtype()
    return subtype == "json" or subtype.endswith("+json")


def _json(body: bytes) -> Any:
    """``json.loads(body)``: the same value, or the same exception."""
    if _LONG_NUMBER not in body.translate(_DIGITS_AS_ZERO):
        try:
            return orjson.loads(body)
        except orjson.JSONDecodeError:
            pass  # json's own verdict, below
    return json.loads(body)


async def read_body(request: Request) -> bytes:
    """The whole body, read from the ASGI messages as ``Request.body`` reads them (without
    its stream generator, which costs more than the rest of the reading)."""
    chunks: list[bytes] = []
    while True:
        message = await request.receive()
        if message["type"] == "http.request":
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                return chunks[0] if len(chunks) == 1 else b"".join(chunks)
        elif message["type"] == "http.disconnect":
            raise ClientDisconnect()


async def json_body(request: Request) -> Any:
    """The body as validation gets it: a decoded JSON value, the raw bytes (not a JSON
    media type), or ``MISSING``."""
    try:
        body = await read_body(request)
        if not body:
            return MISSING
        content_type = request.headers.get("content-type")
        if content_type and is_json_media_type(content_type):
            return _json(body)
        return body
    except json.JSONDecodeError as exc:
        error = {
            "type": "json_invalid",
            "loc": ("body", exc.pos),
            "msg": "JSON decode error",
            "input": {},
            "ctx": {"error": exc.msg},
        }
        raise RequestValidationError([error], body=exc.doc) from exc
    except Exception as exc:  # not text (e.g. invalid UTF-8): FastAPI's 400
        raise HTTPException(400, "There was an error parsing the body") from exc
