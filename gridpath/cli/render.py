"""``render MAP OUT.png``: a picture of a map, optionally with a path and the cells explored.

The picture is the server's (``GET /maps/{name}/image``): walkable white (greyer the
costlier), blocked black, the path red and its smoothed waypoints blue. ``--explored``
colours the cells the search expanded, yellow (first) to orange (last), under the path.
"""

from __future__ import annotations

import io
import re
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
from PIL import Image

from gridpath.cli import load
from gridpath.errors import MapLoadError, ServiceError
from gridpath.search import Algorithm, Diagonal, Heuristic, InvalidOption, SearchOptions, find_path

_CELL = re.compile(r"(-?[0-9]{1,9}),(-?[0-9]{1,9})")
EARLY, LATE = np.array([255, 236, 140]), np.array([245, 140, 50])  # explored heat colours


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "render", help="draw a map (and a path, and the explored cells) as PNG", description=__doc__
    )
    parser.add_argument("map", type=Path, metavar="MAP")
    parser.add_argument("output", type=Path, metavar="OUT.png")
    parser.add_argument(
        "--path", nargs=2, type=cell, metavar=("X0,Y0", "X1,Y1"), help="start and goal cells"
    )
    parser.add_argument("--algorithm", choices=[a.value for a in Algorithm], default="auto")
    parser.add_argument("--heuristic", choices=[h.value for h in Heuristic])
    parser.add_argument("--connectivity", type=int, choices=(4, 8), default=8)
    parser.add_argument("--diagonal", choices=[d.value for d in Diagonal], default=None)
    parser.add_argument("--explored", action="store_true", help="colour the expanded cells")
    parser.add_argument("--scale", type=int, choices=range(1, 17), metavar="1..16")
    parser.set_defaults(run=run)


def cell(text: str) -> tuple[int, int]:
    import argparse

    match = _CELL.fullmatch(text)
    if match is None:
        raise argparse.ArgumentTypeError(f"a cell is 'x,y' integers, got {text!r}")
    return int(match[1]), int(match[2])


def options_from(args) -> SearchOptions:
    fields = {"algorithm": Algorithm(args.algorithm), "connectivity": args.connectivity}
    if args.heuristic:
        fields["heuristic"] = Heuristic(args.heuristic)
    if args.diagonal:
        fields["diagonal"] = Diagonal(args.diagonal)
    return SearchOptions(**fields)


def draw_explored(png: bytes, explored: np.ndarray, path: np.ndarray, scale: int) -> bytes:
    """The server's picture (``scale`` pixels a cell) with the explored cells that are not
    on the path coloured by expansion order."""
    rgb = np.array(Image.open(io.BytesIO(png)).convert("RGB"))
    height, width = rgb.shape[0] // scale, rgb.shape[1] // scale
    cells = rgb.reshape(height, scale, width, scale, 3)  # a view: cells[y, :, x, :] is a cell
    on_path = np.zeros((height, width), dtype=bool)
    on_path[path[:, 1], path[:, 0]] = True
    order = np.linspace(0.0, 1.0, len(explored))[:, None]
    colours = (EARLY + (LATE - EARLY) * order).astype(np.uint8)
    keep = ~on_path[explored[:, 1], explored[:, 0]]
    cells[explored[keep, 1], :, explored[keep, 0], :] = colours[keep][:, None, None, :]
    out = io.BytesIO()
    Image.fromarray(rgb, mode="RGB").save(out, format="PNG")
    return out.getvalue()


def run(args) -> int:
    from gridpath.picture import render_map  # the server's picture

    try:
        grid = load(args.map)
    except MapLoadError as exc:
        print(f"render: cannot load {args.map}: {exc.reason}", file=sys.stderr)
        return 1
    scale = args.scale or max(1, min(8, 512 // max(grid.width, grid.height)))
    path = waypoints = None
    explored = np.zeros((0, 2), dtype=np.int32)
    if args.path:
        start, goal = args.path
        try:
            result = find_path(
                grid,
                start,
                goal,
                replace(options_from(args), smooth=True),
                explored_limit=grid.cell_count if args.explored else 0,
                waypoints=True,
            )
        except (ServiceError, InvalidOption) as exc:
            print(f"render: {exc}", file=sys.stderr)
            return 1
        path = result.path
        waypoints = result.waypoints  # string-pulled, never dearer than the path
        explored = np.asarray(result.explored, dtype=np.int64).reshape(-1, 2)
        if result.found:
            print(f"path: {len(path)} cells, cost {result.cost:.6f}, expanded {result.expanded}")
        else:
            print(f"no path: {result.reason}, expanded {result.expanded}")
    elif args.explored:
        print("render: --explored needs --path", file=sys.stderr)
        return 2
    png = render_map(grid, path, waypoints, scale)
    if len(explored):
        png = draw_explored(png, explored, path if path is not None else explored[:0], scale)
    try:
        args.output.write_bytes(png)
    except OSError as exc:
        print(f"render: cannot write {args.output}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    print(f"wrote {args.output}: {grid.width * scale}x{grid.height * scale} pixels")
    return 0
