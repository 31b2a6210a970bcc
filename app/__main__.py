"""``python -m app [uvicorn options]``: serves ``app.main:app`` like
``uvicorn app.main:app``, and exits with status 0 after a graceful shutdown.

On SIGTERM (or SIGINT) uvicorn stops accepting connections, lets in-flight requests finish
for up to ``--timeout-graceful-shutdown`` seconds, runs the lifespan's shutdown, then raises
the signal again with the handler that was installed before it started; with the default
handler the process ends as killed by SIGTERM (status 143), which orchestrators report as a
crash-like stop. The handlers installed here are those uvicorn restores: they do nothing, so
the process then exits 0. ``make run`` and the Dockerfile start the service this way.

With ``PROMETHEUS_MULTIPROC_DIR`` set (several ``--workers``), the folder is created and
emptied here, once, before any worker starts: files left by an earlier run would otherwise
be summed into this run's metrics.

Its HTTP parser (``--http auto``, the default, or ``httptools``) limits the request head and
answers what it refuses with the JSON envelope (app/http_protocol.py).
"""

from __future__ import annotations

import os
import shutil
import signal
import sys
from collections.abc import Callable
from pathlib import Path

import uvicorn

# The HTTP parser with limits on the request head and the JSON envelope on its refusals
# (app/http_protocol.py), for --http auto (the default) and httptools. Given to uvicorn as
# an import string in its config, so that with --workers N every worker (a new interpreter
# that gets the config) uses it too.
LIMITED_PARSER = "app.http_protocol:LimitedHttpToolsProtocol"


def with_limited_parser(run: Callable[..., None]) -> Callable[..., None]:
    def run_limited(app, **options) -> None:
        if options.get("http") in ("auto", "httptools"):
            options["http"] = LIMITED_PARSER
        run(app, **options)

    return run_limited


def reset_metrics_dir(folder: str | None) -> None:
    if not folder:
        return
    path = Path(folder)
    path.mkdir(parents=True, exist_ok=True)
    for entry in path.iterdir():
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry)
        else:
            entry.unlink()


def main(argv: list[str] | None = None) -> None:
    reset_metrics_dir(os.environ.get("PROMETHEUS_MULTIPROC_DIR"))
    for handled in (signal.SIGTERM, signal.SIGINT):
        signal.signal(handled, lambda *_: None)
    command_line = sys.modules["uvicorn.main"]  # the module (uvicorn.main is the command)
    command_line.run = with_limited_parser(command_line.run)
    uvicorn.main(["app.main:app", *(sys.argv[1:] if argv is None else argv)], prog_name="app")


if __name__ == "__main__":
    main()
