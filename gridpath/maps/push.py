"""``push``: send maps to the shared map store (``gridpath.store.push``, its own ``--help``).

Imported only when asked for, so the other tools start without the Redis client.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "push",
        help="send maps to the shared map store (gridpath.store.push; its own --help)",
        add_help=False,
    )
    parser.add_argument("args", nargs=argparse.REMAINDER)
    parser.set_defaults(run=lambda args: run_argv(args.args))


def run_argv(argv: Sequence[str]) -> int:
    from gridpath.store import push

    return push.main(list(argv))
