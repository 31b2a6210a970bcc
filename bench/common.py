"""What every benchmark shares: the data and output folders, the Moving AI scenarios and
their loading, the ``--data``/``--maps``/``--limit`` options, files of request bodies,
the signal handling of benchmarks that run servers,
progress on stderr, the machine line under every table, and Markdown table formatting
(tables go to stdout)."""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import signal
import subprocess
import sys
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from gridpath.grid import Grid
    from gridpath.search import SearchScratch

REPO_ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = REPO_ROOT.parent / "shared" / "benchmarks" / "movingai"
MAX_CELLS = 4096 * 4096  # the service's default MAX_MAP_CELLS
MAX_BYTES = 256 * 1024 * 1024  # the service's default MAX_MAP_BYTES
SQRT2 = math.sqrt(2.0)


def log(message: str) -> None:
    """Progress on stderr (stdout carries the tables)."""
    print(message, file=sys.stderr, flush=True)


# --- the machine line ------------------------------------------------------------------


def cpu_model() -> str:
    """The CPU model name from /proc/cpuinfo (the platform's processor string elsewhere)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def rss_bytes(pid: int | str = "self") -> int:
    """A process's resident set size (VmRSS), in bytes."""
    status = Path(f"/proc/{pid}/status").read_text().splitlines()
    return int(next(x for x in status if x.startswith("VmRSS:")).split()[1]) * 1024


def core_count() -> int:
    """CPUs this process may run on (``os.cpu_count()`` where affinity is unknown)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def code_version() -> str:
    """The repository commit benchmarked, ``+dirty`` if ``gridpath/`` has uncommitted changes."""

    def git(*args: str) -> str:
        return subprocess.run(
            ["git", *args], cwd=REPO_ROOT, capture_output=True, text=True, check=True, timeout=10
        ).stdout.strip()

    try:
        commit = git("rev-parse", "--short", "HEAD")
        dirty = git("status", "--porcelain", "--", "gridpath", "app")
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return f"{commit}+dirty" if dirty else commit


def machine_info() -> dict[str, str | int]:
    """Date, code commit, interpreter/library versions and CPU."""
    import numba

    return {
        "date": datetime.now().astimezone().isoformat(timespec="seconds"),
        "commit": code_version(), "python": platform.python_version(),
        "numba": numba.__version__, "numpy": np.__version__, "cpu": cpu_model(),
        "cores": core_count(),
    }  # fmt: skip


def machine_line(info: dict[str, str | int]) -> str:
    """``info`` as one line of text: the line under every table."""
    return (
        f"{info['date']} · commit {info['commit']} · Python {info['python']}, "
        f"numba {info['numba']}, numpy {info['numpy']} · {info['cpu']}, "
        f"{info['cores']} cores"
    )


# --- Moving AI scenarios ---------------------------------------------------------------


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
        start, goal, name = (int(sx), int(sy)), (int(gx), int(gy)), Path(map_file).name
        scenarios.append(
            Scenario(number, name, int(width), int(height), start, goal, float(optimal))
        )
    return scenarios


def subsample(items: list, limit: int | None) -> list:
    """At most ``limit`` items, spread evenly over the list (all when ``limit`` is None)."""
    n = len(items)
    if limit is None or limit >= n:
        return items
    return [items[i * n // limit] for i in range(limit)]


def select_maps(data: Path, names: Sequence[str] | None) -> list[Path]:
    """The ``.map`` files to run: all in ``data`` (by name), or the ones named, in order;
    exit status 2 after saying on stderr why there are none."""
    if names:
        maps = [data / (name if name.endswith(".map") else f"{name}.map") for name in names]
        missing = [p.name for p in maps if not p.is_file()]
    else:
        maps, missing = sorted(data.glob("*.map"), key=lambda p: p.name.lower()), []
    why = f"no such map in {data}: {', '.join(missing)}" if missing else f"no .map files in {data}"
    if missing or not maps:
        log(f"error: {why}")
        raise SystemExit(2)
    return maps


def load_grid(path: Path) -> Grid:
    """A map file loaded as the service loads it (its default size limits)."""
    from gridpath.grid import load_map

    return load_map(path, max_cells=MAX_CELLS, max_bytes=MAX_BYTES)


def load_scenarios(map_path: Path, limit: int | None) -> tuple[Grid, list[Scenario]]:
    """A map (:func:`load_grid`) and its scenarios, at most ``limit`` spread evenly over the
    file, refusing a scenario file for another map (name or size differs)."""
    grid = load_grid(map_path)
    scenarios = subsample(parse_scenarios(map_path.with_name(map_path.name + ".scen")), limit)
    for s in scenarios:
        if s.map_file != map_path.name or (s.width, s.height) != (grid.width, grid.height):
            raise ValueError(
                f"{map_path.name}.scen:{s.line} is for {s.map_file} "
                f"{s.width}x{s.height}, map is {grid.width}x{grid.height}"
            )
    return grid, scenarios


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

    @classmethod
    def at(cls, map_name: str, scenario: Scenario, got: float | None, problem: str) -> Failure:
        s = scenario
        return cls(map_name, s.line, s.start, s.goal, s.optimal, got, problem)


def report_failures(failures: Sequence[Failure]) -> None:
    """Every failed scenario, on stderr."""
    if not failures:
        return
    log(f"\n{len(failures)} scenario(s) FAILED:")
    for f in failures:
        got = "None" if f.got is None else f"{f.got:.8f}"
        log(
            f"  {f.map}.map.scen line {f.line}: start {list(f.start)} goal {list(f.goal)} "
            f"expected {f.expected} got {got}: {f.problem}"
        )


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


def scenario_problem(
    grid: Grid, scenario: Scenario, path: np.ndarray | None, cost: float | None
) -> str | None:
    """Why ``path`` of length ``cost`` (None: no path) is not an optimal legal answer to
    ``scenario``; None if it is."""
    if cost is None:
        return "not found"
    if not is_optimal(cost, scenario.optimal):
        return "not optimal"
    return path_problem(grid, path, scenario, cost)


# --- options -----------------------------------------------------------------------------


def scenario_parser(
    prog: str, description: str | None, default_maps: Sequence[str] | None = None
) -> argparse.ArgumentParser:
    """An argument parser with the options every Moving AI benchmark shares (``--data``,
    ``--maps``: all maps by default, or ``default_maps``, which ``--maps`` alone empties);
    :func:`add_limit` adds ``--limit``."""
    parser = argparse.ArgumentParser(
        prog=prog, description=description, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    add = parser.add_argument
    add("--data", type=Path, default=DEFAULT_DATA, metavar="DIR",
        help="folder with X.map and X.map.scen files (default: %(default)s)")  # fmt: skip
    if default_maps is None:
        add("--maps", nargs="+", metavar="NAME",
            help="only these maps (file stems, e.g. arena maze512-1-0)")  # fmt: skip
    else:
        add(
            "--maps", nargs="*", metavar="NAME", default=list(default_maps),
            help="these maps (file stems; default: %(default)s; none: no Moving AI map)",
        )  # fmt: skip
    return parser


def add_limit(parser: argparse.ArgumentParser, default: int | None, help_text: str) -> None:
    """``--limit N``: scenarios per map, spread evenly over the scenario file."""
    shown = " (default: %(default)s)" if default is not None else ""
    parser.add_argument("--limit", type=int, default=default, metavar="N", help=help_text + shown)


def write_bodies(path: Path, bodies: Iterable[dict[str, Any]]) -> Path:
    """Request bodies as compact JSON, one a line: what ``bench/wrk/path.lua`` and
    ``python -m bench.load`` send."""
    lines = [json.dumps(body, separators=(",", ":")) for body in bodies]
    if not lines:
        raise ValueError(f"no request bodies for {path.name}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def exit_on_signals() -> None:
    """SIGTERM and SIGHUP unwind like Ctrl-C (exit status 128 + the signal), so the ``with``
    blocks of :mod:`bench.server` stop every server they started."""
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, lambda signum, _frame: sys.exit(128 + signum))


def begin(args: argparse.Namespace) -> tuple[list[Path], dict]:
    """The maps to run (:func:`select_maps`) and the machine line's facts, taken before the
    kernels are warmed up (the code version is the one that gets loaded); prints the warm-up
    time."""
    from gridpath.search.warmup import warm_up

    maps, info = select_maps(args.data, args.maps), machine_info()
    print(f"Kernel warm-up (numba compile or cache load): {warm_up():.2f} s", flush=True)
    return maps, info


class Progress:
    """One line per map on stderr when it is done: scenarios, seconds, failures."""

    def __init__(self, maps: int) -> None:
        self.maps, self.index, self.name, self.began = maps, 0, "", 0.0

    def start(self, name: str, total: int) -> None:
        self.index += 1
        self.name, self.began = name, time.perf_counter()
        log(f"[{self.index}/{self.maps}] {name}: {total} scenarios ...")

    def finish(self, result: Any) -> None:
        """``result`` has ``runs`` (a count) and ``failures`` (a list)."""
        elapsed = time.perf_counter() - self.began
        failures = len(result.failures)
        status = "ok" if not failures else f"{failures} FAILED"
        log(f"[{self.index}/{self.maps}] {self.name}: {result.runs} in {elapsed:.1f} s, {status}")


# --- Markdown tables ---------------------------------------------------------------------


def header(columns: Sequence[str], text_columns: int = 1) -> str:
    """Markdown header and alignment rows (the first ``text_columns`` left, numbers right)."""
    align = ["---" if i < text_columns else "---:" for i in range(len(columns))]
    return f"| {' | '.join(columns)} |\n|{'|'.join(align)}|"


def row(cells: Sequence[object]) -> str:
    """One Markdown table row."""
    return f"| {' | '.join(str(c) for c in cells)} |"


def table(columns: Sequence[str], rows: Iterable[Sequence[object]], text_columns: int = 1) -> str:
    """A Markdown table: :func:`header`, then a :func:`row` per item of ``rows``."""
    return "\n".join([header(columns, text_columns), *map(row, rows)])


def json_of_child(command: Sequence[str], timeout: float | None = None) -> Any:
    """Run ``command`` (a separate process: its own interpreter, GIL and memory) from the
    repository's root; the JSON on the last line of its output."""
    done = subprocess.run(command, cwd=REPO_ROOT, capture_output=True, text=True, timeout=timeout)
    if done.returncode != 0:
        raise RuntimeError(f"{command[:3]} failed: {done.stderr.strip()[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def percent(value: float) -> str:
    """A share in %, exact 100 and 0 written as such."""
    return f"{value:.0f}" if value in (0.0, 100.0) else f"{value:.1f}"


def times(ratio: float) -> str:
    """A ratio, ``2.53x`` (``781x`` from 100 up)."""
    return f"{ratio:,.2f}x" if ratio < 100 else f"{ratio:,.0f}x"


def ms(us: float) -> str:
    """µs as ms with two decimals."""
    return f"{us / 1000:,.2f}"


def median(values: Sequence[float]) -> float:
    """The median as a float (NaN when empty)."""
    return float(np.median(values)) if len(values) else math.nan


def percentile(sorted_values: Sequence[float], p: float) -> float:
    """Nearest-rank percentile of an ascending sequence (0 when empty)."""
    if not sorted_values:
        return 0.0
    rank = max(1, math.ceil(p / 100 * len(sorted_values)))
    return float(sorted_values[rank - 1])


def rotated(items: Sequence, turn: int) -> list:
    """``items`` rotated left by ``turn``: who goes first changes every turn."""
    k = turn % len(items)
    return [*items[k:], *items[:k]]


def touched_scratch(cells: int) -> SearchScratch:
    """A search scratch for ``cells`` nodes with every page touched now, not in a timed search."""
    from gridpath.search import SearchScratch

    scratch = SearchScratch(cells)
    scratch.nodes.fill(0)
    scratch.frontier.fill(0)
    return scratch
