"""``push``: send maps to the shared map store, when this version has one.

The command belongs to the shared-store feature (``app.store.push``, with
``main(argv) -> int``); it is imported only when asked for, so the other tools work
without it.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "push",
        help="send maps to the shared map store (app.store.push; its own --help)",
        add_help=False,
    )
    parser.add_argument("args", nargs=argparse.REMAINDER)
    parser.set_defaults(run=lambda args: run_argv(args.args))


def run_argv(argv: Sequence[str]) -> int:
    try:
        from app.store import push
    except ModuleNotFoundError as exc:
        if exc.name not in ("app.store", "app.store.push"):
            raise
        print(
            "gridpath-maps push: not available in this version (it needs the shared map "
            "store, app.store.push)",
            file=sys.stderr,
        )
        return 2
    return push.main(list(argv))
