"""``python -m app [uvicorn options]``: serves ``app.main:app`` like ``uvicorn app.main:app``,
and exits with status 0 after a graceful shutdown.

On SIGTERM (or SIGINT) uvicorn stops accepting connections, lets in-flight requests finish
for up to ``--timeout-graceful-shutdown`` seconds, runs the lifespan's shutdown, then raises
the signal again with the handler that was installed before it started; with the default
handler the process ends as killed by SIGTERM (status 143), which orchestrators report as a
crash-like stop. The handlers installed here are those uvicorn restores: they do nothing, so
the process then exits 0. ``make run`` and the Dockerfile start the service this way.
"""

from __future__ import annotations

import signal
import sys

import uvicorn


def main(argv: list[str] | None = None) -> None:
    for handled in (signal.SIGTERM, signal.SIGINT):
        signal.signal(handled, lambda *_: None)
    uvicorn.main(["app.main:app", *(sys.argv[1:] if argv is None else argv)], prog_name="app")


if __name__ == "__main__":
    main()
