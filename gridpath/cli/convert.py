"""``convert IN OUT``: rewrite a map in another format (PNG, Moving AI ``.map``, Tiled ``.tmj``).

The output format is OUT's suffix. Walkability, terrain classes and their costs, and the
same-map links the map declares (in the sidecar's ``links``, or a ``.tmj``'s link objects)
are kept:
a PNG gets grey levels or a palette sidecar ``OUT.json``, a ``.map`` its costs in a
sidecar (it holds only ``ground`` and ``swamp``: other classes are refused), a ``.tmj``
its classes as tile properties. The written map is loaded back and compared before the
command succeeds; a stale ``OUT.json`` that would change it is removed.
"""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path

import numpy as np

from gridpath.cli import load
from gridpath.cli.progress import progress
from gridpath.errors import MapLoadError
from gridpath.grid import Grid
from gridpath.grid.links import sidecar_form
from gridpath.grid.tiled import dump_tmj
from gridpath.maps import persist

OUTPUT_SUFFIXES = (".png", ".map", ".tmj")


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "convert",
        help="convert a map between PNG, Moving AI .map and Tiled .tmj",
        description=__doc__,
    )
    parser.add_argument("input", type=Path, metavar="IN")
    parser.add_argument("output", type=Path, metavar="OUT", help="ends in .png, .map or .tmj")
    parser.set_defaults(run=run)


class ConvertError(Exception):
    pass


def encode(grid: Grid, suffix: str) -> tuple[bytes, dict | None]:
    """The file bytes and sidecar (or ``None``) of ``grid`` in the format of ``suffix``."""
    if suffix == ".tmj":
        return dump_tmj(grid), None
    # Grid.encode picks the format from the map's source: name the one wanted
    target = dataclasses.replace(grid, source=f"{grid.name}{suffix}")
    got, data, sidecar = target.encode()
    if got != suffix:
        names = ", ".join(tc.name for tc in grid.terrain_classes)
        raise ConvertError(
            f"a Moving AI .map holds the classes ground and swamp only; this map has {names}"
        )
    return data, sidecar


def same_map(a: Grid, b: Grid) -> bool:
    """Same walkability, every walkable cell of the same terrain class (by name) at the
    same cost, and the same links. Classes no cell has may differ (a ``.map`` always has
    ground and swamp)."""
    walkable = a.walkable.astype(bool)
    if not np.array_equal(walkable, b.walkable.astype(bool)):
        return False
    if sidecar_form(a.links) != sidecar_form(b.links):
        return False
    index_in_b = {tc.name: i for i, tc in enumerate(b.terrain_classes)}
    lookup = np.array([index_in_b.get(tc.name, -1) for tc in a.terrain_classes])
    costs_a = np.array([tc.cost for tc in a.terrain_classes])
    costs_b = np.array([tc.cost for tc in b.terrain_classes])
    cells_a = np.asarray(a.terrain[1:-1, 1:-1])[walkable]
    cells_b = np.asarray(b.terrain[1:-1, 1:-1])[walkable]
    return bool(
        np.array_equal(lookup[cells_a], cells_b)
        and np.array_equal(costs_a[cells_a], costs_b[cells_b])
    )


def run(args) -> int:
    suffix = args.output.suffix.lower()
    if suffix not in OUTPUT_SUFFIXES:
        print(f"convert: OUT must end in {', '.join(OUTPUT_SUFFIXES)}", file=sys.stderr)
        return 2
    side = args.output.with_suffix(".json")
    with progress() as bar:
        task = bar.add_task(f"converting {args.input.name}", total=3)
        try:
            grid = load(args.input)
        except MapLoadError as exc:
            print(f"convert: cannot load {args.input}: {exc.reason}", file=sys.stderr)
            return 1
        bar.advance(task)
        try:
            data, sidecar = encode(grid, suffix)
            if sidecar is not None:
                persist.atomic_write(side, json.dumps(sidecar, indent=1).encode())
            elif side.exists():
                side.unlink()
                print(f"removed {side}: a stale sidecar would change the map", file=sys.stderr)
            persist.atomic_write(args.output, data)
        except (ConvertError, OSError) as exc:
            print(f"convert: cannot write {args.output}: {exc}", file=sys.stderr)
            return 1
        bar.advance(task)
        try:
            written = load(args.output, name=grid.name)
        except MapLoadError as exc:
            print(f"convert: {args.output} does not load back: {exc.reason}", file=sys.stderr)
            return 1
    if not same_map(grid, written):
        print(f"convert: {args.output} does not load back to the same map", file=sys.stderr)
        return 1
    extra = f" and {side}" if sidecar is not None else ""
    classes = len(grid.terrain_classes)
    print(f"wrote {args.output}{extra}: {grid.width}x{grid.height}, {classes} terrain classes")
    return 0
