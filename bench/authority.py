"""The authoritative server's own costs: validating a client's path, and editing a live map.

Run from the repository root::

    python -m bench.authority
    python -m bench.authority --maps maze512-1-0 --repeat 3    # quicker

(a) **Validation throughput.** On a seeded 1024x1024 random map (20 % blocked) and on a
few Moving AI maps, a long path is found with the default options (corner to corner on
the random map, the longest scenario on a Moving AI map). Routes of 100, 1,000 and
10,000 cells are cut from it (a prefix, or the path walked back and forth until long
enough: still legal step by step), together with their waypoints (each leg smoothed).
``validate_path`` is timed in ``cells`` mode on the cells and in ``waypoints`` mode on
the waypoints, given the path as a list of ``(x, y)`` tuples (as ``POST /validate``
does) and as an int64 array, and the compiled kernel
(``gridpath.search._validate.validate_cells`` / ``validate_waypoints``) is timed alone,
called with the arrays ``validate_path`` would pass it.

(b) **Live edits.** On the 1024x1024 map, ``apply_edits`` is timed for one cell, a 10x10
and a 100x100 rectangle blocked (the new snapshot, clearance included). For two queries
(corner to corner, and a short one), the first ``find_path`` on a freshly edited map is
timed (median over ``--repeat`` fresh snapshots) and compared with the same query on
the unedited map right after the CPU caches were evicted, and with both maps warm
(repeated). The numba dispatchers' compiled signatures are counted around each first
search: an edit must not trigger a compilation. The edits lie off both routes, so the
searches on either map expand the same nodes and the times compare like for like.

Times are medians of ``--repeat`` timeit loops (each about 0.2 s); the tables go to stdout
as GitHub-flavoured Markdown, progress to stderr. Exit status 1 if a route does not
validate or an edit compiled something, 2 if the data could not be read.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np
from numba.core.dispatcher import Dispatcher

from bench.common import find_maps, load_scenarios, machine_info, machine_line, scenario_parser
from bench.serialize import median_us
from gridpath.errors import MapLoadError
from gridpath.grid import Grid
from gridpath.grid.edits import Edit, apply_edits
from gridpath.search import SearchScratch, find_path, smooth
from gridpath.search import validate as validation
from gridpath.search.find import terrain_table
from gridpath.search.options import DEFAULT_OPTIONS, SearchOptions
from gridpath.search.validate import validate_path
from gridpath.search.warmup import warm_up

SIZE = 1024
BLOCKED_SHARE = 0.2
LENGTHS = (100, 1_000, 10_000)
DEFAULT_MAPS = ("maze512-1-0", "orz900d", "random512-35-0")
MODES = ("cells", "waypoints")
Cell = tuple[int, int]
QUERIES: dict[str, tuple[Cell, Cell]] = {  # on the random map; edits go off both routes
    "corner to corner": ((0, 0), (SIZE - 1, SIZE - 1)),
    "short": ((SIZE * 7 // 16, SIZE * 7 // 16), (SIZE // 2, SIZE // 2)),
}
LONG = "corner to corner"  # the query whose path the validation routes are cut from
EVICT_BYTES = 64 * 1024 * 1024


@dataclass(frozen=True)
class Route:
    """A legal route on a map: its cells, and the waypoints that walk it with line of sight."""

    cells: np.ndarray  # (n, 2) int64
    waypoints: np.ndarray  # (m, 2) int64

    def points(self, mode: str) -> np.ndarray:
        return self.cells if mode == "cells" else self.waypoints


@dataclass(frozen=True)
class ValidationRow:
    """Median µs of one validation, three ways, for one route and mode."""

    map: str
    mode: str
    cells: int
    points: int
    list_us: float
    array_us: float
    kernel_us: float


@dataclass(frozen=True)
class EditRow:
    """The cost of one live edit, and of one query on the map it produced."""

    edit: str
    cells: int
    query: str
    apply_ms: float
    first_us: float
    cold_us: float
    edited_us: float
    unedited_us: float
    edited_expanded: int
    unedited_expanded: int
    compiled: int


# --- maps and routes -----------------------------------------------------------------------


def random_map(seed: int) -> Grid:
    """A seeded ``SIZE x SIZE`` map with ``BLOCKED_SHARE`` of its cells blocked; the ends
    of the ``QUERIES`` are opened (a path between them exists at this density)."""
    walkable = np.random.default_rng(seed).random((SIZE, SIZE)) >= BLOCKED_SHARE
    for ends in QUERIES.values():
        for x, y in ends:
            walkable[y, x] = True
    return Grid.from_walkable(f"random{SIZE}", walkable)


def long_path(grid: Grid, start: Cell, goal: Cell, scratch: SearchScratch) -> np.ndarray:
    """The default search's path from ``start`` to ``goal`` (which must exist)."""
    result = find_path(grid, start, goal, scratch=scratch)
    if not result.found:
        raise ValueError(f"{grid.name}: no path from {start} to {goal}")
    return result.path.astype(np.int64)


def legs(path: np.ndarray, cells: int) -> list[np.ndarray]:
    """``path`` walked forth and back until ``cells`` cells are covered, as legs sharing
    their end cells (so the cells of consecutive legs, joined, are ``cells`` long)."""
    out: list[np.ndarray] = []
    covered = 1
    forward = True
    while covered < cells:
        leg = path if forward else path[::-1]
        leg = leg[: cells - covered + 1]
        out.append(leg)
        covered += len(leg) - 1
        forward = not forward
    return out


def joined(pieces: Sequence[np.ndarray]) -> np.ndarray:
    """Consecutive pieces whose last and first rows coincide, as one array."""
    return np.concatenate([pieces[0], *(p[1:] for p in pieces[1:])])


def route(grid: Grid, path: np.ndarray, cells: int) -> Route:
    """A ``cells``-cell route along ``path`` with its waypoints (each leg smoothed)."""
    pieces = legs(path, cells)
    waypoints = [smooth(grid, leg).astype(np.int64) for leg in pieces]
    return Route(joined(pieces), joined(waypoints))


# --- (a) validation ------------------------------------------------------------------------


def kernel_call(
    grid: Grid, points: np.ndarray, mode: str, options: SearchOptions = DEFAULT_OPTIONS
) -> Callable[[], tuple[float, int]]:
    """The compiled validation kernel bound to the arrays ``validate_path`` would pass it
    (no per-request blocked cells: ``marks=None``)."""
    options = options.resolved()
    terrain = terrain_table(grid, options)
    return validation.kernel_call(
        grid, points, mode, options, terrain, None, -1, validation.new_report()
    )


def measure_validation(
    grid: Grid, routes: Sequence[Route], repeat: int, scratch: SearchScratch
) -> list[ValidationRow]:
    """Time the three ways of validating each route in each mode (all must be valid)."""
    rows = []
    for r in routes:
        for mode in MODES:
            points = np.ascontiguousarray(r.points(mode))
            as_list = [(int(x), int(y)) for x, y in points]
            kernel = kernel_call(grid, points, mode)
            result = validate_path(grid, as_list, mode=mode, scratch=scratch)
            if not result.valid or kernel()[1] != 0:
                raise AssertionError(
                    f"{grid.name}: {len(r.cells)}-cell route does not validate "
                    f"in {mode} mode: {result.violations[:3]}"
                )
            print(f"  {grid.name}: {mode}, {len(r.cells):,} cells ...", file=sys.stderr, flush=True)
            times = [
                median_us(
                    lambda p=p, m=mode: validate_path(grid, p, mode=m, scratch=scratch), repeat
                )
                for p in (as_list, points)
            ]
            rows.append(
                ValidationRow(
                    grid.name, mode, len(r.cells), len(points), *times, median_us(kernel, repeat)
                )
            )
    return rows


def validation_table(rows: Sequence[ValidationRow]) -> str:
    lines = [
        "| map | mode | cells | points | validate_path µs (list) | validate_path µs (array) "
        "| kernel µs | cells/s (list) | cells/s (kernel) |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r.map} | {r.mode} | {r.cells:,} | {r.points:,} | {r.list_us:,.1f} "
            f"| {r.array_us:,.1f} | {r.kernel_us:,.2f} | {rate(r.cells, r.list_us)} "
            f"| {rate(r.cells, r.kernel_us)} |"
        )
    return "\n".join(lines)


def rate(cells: int, us: float) -> str:
    """Cells per second, in millions."""
    return f"{cells / us:,.1f} M"


# --- (b) live edits ------------------------------------------------------------------------


def compiled_signatures() -> int:
    """How many specialisations the project's numba kernels hold (grows when one compiles)."""
    dispatchers = {
        id(obj): obj
        for name, module in list(sys.modules.items())
        if name.startswith("gridpath.")
        for obj in vars(module).values()
        if isinstance(obj, Dispatcher)
    }
    return sum(len(d.signatures) for d in dispatchers.values())


def edits_at(x: int, y: int) -> list[tuple[str, Edit]]:
    """One cell, a 10x10 and a 100x100 rectangle blocked, with top-left corner ``(x, y)``."""
    return [
        ("1 cell", Edit("blocked", cells=[(x, y)])),
        ("10x10 rect", Edit("blocked", rect=(x, y, x + 9, y + 9))),
        ("100x100 rect", Edit("blocked", rect=(x, y, x + 99, y + 99))),
    ]


@cache
def _eviction_buffer() -> np.ndarray:
    return np.ones(EVICT_BYTES // 8)


def evict_caches() -> None:
    """Push the map and scratch out of the CPU caches by reading a larger buffer."""
    _eviction_buffer().sum()


def timed_search(grid: Grid, ends: tuple[Cell, Cell], scratch: SearchScratch) -> tuple[float, int]:
    """µs of one ``find_path`` and its expansions."""
    began = time.perf_counter_ns()
    result = find_path(grid, *ends, scratch=scratch)
    return (time.perf_counter_ns() - began) / 1e3, result.expanded


def first_searches(
    grid: Grid, edit: Edit, ends: tuple[Cell, Cell], repeat: int, scratch: SearchScratch
) -> tuple[float, int, int, Grid]:
    """``repeat`` times: apply ``edit``, time the first search on the new snapshot. Returns
    the median µs, the expansions, the kernel specialisations compiled meanwhile, and the
    last snapshot."""
    times, compiled = [], 0
    for _ in range(repeat):
        edited = apply_edits(grid, [edit], grid.revision + 1)
        before = compiled_signatures()
        elapsed_us, expanded = timed_search(edited, ends, scratch)
        compiled += compiled_signatures() - before
        times.append(elapsed_us)
    return statistics.median(times), expanded, compiled, edited


def cold_search_us(
    grid: Grid, ends: tuple[Cell, Cell], repeat: int, scratch: SearchScratch
) -> float:
    """Median µs of a search on ``grid`` right after the caches were evicted."""
    times = []
    for _ in range(repeat):
        evict_caches()
        times.append(timed_search(grid, ends, scratch)[0])
    return statistics.median(times)


def measure_edits(grid: Grid, repeat: int, scratch: SearchScratch) -> list[EditRow]:
    """Time each edit; then, per query, the first search on a fresh snapshot against the
    same query on the unedited map with cold caches, and both maps warm."""

    def warm_us(g: Grid, ends: tuple[Cell, Cell]) -> float:
        return median_us(lambda: find_path(g, *ends, scratch=scratch), repeat)

    unedited = {
        name: (
            warm_us(grid, ends),
            cold_search_us(grid, ends, repeat, scratch),
            timed_search(grid, ends, scratch)[1],
        )
        for name, ends in QUERIES.items()
    }
    rows = []
    for label, edit in edits_at(SIZE * 5 // 8, SIZE // 8):
        print(f"  edit: {label} ...", file=sys.stderr, flush=True)
        apply_ms = median_us(lambda e=edit: apply_edits(grid, [e], grid.revision + 1), repeat) / 1e3
        for name, ends in QUERIES.items():
            first_us, expanded, compiled, edited = first_searches(grid, edit, ends, repeat, scratch)
            warm, cold, unedited_expanded = unedited[name]
            rows.append(
                EditRow(
                    label,
                    grid.walkable_count - edited.walkable_count,
                    name,
                    apply_ms,
                    first_us,
                    cold,
                    warm_us(edited, ends),
                    warm,
                    expanded,
                    unedited_expanded,
                    compiled,
                )
            )
    return rows


def edit_table(rows: Sequence[EditRow]) -> str:
    lines = [
        "| edit | cells blocked | apply_edits ms | query | first search after edit µs "
        "| unedited, cold caches µs | edited, warm µs | unedited, warm µs "
        "| expanded edited / unedited | new compilations |",
        "|---|---:|---:|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r.edit} | {r.cells:,} | {r.apply_ms:,.2f} | {r.query} "
            f"| {r.first_us:,.1f} | {r.cold_us:,.1f} | {r.edited_us:,.1f} "
            f"| {r.unedited_us:,.1f} | {r.edited_expanded:,} / {r.unedited_expanded:,} "
            f"| {r.compiled} |"
        )
    return "\n".join(lines)


# --- entry point -------------------------------------------------------------------------


def movingai_paths(
    data: Path, names: Sequence[str], scratch: SearchScratch
) -> list[tuple[Grid, np.ndarray]]:
    """Each named map with the path of its longest scenario (none named: none)."""
    out: list[tuple[Grid, np.ndarray]] = []
    if not names:
        return out
    for map_path in find_maps(data, names):
        grid, scenarios = load_scenarios(map_path, None)
        longest = max(scenarios, key=lambda s: s.optimal)
        out.append((grid, long_path(grid, longest.start, longest.goal, scratch)))
    return out


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = scenario_parser("python -m bench.authority", __doc__, DEFAULT_MAPS)
    parser.add_argument(
        "--repeat",
        type=int,
        default=5,
        help="timed loops per figure (default: %(default)s); the median is reported",
    )
    parser.add_argument("--seed", type=int, default=2024, help="random map seed")
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    info = machine_info()
    print(f"Kernel warm-up (numba compile or cache load): {warm_up():.2f} s\n", flush=True)
    scratch = SearchScratch()
    grid = random_map(args.seed)
    try:
        maps = [
            (grid, long_path(grid, *QUERIES[LONG], scratch)),
            *movingai_paths(args.data, args.maps, scratch),
        ]
    except (FileNotFoundError, MapLoadError, OSError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for g, path in maps:
        print(
            f"{g.name}: {g.width}x{g.height}, long path of {len(path):,} cells",
            file=sys.stderr,
            flush=True,
        )

    try:
        rows = [
            row
            for g, path in maps
            for row in measure_validation(
                g, [route(g, path, n) for n in LENGTHS], args.repeat, scratch
            )
        ]
    except AssertionError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(f"Validation ({', '.join(f'{g.name} long path {len(p):,} cells' for g, p in maps)}):\n")
    print(validation_table(rows))
    print(f"\n{machine_line(info)}\n")

    edits = measure_edits(grid, args.repeat, scratch)
    queries = "; ".join(f"{name} {list(a)} -> {list(b)}" for name, (a, b) in QUERIES.items())
    print(
        f"Live edits on {grid.name} ({grid.width}x{grid.height}, {grid.walkable_count:,} "
        f"walkable cells; queries: {queries}):\n"
    )
    print(edit_table(edits))
    print(f"\n{machine_line(info)}")
    return 1 if any(r.compiled for r in edits) else 0


if __name__ == "__main__":
    sys.exit(main())
