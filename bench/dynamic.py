"""``make bench-dynamic``: map changes between query batches, queries per second including
the changes, per tier. Options: ``--help``; method and figures: bench/README.md."""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import http.client
import math
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from bench import common
from bench.server import JsonClient, PidFile, Server, ServerSpec, running
from gridpath.errors import GoalBlocked, StartBlocked
from gridpath.grid import Grid
from gridpath.grid.edits import Edit, GridEdit
from gridpath.search import (
    Algorithm,
    SearchOptions,
    SearchScratch,
    find_path,
    prepare_jps,
    subgoal_graph,
)

DEFAULT_MAPS = ("den312d", "brc202d")
DEFAULT_BATCHES = (1, 10, 100, 1000)
DEFAULT_CHANGES = 10
DEFAULT_TIME_LIMIT = 1800.0
DOOR_MAX = 4  # a door: a gap of at most this many walkable cells between two walls
WALL_LENGTH = 16
KINDS = ("door", "wall", "flip 1", "flip 10", "flip 100")
TOLERANCE = 1e-9
WARM_UP_BATCH = 10
ADMIN_TOKEN = "bench-dynamic"
MAX_BATCH = 1000  # the service's default MAX_BATCH: a larger batch takes several requests
REQUEST_TIMEOUT = 300.0
IDLE_RECONNECT_S = 1.0
ONLINE = "JPS"  # the tier the preprocessed ones are compared with
TIER_ALGORITHMS = {"A*": "astar", "JPS": "jps", "subgoal": "subgoal"}  # tier -> algorithm

Cell = tuple[int, int]


# --- the changes ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Change:
    """One map change: ``blocked`` cells become walls, ``opened`` cells walkable."""

    kind: str  # a member of KINDS (a door closed and the door opened are both "door")
    blocked: tuple[Cell, ...]
    opened: tuple[Cell, ...]

    def undone(self) -> Change:
        return Change(self.kind, self.opened, self.blocked)

    def edits(self) -> list[Edit]:
        edits = [Edit(value="blocked", cells=self.blocked)] if self.blocked else []
        return edits + ([Edit(value="walkable", cells=self.opened)] if self.opened else [])

    def body(self) -> dict:
        """The ``PATCH /maps/{name}`` body."""
        return {
            "set": [{"value": e.value, "cells": [list(c) for c in e.cells]} for e in self.edits()]
        }

    def apply_to(self, walkable: np.ndarray) -> None:
        for cells, value in ((self.blocked, False), (self.opened, True)):
            for x, y in cells:
                walkable[y, x] = value


def find_doors(walkable: np.ndarray) -> list[tuple[Cell, ...]]:
    """Every gap of at most :data:`DOOR_MAX` walkable cells in a row (column) with walls (or
    the map's edge) at both ends and walkable cells all along both faces."""
    doors: list[tuple[Cell, ...]] = []
    for transposed, lines in ((False, walkable), (True, walkable.T)):
        for r in range(1, lines.shape[0] - 1):
            edges = np.diff(np.concatenate(([0], lines[r].astype(np.int8), [0])))
            for s, e in zip(np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)):
                if e - s <= DOOR_MAX and lines[r - 1, s:e].all() and lines[r + 1, s:e].all():
                    doors.append(tuple((r, c) if transposed else (c, r) for c in range(s, e)))
    return doors


def play_area(walkable: np.ndarray) -> np.ndarray:
    """``(n, 2)`` ``[y, x]``: the walkable cells and their 8 neighbours inside the map."""
    h, w = walkable.shape
    padded = np.pad(walkable, 1)
    near = np.zeros_like(walkable)
    for dy in (0, 1, 2):
        for dx in (0, 1, 2):
            near |= padded[dy : dy + h, dx : dx + w]
    return np.argwhere(near)


def plan_changes(walkable: np.ndarray, count: int, rng: np.random.Generator) -> list[Change]:
    """``count`` changes (rounded up to even): a change of each kind in turn, each followed
    by the change that undoes it. ``walkable``: the map as loaded, ``[y, x]`` bool."""
    h, w = walkable.shape
    doors = find_doors(walkable)
    area = play_area(walkable)
    open_cells = np.argwhere(walkable)
    changes: list[Change] = []
    for i in range((count + 1) // 2):
        kind = KINDS[i % len(KINDS)]
        if kind == "door" and not doors:
            kind = "wall"  # a map without doors gets walls
        if kind == "door":
            cells = doors[int(rng.integers(len(doors)))]
            change = Change(kind, cells, ())
        elif kind == "wall":
            y, x = (int(v) for v in open_cells[int(rng.integers(len(open_cells)))])
            half = WALL_LENGTH // 2
            if rng.random() < 0.5:
                line = [(c, y) for c in range(max(0, x - half), min(w, x - half + WALL_LENGTH))]
            else:
                line = [(x, c) for c in range(max(0, y - half), min(h, y - half + WALL_LENGTH))]
            change = Change(kind, tuple(c for c in line if walkable[c[1], c[0]]), ())
        else:
            k = min(int(kind.split()[1]), len(area))
            picks = [
                tuple(int(v) for v in area[j]) for j in rng.choice(len(area), k, replace=False)
            ]
            blocked = tuple((x, y) for y, x in picks if walkable[y, x])
            opened = tuple((x, y) for y, x in picks if not walkable[y, x])
            change = Change(kind, blocked, opened)
        changes += [change, change.undone()]
    return changes


# --- answers and series ----------------------------------------------------------------------


@dataclass(frozen=True)
class Answer:
    """A query's answer: its cost (None: no path, or an endpoint blocked), its path
    (``(n, 2)`` ``[x, y]``), and the algorithm that served it."""

    cost: float | None
    path: np.ndarray | None = None
    blocked: bool = False
    served_by: str | None = None  # None: not asked (no path, endpoint blocked)


NO_PATH = Answer(None)
BLOCKED = Answer(None, blocked=True)


@dataclass
class Series:
    """One tier at one batch size: the seconds of each change (and per kind), of each
    query, and of each batch's queries together."""

    batch: int
    change_s: list[float] = field(default_factory=list)
    kind_s: dict[str, list[float]] = field(default_factory=dict)
    query_s: list[float] = field(default_factory=list)
    batch_s: list[float] = field(default_factory=list)

    def queries_per_second(self) -> float:
        return self.batch * len(self.batch_s) / (sum(self.change_s) + sum(self.batch_s))


@dataclass
class MapRun:
    """One map in one mode: the series by tier and batch size, and what the checks found."""

    name: str
    tiers: list[str]
    preprocessed: set[str]
    series: dict[tuple[str, int], Series] = field(default_factory=dict)
    compared: int = 0
    unreachable: int = 0
    blocked: int = 0
    other_tier: dict[str, int] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)
    stopped: str | None = None  # why the run stopped early


# --- kernel tiers ------------------------------------------------------------------------------


def _online(grid: Grid) -> bool:
    """What ``ServiceState.prepare`` builds with ``SUBGOAL_MAX_CELLS=0``."""
    prepare_jps(grid)
    return True


class KernelTier:
    """One tier in process: its current revision of the map (with what ``build`` makes for
    each revision, as the service's ``prepare``), changed as the service changes it and
    queried through ``find_path`` with ``algorithm``."""

    def __init__(
        self, name: str, preprocessed: bool, build: Callable[[Grid], bool], algorithm: Algorithm
    ) -> None:
        self.name, self.preprocessed, self.build = name, preprocessed, build
        self.algorithm, self.options = algorithm, SearchOptions(algorithm=algorithm)
        self.grid: Grid | None = None
        self.scratch: SearchScratch | None = None

    def load(self, grid: Grid) -> bool:
        """Take the map as loaded and build this tier's tables (untimed); False: the tier
        does not apply to this map."""
        if not self.build(grid):
            return False
        self.grid, self.scratch = grid, common.touched_scratch(grid.flat.size)
        return True

    def change(self, change: Change, revision: int) -> float:
        began = time.perf_counter()
        grid = self.grid.edit(GridEdit(change.edits()), revision)
        self.build(grid)  # MapRegistry.apply's prepare: what derive_like did not build
        self.grid = grid
        return time.perf_counter() - began

    def ask(
        self, queries: Sequence[common.Scenario], revision: int
    ) -> tuple[list[float], list[Answer]]:
        seconds, answers = [], []
        for q in queries:
            began = time.perf_counter()
            try:
                answer = self.solve(q.start, q.goal)
            except (StartBlocked, GoalBlocked):
                answer = BLOCKED
            seconds.append(time.perf_counter() - began)
            answers.append(answer)
        return seconds, answers

    def solve(self, start: Cell, goal: Cell) -> Answer:
        result = find_path(self.grid, start, goal, self.options, scratch=self.scratch)
        if not result.found:
            return NO_PATH
        served = result.options.algorithm
        return Answer(result.cost, result.path, served_by=served.value)


def kernel_tiers(cells: int) -> list[KernelTier]:
    def subgoal(grid: Grid) -> bool:
        return _online(grid) and subgoal_graph(grid, max(cells, 1)) is not None

    return [KernelTier("A*", False, lambda grid: True, Algorithm.ASTAR),
            KernelTier("JPS", False, _online, Algorithm.JPS),
            KernelTier("subgoal", True, subgoal, Algorithm.SUBGOAL)]  # fmt: skip


# --- HTTP tiers ------------------------------------------------------------------------------


class HttpTier:
    """One tier over HTTP: a map of its own on a real server, changed with ``PATCH`` and
    queried with ``revision`` pinned to the revision the change acknowledged."""

    def __init__(
        self, name: str, preprocessed: bool, algorithm: str, server: Server, map_name: str
    ) -> None:
        self.name, self.preprocessed, self.algorithm = name, preprocessed, algorithm
        self.map_name = map_name
        self.client = JsonClient(server.port, ADMIN_TOKEN, timeout=REQUEST_TIMEOUT)
        self.last_used = 0.0

    def call(self, method: str, path: str, body: dict, admin: bool = False) -> tuple[int, dict]:
        self.last_used = time.perf_counter()
        return self.client.call(method, path, body, admin)

    def change(self, change: Change, revision: int) -> float:
        # A new connection (untimed) if this one sat idle while the other tiers ran: the
        # server may have closed it (uvicorn's keep-alive timeout is 5 s).
        if time.perf_counter() - self.last_used > IDLE_RECONNECT_S:
            self.client.conn.close()
            self.client.conn.connect()
        began = time.perf_counter()
        status, info = self.call("PATCH", f"/maps/{self.map_name}", change.body(), admin=True)
        seconds = time.perf_counter() - began
        if status != 200 or info.get("revision") != revision:
            raise RuntimeError(f"PATCH {self.map_name}: {status} {info} (expected {revision})")
        return seconds

    def ask(
        self, queries: Sequence[common.Scenario], revision: int
    ) -> tuple[list[float], list[Answer]]:
        seconds: list[float] = []
        answers: list[Answer] = []
        for first in range(0, len(queries), MAX_BATCH):
            chunk = queries[first : first + MAX_BATCH]
            body = {"map": self.map_name, "revision": revision, "queries": [
                {"start": list(q.start), "goal": list(q.goal), "algorithm": self.algorithm,
                 "include": ["path"]} for q in chunk]}  # fmt: skip
            began = time.perf_counter()
            status, reply = self.call("POST", "/paths", body)
            elapsed = time.perf_counter() - began
            if status != 200:
                raise RuntimeError(f"POST /paths {self.map_name}: {status} {reply}")
            seconds += [elapsed / len(chunk)] * len(chunk)
            answers += [self.answer(r, revision) for r in reply["results"]]
        return seconds, answers

    def answer(self, result: dict, revision: int) -> Answer:
        error = result.get("error")
        if error is not None:
            if error["code"] in ("start_blocked", "goal_blocked"):
                return BLOCKED
            raise RuntimeError(f"{self.name} on {self.map_name}: {error}")
        if result["revision"] != revision:
            raise RuntimeError(f"{self.name}: answered on revision {result['revision']}")
        if not result["found"]:
            return NO_PATH
        return Answer(result["cost"], np.array(result["path"]), served_by=result["algorithm"])

    def close(self) -> None:
        self.client.close()


# --- the run --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Plan:
    batches: tuple[int, ...]
    changes: int
    seed: int
    deadline: float  # time.perf_counter() past which no step starts


class TimeUp(Exception):
    pass


def run_map(
    name: str, grid: Grid, scenarios: Sequence[common.Scenario], tiers: Sequence, plan: Plan
) -> MapRun:
    """A warm-up pass (the first pair of changes, :data:`WARM_UP_BATCH` queries after each,
    checked, not counted: compiled code and caches as a running server has them), then
    every batch size in turn: the changes, each followed by a batch of queries, on every
    tier in turn (the order rotating), answers checked after each step."""
    rng = np.random.default_rng(plan.seed)
    changes = plan_changes(grid.walkable.astype(bool), plan.changes, rng)
    run = MapRun(name, [t.name for t in tiers], {t.name for t in tiers if t.preprocessed})
    walkable = grid.walkable.astype(bool)  # the reference the paths are checked on
    revision = grid.revision
    passes = [(None, WARM_UP_BATCH, changes[:2])] + [(b, b, changes) for b in plan.batches]
    for counted, batch, steps in passes:
        common.log(f"{name}: {len(steps)} changes, {batch} queries after each")
        current = {t.name: Series(batch) for t in tiers}
        try:
            for step, change in enumerate(steps):
                if time.perf_counter() > plan.deadline:
                    raise TimeUp(f"time limit reached at batch size {batch}")
                revision += 1
                picks = rng.integers(len(scenarios), size=batch)
                queries = [scenarios[int(i)] for i in picks]
                answers = {}
                for tier in common.rotated(tiers, step):
                    series = current[tier.name]
                    seconds = tier.change(change, revision)
                    series.change_s.append(seconds)
                    series.kind_s.setdefault(change.kind, []).append(seconds)
                    query_s, answers[tier.name] = tier.ask(queries, revision)
                    series.query_s += query_s
                    series.batch_s.append(sum(query_s))
                change.apply_to(walkable)
                reference = Grid.from_walkable(name, walkable, revision=revision)
                check_step(run, reference, queries, answers, f"revision {revision}")
        except TimeUp as exc:
            run.stopped = str(exc)
            common.log(f"{name}: {exc}; batch size {batch} dropped")
            break
        if counted is not None:
            for tier_name, series in current.items():
                run.series[(tier_name, counted)] = series
    return run


def check_step(
    run: MapRun, grid: Grid, queries: Sequence[common.Scenario], answers: dict[str, list[Answer]],
    where: str,
) -> None:  # fmt: skip
    """Compare every tier's answer to each query (cost to 1e-9, path legal on ``grid``)."""
    for i, q in enumerate(queries):
        got = {tier: per_tier[i] for tier, per_tier in answers.items()}
        run.compared += len(got)
        for tier, answer in got.items():
            if answer.served_by not in (None, TIER_ALGORITHMS[tier]):
                run.other_tier[tier] = run.other_tier.get(tier, 0) + 1
            if answer.cost is not None:
                problem = common.path_problem(grid, answer.path, q, answer.cost)
                if problem is not None:
                    run.failures.append(f"{run.name} {where} {tier} {q.start}->{q.goal}: {problem}")
        problem = disagreement({t: a.cost for t, a in got.items()})
        if problem is not None:
            run.failures.append(f"{run.name} {where} {q.start}->{q.goal}: {problem}")
        if all(a.cost is None for a in got.values()):
            run.unreachable += 1
            run.blocked += any(a.blocked for a in got.values())


def disagreement(costs: dict[str, float | None]) -> str | None:
    """Why the tiers' costs for one query differ (None: all equal to 1e-9, or all no path)."""
    values = list(costs.values())
    if all(v is None for v in values):
        return None
    if any(v is None for v in values):
        return f"some tiers found no path: {costs}"
    low, high = min(values), max(values)
    if high - low > TOLERANCE * max(1.0, abs(high)):
        return f"costs differ: {costs}"
    return None


# --- the tables --------------------------------------------------------------------------------


def mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else math.nan


def pooled(run: MapRun, tier: str, attribute: str) -> list[float]:
    return [v for (t, _), s in run.series.items() if t == tier for v in getattr(s, attribute)]


def crossover(run: MapRun, tier: str, online: str) -> str:
    """The batch size from which ``tier`` (preprocessed) answers a change and its batch
    sooner than ``online``: change + B x query, means over the whole run."""
    if tier not in run.preprocessed or online not in run.tiers:
        return "-"
    c_p, q_p = mean(pooled(run, tier, "change_s")), mean(pooled(run, tier, "query_s"))
    c_o, q_o = mean(pooled(run, online, "change_s")), mean(pooled(run, online, "query_s"))
    if math.isnan(c_p + q_p + c_o + q_o):
        return "-"
    if q_p >= q_o:
        return "never" if c_p >= c_o else "1"
    return f"{max(1, math.ceil((c_p - c_o) / (q_o - q_p))):,}"


def main_table(runs: Sequence[MapRun], batches: Sequence[int], online: str) -> str:
    columns = ["map", "tier", "change ms", "query µs"]
    columns += [f"q/s B={b:,}" for b in batches] + [f"overtakes {online} at B"]
    rows = []
    for run in runs:
        for tier in run.tiers:
            change_s, query_s = pooled(run, tier, "change_s"), pooled(run, tier, "query_s")
            if not change_s:
                continue
            change_ms, query_us = common.median(change_s) * 1e3, common.median(query_s) * 1e6
            cells = [run.name, tier, f"{change_ms:,.2f}", f"{query_us:,.1f}"]
            for b in batches:
                series = run.series.get((tier, b))
                cells.append("-" if series is None else f"{series.queries_per_second():,.0f}")
            rows.append([*cells, crossover(run, tier, online)])
    return common.table(columns, rows, 2)


def kinds_table(runs: Sequence[MapRun]) -> str:
    rows = []
    for run in runs:
        for tier in run.tiers:
            cells: list[object] = [run.name, tier]
            for kind in KINDS:
                values = [v for (t, _), s in run.series.items() if t == tier
                          for v in s.kind_s.get(kind, [])]  # fmt: skip
                cells.append(f"{common.median(values) * 1e3:,.2f}" if values else "-")
            if any(c != "-" for c in cells[2:]):
                rows.append(cells)
    return common.table(["map", "tier", *(f"{k} ms" for k in KINDS)], rows, 2)


def notes(runs: Sequence[MapRun]) -> list[str]:
    out = []
    for run in runs:
        queries = sum(len(s.query_s) for (t, _), s in run.series.items() if t == run.tiers[0])
        text = (
            f"{run.name}: {run.unreachable:,} of {queries:,} queries had no path after a "
            f"change ({run.blocked:,} of them an endpoint blocked)"
        )
        if run.other_tier:
            text += "; served by another tier: " + ", ".join(
                f"{t} {n:,}" for t, n in sorted(run.other_tier.items())
            )
        if run.stopped:
            text += f"; {run.stopped}"
        out.append(text + ".")
    return out


def report(title: str, runs: Sequence[MapRun], batches: Sequence[int]) -> None:
    compared = sum(r.compared for r in runs)
    failed = sum(len(r.failures) for r in runs)
    print(f"\n### {title}\n")
    print(main_table(runs, batches, ONLINE))
    print("\nChange cost by kind (median ms, both directions):\n")
    print(kinds_table(runs))
    print()
    print("\n".join(notes(runs)))
    print(f"cross-tier check: {compared:,} answers compared, {failed} failed")
    for run in runs:
        for failure in run.failures[:20]:
            common.log(f"  FAILED {failure}")


# --- modes -----------------------------------------------------------------------------------


def kernel_mode(maps: Sequence[Path], plan: Plan) -> list[MapRun]:
    runs = []
    for map_path in maps:
        grid, scenarios = common.load_scenarios(map_path, None)
        tiers = []
        for tier in kernel_tiers(grid.cell_count):
            common.log(f"{map_path.stem}: building {tier.name}")
            if tier.load(dataclasses.replace(grid)):  # a snapshot of its own for its tables
                tiers.append(tier)
            else:
                common.log(f"{map_path.stem}: {tier.name} does not apply to this map")
        runs.append(run_map(map_path.stem, grid, scenarios, tiers, plan))
    return runs


HTTP_TIERS = (("A*", False, "astar", "online"), ("JPS", False, "jps", "online"),
              ("subgoal", True, "subgoal", "subgoal"))  # fmt: skip


@contextlib.contextmanager
def http_servers(
    maps: Sequence[Path], state_dir: Path | None, pid_file: Path | None, timeout: float
) -> Iterator[dict[str, Server]]:
    """The two servers (``online``: ``SUBGOAL_MAX_CELLS=0``; ``subgoal``: the defaults), each
    on a folder of links to the maps, one per tier it serves, their revision records
    (``MAP_STATE_DIR``) in a new folder in ``state_dir`` (None: the system's temporary
    folder, where the service keeps them when ``XDG_RUNTIME_DIR`` is not set)."""
    with (
        tempfile.TemporaryDirectory(prefix="gridpath-dynamic-") as root,
        tempfile.TemporaryDirectory(prefix="gridpath-dynamic-state-", dir=state_dir) as state,
    ):
        specs = {}
        for server in ("online", "subgoal"):
            folder = Path(root) / server
            folder.mkdir()
            for map_path in maps:
                for _, _, algorithm, where in HTTP_TIERS:
                    if where == server:
                        link = folder / f"{map_path.stem}-{algorithm}.map"
                        link.symlink_to(map_path.resolve())
            specs[server] = ServerSpec(env={
                "MAPS_DIR": str(folder), "MAP_STATE_DIR": str(Path(state) / server),
                "ADMIN_TOKEN": ADMIN_TOKEN, "MAPS_RELOAD": "off",
                "MAX_BATCH_EXPANDED": str(16_000_000 * MAX_BATCH),
                "SUBGOAL_MAX_CELLS": "0" if server == "online" else "",  # "": the default
            })  # fmt: skip
        common.log("starting the servers")
        with running(list(specs.values()), timeout, PidFile(pid_file)) as servers:
            yield dict(zip(specs, servers))


def http_mode(maps: Sequence[Path], plan: Plan, args: argparse.Namespace) -> list[MapRun]:
    runs = []
    with http_servers(maps, args.state_dir, args.pid_file, timeout=300.0) as servers:
        for map_path in maps:
            grid, scenarios = common.load_scenarios(map_path, None)
            tiers = [
                HttpTier(name, pre, algorithm, servers[where],
                         f"{map_path.stem}-{algorithm}")
                for name, pre, algorithm, where in HTTP_TIERS
            ]  # fmt: skip
            try:
                runs.append(run_map(map_path.stem, grid, scenarios, tiers, plan))
            finally:
                for tier in tiers:
                    tier.close()
    return runs


def main(argv: Sequence[str] | None = None) -> int:
    parser = common.scenario_parser("bench.dynamic", __doc__.split("\n\n")[0], DEFAULT_MAPS)
    add = parser.add_argument
    add("--mode", choices=("kernel", "http", "both"), default="both")
    add("--batches", type=int, nargs="+", default=list(DEFAULT_BATCHES), metavar="B",
        help="queries after each change (default: %(default)s)")  # fmt: skip
    add("--changes", type=int, default=DEFAULT_CHANGES, metavar="N",
        help="changes per batch size, rounded up to even (default: %(default)s)")  # fmt: skip
    add("--seed", type=int, default=1, help="changes and queries (default: 1)")
    add("--time-limit", type=float, default=DEFAULT_TIME_LIMIT, metavar="S",
        help="seconds for the whole run (default: %(default)s)")  # fmt: skip
    add("--state-dir", type=Path, metavar="DIR",
        help="HTTP mode: where the servers keep their revision records (default: the "
        "system's temporary folder; /dev/shm: in memory, without a disk's fsync)")  # fmt: skip
    add("--pid-file", type=Path, help="server process groups, for a shell trap")
    args = parser.parse_args(argv)
    if min(args.batches) < 1 or args.changes < 1:
        parser.error("--batches and --changes must be >= 1")
    common.exit_on_signals()  # stop the servers on the way out
    maps, info = common.begin(args)  # exit status 2: no maps
    plan = Plan(tuple(args.batches), args.changes + args.changes % 2, args.seed,
                time.perf_counter() + args.time_limit)  # fmt: skip
    runs: list[MapRun] = []
    try:
        if args.mode in ("kernel", "both"):
            runs += kernel_mode(maps, plan)
            report("Kernels (in process)", runs, plan.batches)
        if args.mode in ("http", "both"):
            http_runs = http_mode(maps, plan, args)
            report("HTTP (PATCH, then POST /paths)", http_runs, plan.batches)
            runs += http_runs
    except (RuntimeError, TimeoutError, ConnectionError, http.client.HTTPException) as exc:
        common.log(f"the server failed: {exc!r}")
        return 2
    except (OSError, ValueError) as exc:
        common.log(f"cannot read the data: {exc}")
        return 2
    print(f"\n{common.machine_line(info)}")
    return 1 if any(r.failures for r in runs) else 0


if __name__ == "__main__":
    sys.exit(main())
