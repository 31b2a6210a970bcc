"""The peer of ``make bench-group``: ``cbs-mapf`` (PyPI 0.5, MIT: conflict-based search
over space-time A*, Sharon et al. 2015) against POST /group on the same small instances.

cbs-mapf plans in continuous coordinates with a robot radius: cells are points 1 apart,
walls point obstacles (plus a border), radius 0.4 (two units one cell apart never touch,
one cell shares none). Its moves are 8-connected, diagonals past corners allowed, so both
sides plan with ``connectivity`` 8 and ``diagonal`` "always" here (with 4 moves every
cbs-mapf plan fails the checker: diagonal steps). Its plans go through the same
independent checker as ours (8 moves, crossings forbidden); one that
fails it counts as not solved. Each run is a fresh process session with a 20 s limit,
killed whole after it (cbs-mapf starts processes of its own).
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

import httpx

from bench.common import table
from bench.server import Server
from tests.gridpath.group.checker import check_plans, sum_of_costs

PEER_LIMIT_S = 20
SIZES = (10, 20, 30)
INSTANCES = 5

_CBS = r"""
import json, sys
from cbs_mapf.planner import Planner
job = json.load(sys.stdin)
w, h = job["width"], job["height"]
walls = [tuple(c) for c in job["walls"]]
walls += [(x, -1) for x in range(-1, w + 1)] + [(x, h) for x in range(-1, w + 1)]
walls += [(-1, y) for y in range(h)] + [(w, y) for y in range(h)]
planner = Planner(1, 0.4, walls)
def keep(starts, goals):  # the given assignment (cbs-mapf assigns goals itself by default)
    from cbs_mapf.agent import Agent
    return [Agent(s, g) for s, g in zip(starts, goals)]
out = planner.plan([tuple(s) for s in job["starts"]], [tuple(g) for g in job["goals"]],
                   assign=keep, max_process=1)
print(json.dumps([[list(map(int, c)) for c in p] for p in out]))
"""


def _cbs(free, starts, goals) -> dict:
    h, w = free.shape
    walls = [[x, y] for y in range(h) for x in range(w) if not free[y, x]]
    job = json.dumps({"width": w, "height": h, "walls": walls, "starts": starts, "goals": goals})
    began = time.perf_counter()
    # a session of its own: cbs-mapf's worker and manager processes go with it
    proc = subprocess.Popen([sys.executable, "-c", _CBS], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                            start_new_session=True)  # fmt: skip
    try:
        stdout, _ = proc.communicate(job, timeout=PEER_LIMIT_S)
    except subprocess.TimeoutExpired:
        stdout = ""
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    seconds = time.perf_counter() - began
    try:
        plans = json.loads(stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return {"s": seconds, "found": False, "soc": None}
    ok = len(plans) == len(starts) and all(plans)
    if ok:  # pad to one length (waiting at the goal), then the checker
        ticks = max(len(p) for p in plans)
        plans = [p + [p[-1]] * (ticks - len(p)) for p in plans]
        ok = not check_plans(free, plans, starts, goals, 8, "always")
    return {"s": seconds, "found": ok, "soc": sum_of_costs(plans, goals) if ok else None}


def compare_cbs(maps: Path, client: httpx.Client, server: Server, budget_ms: int = 1000) -> None:
    """Both on the same instances (ours through ``server``, the one of ``make bench-group``)."""
    from bench.group import free_of, instance, run

    if importlib.util.find_spec("cbs_mapf") is None:  # else every peer run "fails"
        raise SystemExit("cbs-mapf is missing: `make bench-group` installs the bench extra")
    rows = []
    for n in SIZES:
        ours, peer = [], []
        for k in range(INSTANCES):
            name = f"random32_{k}"
            free = free_of(maps / f"{name}.map")
            starts, goals = instance(free, n, 1000 + k)
            ours.append(run(client, server, name, free, starts, goals, budget_ms, 8, "always"))
            peer.append(_cbs(free, starts, goals))
        rows.append((n, ours, peer))
    print(
        f"\ncbs-mapf (CBS) vs POST /group (time_budget_ms {budget_ms}, 8 moves, diagonal always), "
        "random 32x32 20 % walls, "
        f"{INSTANCES} instances each; SoC summed over the instances both solved"
    )
    cells = []
    for n, ours, peer in rows:
        both = [(o["soc"], p["soc"]) for o, p in zip(ours, peer) if o["found"] and p["found"]]
        ratio = f"{sum(a for a, _ in both) / sum(b for _, b in both):.3f}" if both else "-"
        cells.append([n, *(f(side) for side in (ours, peer) for f in (solved, median_s)), ratio])
    columns = ("units", "ours solved", "ours median s", "cbs-mapf solved", "cbs-mapf median s",
               "SoC ours / cbs-mapf")  # fmt: skip
    print(table(columns, cells, 6))


def solved(runs: list[dict]) -> int:
    return sum(r["found"] for r in runs)


def median_s(runs: list[dict]) -> str:
    return f"{statistics.median(r['s'] for r in runs):.2f}"
