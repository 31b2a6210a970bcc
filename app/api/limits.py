"""Request-size limits as pure ASGI middleware."""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.api.errors import error_response

_UPLOADS = ("/maps/", "/worlds/")  # PUT bodies under MAX_UPLOAD_BYTES (a world: many links)


class BodySizeLimit:
    """Refuse request bodies over ``max_bytes`` with 413 ``payload_too_large``.

    A declared ``Content-Length`` is checked before anything is read. A body without
    one (chunked) is read here up to the limit, then handed on.
    """

    def __init__(self, app: ASGIApp, max_bytes: int, upload_bytes: int | None = None) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.upload_bytes = upload_bytes or max_bytes  # for PUT /maps/{name}, /worlds/{name}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.max_bytes
        if scope.get("method") == "PUT" and scope.get("path", "").startswith(_UPLOADS):
            limit = self.upload_bytes
        declared = None
        for key, value in scope.get("headers", ()):
            if key == b"content-length":
                try:
                    declared = int(value)
                except ValueError:
                    declared = -1
                break
        if declared is not None:
            if declared < 0 or declared > limit:
                await self._refuse(scope, receive, send, limit)
                return
            await self.app(scope, receive, send)
            return
        if scope.get("method") in ("GET", "HEAD", "OPTIONS", "DELETE"):
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []
        received = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return  # client went away
            chunk = message.get("body", b"")
            received += len(chunk)
            if received > limit:
                await self._refuse(scope, receive, send, limit)
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    async def _refuse(self, scope: Scope, receive: Receive, send: Send, limit: int) -> None:
        response = error_response(
            413, "payload_too_large", f"request body is over the limit of {limit} bytes"
        )
        await response(scope, receive, send)


class RequestHeadLimits:
    """414 ``uri_too_long`` for a request target over ``max_url_bytes``, 431
    ``headers_too_large`` for headers over ``max_header_bytes`` in all: the limits of
    ``python -m app``'s parser (app/http_protocol.py), checked again here for the requests
    that reach the application under another server (plain ``uvicorn app.main:app``, whose
    parser refuses a target over about 64 KB itself, as text/plain)."""

    def __init__(self, app: ASGIApp, max_url_bytes: int, max_header_bytes: int) -> None:
        self.app = app
        self.max_url_bytes = max_url_bytes
        self.max_header_bytes = max_header_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            target = len(scope.get("raw_path") or b"") + len(scope.get("query_string") or b"")
            if target > self.max_url_bytes:
                message = f"the request target (path and query) is over {self.max_url_bytes} bytes"
                await error_response(414, "uri_too_long", message)(scope, receive, send)
                return
            headers = sum(len(k) + len(v) + 4 for k, v in scope.get("headers", ()))
            if headers > self.max_header_bytes:
                message = f"the request headers are over {self.max_header_bytes} bytes in all"
                await error_response(431, "headers_too_large", message)(scope, receive, send)
                return
        await self.app(scope, receive, send)
