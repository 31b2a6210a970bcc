"""The HTTP/1.1 parser ``python -m app`` serves with: uvicorn's httptools protocol, with
limits on the request head and the JSON error envelope on what it refuses.

uvicorn's own parser answers a request it cannot parse before the application sees it,
as ``400`` text/plain (``Invalid HTTP request received.``): a request target over about
64 KB among them. And it sets no limit on the headers (a client could send megabytes of
them). Here:

* a request target (path and query) over ``MAX_URL_BYTES``: 414 ``uri_too_long``;
* headers over ``MAX_HEADER_BYTES`` in all (names, values and separators), or a request
  head still unfinished past both limits together: 431 ``headers_too_large``;
* anything else the parser refuses: 400 ``bad_request``;

each as ``{"error": {"code", "message"}}`` with ``Connection: close`` (what follows on the
connection cannot be trusted). ``app.__main__`` installs it as uvicorn's ``auto`` and
``httptools`` protocols; plain ``uvicorn app.main:app`` keeps uvicorn's, and then the
application checks the same limits itself (``app.api.limits.RequestHeadLimits``) on what
reaches it (docs/api.md, "Errors").
"""

from __future__ import annotations

import orjson
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from app.config import get_settings


class HeadTooLarge(Exception):
    """Raised from a parser callback: the parser stops, and the refusal is answered."""


class LimitedHttpToolsProtocol(HttpToolsProtocol):
    _refusal: tuple[int, str, str] | None = None
    _head_bytes = 0  # bytes received since the current request head began
    _in_head = True

    def _limits(self) -> tuple[int, int]:
        settings = get_settings()  # cached: read once per process
        return settings.max_url_bytes, settings.max_header_bytes

    def data_received(self, data: bytes) -> None:
        # Parsed first (so a long target gets its own answer, 414), then counted: the parser
        # buffers an unfinished header itself, so a head that does not end is cut off here,
        # one read (at most 256 KiB) past the limits.
        super().data_received(data)
        if self._in_head and not self.transport.is_closing():
            self._head_bytes += len(data)
            max_url, max_headers = self._limits()
            if self._head_bytes > max_url + max_headers + 1024:  # the request line's rest
                self._refuse(
                    431,
                    "headers_too_large",
                    f"the request head is over {max_url + max_headers} bytes",
                )

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._header_bytes = 0

    def on_url(self, url: bytes) -> None:
        super().on_url(url)
        max_url, _ = self._limits()
        if len(self.url) > max_url:
            self._refusal = (
                414,
                "uri_too_long",
                f"the request target (path and query) is over {max_url} bytes",
            )
            raise HeadTooLarge

    def on_header(self, name: bytes, value: bytes) -> None:
        self._header_bytes += len(name) + len(value) + 4  # ": " and CRLF
        _, max_headers = self._limits()
        if self._header_bytes > max_headers:
            self._refusal = (
                431,
                "headers_too_large",
                f"the request headers are over {max_headers} bytes in all",
            )
            raise HeadTooLarge
        super().on_header(name, value)

    def on_headers_complete(self) -> None:
        self._in_head = False
        super().on_headers_complete()

    def on_message_complete(self) -> None:
        self._in_head, self._head_bytes = True, 0
        super().on_message_complete()

    def send_400_response(self, msg: str) -> None:
        """Every refusal by the parser (uvicorn calls this one for all of them)."""
        status, code, message = self._refusal or (
            400,
            "bad_request",
            "the request is not valid HTTP/1.1; nothing was done",
        )
        self._refuse(status, code, message)

    def _refuse(self, status: int, code: str, message: str) -> None:
        body = orjson.dumps({"error": {"code": code, "message": message}})
        reason = {
            400: b"Bad Request",
            414: b"URI Too Long",
            431: b"Request Header Fields Too Large",
        }
        head = [b"HTTP/1.1 %d %s\r\n" % (status, reason[status])]
        for name, value in self.server_state.default_headers:
            head += [name, b": ", value, b"\r\n"]
        head += [
            b"content-type: application/json\r\n",
            b"content-length: %d\r\n" % len(body),
            b"connection: close\r\n\r\n",
            body,
        ]
        self.transport.write(b"".join(head))
        self.transport.close()
