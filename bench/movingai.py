"""Moving AI benchmark: every scenario of every map through ``find_path``.

Run from the repository root (this is what ``make bench`` runs)::

    python -m bench.movingai                           # all 13 maps, all scenarios
    python -m bench.movingai --maps arena --limit 50   # a quick check
    python -m bench.movingai --json results.json       # also write the figures as JSON

For each map the kernels search every scenario with one reused :class:`SearchScratch`
(as the service does). Only the ``find_path`` call is timed; ``smooth`` is timed
separately. Each result is checked against the published optimal length with
``|cost - published| <= max(1e-4, 1e-5 * published)``, and the returned path itself is
checked (endpoints, legal 8-connected steps on walkable cells, no corner cutting, length
equal to the reported cost). The table goes to stdout as GitHub-flavoured Markdown;
progress and failure details go to stderr. The exit status is 1 if any scenario failed,
2 if the data could not be read.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from app.errors import MapLoadError
from app.grid import Grid, load_map
from app.search import Algorithm, PathResult, SearchOptions, SearchScratch, find_path, smooth
from app.search.options import DEFAULT_OPTIONS
from app.search.warmup import warm_up
from bench.machine import machine_info, machine_line

REPO_ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = REPO_ROOT.parent / "shared" / "benchmarks" / "movingai"
MAX_CELLS = 4096 * 4096  # the service's default MAX_MAP_CELLS
MAX_BYTES = 256 * 1024 * 1024  # the service's default MAX_MAP_BYTES
SQRT2 = math.sqrt(2.0)
PROGRESS_WIDTH = 30


@dataclass(frozen=True)
class Scenario:
    """One query of a ``.map.scen`` file; ``line`` is its 1-based line number."""

    line: int
    map_file: str
    width: int
    height: int
    start: tuple[int, int]
    goal: tuple[int, int]
    optimal: float


@dataclass(frozen=True)
class Failure:
    """A scenario whose result was wrong (not found, not optimal, or an illegal path)."""

    map: str
    line: int
    start: tuple[int, int]
    goal: tuple[int, int]
    expected: float
    got: float | None
    problem: str


@dataclass
class MapResult:
    """Raw per-scenario measurements of one map, and the statistics the table shows."""

    name: str
    width: int
    height: int
    search_ns: list[int] = field(default_factory=list)
    smooth_ns: list[int] = field(default_factory=list)
    expanded: list[int] = field(default_factory=list)
    failures: list[Failure] = field(default_factory=list)

    @property
    def runs(self) -> int:
        return len(self.search_ns)

    def summary(self) -> dict[str, float | int | str]:
        """The figures of one table row (times in µs)."""
        return summarise(self.name, f"{self.width}x{self.height}", [self])


def summarise(name: str, size: str, results: Sequence[MapResult]) -> dict[str, float | int | str]:
    """Pool the scenarios of ``results`` into one row of statistics (times in µs)."""
    search_us = np.concatenate([np.asarray(r.search_ns, dtype=np.float64) for r in results]) / 1e3
    smooth_us = np.concatenate([np.asarray(r.smooth_ns, dtype=np.float64) for r in results]) / 1e3
    expanded = np.concatenate([np.asarray(r.expanded, dtype=np.int64) for r in results])
    runs = int(search_us.size)
    failures = sum(len(r.failures) for r in results)
    total_s = float(search_us.sum()) / 1e6
    return {
        "map": name,
        "size": size,
        "scenarios": runs,
        "failures": failures,
        "optimal_pct": 100.0 * (runs - failures) / runs if runs else 0.0,
        "median_us": float(np.median(search_us)) if runs else math.nan,
        "p95_us": float(np.percentile(search_us, 95)) if runs else math.nan,
        "median_expanded": float(np.median(expanded)) if runs else math.nan,
        "expansions_per_s": float(expanded.sum()) / total_s if total_s > 0 else math.nan,
        "median_smooth_us": float(np.median(smooth_us)) if smooth_us.size else math.nan,
        "search_total_s": total_s,
    }


# --- reading the data ------------------------------------------------------------------


def parse_scenarios(path: Path) -> list[Scenario]:
    """Read a ``.map.scen`` file (``version 1`` header, tab-separated lines, blanks skipped)."""
    scenarios: list[Scenario] = []
    lines = path.read_text(encoding="utf-8").splitlines()
    if not lines or not lines[0].strip().startswith("version"):
        raise ValueError(f"{path}: first line must be 'version 1'")
    for number, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        fields = line.rstrip("\r").split("\t")
        if len(fields) != 9:
            raise ValueError(f"{path}:{number}: expected 9 tab-separated fields, got {len(fields)}")
        _, map_file, width, height, sx, sy, gx, gy, optimal = fields
        scenarios.append(
            Scenario(
                number,
                Path(map_file).name,
                int(width),
                int(height),
                (int(sx), int(sy)),
                (int(gx), int(gy)),
                float(optimal),
            )
        )
    return scenarios


def subsample(scenarios: list[Scenario], limit: int | None) -> list[Scenario]:
    """At most ``limit`` scenarios, spread evenly over the file (all when ``limit`` is None)."""
    n = len(scenarios)
    if limit is None or limit >= n:
        return scenarios
    return [scenarios[i * n // limit] for i in range(limit)]


def find_maps(data: Path, names: Sequence[str] | None) -> list[Path]:
    """The ``.map`` files to run: all in ``data`` (by name), or the ones named, in order."""
    if not names:
        return sorted(data.glob("*.map"), key=lambda p: p.name.lower())
    paths = [data / (name if name.endswith(".map") else f"{name}.map") for name in names]
    missing = [p.name for p in paths if not p.is_file()]
    if missing:
        raise FileNotFoundError(f"no such map in {data}: {', '.join(missing)}")
    return paths


# --- checking and running ----------------------------------------------------------------


def select_maps(data: Path, names: Sequence[str] | None) -> list[Path] | None:
    """The maps to run, or None after saying on stderr why there are none."""
    try:
        maps = find_maps(data, names)
    except FileNotFoundError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return None
    if not maps:
        print(f"error: no .map files in {data}", file=sys.stderr)
        return None
    return maps


def begin(args: argparse.Namespace) -> tuple[list[Path], dict] | None:
    """The maps to run (None after saying why there are none) and the machine line's facts,
    taken before the kernels are warmed up (the code version is the one that gets loaded);
    prints the warm-up time."""
    maps = select_maps(args.data, args.maps)
    if maps is None:
        return None
    info = machine_info()
    print(f"Kernel warm-up (numba compile or cache load): {warm_up():.2f} s", flush=True)
    return maps, info


def is_optimal(cost: float, published: float) -> bool:
    """The benchmark's tolerance: printed lengths carry about six significant digits."""
    return abs(cost - published) <= max(1e-4, 1e-5 * published)


def path_problem(grid: Grid, path: np.ndarray, scenario: Scenario, cost: float) -> str | None:
    """Why ``path`` is not a legal path of length ``cost`` for ``scenario``; None if it is."""
    if path.shape[0] == 0:
        return "empty path"
    if tuple(path[0]) != scenario.start or tuple(path[-1]) != scenario.goal:
        return f"path runs {path[0].tolist()} -> {path[-1].tolist()}"
    xs, ys = path[:, 0].astype(np.int64) + 1, path[:, 1].astype(np.int64) + 1  # padded coords
    if not grid.passable[ys, xs].all():
        return "path visits a blocked cell"
    dx, dy = np.diff(xs), np.diff(ys)
    if (np.abs(dx) > 1).any() or (np.abs(dy) > 1).any() or ((dx == 0) & (dy == 0)).any():
        return "path has a step that is not to an 8-neighbour"
    diag = (dx != 0) & (dy != 0)
    x0, y0 = xs[:-1][diag], ys[:-1][diag]
    if not (grid.passable[y0, x0 + dx[diag]].all() and grid.passable[y0 + dy[diag], x0].all()):
        return "path cuts a corner"
    n_diag = int(diag.sum())
    length = (len(dx) - n_diag) + n_diag * SQRT2
    if abs(length - cost) > 1e-9 * max(1.0, cost):
        return f"path length {length:.6f} differs from reported cost {cost:.6f}"
    return None


def check(grid: Grid, scenario: Scenario, result: PathResult) -> Failure | None:
    """A :class:`Failure` if ``result`` is not an optimal legal path for ``scenario``."""
    if not result.found:
        problem = f"not found ({result.reason})"
    elif not is_optimal(result.cost, scenario.optimal):
        problem = "not optimal"
    else:
        problem = path_problem(grid, result.path, scenario, result.cost)
    if problem is None:
        return None
    return Failure(
        grid.name,
        scenario.line,
        scenario.start,
        scenario.goal,
        scenario.optimal,
        result.cost,
        problem,
    )


def check_map_matches(grid: Grid, scenarios: Sequence[Scenario], map_path: Path) -> None:
    """Refuse a scenario file written for another map (name or size differs)."""
    for s in scenarios:
        if s.map_file != map_path.name or (s.width, s.height) != (grid.width, grid.height):
            raise ValueError(
                f"{map_path.name}.scen:{s.line} is for {s.map_file} "
                f"{s.width}x{s.height}, map is {grid.width}x{grid.height}"
            )


def run_map(
    map_path: Path, limit: int | None, progress: Progress, options: SearchOptions = DEFAULT_OPTIONS
) -> MapResult:
    """Load one map and run its (subsampled) scenarios, timing find_path and smooth."""
    grid = load_map(map_path, max_cells=MAX_CELLS, max_bytes=MAX_BYTES)
    scenarios = subsample(parse_scenarios(map_path.with_name(map_path.name + ".scen")), limit)
    check_map_matches(grid, scenarios, map_path)
    result = MapResult(grid.name, grid.width, grid.height)
    scratch = SearchScratch(grid.flat.size)  # sized up front: no allocation while timing
    progress.start(grid.name, len(scenarios))
    for done, scenario in enumerate(scenarios, start=1):
        began = time.perf_counter_ns()
        found = find_path(grid, scenario.start, scenario.goal, options, scratch=scratch)
        searched = time.perf_counter_ns()
        smooth(grid, found.path)
        smoothed = time.perf_counter_ns()
        result.search_ns.append(searched - began)
        result.smooth_ns.append(smoothed - searched)
        result.expanded.append(found.expanded)
        failure = check(grid, scenario, found)
        if failure is not None:
            result.failures.append(failure)
        progress.update(done)
    progress.finish(result)
    return result


class Progress:
    """A one-line progress bar per map on stderr (one plain line per map if not a TTY)."""

    def __init__(self, maps: int) -> None:
        self.maps = maps
        self.index = 0
        self.name = ""
        self.total = 0
        self.step = 1
        self.began = 0.0
        self.live = sys.stderr.isatty()

    def start(self, name: str, total: int) -> None:
        self.index += 1
        self.name, self.total = name, total
        self.step = max(1, total // 100)
        self.began = time.perf_counter()
        self._draw(0)

    def update(self, done: int) -> None:
        if self.live and (done % self.step == 0 or done == self.total):
            self._draw(done)

    def finish(self, result: MapResult) -> None:
        elapsed = time.perf_counter() - self.began
        status = "ok" if not result.failures else f"{len(result.failures)} FAILED"
        end = "\r\033[K" if self.live else ""
        print(
            f"{end}[{self.index}/{self.maps}] {self.name}: {result.runs} scenarios "
            f"in {elapsed:.1f} s, {status}",
            file=sys.stderr,
            flush=True,
        )

    def _draw(self, done: int) -> None:
        if not self.live:
            return
        filled = PROGRESS_WIDTH * done // max(1, self.total)
        bar = "#" * filled + "." * (PROGRESS_WIDTH - filled)
        print(
            f"\r[{self.index}/{self.maps}] {self.name:<20} [{bar}] {done}/{self.total}",
            end="",
            file=sys.stderr,
            flush=True,
        )


# --- output ------------------------------------------------------------------------------

COLUMNS = (
    "map",
    "size",
    "scenarios",
    "% optimal",
    "median µs",
    "p95 µs",
    "median expanded",
    "expansions/s",
    "median smooth µs",
)


def table_header() -> str:
    """The Markdown header and alignment rows (text columns left, numbers right)."""
    align = ["---" if i < 2 else "---:" for i in range(len(COLUMNS))]
    return f"| {' | '.join(COLUMNS)} |\n|{'|'.join(align)}|"


def table_row(row: dict[str, float | int | str], bold: bool = False) -> str:
    """One Markdown row from a :func:`summarise` dict."""
    cells = [
        str(row["map"]),
        str(row["size"]),
        f"{row['scenarios']:,}",
        f"{row['optimal_pct']:.2f}" if row["failures"] else "100",
        f"{row['median_us']:,.1f}",
        f"{row['p95_us']:,.1f}",
        f"{row['median_expanded']:,.0f}",
        f"{row['expansions_per_s'] / 1e6:.2f} M",
        f"{row['median_smooth_us']:,.1f}",
    ]
    if bold:
        cells = [f"**{c}**" for c in cells]
    return f"| {' | '.join(cells)} |"


def report_failures(failures: Sequence[Failure]) -> None:
    """Every failed scenario, on stderr."""
    if not failures:
        return
    print(f"\n{len(failures)} scenario(s) FAILED:", file=sys.stderr)
    for f in failures:
        got = "None" if f.got is None else f"{f.got:.8f}"
        print(
            f"  {f.map}.map.scen line {f.line}: start {list(f.start)} goal {list(f.goal)} "
            f"expected {f.expected} got {got}: {f.problem}",
            file=sys.stderr,
        )


def write_json(
    path: Path,
    rows: list[dict],
    total: dict,
    info: dict,
    failures: list[Failure],
    args: argparse.Namespace,
) -> None:
    """All table figures, the machine, the options used and any failures, as JSON."""
    document = {
        "machine": info,
        "options": {"data": str(args.data), "maps": args.maps, "limit": args.limit},
        "maps": rows,
        "total": total,
        "failures": [asdict(f) for f in failures],
    }
    path.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")


# --- entry point -------------------------------------------------------------------------


def scenario_parser(prog: str, description: str | None) -> argparse.ArgumentParser:
    """An argument parser with the options every Moving AI benchmark shares."""
    parser = argparse.ArgumentParser(
        prog=prog, description=description, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--data",
        type=Path,
        default=DEFAULT_DATA,
        help="folder with X.map and X.map.scen files (default: %(default)s)",
    )
    parser.add_argument(
        "--maps",
        nargs="+",
        metavar="NAME",
        help="only these maps (file stems, e.g. arena maze512-1-0)",
    )
    return parser


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = scenario_parser("python -m bench.movingai", __doc__)
    parser.add_argument(
        "--limit",
        type=int,
        metavar="N",
        help="at most N scenarios per map, spread evenly over the file",
    )
    parser.add_argument("--json", type=Path, metavar="PATH", help="also write results as JSON")
    parser.add_argument(
        "--algorithm",
        choices=["auto", "jps", "astar", "dijkstra"],
        default="auto",
        help="search algorithm (default auto: the service's "
        "default, which is JPS on these uniform maps)",
    )
    args = parser.parse_args(argv)
    if args.limit is not None and args.limit < 1:
        parser.error("--limit must be at least 1")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    started = begin(args)
    if started is None:
        return 2
    maps, info = started
    print(f"Algorithm: {args.algorithm}\n", flush=True)
    progress = Progress(len(maps))
    try:
        options = SearchOptions(algorithm=Algorithm(args.algorithm))
        results = [run_map(path, args.limit, progress, options) for path in maps]
    except (MapLoadError, OSError, ValueError) as exc:
        print(f"\nerror: {exc}", file=sys.stderr)
        return 2

    rows = [r.summary() for r in results]
    total = summarise("total", f"{len(results)} map{'s' if len(results) > 1 else ''}", results)
    print(table_header())
    for row in rows:
        print(table_row(row))
    print(table_row(total, bold=True))
    print(f"\n{machine_line(info)}")

    failures = [f for r in results for f in r.failures]
    report_failures(failures)
    if args.json:
        write_json(args.json, rows, total, info, failures, args)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
