"""``python -m gridpath.cli`` / ``gridpath-maps``: check, convert and render maps."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from gridpath.cli import check, convert, render

COMMANDS = (check, convert, render)


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
    args = build_parser().parse_args(argv)
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
