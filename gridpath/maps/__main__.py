"""``python -m gridpath.maps`` / ``gridpath-maps``: check, convert, render and push maps."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from gridpath.maps import check, convert, push, render

COMMANDS = (check, convert, render, push)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gridpath-maps",
        description="gridpath map tools: validate, convert and draw maps as the server reads them.",
    )
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command in COMMANDS:
        command.add_parser(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["push"]:
        # push owns its arguments (gridpath.store.push parses them): hand them over untouched
        return push.run_argv(argv[1:])
    args = build_parser().parse_args(argv)
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
