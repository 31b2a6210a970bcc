"""warm_up() compiles every kernel signature the service uses: after it, serving the
bundled maps (with and without JPS+ jump distances, with the subgoal tier) and a live edit
compile nothing new."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.conftest import ROOT

# a cold numba cache compiles every kernel here: minutes on a loaded 2-core machine
pytestmark = pytest.mark.timeout(1500)

SCRIPT = """
import sys
import numpy as np
from numba.core.registry import CPUDispatcher
from gridpath.search.warmup import warm_up

def compiled():
    return sum(
        len(obj.signatures)
        for name, module in list(sys.modules.items()) if name.startswith("gridpath.")
        for obj in vars(module).values() if isinstance(obj, CPUDispatcher)
    )

warm_up()
before = compiled()
from gridpath.maps import MapRegistry
from gridpath.grid.edits import Edit, GridEdit
from gridpath.search import (
    Algorithm,
    SearchOptions,
    find_path,
    jump_distances,
    smooth,
    subgoal_graph,
)
from gridpath.errors import AlgorithmUnsupported
from gridpath.search.algorithms import ALGORITHMS
from gridpath.search.validate import validate_path
from gridpath.search.flowfield import flow_field
from gridpath.search.table import cost_table

store = MapRegistry.from_dir("maps", max_cells=10**7, max_bytes=10**8)
tables = set()
for grid in [g for g in store.all() if g.kind == "grid"]:  # polygon maps: no kernels
    tables.add(jump_distances(grid) is not None)  # built per revision, as the service does
    subgoal_graph(grid)
    cells = np.argwhere(grid.clearance >= 1)
    (y0, x0), (y1, x1) = cells[0], cells[-1]
    start, goal = (int(x0), int(y0)), (int(x1), int(y1))
    for algorithm in ALGORITHMS:  # every algorithm of the registry, a new one too
        options = SearchOptions(algorithm=algorithm)
        try:
            result = find_path(grid, start, goal, options, waypoints=True)
        except AlgorithmUnsupported:  # refused on this map: nothing to compile
            continue
        smooth(grid, result.path)
        validate_path(grid, result.path)
    wide = np.argwhere(grid.clearance >= 2)
    if len(wide):  # a unit of size 2: JPS scans (the table is for size 1)
        (y0, x0), (y1, x1) = wide[0], wide[-1]
        find_path(grid, (int(x0), int(y0)), (int(x1), int(y1)), SearchOptions(clearance=2))
    flow_field(grid, goal)
    for options in (SearchOptions(), SearchOptions(connectivity=4)):  # JPS per pair; floods
        cost_table(grid, [start, goal], [goal, start], options)
    edited = grid.edit(GridEdit([Edit("blocked", cells=[start])]), 2)
    y2, x2 = cells[len(cells) // 2]
    find_path(edited, goal, (int(x2), int(y2)))  # on the new snapshot
    find_path(edited, goal, (int(x2), int(y2)), SearchOptions(algorithm=Algorithm.SUBGOAL))
assert tables == {True, False}, tables  # maps with and without jump distances were served
# through the example world: a path (the overlay's bounds), a table, a validation, a flow field
from pathlib import Path
from gridpath.world.files import load_world
from gridpath.world.flowfield import world_flowfield
from gridpath.world.model import WorldMaps
from gridpath.world.overlay import LinkFilter
from gridpath.world.search import WorldQuery, find_world_path
from gridpath.world.table import world_table
from gridpath.world.validate import validate_world_path

world = load_world(Path("maps/keep.world.json"), lambda n: ("grid", store.get(n).width,
                                                             store.get(n).height))
keep = WorldMaps(world, {name: store.get(name) for name in world.maps})
ends = [world.links[0].source, world.links[1].target]
for options in (SearchOptions(), SearchOptions(algorithm=Algorithm.DIJKSTRA)):
    answer = find_world_path(WorldQuery(keep, *ends, options))
cells = [(leg.map, tuple(c)) for leg in answer.legs for c in leg.path.tolist()]
from gridpath.world.model import Place
validate_world_path(keep, [Place(m, c) for m, c in cells], compare_optimal=True)
world_table(keep, ends, ends[::-1], SearchOptions())
world_flowfield(keep, ends[1])
world_flowfield(keep, ends[0], links=LinkFilter(frozenset(), frozenset({"stairs"})),
                blocked={world.maps[0]: [(ends[0].cell[0] + 1, ends[0].cell[1])]})
print(compiled() - before)
"""


def test_serving_after_warm_up_compiles_nothing():
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT], cwd=ROOT, capture_output=True, text=True, timeout=1200
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().splitlines()[-1] == "0"


STAGED = """
import os, pathlib, sys
import numpy as np
from numba.core.registry import CPUDispatcher
from scipy import ndimage
from gridpath.errors import WarmingUp
from gridpath.grid import Grid
from gridpath.maps import MapRegistry
from gridpath.search import Algorithm, SearchOptions, find_path, prepare_jps, subgoal_graph
from gridpath.search.batch import find_pairs
from gridpath.search import warming
from gridpath.search.staged import StagedWarmUp
from gridpath.search.warmup import STEPS, stamp_dir

def compiled():
    return sum(
        len(obj.signatures)
        for name, module in list(sys.modules.items()) if name.startswith("gridpath.")
        for obj in vars(module).values() if isinstance(obj, CPUDispatcher)
    )

cache = pathlib.Path(os.environ["NUMBA_CACHE_DIR"])
assert not [p for p in cache.rglob("*") if p.is_file()], "not a first start"
staged = StagedWarmUp(processes=2, log=print)
staged.begin()
print("serving steps ready in", round(staged.serving(), 1), "s", file=sys.stderr)
grids = [g for g in MapRegistry.from_dir("maps", max_cells=10**7, max_bytes=10**8).all()
         if g.kind == "grid"]  # the bundled maps: open, a maze, terrain costs
rng = np.random.default_rng(1)
scattered = rng.random((128, 128)) >= 0.3  # random obstacles: short straight runs
scattered[0, :] = scattered[:, -1] = True  # the corners joined
grids += [Grid.from_walkable("scattered", scattered),
          Grid.from_walkable("open", np.ones((128, 128), dtype=bool))]
before = compiled()
runners = set()
for tier in (False, True):  # today's default (no tier) and the subgoal tier built
    for grid in grids:
        prepare_jps(grid)  # at load, as the service does (before it is ready)
        if tier:
            subgoal_graph(grid)  # auto answers from the tier on the maps that have one
        # the ends of the first region (4-connected cells reach each other; a map of a
        # world may be split into regions that only its links join)
        regions, _ = ndimage.label(grid.clearance >= 1)
        cells = np.argwhere(regions == regions[tuple(np.argwhere(regions > 0)[0])])
        (y0, x0), (y1, x1) = cells[0], cells[-1]
        start, goal = (int(x0), int(y0)), (int(x1), int(y1))
        result = find_path(grid, start, goal, waypoints=True)  # auto, the default options
        assert result.found, (grid.name, result.reason)
        runners.add(result.options.algorithm.value)
        ends = np.array([start], dtype=np.int64), np.array([goal], dtype=np.int64)
        answers = find_pairs(grid, *ends, SearchOptions())  # a /paths batch
        if answers is not None:
            answers.texts()
        if grid.uniform:  # theta refuses terrain costs, warm or not
            try:
                find_path(grid, start, goal, SearchOptions(algorithm=Algorithm.THETA))
                raise AssertionError("theta served before its kernels were loaded")
            except WarmingUp:
                pass
assert runners == {"subgoal", "jps", "astar"}, runners  # auto's runners met on these maps
assert compiled() == before, "the serving steps left the default query something to compile"
staged.finish()
assert warming.pending() == {} and sorted(staged.done) == sorted(s.name for s in STEPS)
assert len(list(stamp_dir().iterdir())) == len(STEPS)  # the next start loads them all first
print("ok")
"""


def test_first_start_serves_the_default_query_on_any_map(tmp_path):
    """A first start (an empty numba cache): after the serving steps, ``auto``'s default
    query (waypoints and a ``/paths`` batch too) on a maze, random obstacles, open maps and
    terrain costs, with and without the subgoal tier, is answered and compiles nothing;
    queries needing a later step get ``WarmingUp`` (never another algorithm) until
    ``finish`` has loaded every step."""
    cache = tmp_path / "numba"
    cache.mkdir()
    out = subprocess.run(
        [sys.executable, "-c", STAGED], cwd=ROOT, capture_output=True, text=True, timeout=1200,
        env={**os.environ, "NUMBA_CACHE_DIR": str(cache)},
    )  # fmt: skip
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    assert out.stdout.strip().splitlines()[-1] == "ok"
