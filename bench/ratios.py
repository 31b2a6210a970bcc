"""The two HTTP ratios of issue 21, side by side in one run on one machine (``make
bench-ratios``): single short ``POST /path`` against a bare FastAPI endpoint
(:mod:`bench.floor_app`: orjson decodes the body, answers a two-point path), target at least
0.45 of its requests/s; and ``POST /paths`` with 100 short queries against single ``/path``,
target at least 10x its queries/s. ``--before ROOT`` serves an older checkout too (its own
``.venv``), loaded in the same rounds. Method and latest table: bench/README.md,
"bench-ratios"."""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench import common, load
from bench.server import PidFile, Server, ServerSpec, running

MAPS = common.REPO_ROOT / "maps"
MAP = "arena"  # 64 x 64, bundled
BATCH = 100  # queries per /paths request
SHORT = 32.0  # a short query costs less (bench.http_load's class)
PATH_TARGET = 0.45  # /path requests/s over the floor's
BATCH_TARGET = 10.0  # /paths queries/s over /path's
FLOOR_APP = "bench.floor_app:app"


@dataclass(frozen=True)
class Variant:
    """One loaded endpoint: which server (index), route, bodies and queries per request."""

    name: str
    server: int
    route: str
    bodies: Path
    queries: int


def short_queries(count: int, seed: int) -> list[dict[str, Any]]:
    """``count`` seeded start/goal pairs on the bundled map, each found, 4 <= cost < 32."""
    from gridpath.search import SearchOptions, find_path

    grid = common.load_grid(MAPS / f"{MAP}.png")
    rng, options, queries = random.Random(seed), SearchOptions(), []
    while len(queries) < count:
        start = (rng.randrange(grid.width), rng.randrange(grid.height))
        goal = (start[0] + rng.randint(-16, 16), start[1] + rng.randint(-16, 16))
        if not (grid.in_bounds(*goal) and grid.is_walkable(*start) and grid.is_walkable(*goal)):
            continue
        result = find_path(grid, start, goal, options)
        if result.found and 4.0 <= result.cost < SHORT:
            queries.append({"start": list(start), "goal": list(goal)})
    return queries


def variants(directory: Path, before: bool, seed: int) -> list[Variant]:
    """Floor (server 0), this tree's /path and /paths (server 1), the older tree's (server 2)."""
    queries = short_queries(BATCH, seed)
    single = common.write_bodies(directory / "path.jsonl", [{"map": MAP, **q} for q in queries])
    batch = common.write_bodies(directory / "paths.jsonl", [{"map": MAP, "queries": queries}])
    ours = [Variant("bare FastAPI /path", 0, "/path", single, 1),
            Variant("/path", 1, "/path", single, 1),
            Variant(f"/paths x{BATCH}", 1, "/paths", batch, BATCH)]  # fmt: skip
    older = [Variant(f"before {v.name}", 2, v.route, v.bodies, v.queries) for v in ours[1:]]
    return ours + (older if before else [])


def measure(args: argparse.Namespace, server: Server, variant: Variant, seconds: float) -> dict:
    """One wrk run: answers/s (a refusal, e.g. 503 ``overloaded``, is an error, not an
    answer), queries/s and the server's CPU µs per answered query."""
    cpu = server.cpu_seconds()
    result = load.run_wrk(server.url, variant.bodies, seconds, args.max_requests,
                          args.connections, route=variant.route)  # fmt: skip
    errors = result["errors"]
    answered = result["requests"] - errors.get("status", 0) - errors.get("bad_answer", 0)
    cpu_us = (server.cpu_seconds() - cpu) / max(1, answered * variant.queries) * 1e6
    rps = answered / result["duration_s"]
    return result | {"variant": variant.name, "rps": rps, "qps": rps * variant.queries,
                     "cpu_us": cpu_us}  # fmt: skip


def run_rounds(args: argparse.Namespace, directory: Path, pids: PidFile) -> list[dict]:
    """Every server up (one worker each, same uvicorn flags), a warm-up run per variant, then
    ``rounds`` rounds of every variant in turn, the order reversed every other round."""
    env = {"MAPS_DIR": str(MAPS)}
    specs = [ServerSpec(env=env, app=FLOOR_APP), ServerSpec(env=env)]
    if args.before:  # an older tree served gridpath.main:app (before the app/ package)
        older = "app.main:app" if (args.before / "app").is_dir() else "gridpath.main:app"
        specs.append(ServerSpec(env=env, app=older, root=args.before.resolve()))
    chosen = variants(directory, args.before is not None, args.seed)
    runs = []
    with running(specs, args.ready_timeout, pids) as servers:
        for variant in chosen:
            measure(args, servers[variant.server], variant, args.warmup)
        for turn, variant in load.abba(args.rounds, chosen):
            common.log(f"round {turn}: {variant.name}, {args.duration:.0f} s")
            runs.append(measure(args, servers[variant.server], variant, args.duration)
                        | {"round": turn})  # fmt: skip
    return runs


def medians(runs: Sequence[dict]) -> dict[str, dict[str, float]]:
    """Per variant, the median over its rounds of req/s, queries/s and CPU µs per query."""
    names = dict.fromkeys(r["variant"] for r in runs)
    return {
        name: {key: common.median([r[key] for r in runs if r["variant"] == name])
               for key in ("rps", "qps", "cpu_us")}
        for name in names
    }  # fmt: skip


def verdict(ratio: float, target: float) -> str:
    return f"**{ratio:.2f}** (target >= {target:g}: {'met' if ratio >= target else '**not met**'})"


def report(runs: Sequence[dict], args: argparse.Namespace, info: dict) -> None:
    """The table of medians, then the two ratios (for the older tree too, with --before)."""
    med, rounds = medians(runs), args.rounds
    print(f"wrk, {args.connections} connections, one worker per server, {rounds} round(s) of "
          f"{args.duration:g} s per endpoint in turn (ABBA), medians over the rounds; "
          f"{BATCH} short queries on `{MAP}` (cost < {SHORT:g}); CPU: the server's process "
          "group's CPU time over the queries answered.\n")  # fmt: skip
    columns = ("endpoint", "answers/s per round", "answers/s", "queries/s", "CPU µs per query")
    print(common.header(columns + ("errors",)))
    for name, m in med.items():
        kinds = sum((Counter(r["errors"]) for r in runs if r["variant"] == name), Counter())
        errors = ", ".join(f"{kind} {n:,}" for kind, n in sorted(kinds.items())) or "0"
        per_round = ", ".join(f"{r['rps']:,.0f}" for r in runs if r["variant"] == name)
        cells = [name, per_round, f"{m['rps']:,.0f}", f"{m['qps']:,.0f}", f"{m['cpu_us']:,.1f}"]
        print(common.row([*cells, errors]))
    floor = med["bare FastAPI /path"]
    for prefix in ("", "before ") if args.before else ("",):
        path, paths = med[f"{prefix}/path"], med[f"{prefix}/paths x{BATCH}"]
        print(f"\n{prefix or 'this tree: '}/path over the bare endpoint, answers/s "
              f"{verdict(path['rps'] / floor['rps'], PATH_TARGET)}, by CPU per query "
              f"{floor['cpu_us'] / path['cpu_us']:.2f}; /paths x{BATCH} over /path, queries/s "
              f"{verdict(paths['qps'] / path['qps'], BATCH_TARGET)}, by CPU per query "
              f"{path['cpu_us'] / paths['cpu_us']:.2f}.")  # fmt: skip
    if args.before:
        print(f"\nBefore: {args.before} at {info['before']}.")
    print("\n" + common.machine_line(info["machine"]))


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.ratios", description=__doc__)
    add = parser.add_argument
    add("--rounds", type=int, default=3, help="runs per endpoint (default 3)")
    add("--duration", type=float, default=4.0, help="seconds per run (default 4)")
    add("--warmup", type=float, default=2.0, help="seconds of warm-up per endpoint (default 2)")
    add("--before", type=Path, help="an older checkout with its .venv, served and loaded too")
    add("--seed", type=int, default=21, help="seed of the short queries (default 21)")
    add("--quick", action="store_true", help="1 round of 1 s, 1 s warm-up: a smoke test")
    load.add_run_options(parser, ())
    args = parser.parse_args(argv)
    if args.quick:
        args.rounds, args.duration, args.warmup = 1, 1.0, 1.0
    if args.rounds < 1 or args.duration < 1:
        parser.error("--rounds and --duration must be at least 1")
    if args.before and not (args.before / ".venv" / "bin" / "python").exists():
        parser.error(f"{args.before} has no .venv (make dev there first)")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    common.exit_on_signals()
    load.require_wrk()
    info = {"machine": common.machine_info()}
    if args.before:
        git = ["git", "-C", str(args.before), "rev-parse", "--short", "HEAD"]
        info["before"] = subprocess.run(git, capture_output=True, text=True).stdout.strip()
    with tempfile.TemporaryDirectory(prefix="gridpath-ratios-") as tmp:
        runs = run_rounds(args, Path(tmp), PidFile(args.pid_file))
    report(runs, args, info)
    return 1 if any(r["error_count"] for r in runs if not r["variant"].startswith("before")) else 0


if __name__ == "__main__":
    sys.exit(main())
