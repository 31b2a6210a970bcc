"""``check PATH…``: validate map files exactly as the server loads them from ``MAPS_DIR``.

Same loader, same limits (``MAX_MAP_CELLS``, ``MAX_MAP_BYTES``), same reasons as
``/health`` lists, including the name rule and one map per name in a folder. A folder is
checked as ``MAPS_DIR`` would be (its map files, not recursive). Exit status 1 if any map
fails: a CI step.
"""

from __future__ import annotations

import sys
from pathlib import Path

from gridpath.cli import MapLimits, map_limits
from gridpath.cli.progress import track
from gridpath.errors import MapLoadError
from gridpath.grid import is_valid_map_name, load_map
from gridpath.grid.loader import is_map_file
from gridpath.maps.snapshot import MapSnapshot
from gridpath.nav.model import is_nav_file, nav_map_name
from gridpath.nav.snapshot import load_polygon_file


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "check",
        help="validate maps as the server would load them (exit status 1 on any failure)",
        description=__doc__,
    )
    parser.add_argument("paths", nargs="+", type=Path, metavar="PATH", help="map files or folders")
    parser.add_argument("-q", "--quiet", action="store_true", help="print failures only")
    parser.set_defaults(run=run)


def map_paths(paths: list[Path]) -> list[Path]:
    """Files as given; a folder's map files in name order (as the server reads MAPS_DIR)."""
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            found += sorted(p for p in path.iterdir() if is_map_file(p) or is_nav_file(p))
        else:
            found.append(path)
    return found


def check_one(path: Path, taken: dict[tuple[Path, str], str], settings: MapLimits) -> MapSnapshot:
    """Load one map as the server would (``NAME.nav.json``: a polygon map, its mesh built);
    :class:`MapLoadError` with its reason if it fails. ``taken`` maps (folder, name) to the
    file already holding that name."""
    polygon = path.name.endswith(".nav.json")
    name = nav_map_name(path) if polygon else path.stem
    if not is_valid_map_name(name):
        raise MapLoadError(f"map name {name!r} is not 1-64 characters of [A-Za-z0-9_-]")
    key = (path.resolve().parent, name)
    if key in taken:
        raise MapLoadError(f"map name {name!r} is already taken by {taken[key]}")
    if polygon:
        grid = load_polygon_file(path, max_bytes=settings.max_map_bytes).prepare()
    else:
        grid = load_map(path, max_cells=settings.max_map_cells, max_bytes=settings.max_map_bytes)
    taken[key] = grid.source
    return grid


def run(args) -> int:
    settings = map_limits()
    paths = map_paths(args.paths)
    taken: dict[tuple[Path, str], str] = {}
    failed = 0
    for path in track(paths, "checking maps", total=len(paths)):
        try:
            snapshot = check_one(path, taken, settings)
        except MapLoadError as exc:
            failed += 1
            print(f"FAIL {path}: {exc.reason}")
            continue
        except Exception as exc:  # the server lists a loader bug as a failure too
            failed += 1
            print(f"FAIL {path}: unexpected error: {type(exc).__name__}: {exc}")
            continue
        if not args.quiet:
            print(f"ok   {path}: {snapshot.summary()}")
    print(f"{len(paths) - failed} ok, {failed} failed", file=sys.stderr)
    return 1 if failed or not paths else 0
