"""``make bench`` (memory): resident memory per map and per search thread. Method and figures:
bench/README.md, "bench.memory"."""

from __future__ import annotations

import argparse
import ctypes
import gc
import json
import mmap
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from app.state import release_large_frees
from bench.common import json_of_child, log, machine_info, machine_line, rss_bytes, table
from gridpath.grid import Grid
from gridpath.search import Algorithm, SearchOptions, SearchScratch, find_path, jump_distances
from gridpath.search import _frontier as _kernels
from gridpath.search.warmup import warm_up

SIZE = 4096
BLOCKED_SHARE = 0.2
MB = 1e6
SMALL_PAGE = 4096  # bytes in a base page (x86-64, arm64 Linux defaults)
Cell = tuple[int, int]


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


def child_grid(size: int, seed: int) -> dict[str, Any]:
    """(a), in a fresh process: VmRSS before and after loading one random map."""
    release_large_frees()  # as the service does at start-up
    warm_up()
    gc.collect()
    before = rss_bytes()
    walkable = random_walkable(size, seed)
    with_walkable = rss_bytes()
    grid = Grid.from_walkable("big", walkable)
    jump_distances(grid)  # as the service does on load (none on a map this size by default)
    del walkable
    gc.collect()
    after = rss_bytes()
    components = grid.components()  # computed at construction: a cache lookup
    arrays = {
        "passable": grid.passable,
        "labels": components.labels,
        "minor_cells": components.minor_cells,  # None unless over 254 components
        "minor_ids": components.minor_ids,
        "jump_table": grid.jump_distances,
        "terrain": grid.terrain,
    }
    return {
        "cells": grid.cell_count, "rss_before": before, "rss_walkable": with_walkable,
        "rss_after": after,
        "nbytes": merge_minor({k: 0 if a is None else int(a.nbytes) for k, a in arrays.items()}),
        "resident": merge_minor({k: resident_bytes(a) for k, a in arrays.items()}),
    }  # fmt: skip


def merge_minor(figures: dict[str, int]) -> dict[str, int]:
    """Count the minor-component lists with the labels (one figure: the components)."""
    figures["labels"] += figures.pop("minor_cells") + figures.pop("minor_ids")
    return figures


def child_scratch(size: int, seed: int) -> dict[str, Any]:
    """(b), in a fresh process: VmRSS growth of a scratch, allocated and after one search."""
    release_large_frees()  # as the service does at start-up
    warm_up()
    start, goal = (0, 0), (size - 1, size - 1)  # opposite corners: a long search
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
        "cells": grid.flat.size, "nbytes": scratch.nbytes, "rss_allocated": allocated - before,
        "rss_searched": searched - before, "resident_nodes": resident_nodes,
        "resident_frontier": resident_frontier, "huge_pages": huge_after - huge_before,
        "seen_cells": int(seen.size), "seen_pages_bytes": int(seen_pages.size) * SMALL_PAGE,
        "found": result.found, "expanded": result.expanded, "search_s": elapsed_s,
        "start": list(start), "goal": list(goal),
    }  # fmt: skip


def child(spec: str) -> None:
    """Entry point of a child process: run one measurement, print its JSON on stdout."""
    args = json.loads(spec)
    if args["kind"] == "grid":
        out = child_grid(args["size"], args["seed"])
    else:
        out = child_scratch(args["size"], args["seed"])
    print(json.dumps(out), flush=True)


def in_child(**spec: Any) -> dict[str, Any]:
    """Run :func:`child` with ``spec`` in a fresh interpreter; its JSON answer."""
    code = "import sys; from bench.memory import child; child(sys.argv[1])"
    return json_of_child([sys.executable, "-c", code, json.dumps(spec)])


def mb(n: float) -> str:
    return f"{n / MB:,.2f}"


def grid_table(r: dict[str, Any]) -> str:
    growth = r["rss_after"] - r["rss_before"]
    nbytes, resident = r["nbytes"], r["resident"]
    terrain = resident["terrain"]
    resident_word = "yes" if terrain > nbytes["terrain"] // 100 else "no"
    columns = ("RSS growth MB", "RSS B/cell", "passable MB", "labels MB", "jump distances MB",
               "terrain resident", "resident arrays MB")  # fmt: skip
    return table(columns, [[
        mb(growth), f"{growth / r['cells']:.2f}", mb(nbytes["passable"]), mb(nbytes["labels"]),
        mb(nbytes["jump_table"]), f"{resident_word} ({mb(terrain)} of {mb(nbytes['terrain'])} MB)",
        mb(sum(resident.values())),
    ]], 0)  # fmt: skip


def scratch_table(r: dict[str, Any]) -> str:
    columns = ("padded cells", "SearchScratch nbytes MB", "B/cell", "RSS after allocation MB",
               "A* query", "expanded", "cells seen", "search s", "RSS after search MB",
               "of it in huge pages MB", "nodes resident MB", "frontier resident MB",
               "nodes 4 KiB pages seen MB")  # fmt: skip
    return table(columns, [[
        f"{r['cells']:,}", mb(r["nbytes"]), f"{r['nbytes'] / r['cells']:.0f}",
        mb(r["rss_allocated"]), f"{r['start']} -> {r['goal']}", f"{r['expanded']:,}",
        f"{r['seen_cells']:,}", f"{r['search_s']:.2f}", mb(r["rss_searched"]),
        mb(r["huge_pages"]), mb(r["resident_nodes"]), mb(r["resident_frontier"]),
        mb(r["seen_pages_bytes"]),
    ]], 0)  # fmt: skip


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.memory", description=__doc__)
    parser.add_argument("--size", type=int, default=SIZE, help="side of the random map")
    parser.add_argument("--seed", type=int, default=2024, help="random map seed")
    args = parser.parse_args(argv)
    if args.size < 2:
        parser.error("--size must be at least 2")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    info, size, seed = machine_info(), args.size, args.seed
    try:
        log(f"(a) a {size}x{size} map ...")
        grid = in_child(kind="grid", size=size, seed=seed)
        log(f"(b) scratch for a {size}x{size} map, one long A* search ...")
        scratch = in_child(kind="scratch", size=size, seed=seed)
    except (subprocess.CalledProcessError, OSError, ValueError) as exc:
        log(f"error: a child process failed: {exc}")
        return 2
    print(
        f"(a) One {size}x{size} map (seed {seed}, {BLOCKED_SHARE:.0%} blocked), loaded in a "
        "fresh process; MB = 10^6 bytes, B/cell per map cell:\n"
    )
    print(grid_table(grid))
    print(
        f"\n(b) Per-thread scratch for the same map (a fresh process; path found: "
        f"{scratch['found']}; transparent huge pages: {huge_page_mode()}):\n"
    )
    print(scratch_table(scratch))
    print(f"\n{machine_line(info)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
