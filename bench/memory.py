"""Memory per map and per search thread, and what the JPS+ jump table buys on the Moving AI maps.

Run from the repository root::

    python -m bench.memory                          # 4096x4096 map, 13 maps, 100 queries each
    python -m bench.memory --maps arena --limit 20  # a quick check
    python -m bench.memory --size 1024              # a smaller random map for (a) and (b)

(a) **One loaded map.** Each measurement runs in a fresh child process, so the resident
set size (VmRSS, from ``/proc/self/status``) grows only by what is measured. The child
imports the project and runs ``warm_up()`` first (compiled code is not counted), reads
VmRSS, builds a seeded ``SIZE x SIZE`` walkable array (20 % of the cells blocked), reads
VmRSS again, then runs ``Grid.from_walkable``, deletes the walkable array, collects
garbage and reads VmRSS a third time. The growth reported is from the first reading (the
walkable array is gone by the third, so growth from the second would leave its bytes
out). The grid's arrays are listed with their ``nbytes`` and their resident bytes
(``mincore``): ``terrain`` is zero-filled and never written on a one-class map, so it
should take no memory. Two children: the default jump-table limit
(``JUMP_TABLE_MAX_CELLS``, below 4096², so no table), and a limit of ``1 << 25``
first with ``jumps.MIN_MEAN_RUN`` set to 0 (table built and kept: the random map's runs
are too short for the service to keep one); the latter also times ``build_jump_table``
alone (median of 3).

Like the service (``app.state.release_large_frees``), each child first has glibc give
blocks of 1 MiB or more mappings of their own, so that the map's freed temporaries leave
the process instead of staying in its heap.

(b) **Per-thread scratch.** ``SearchScratch(cells)`` for the padded cells of the same
map: its ``nbytes``, and in a child process the VmRSS growth right after allocating it
and after one long A* search (``find_path`` with ``Algorithm.ASTAR``, corner to corner,
the two corners opened): the arrays are allocated untouched, so only the pages a search
writes become resident. numpy asks for transparent huge pages on large arrays
(``madvise``), so a page the search writes may bring 2 MiB in: the growth held in huge
pages (``AnonHugePages``) is reported, and the 4 KiB pages of ``nodes`` holding a cell
the search wrote (what would be resident with base pages only).

(c) **JPS+ on the Moving AI maps.** Per map: the jump table's build time (median of 5
calls of ``build_jump_table``) and size; then, on the same (evenly subsampled) scenarios,
three kernels alternate per scenario (round-robin, starting one further along each time):
``_jps.jps`` scanning (``table=None``), ``_jps.jps`` with ``grid.jump_table`` (JPS+), and
``_astar.astar_octile``. Only the kernel call is timed (``perf_counter_ns``), each with
its own scratch generation. All three must return the same status and the same optimal
(straight, diagonal) step counts, and JPS's ``expand_jumps`` paths must be legal with
those counts (JPS+ prunes intermediate jump points, so it expands fewer nodes than scanning
and may pick another path of the same cost).

The tables go to stdout as GitHub-flavoured Markdown, progress to stderr. The exit status
is 1 if scan and table (or A*) ever disagree, 2 if the data could not be read or a child
process failed. Linux only (``/proc/self/status``, ``mincore``).
"""

from __future__ import annotations

import argparse
import ctypes
import gc
import json
import math
import mmap
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from app.state import release_large_frees
from bench.common import (
    Progress,
    Scenario,
    add_limit,
    begin,
    header,
    load_scenarios,
    machine_line,
    path_problem,
    ready_scratch,
    scenario_parser,
)
from gridpath.errors import MapLoadError
from gridpath.grid import Grid
from gridpath.search import (
    Algorithm,
    SearchOptions,
    SearchScratch,
    _astar,
    _jps,
    _records,
    find_path,
    jump_table,
)
from gridpath.search import _frontier as _kernels
from gridpath.search import _jumps as jumps
from gridpath.search._jumps import build_jump_table
from gridpath.search.runners.jps import DEFAULT_JUMP_TABLE_MAX_CELLS
from gridpath.search.warmup import warm_up

REPO_ROOT = Path(__file__).resolve().parents[1]
SIZE = 4096
BLOCKED_SHARE = 0.2
BIG_TABLE_LIMIT = 1 << 25  # cells: enough for a 4096x4096 map's jump table
DEFAULT_LIMIT = 100
BIG_BUILD_REPEAT = 3
BUILD_REPEAT = 5
MB = 1e6
SMALL_PAGE = 4096  # bytes in a base page (x86-64, arm64 Linux defaults)
SQRT2 = math.sqrt(2.0)
KERNELS = ("scan", "table", "astar")  # JPS scanning, JPS+ (jump table), A*
Cell = tuple[int, int]


# --- measuring memory ------------------------------------------------------------------------


def rss_bytes() -> int:
    """This process's resident set size (VmRSS), in bytes."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise OSError("no VmRSS line in /proc/self/status")


def huge_page_bytes() -> int:
    """Anonymous memory of this process held in transparent huge pages, in bytes."""
    text = Path("/proc/self/smaps_rollup").read_text()
    for line in text.splitlines():
        if line.startswith("AnonHugePages:"):
            return int(line.split()[1]) * 1024
    return 0


def huge_page_mode() -> str:
    """The kernel's transparent huge page setting (``always``, ``madvise``, ``never``)."""
    try:
        text = Path("/sys/kernel/mm/transparent_hugepage/enabled").read_text()
    except OSError:
        return "unknown"
    chosen = [word[1:-1] for word in text.split() if word.startswith("[")]
    return chosen[0] if chosen else "unknown"


_libc = ctypes.CDLL(None, use_errno=True)
_libc.mincore.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p)


def resident_bytes(array: np.ndarray | None) -> int:
    """Bytes of the pages under ``array`` that are in memory (``mincore``; the first and
    last page may be shared with neighbouring data)."""
    if array is None or array.nbytes == 0:
        return 0
    page = mmap.PAGESIZE
    start = array.ctypes.data
    first = start - start % page
    pages = (start + array.nbytes - first + page - 1) // page
    vec = np.zeros(pages, dtype=np.uint8)
    if _libc.mincore(first, pages * page, vec.ctypes.data) != 0:
        raise OSError(ctypes.get_errno(), "mincore failed")
    return int((vec & 1).sum()) * page


def random_walkable(size: int, seed: int, open_cells: Sequence[Cell] = ()) -> np.ndarray:
    """A seeded ``size x size`` walkable array with ``BLOCKED_SHARE`` of its cells blocked
    (the float array it is drawn from is a temporary, freed on return)."""
    walkable = np.random.default_rng(seed).random((size, size)) >= BLOCKED_SHARE
    for x, y in open_cells:
        walkable[y, x] = True
    return walkable


def corners(size: int) -> tuple[Cell, Cell]:
    return (0, 0), (size - 1, size - 1)


def child_grid(size: int, seed: int, max_cells: int | None) -> dict[str, Any]:
    """(a), in a fresh process: VmRSS before and after loading one random map."""
    release_large_frees()  # as the service does at start-up
    warm_up()
    if max_cells is not None:
        jumps.MIN_MEAN_RUN = 0.0  # keep the table even though this random map's runs are short
    gc.collect()
    before = rss_bytes()
    walkable = random_walkable(size, seed)
    with_walkable = rss_bytes()
    grid = Grid.from_walkable("big", walkable)
    jump_table(grid, max_cells or DEFAULT_JUMP_TABLE_MAX_CELLS)  # as the service does on load
    del walkable
    gc.collect()
    after = rss_bytes()
    components = grid.components()  # computed at construction: a cache lookup
    arrays = {
        "passable": grid.passable,
        "labels": components.labels,
        "minor_cells": components.minor_cells,  # None unless over 254 components
        "minor_ids": components.minor_ids,
        "jump_table": grid.jump_table,
        "terrain": grid.terrain,
    }
    build_ms = []
    if grid.jump_table is not None:
        for _ in range(BIG_BUILD_REPEAT):
            began = time.perf_counter_ns()
            build_jump_table(grid.flat, grid.stride, 1)
            build_ms.append((time.perf_counter_ns() - began) / 1e6)
    return {
        "cells": grid.cell_count,
        "rss_before": before,
        "rss_walkable": with_walkable,
        "rss_after": after,
        "nbytes": merge_minor({k: 0 if a is None else int(a.nbytes) for k, a in arrays.items()}),
        "resident": merge_minor({k: resident_bytes(a) for k, a in arrays.items()}),
        "build_ms": build_ms,
    }


def merge_minor(figures: dict[str, int]) -> dict[str, int]:
    """Count the minor-component lists with the labels (one figure: the components)."""
    figures["labels"] += figures.pop("minor_cells") + figures.pop("minor_ids")
    return figures


def child_scratch(size: int, seed: int) -> dict[str, Any]:
    """(b), in a fresh process: VmRSS growth of a scratch, allocated and after one search."""
    release_large_frees()  # as the service does at start-up
    warm_up()
    start, goal = corners(size)
    grid = Grid.from_walkable("big", random_walkable(size, seed, (start, goal)))
    gc.collect()
    before, huge_before = rss_bytes(), huge_page_bytes()
    scratch = SearchScratch(grid.flat.size)
    allocated = rss_bytes()
    began = time.perf_counter()
    result = find_path(grid, start, goal, SearchOptions(algorithm=Algorithm.ASTAR), scratch=scratch)
    elapsed_s = time.perf_counter() - began
    searched, huge_after = rss_bytes(), huge_page_bytes()
    resident_nodes = resident_bytes(scratch.nodes)  # before anything reads untouched pages
    resident_frontier = resident_bytes(scratch.frontier)
    # The nodes rows this search wrote carry its generation's marks: the 4 KiB pages
    # holding them are what would be resident without huge pages.
    state = scratch.nodes[:, _kernels.STATE]
    seen = np.flatnonzero((state == 2 * scratch.generation) | (state == 2 * scratch.generation + 1))
    base, row = scratch.nodes.ctypes.data, scratch.nodes.strides[0]
    ends = np.concatenate([base + seen * row, base + (seen + 1) * row - 1])
    seen_pages = np.unique(ends // SMALL_PAGE)
    return {
        "cells": grid.flat.size,
        "nbytes": scratch.nbytes,
        "rss_allocated": allocated - before,
        "rss_searched": searched - before,
        "resident_nodes": resident_nodes,
        "resident_frontier": resident_frontier,
        "huge_pages": huge_after - huge_before,
        "seen_cells": int(seen.size),
        "seen_pages_bytes": int(seen_pages.size) * SMALL_PAGE,
        "found": result.found,
        "expanded": result.expanded,
        "search_s": elapsed_s,
        "start": list(start),
        "goal": list(goal),
    }


def child(spec: str) -> None:
    """Entry point of a child process: run one measurement, print its JSON on stdout."""
    args = json.loads(spec)
    if args["kind"] == "grid":
        out = child_grid(args["size"], args["seed"], args["max_cells"])
    else:
        out = child_scratch(args["size"], args["seed"])
    print(json.dumps(out), flush=True)


def in_child(**spec: Any) -> dict[str, Any]:
    """Run :func:`child` with ``spec`` in a fresh interpreter; its JSON answer."""
    code = "import sys; from bench.memory import child; child(sys.argv[1])"
    done = subprocess.run(
        [sys.executable, "-c", code, json.dumps(spec)],
        cwd=REPO_ROOT,
        stdout=subprocess.PIPE,
        text=True,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


# --- (c) JPS+ on the Moving AI maps ------------------------------------------------------------


@dataclass(frozen=True)
class Outcome:
    """What one kernel call returned: status, expansions, and on ``FOUND`` the path's
    (straight, diagonal) step counts and, for JPS, the expanded cell path."""

    status: int
    expanded: int
    steps: tuple[int, int] | None
    path: np.ndarray | None


@dataclass
class MapRuns:
    """One map's table figures and per-query kernel times (``runs`` and ``failures`` as
    :class:`bench.common.Progress` reads them)."""

    name: str
    width: int
    height: int
    build_ms: float
    table_bytes: int
    mean_run: float  # jumps.mean_run of the table
    kept: bool  # the service keeps the table (mean run >= jumps.MIN_MEAN_RUN)
    ns: dict[str, list[int]] = field(default_factory=lambda: {k: [] for k in KERNELS})
    failures: list[str] = field(default_factory=list)

    @property
    def runs(self) -> int:
        return len(self.ns["table"])

    @property
    def cells(self) -> int:
        return self.width * self.height


Kernel = Callable[[int, int, int], tuple[int, int]]


def kernels(grid: Grid, scratch: SearchScratch, table: np.ndarray) -> dict[str, Kernel]:
    """The three kernels on ``grid``, as ``(start, goal, generation) -> (status, expanded)``,
    with ``find_path``'s arguments for the default options (costs 1 and √2); JPS+ reads
    ``table``."""
    records = (_records.grid_record(grid), _records.rules_record(max_expanded=grid.cell_count))

    def jps(table: np.ndarray | None) -> Kernel:
        return lambda s, g, gen: _jps.jps(*records, scratch.record(gen), table, s, g)

    return {
        "scan": jps(None),
        "table": jps(table),
        "astar": lambda s, g, gen: _astar.astar_octile(*records, scratch.record(gen), s, g),
    }


def run_query(
    grid: Grid, scratch: SearchScratch, calls: dict[str, Kernel], start: int, goal: int, first: int
) -> dict[str, tuple[int, Outcome]]:
    """Each kernel once, in round-robin order from ``KERNELS[first]``: ns and outcome."""
    out: dict[str, tuple[int, Outcome]] = {}
    for i in range(len(KERNELS)):
        kind = KERNELS[(first + i) % len(KERNELS)]
        generation = scratch.begin(grid.flat.size)
        began = time.perf_counter_ns()
        status, expanded = calls[kind](start, goal, generation)
        elapsed = time.perf_counter_ns() - began
        steps = path = None
        if status == _kernels.FOUND:
            nodes = scratch.nodes
            steps = (int(nodes[goal, _kernels.COST_ORTH]), int(nodes[goal, _kernels.COST_DIAG]))
            if kind != "astar":
                path = _jps.expand_jumps(nodes, goal, grid.stride)
        out[kind] = (elapsed, Outcome(int(status), int(expanded), steps, path))
    return out


def disagreement(grid: Grid, scenario: Scenario, outcomes: dict[str, Outcome]) -> str | None:
    """Why the answers differ (None if scan, table and A* agree on status and step counts
    and both JPS paths are legal paths of that length for ``scenario``)."""
    answers = {k: (outcomes[k].status, outcomes[k].steps) for k in KERNELS}
    if len(set(answers.values())) > 1:
        return " != ".join(f"{k} (status {st}, steps {pair})" for k, (st, pair) in answers.items())
    for kind in ("scan", "table"):
        outcome = outcomes[kind]
        if outcome.path is None:
            continue
        straight, diagonal = outcome.steps
        problem = path_problem(grid, outcome.path, scenario, straight + diagonal * SQRT2)
        if problem is not None:
            return f"{kind}: expand_jumps {problem}"
    return None


def table_build_ms(grid: Grid) -> tuple[float, np.ndarray]:
    """Median ms of ``BUILD_REPEAT`` calls of ``build_jump_table`` (all equal to the grid's,
    where the grid kept one), and the table."""
    times = []
    table = build_jump_table(grid.flat, grid.stride, 1)
    for _ in range(BUILD_REPEAT):
        began = time.perf_counter_ns()
        table = build_jump_table(grid.flat, grid.stride, 1)
        times.append((time.perf_counter_ns() - began) / 1e6)
        kept = jump_table(grid)
        if kept is not None and not np.array_equal(table, kept):
            raise AssertionError(f"{grid.name}: build_jump_table differs from the grid's table")
    return statistics.median(times), table


def run_map(map_path: Path, limit: int, progress: Progress) -> MapRuns:
    """Build time, table size, and the three kernels on the map's subsampled scenarios."""
    grid, scenarios = load_scenarios(map_path, limit)
    if not jumps.wants_jump_table(grid.width, grid.height, DEFAULT_JUMP_TABLE_MAX_CELLS):
        raise ValueError(f"{grid.name}: too large for a jump table ({grid.cell_count:,} cells)")
    build_ms, table = table_build_ms(grid)  # also where the grid declined it: to show why
    run = jumps.mean_run(table, grid.flat)
    kept = jump_table(grid) is not None
    runs = MapRuns(grid.name, grid.width, grid.height, build_ms, table.nbytes, run, kept)
    scratch = SearchScratch()
    ready_scratch(scratch, grid.flat.size)
    calls = kernels(grid, scratch, table)
    ends = [(grid.index(*s.start), grid.index(*s.goal)) for s in scenarios]
    run_query(grid, scratch, calls, *ends[0], 0)  # untimed: the map and scratch into cache
    progress.start(grid.name, len(scenarios))
    for i, (scenario, (start, goal)) in enumerate(zip(scenarios, ends), start=1):
        results = run_query(grid, scratch, calls, start, goal, i % len(KERNELS))
        for kind, (elapsed, _) in results.items():
            runs.ns[kind].append(elapsed)
        outcomes = {k: outcome for k, (_, outcome) in results.items()}
        problem = disagreement(grid, scenario, outcomes)
        if problem is not None:
            runs.failures.append(
                f"{grid.name}.map.scen line {scenario.line}: start {list(scenario.start)} "
                f"goal {list(scenario.goal)}: {problem}"
            )
        progress.update(i)
    progress.finish(runs)
    return runs


def jps_summary(name: str, size: str, maps: Sequence[MapRuns]) -> dict[str, Any]:
    """One row: medians of the kernels' µs and of the per-query time ratios, pooled over
    ``maps``; build ms and table bytes summed."""
    ns = {k: np.concatenate([np.asarray(m.ns[k], dtype=np.float64) for m in maps]) for k in KERNELS}
    table_bytes = sum(m.table_bytes for m in maps)
    return {
        "map": name,
        "size": size,
        "mean_run": maps[0].mean_run if len(maps) == 1 else None,
        "kept": sum(m.kept for m in maps),
        "queries": int(ns["table"].size),
        "build_ms": sum(m.build_ms for m in maps),
        "table_mb": table_bytes / MB,
        "table_b_per_cell": table_bytes / sum(m.cells for m in maps),
        **{f"{k}_us": float(np.median(ns[k])) / 1e3 for k in KERNELS},
        "table_vs_scan": float(np.median(ns["scan"] / ns["table"])),
        "table_vs_astar": float(np.median(ns["astar"] / ns["table"])),
        "scan_vs_astar": float(np.median(ns["astar"] / ns["scan"])),
    }


JPS_COLUMNS = (
    "map",
    "size",
    "queries",
    "build ms",
    "table MB",
    "table B/cell",
    "mean run",
    "kept",
    "JPS scan median µs",
    "JPS+ median µs",
    "A* median µs",
    "JPS+ speed-up over JPS",
    "JPS+ speed-up over A*",
    "JPS speed-up over A*",
)


def jps_table(rows: Sequence[dict[str, Any]], total: dict[str, Any]) -> str:
    lines = [header(JPS_COLUMNS, 2)]
    for row in [*rows, total]:
        cells = [
            str(row["map"]),
            str(row["size"]),
            f"{row['queries']:,}",
            f"{row['build_ms']:,.2f}",
            f"{row['table_mb']:,.2f}",
            f"{row['table_b_per_cell']:.2f}",
            "" if row["mean_run"] is None else f"{row['mean_run']:.1f}",
            ("yes" if row["kept"] else "no") if row["mean_run"] is not None else str(row["kept"]),
            f"{row['scan_us']:,.1f}",
            f"{row['table_us']:,.1f}",
            f"{row['astar_us']:,.1f}",
            f"{row['table_vs_scan']:.2f}x",
            f"{row['table_vs_astar']:.2f}x",
            f"{row['scan_vs_astar']:.2f}x",
        ]
        if row is total:
            cells = [f"**{c}**" for c in cells]
        lines.append(f"| {' | '.join(cells)} |")
    return "\n".join(lines)


# --- (a) and (b) tables ----------------------------------------------------------------------


def mb(n: float) -> str:
    return f"{n / MB:,.2f}"


def grid_table(rows: Sequence[tuple[str, dict[str, Any]]]) -> str:
    lines = [
        "| jump-table limit | RSS growth MB | RSS B/cell | passable MB | labels MB "
        "| jump table MB | terrain resident | resident arrays MB | build_jump_table ms |",
        "|---|---:|---:|---:|---:|---:|---|---:|---:|",
    ]
    for label, r in rows:
        growth = r["rss_after"] - r["rss_before"]
        nbytes, resident = r["nbytes"], r["resident"]
        terrain = resident["terrain"]
        resident_word = "yes" if terrain > nbytes["terrain"] // 100 else "no"
        build = f"{statistics.median(r['build_ms']):,.0f}" if r["build_ms"] else "-"
        lines.append(
            f"| {label} | {mb(growth)} | {growth / r['cells']:.2f} | {mb(nbytes['passable'])} "
            f"| {mb(nbytes['labels'])} | {mb(nbytes['jump_table'])} "
            f"| {resident_word} ({mb(terrain)} of {mb(nbytes['terrain'])} MB) "
            f"| {mb(sum(resident.values()))} | {build} |"
        )
    return "\n".join(lines)


def scratch_table(r: dict[str, Any]) -> str:
    return "\n".join(
        [
            "| padded cells | SearchScratch nbytes MB | B/cell | RSS after allocation MB "
            "| A* query | expanded | cells seen | search s | RSS after search MB "
            "| of it in huge pages MB | nodes resident MB | frontier resident MB "
            "| nodes 4 KiB pages seen MB |",
            "|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|",
            f"| {r['cells']:,} | {mb(r['nbytes'])} | {r['nbytes'] / r['cells']:.0f} "
            f"| {mb(r['rss_allocated'])} | {r['start']} -> {r['goal']} | {r['expanded']:,} "
            f"| {r['seen_cells']:,} | {r['search_s']:.2f} | {mb(r['rss_searched'])} "
            f"| {mb(r['huge_pages'])} | {mb(r['resident_nodes'])} "
            f"| {mb(r['resident_frontier'])} | {mb(r['seen_pages_bytes'])} |",
        ]
    )


# --- entry point -------------------------------------------------------------------------


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = scenario_parser("python -m bench.memory", __doc__)
    add_limit(parser, DEFAULT_LIMIT, "scenarios per map for (c), spread evenly over the file")
    parser.add_argument(
        "--size", type=int, default=SIZE, help="side of the random map of (a) and (b)"
    )
    parser.add_argument("--seed", type=int, default=2024, help="random map seed")
    args = parser.parse_args(argv)
    if args.limit < 1:
        parser.error("--limit must be at least 1")
    if args.size < 2:
        parser.error("--size must be at least 2")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    started = begin(args)
    if started is None:
        return 2
    maps, info = started
    print(flush=True)

    size, seed = args.size, args.seed
    configurations = [
        (f"default ({DEFAULT_JUMP_TABLE_MAX_CELLS:,} cells)", None),
        (f"`1 << 25` ({BIG_TABLE_LIMIT:,} cells)", BIG_TABLE_LIMIT),
    ]
    try:
        grid_rows = []
        for label, max_cells in configurations:
            print(f"(a) {size}x{size} map, jump-table limit {label} ...", file=sys.stderr)
            grid_rows.append(
                (label, in_child(kind="grid", size=size, seed=seed, max_cells=max_cells))
            )
        print(f"(b) scratch for a {size}x{size} map, one long A* search ...", file=sys.stderr)
        scratch = in_child(kind="scratch", size=size, seed=seed)
    except (subprocess.CalledProcessError, OSError, ValueError) as exc:
        print(f"error: a child process failed: {exc}", file=sys.stderr)
        return 2
    print(
        f"(a) One {size}x{size} map (seed {seed}, {BLOCKED_SHARE:.0%} blocked), loaded in a "
        "fresh process; MB = 10^6 bytes, B/cell per map cell:\n"
    )
    print(grid_table(grid_rows))
    print(f"\n{machine_line(info)}\n")
    print(
        f"(b) Per-thread scratch for the same map (a fresh process; path found: "
        f"{scratch['found']}; transparent huge pages: {huge_page_mode()}):\n"
    )
    print(scratch_table(scratch))
    print(f"\n{machine_line(info)}\n")

    progress = Progress(len(maps))
    try:
        results = [run_map(path, args.limit, progress) for path in maps]
    except (MapLoadError, OSError, ValueError) as exc:
        print(f"\nerror: {exc}", file=sys.stderr)
        return 2
    rows = [jps_summary(r.name, f"{r.width}x{r.height}", [r]) for r in results]
    total = jps_summary("total", f"{len(results)} map{'s' if len(results) > 1 else ''}", results)
    print(f"(c) JPS+ on the Moving AI maps (at most {args.limit} scenarios per map):\n")
    print(jps_table(rows, total))
    print(f"\n{machine_line(info)}")

    failures = [f for r in results for f in r.failures]
    if failures:
        print(f"\n{len(failures)} scenario(s) where the kernels disagree:", file=sys.stderr)
        for failure in failures:
            print(f"  {failure}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
