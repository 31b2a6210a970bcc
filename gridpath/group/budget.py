"""How a time budget in milliseconds becomes the solver's work budget.

The solver counts *work*, never time (:mod:`gridpath.group.solve`), so that an answer
depends on the request and the map revisions only, not on the machine's load. A budget in
ms converts at a *rate* (work units per ms), and one fixed rate cannot fit every machine: a
machine three times faster than the one a constant was measured on spends a third of the
time allowed and answers ``limit_reached`` where it had time to find a plan. So:

- **The rate is measured once per machine**, from a fixed deterministic workload (a seeded
  order of 400 units on a random 32x32 map, solved with a fixed work budget, timed by this
  thread's CPU time, the fastest of :data:`RUNS`), rounded down to a step of a geometric
  grid (:data:`STEPS_PER_DOUBLING` a doubling), and kept in the compiled kernels' folder
  (:mod:`gridpath.kernel_cache`, keyed by the sources and the CPU): the first process to
  measure writes it, every later process on that machine reads it, so they all convert
  the same budget to the same work and answer byte for byte alike. Where the folder is
  read-only, a process uses its own measurement (rounded, so usually the same).
- **Bigger orders cost more time per work unit** (the per-goal distance tables, ``units x
  free cells``, outgrow the CPU caches): the work of a budget is divided by
  :func:`work_weight`, which grows by :data:`WEIGHT_PER_DOUBLING` per doubling of the
  table past :data:`CACHED_TABLE` entries (fitted to ``make bench-group``'s work per CPU ms
  over its four instance sets: bench/README.md), so a large order gets about its time too.

The trade-off: answers of orders that end on their budget are the same in every process
of one machine (and of machines that share the kernels' folder), not across machines of
different speeds; a deployment that needs byte-identical answers on every machine pins the
rate (``GROUP_WORK_PER_MS``, docs/group.md), and then its budget is work, not time.
"""

from __future__ import annotations

import contextlib
import functools
import math
import os
import threading
import time
from pathlib import Path

import numpy as np

RUNS = 3  # the calibration's runs: the fastest counts (others' load only slows a run)
CALIBRATION_WORK = 300_000  # work units a calibration run spends (a few hundred ms)
STEPS_PER_DOUBLING = 4  # the rate's grid: 2 ** (k / 4) (a step is 19 %)
MIN_RATE, MAX_RATE = 100, 100_000
CACHED_TABLE = 1 << 18  # units x free cells that a cost of 1 a work unit holds for
WEIGHT_PER_DOUBLING = 0.22
RATE_FILE = "group-work-per-ms"


def work_weight(units: int, vertex_count: int) -> float:
    """What a work unit of an order of ``units`` on ``vertex_count`` cells costs in time,
    relative to the calibration's (1 up to :data:`CACHED_TABLE` table entries)."""
    table = max(1, units * vertex_count)
    return 1.0 + WEIGHT_PER_DOUBLING * max(0.0, math.log2(table / CACHED_TABLE))


def order_work(ms: int, rate: int, units: int, vertex_count: int) -> int:
    """The work budget of ``ms`` milliseconds at ``rate`` for an order of this size."""
    return max(1, int(ms * rate / work_weight(units, vertex_count)))


def _on_grid(rate: float) -> int:
    """``rate`` rounded down to the geometric grid, within the bounds."""
    k = math.floor(STEPS_PER_DOUBLING * math.log2(max(rate, 1.0) / MIN_RATE))
    return int(min(MAX_RATE, max(MIN_RATE, MIN_RATE * 2 ** (k / STEPS_PER_DOUBLING))))


def _workload():
    from gridpath.group.graph import build_graph
    from gridpath.group.solve import make_order

    rng = np.random.default_rng(20)
    free = rng.random((32, 32)) >= 0.2
    graph = build_graph(free)
    cells = np.nonzero(graph.component == np.bincount(graph.component).argmax())[0]
    pick = rng.choice(cells, 800, replace=False)  # 400 units: random-32-32-20's crowd
    starts = [(int(graph.xs[v]), int(graph.ys[v])) for v in pick[:400]]
    goals = [(int(graph.xs[v]), int(graph.ys[v])) for v in pick[400:]]
    return make_order(graph, starts, goals)


def measure_rate() -> int:
    """Work units per ms of this thread's CPU time on the calibration workload (after one
    run that compiles or loads the kernels), on the rate's grid."""
    from gridpath.group.solve import solve_order

    order = _workload()
    solve_order(order, 2_000)  # the kernels, compiled or loaded: not timed
    best = 0.0
    for _ in range(RUNS):
        began = time.thread_time()
        result, _ = solve_order(order, CALIBRATION_WORK)
        spent_ms = (time.thread_time() - began) * 1000
        best = max(best, result.work / max(spent_ms, 1e-3))
    return _on_grid(best)


def _read(path: Path) -> int | None:
    try:
        value = int(path.read_text().strip())
    except (OSError, ValueError):
        return None
    return value if MIN_RATE <= value <= MAX_RATE else None


def _kept(path: Path, rate: int) -> int:
    """Keep ``rate`` at ``path`` unless a process wrote one first; the one kept. The file
    appears whole (written aside, then hard-linked into place: the link fails if it exists),
    so a reader never sees it half written."""
    aside = path.with_name(f"{path.name}.{os.getpid()}.{threading.get_ident()}")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        aside.write_text(f"{rate}\n")
        os.link(aside, path)
    except FileExistsError:
        return _read(path) or rate
    except OSError:  # a read-only folder: this process's own measurement
        return rate
    finally:
        with contextlib.suppress(OSError):
            aside.unlink()
    return rate


@functools.cache
def machine_rate() -> int:
    """This machine's work units per ms: read beside the compiled kernels, else measured
    now and kept there (the first writer wins)."""
    from gridpath.kernel_cache import keyed_folder

    path = keyed_folder() / RATE_FILE
    return _read(path) or _kept(path, measure_rate())
