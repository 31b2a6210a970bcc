"""``make bench-worlds``: paths through a world of two Moving AI maps joined by links, in
process, and (``--toggle``) a link toggle over HTTP. Method and figures: bench/README.md."""

from __future__ import annotations

import argparse
import contextlib
import math
import sys
import tempfile
import time

import numpy as np

from bench import common
from bench.common import DEFAULT_DATA, load_scenarios
from bench.server import JsonClient, PidFile, ServerSpec, redis_server, running_server
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


# --- the link toggle over HTTP (``--toggle``) ------------------------------------------------

TOKEN = "bench-worlds"


def tiled(source: common.Path, target: common.Path) -> tuple[list[int], str]:
    """``source`` (a Moving AI map) tiled 2x2 into ``target``; a walkable cell, the size."""
    lines = source.read_text().splitlines()
    rows = [r * 2 for r in lines[lines.index("map") + 1 :] if r] * 2
    target.write_text(f"type octile\nheight {len(rows)}\nwidth {len(rows[0])}\nmap\n"
                      + "\n".join(rows) + "\n")  # fmt: skip
    y = next(y for y in range(len(rows) // 2, len(rows)) if "." in rows[y])
    return [rows[y].index("."), y], f"{len(rows[0])}x{len(rows)}"


def served_maps(client) -> dict[str, tuple]:
    """Per map of the server, its revision and its tiers' bytes (``GET /maps``)."""
    status, body = client.call("GET", "/maps")
    assert status == 200, body
    return {m["name"]: (m["revision"], m.get("tiers", {})) for m in body["maps"]}


def toggles(spec, cell: list[int], count: int, pids) -> dict:
    """On a world of ``a`` and ``b`` (a teleporter, and the ``gate`` between them): ``count``
    ``PATCH`` toggles of the gate, each timed from sending to the answer, after two untimed;
    whether the maps' revisions and tiers stayed as they were."""
    with running_server(spec, pids=pids) as server:
        client = JsonClient(server.port, TOKEN)
        deadline = time.monotonic() + 600  # the subgoal tiers may be built after the start
        while not all("subgoal" in tiers for _, tiers in served_maps(client).values()):
            assert time.monotonic() < deadline, f"no subgoal tier: {served_maps(client)}"
            time.sleep(0.2)
        before = served_maps(client)
        ends = [{"map": m, "cell": cell} for m in "ab"]
        links = [
            {"id": "tele", "from": ends[0], "to": ends[1], "cost": 0},
            {"id": "gate", "from": ends[1], "to": ends[0], "bidirectional": True},
        ]
        status, body = client.call("PUT", "/worlds/w", {"maps": ["a", "b"], "links": links}, True)
        assert status in (200, 201), body
        seconds = []
        for i in range(count + 2):
            patch = {"set": [{"id": "gate", "enabled": i % 2 == 1}]}
            began = time.perf_counter()
            status, body = client.call("PATCH", "/worlds/w", patch, admin=True)
            seconds.append(time.perf_counter() - began)
            assert status == 200 and body["revision"] == i + 2, body
        after = served_maps(client)
        client.close()
    ms = sorted(s * 1e3 for s in seconds[2:])
    return {"median": common.median(ms), "max": ms[-1], "kept": after == before,
            "tiers": {m: t["subgoal"] for m, (_, t) in before.items()}}  # fmt: skip


def toggle(args: argparse.Namespace) -> int:
    pids = PidFile(args.pid_file)
    common.exit_on_signals()
    rows, kept = [], True
    with tempfile.TemporaryDirectory(prefix="gridpath-worlds-") as tmp:
        maps = common.Path(tmp, "maps")
        maps.mkdir()
        cell, size = [tiled(args.data / f"{args.map}.map", maps / f"{m}.map") for m in "ab"][0]
        env = {"MAPS_DIR": str(maps), "ADMIN_TOKEN": TOKEN, "MAPS_RELOAD": "off",
               "SUBGOAL_MAX_CELLS": str(4 << 20)}  # fmt: skip
        for store in ("folder", "Redis"):
            with contextlib.ExitStack() as stack:
                url = stack.enter_context(redis_server(pids)) if store == "Redis" else None
                state = stack.enter_context(tempfile.TemporaryDirectory(dir=args.state_dir))
                state = {"MAP_STATE_DIR": state, "MAP_STORE": url}
                got = toggles(ServerSpec(env=env | state), cell, args.toggles, pids)
            kept &= got["kept"]
            rows.append([store, args.toggles, f"{got['median']:.2f}", f"{got['max']:.2f}",
                         "no" if got["kept"] else "**yes**", "< 5 ms median"])  # fmt: skip
    tiers = ", ".join(f"{m} {b / 1e6:.2f} MB" for m, b in got["tiers"].items())
    print(f"bench.worlds --toggle: two {size} maps ({args.map} tiled 2x2), subgoal tiers "
          f"{tiers}; PATCH of a link's `enabled`, timed from sending to the answer")  # fmt: skip
    columns = ["store", "toggles", "median ms", "max ms", "maps or tiers rebuilt", "target"]
    print(common.table(columns, rows))
    print(f"\n{common.machine_line(common.machine_info())}")
    return 0 if kept else 1


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=common.Path, default=DEFAULT_DATA)
    parser.add_argument("--map", help="default: Boston_0_512, with --toggle 32room_000")
    parser.add_argument("--queries", type=int, default=50)
    parser.add_argument("--check-big", action="store_true", help="dijkstra on 1,000 links too")
    parser.add_argument("--toggle", action="store_true", help="the link toggle over HTTP")
    parser.add_argument("--toggles", type=int, default=30)
    parser.add_argument("--pid-file", type=common.Path, help="server process groups")
    parser.add_argument("--state-dir", type=common.Path, help="the folder store's records")
    args = parser.parse_args(argv)
    args.map = args.map or ("32room_000" if args.toggle else "Boston_0_512")
    return toggle(args) if args.toggle else run(args)


if __name__ == "__main__":
    sys.exit(main())
