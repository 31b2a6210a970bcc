"""Logging set-up: ``LOG_FORMAT=text`` (default, for reading in a terminal) or ``json`` (one
JSON object per line, for a log pipeline; the Dockerfile and compose file set it).

The standard library's ``logging`` with a small JSON formatter, not structlog: uvicorn,
numba and every library already log through ``logging``, so one formatter on the root
handler turns *every* line into JSON (structlog would still need this bridge for them), and
it costs no new dependency; orjson, already used for responses, does the encoding.
Structured fields ride on ``extra={"fields": {...}}``; a line logged while a request is
being served (an unexpected error's traceback, say) also carries its ``request_id``.

uvicorn's own access log (``uvicorn.access``) is switched off here, as with
``--no-access-log``: ``gridpath.access`` writes the one line per request (with the request
id and the search's figures), so uvicorn's would double it. uvicorn's other loggers are
routed through the root handler, so they get the same format.
"""

from __future__ import annotations

import logging
import sys
import time

import orjson

from app.observability.requests import current


def _fields(record: logging.LogRecord) -> dict | None:
    fields = getattr(record, "fields", None)
    if fields is None:
        request = current()
        if request is not None:
            fields = {"request_id": request.request_id}
    return fields


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry = {
            "ts": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
            + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        fields = _fields(record)
        if fields:
            entry.update(fields)
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return orjson.dumps(entry, default=str).decode()


class TextFormatter(logging.Formatter):
    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s: %(message)s")

    def format(self, record: logging.LogRecord) -> str:
        line = super().format(record)
        fields = _fields(record)
        if fields:
            line += " " + " ".join(f"{k}={v}" for k, v in fields.items())
        return line


class _GridpathHandler(logging.StreamHandler):
    """Marks the handler this module installed, so a second set-up replaces it."""


def configure_logging(level: str, log_format: str) -> None:
    root = logging.getLogger()
    for handler in [h for h in root.handlers if isinstance(h, _GridpathHandler)]:
        root.removeHandler(handler)
    handler = _GridpathHandler(sys.stderr)
    handler.setFormatter(JsonFormatter() if log_format == "json" else TextFormatter())
    root.addHandler(handler)
    root.setLevel(level.upper())
    for name in ("uvicorn", "uvicorn.error"):
        logger = logging.getLogger(name)
        logger.handlers.clear()
        logger.propagate = True
    # As uvicorn's own --no-access-log does: without a handler (its own or, propagating, the
    # root's) uvicorn does not even build the line's arguments for each response.
    access = logging.getLogger("uvicorn.access")
    access.handlers.clear()
    access.propagate = False
    access.disabled = True
