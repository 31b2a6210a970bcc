"""One record per HTTP request: its id, what it searched, how it ended.

:class:`RequestObservation` (a pure ASGI middleware, the outermost one) opens a
:class:`RequestRecord` in a context variable, returns ``X-Request-ID`` on every response
(errors included), then logs one line and records the request's metrics. Code that serves
the request fills the record through :func:`current` (the search scheduler copies the
context into the search thread, so the record is the same object there).
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import os
import re
import threading
import time
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass, field

from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.observability import metrics

access_log = logging.getLogger("gridpath.access")

# A client's id is kept if it is 1-128 characters from this set (UUIDs, ULIDs, W3C trace
# ids, "svc-123.abc"); anything else is replaced by a generated id, so a log line can never
# be forged or bloated through the header.
REQUEST_ID = re.compile(r"[A-Za-z0-9._:-]{1,128}")


@dataclass(slots=True)
class RequestRecord:
    request_id: str
    map: str | None = None
    revision: int | None = None
    algorithm: str | None = None
    searches: int = 0
    expanded: int = 0
    search_us: float = 0.0
    error: str | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def search(self, algorithm: str, expanded: int, search_us: float) -> None:
        """Add one search (a batch's queries add theirs from several search threads)."""
        with self._lock:
            self._add(algorithm, expanded, search_us)

    def add_searches(self, algorithm: str, searches: list[tuple[int, float, str | None]]):
        """Add each ``(expanded, search_us, reason)`` of ``searches`` (a batch's chunk)."""
        with self._lock:
            for expanded, search_us, _ in searches:
                self._add(algorithm, expanded, search_us)

    def _add(self, algorithm: str, expanded: int, search_us: float) -> None:
        self.algorithm = algorithm if self.algorithm in (None, algorithm) else "mixed"
        self.searches += 1
        self.expanded += expanded
        self.search_us += search_us


_current: ContextVar[RequestRecord | None] = ContextVar("gridpath_request", default=None)


def current() -> RequestRecord | None:
    """The record of the request being served (None outside a request)."""
    return _current.get()


def note_map(name: str, revision: int) -> None:
    record = _current.get()
    if record is not None:
        record.map, record.revision = name, revision


def note_error(code: str) -> None:
    record = _current.get()
    if record is not None:
        record.error = code


def request_id_from(headers: list[tuple[bytes, bytes]]) -> str:
    for key, value in headers:
        if key == b"x-request-id":
            given = value.decode("latin-1")
            if REQUEST_ID.fullmatch(given):
                return given
            break
    return _new_request_id()


class _RequestIds:
    """New request ids: 32 hex digits (the shape of a uuid4's hex), a random 64-bit prefix
    per process and a 64-bit counter. Unique across processes and replicas without a system
    call per request (an ``os.urandom`` each cost more than the rest of the record); a
    process forked from another draws its own prefix. Not secrets: they are echoed in
    headers and logs."""

    def __init__(self) -> None:
        self._pid = -1
        self._prefix = ""
        self._count = itertools.count()

    def __call__(self) -> str:
        if self._pid != os.getpid():
            self._pid, self._prefix = os.getpid(), os.urandom(8).hex()
        return f"{self._prefix}{next(self._count) & 0xFFFFFFFFFFFFFFFF:016x}"


_new_request_id = _RequestIds()


def route_template(scope: Scope) -> str:
    """The matched route's template (``/maps/{name}``), never the raw path: bounded label
    cardinality. Requests that matched no route are ``unmatched``."""
    route = scope.get("route")
    return getattr(route, "path", None) or "unmatched"


class RequestObservation:
    """``internal_error(method, path)`` answers an unexpected exception here, inside the
    request's context (so its log line and traceback carry the request id, and the 500
    carries ``X-Request-ID``), rather than in Starlette's outermost error middleware."""

    def __init__(
        self,
        app: ASGIApp,
        internal_error: Callable[[str, str], Response],
        access_log_enabled: bool = True,
        cancelled: Callable[[str, str], Response] | None = None,
    ) -> None:
        self.app = app
        self.internal_error = internal_error
        self.log = access_log_enabled
        # The answer to a request cancelled before it answered: only the server's graceful
        # shutdown cancels a request (when its timeout runs out); None: let it propagate.
        self.cancelled = cancelled

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        began = time.perf_counter()
        record = RequestRecord(request_id_from(scope.get("headers", ())))
        token = _current.set(record)
        header = (b"x-request-id", record.request_id.encode())
        status = 500
        started = False

        async def send_with_id(message: Message) -> None:
            nonlocal status, started
            if message["type"] == "http.response.start":
                status, started = message["status"], True
                message["headers"] = [*message.get("headers", ()), header]
            await send(message)

        try:
            try:
                await self.app(scope, receive, send_with_id)
            except Exception:
                if started:  # too late for an error answer: the connection is dropped
                    raise
                response = self.internal_error(scope.get("method", ""), scope.get("path", ""))
                await response(scope, receive, send_with_id)
            except asyncio.CancelledError:
                if started or self.cancelled is None:
                    raise
                # Answered, not re-raised: uvicorn would add its text/plain 500.
                uncancel = getattr(asyncio.current_task(), "uncancel", None)
                if uncancel is not None:
                    uncancel()
                response = self.cancelled(scope.get("method", ""), scope.get("path", ""))
                await response(scope, receive, send_with_id)
        finally:
            _current.reset(token)
            seconds = time.perf_counter() - began
            route = route_template(scope)
            method = scope.get("method", "")
            metrics.observe_request(method, route, status, seconds, record.error)
            if self.log and access_log.isEnabledFor(logging.INFO):
                self._log(record, method, route, status, seconds)

    @staticmethod
    def _log(record: RequestRecord, method: str, route: str, status: int, seconds: float):
        fields = {
            "request_id": record.request_id,
            "method": method,
            "route": route,
            "status": status,
            "duration_ms": round(seconds * 1000, 3),
        }
        if record.map is not None:
            fields["map"] = record.map
            fields["revision"] = record.revision
        if record.searches:
            fields["algorithm"] = record.algorithm
            fields["searches"] = record.searches
            fields["expanded"] = record.expanded
            fields["kernel_us"] = round(record.search_us, 1)
        if record.error is not None:
            fields["error"] = record.error
        access_log.info("request", extra={"fields": fields})
