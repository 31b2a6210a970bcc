"""``make bench-worlds``: paths through a world of two 512x512 Moving AI maps (two copies of
one map, ``a`` and ``b``, joined by one zero-cost teleporter), in process. Queries: the map's
longest scenarios, each from its start on ``a`` to its goal on ``b``. Printed, as medians:
(1) expansions of ``astar`` and ``auto`` against ``dijkstra`` (every cost checked against the
world Dijkstra's); (2) ``auto`` with 1,000 links against 10 (the teleporter plus stairs
between the copies' same cells at random, cost 200), same queries; (3) ``auto`` through the
world against the sum of its legs' single-map ``auto`` queries. Exit status 1 if an answer
is not optimal. Method and figures: bench/README.md, "bench.worlds"."""

from __future__ import annotations

import argparse
import math
import sys
import time

import numpy as np

from bench import common
from bench.common import DEFAULT_DATA, load_scenarios
from gridpath.search import Algorithm, SearchOptions, find_path
from gridpath.world.model import Place, WorldMaps, parse_world
from gridpath.world.search import WorldQuery, find_world_path

SEED = 27


def world(grid_a, grid_b, extra: int, rng) -> WorldMaps:
    """The two copies joined by a teleporter near the middle and ``extra`` stairs."""
    open_ = np.argwhere(grid_a.walkable)  # (y, x)
    middle = open_[np.argmin(np.abs(open_ - np.array(grid_a.walkable.shape) // 2).sum(axis=1))]
    cell = [int(middle[1]), int(middle[0])]
    links = [{"id": "tele", "from": {"map": "a", "cell": cell}, "to": {"map": "b", "cell": cell},
              "cost": 0}]  # fmt: skip
    for i, k in enumerate(rng.choice(len(open_), size=extra, replace=False)):
        c = [int(open_[k][1]), int(open_[k][0])]
        stairs = {"map": "a", "cell": c}, {"map": "b", "cell": c}
        links.append({"id": f"stairs{i}", "from": stairs[0], "to": stairs[1], "cost": 200,
                      "bidirectional": True})  # fmt: skip
    grids = {"a": grid_a, "b": grid_b}
    document = {"maps": ["a", "b"], "links": links}
    return WorldMaps(parse_world("w", document, lambda n: ("grid", 512, 512)), grids)


def timed(call):
    began = time.perf_counter_ns()
    answer = call()
    return answer, (time.perf_counter_ns() - began) / 1000


def ask(maps: WorldMaps, s, algorithm: Algorithm):
    query = WorldQuery(maps, Place("a", s.start), Place("b", s.goal),
                       SearchOptions(algorithm=algorithm))  # fmt: skip
    return timed(lambda: find_world_path(query))


def legs_time(maps: WorldMaps, answer) -> float:
    """The single-map auto queries of the answer's legs, timed one by one."""
    total = 0.0
    for leg in answer.legs:
        grid, (a, b) = maps.grids[leg.map], leg.path[[0, -1]].tolist()
        total += timed(lambda g=grid, a=a, b=b: find_path(g, tuple(a), tuple(b), waypoints=True))[1]
    return total


def run(args: argparse.Namespace) -> int:
    path = args.data / f"{args.map}.map"
    if not path.is_file():
        common.log(f"error: no {path}")
        return 2
    grid, scenarios = load_scenarios(path, None)
    scenarios = sorted(scenarios, key=lambda s: -s.optimal)[: args.queries]
    rng = np.random.default_rng(SEED)
    ten, thousand = world(grid, grid, 9, rng), world(grid, grid, 999, rng)
    expanded = {a: [] for a in ("dijkstra", "astar", "auto")}
    times_10, times_1000, ratio_legs, wrong = [], [], [], 0
    for s in scenarios:
        ask(ten, s, Algorithm.AUTO)  # warm: plans and tiers
        reference, _ = ask(ten, s, Algorithm.DIJKSTRA)
        expanded["dijkstra"].append(reference.expanded)
        for algorithm in (Algorithm.ASTAR, Algorithm.AUTO):
            answer, us = ask(ten, s, algorithm)
            expanded[algorithm.value].append(answer.expanded / max(1, reference.expanded))
            wrong += not math.isclose(answer.cost, reference.cost, rel_tol=1e-9)
        times_10.append(us)
        ratio_legs.append(us / legs_time(ten, answer))
        big, big_us = ask(thousand, s, Algorithm.AUTO)
        check, _ = ask(thousand, s, Algorithm.DIJKSTRA) if args.check_big else (big, 0)
        wrong += not math.isclose(big.cost, check.cost, rel_tol=1e-9)
        times_1000.append(big_us)
    median = common.median
    print(f"bench.worlds: two copies of {args.map} (512x512), {len(scenarios)} queries a -> b, "
          f"{'' if not wrong else f'{wrong} NOT OPTIMAL, '}medians")  # fmt: skip
    print(common.header(["figure", "value", "target"]))
    print(common.row(["dijkstra expanded", f"{median(expanded['dijkstra']):,.0f}", ""]))
    for name in ("astar", "auto"):
        print(common.row([f"{name} / dijkstra expanded", f"{median(expanded[name]):.4f}",
                          "<= 0.25"]))  # fmt: skip
    print(common.row(["auto, 10 links (ms)", common.ms(median(times_10)), ""]))
    print(common.row(["auto, 1,000 links (ms)", common.ms(median(times_1000)), ""]))
    ratio = median([b / a for a, b in zip(times_10, times_1000, strict=True)])
    print(common.row(["1,000 links / 10 links time", common.times(ratio), "<= 2x"]))
    print(common.row(["auto world / sum of its legs' auto", common.times(median(ratio_legs)),
                      "<= 1.5x"]))  # fmt: skip
    return 1 if wrong else 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=common.Path, default=DEFAULT_DATA)
    parser.add_argument("--map", default="Boston_0_512")
    parser.add_argument("--queries", type=int, default=50)
    parser.add_argument("--check-big", action="store_true", help="dijkstra on 1,000 links too")
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
