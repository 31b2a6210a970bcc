"""Polygon maps: our exact mode (Polyanya on an earcut mesh) against extremitypathfinder.

``python -m bench.polygon --help`` lists the options; the method and the latest results are
in bench/README.md, "bench.polygon".
"""

from __future__ import annotations

import argparse
import gc
import math
import statistics
import sys
import time
import tracemalloc
import warnings
from pathlib import Path

import numpy as np
import shapely
from shapely.geometry.polygon import orient

from bench.common import DEFAULT_DATA, load_scenarios, log, machine_info, machine_line
from gridpath.nav.mesh import build_mesh
from gridpath.nav.polyanya import find_path
from gridpath.nav.query import check_polyline

DRAGON_AGE = ["arena", "den312d", "ost003d", "brc202d", "orz900d"]
PINCH = 1 / 64

try:  # the peer needs numpy < 2: it lives in the 'polygon-peer' extra, in its own virtualenv
    import extremitypathfinder  # noqa: F401

    HAVE_EPF = True
except ImportError:
    HAVE_EPF = False


def trace(walkable: np.ndarray) -> shapely.Geometry:
    """The walkable area of a grid as (multi)polygons with holes, in cell units."""
    h, w = walkable.shape
    blocked = np.ones((h + 2, w + 2), dtype=bool)
    blocked[1:-1, 1:-1] = ~walkable.astype(bool)
    boxes = []
    for y in range(h + 2):
        row = blocked[y]
        edges = np.flatnonzero(np.diff(np.concatenate(([0], row.view(np.int8), [0]))))
        for x0, x1 in zip(edges[::2], edges[1::2]):
            boxes.append((x0 - 1, y - 1, x1 - 1, y))
    b = np.asarray(boxes, dtype=np.float64)
    parts = [shapely.box(b[:, 0], b[:, 1], b[:, 2], b[:, 3])]
    # Corner-only contacts of blocked cells: the 2x2 windows with a diagonal pattern.
    tl, tr = blocked[:-1, :-1], blocked[:-1, 1:]
    bl, br = blocked[1:, :-1], blocked[1:, 1:]
    pinch = (tl & br & ~tr & ~bl) | (tr & bl & ~tl & ~br)
    ys, xs = np.nonzero(pinch)
    if len(xs):
        cx, cy = xs.astype(np.float64), ys.astype(np.float64)  # the shared corner
        ring = np.stack(
            [
                np.stack([cx - PINCH, cy], axis=1),
                np.stack([cx, cy - PINCH], axis=1),
                np.stack([cx + PINCH, cy], axis=1),
                np.stack([cx, cy + PINCH], axis=1),
            ],
            axis=1,
        )
        parts.append(shapely.polygons(ring))
    obstacles = shapely.union_all(np.concatenate(parts))
    area = shapely.box(0, 0, w, h).difference(obstacles)
    return shapely.normalize(shapely.simplify(area, 0.0))


def components(area: shapely.Geometry) -> list[shapely.Geometry]:
    return list(getattr(area, "geoms", [area]))


def vertex_count(area: shapely.Geometry) -> int:
    return int(shapely.get_num_coordinates(area)) - sum(
        1 + len(p.interiors) for p in components(area)
    )


def run_map(map_path: Path, limit: int | None, epf_max_vertices: int) -> dict:
    name = map_path.stem
    grid, scens = load_scenarios(map_path, limit)
    t0 = time.process_time()
    area = trace(grid.walkable)
    trace_s = time.process_time() - t0
    gc.collect()
    tracemalloc.start()
    t0 = time.process_time()
    mesh = build_mesh(area)
    build_s = time.process_time() - t0
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    n_vertices = vertex_count(area)
    log(
        f"{name}: {n_vertices} vertices, {len(mesh.polygons)} triangles, traced in "
        f"{trace_s:.2f} s, mesh in {build_s:.2f} s"
    )
    parts = components(area)
    tree = shapely.STRtree(parts)
    envs: dict[int, object] = {}
    prep_s = 0.0
    use_epf = n_vertices <= epf_max_vertices and HAVE_EPF
    ours, theirs, ratios, mismatches, expanded = [], [], [], 0, []
    epf_illegal = 0
    for i, sc in enumerate(scens):
        s = (sc.start[0] + 0.5, sc.start[1] + 0.5)
        g = (sc.goal[0] + 0.5, sc.goal[1] + 0.5)
        t0 = time.process_time()
        r = find_path(mesh, s, g)
        dt = time.process_time() - t0
        ours.append(dt)
        expanded.append(r.expanded)
        if not use_epf:
            continue
        hit = tree.query(shapely.points(s), predicate="intersects")
        c = int(hit[0])
        if c not in envs:
            from extremitypathfinder import PolygonEnvironment

            poly = orient(parts[c], sign=1.0)
            env = PolygonEnvironment()
            t0 = time.process_time()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                env.store(
                    list(poly.exterior.coords)[:-1],
                    [list(ring.coords)[:-1] for ring in poly.interiors],
                    validate=False,
                )
                env.prepare()
            prep_s += time.process_time() - t0
            envs[c] = env
            log(f"{name}: extremitypathfinder prepared in {prep_s:.1f} s")
        t0 = time.process_time()
        their_path, length = envs[c].find_shortest_path(s, g, verify=False)
        dt2 = time.process_time() - t0
        theirs.append(dt2)
        ratios.append(dt2 / dt)
        if length is None or r.cost is None or abs(length - r.cost) > 1e-6:
            # A shorter path of theirs that leaves the walkable area is their error, not ours.
            illegal = length is not None and not check_polyline(area, their_path).valid
            if illegal and r.cost is not None and r.cost > length:
                epf_illegal += 1
            else:
                mismatches += 1
            log(f"{name} line {sc.line}: ours {r.cost} theirs {length} illegal {illegal}")
        if (i + 1) % 25 == 0:
            log(f"{name}: {i + 1}/{len(scens)}")
    return {
        "map": name,
        "size": f"{grid.width}x{grid.height}",
        "vertices": n_vertices,
        "triangles": len(mesh.polygons),
        "queries": len(scens),
        "mesh_s": build_s,
        "mesh_mb": peak / 1e6,
        "prep_s": prep_s if use_epf else None,
        "ours_ms": 1e3 * statistics.median(ours),
        "ours_mean_ms": 1e3 * statistics.fmean(ours),
        "expanded": statistics.median(expanded),
        "theirs_ms": 1e3 * statistics.median(theirs) if theirs else None,
        "ratio_median": statistics.median(ratios) if ratios else None,
        "ratio_geomean": math.exp(statistics.fmean(map(math.log, ratios))) if ratios else None,
        "ratio_min": min(ratios) if ratios else None,
        "mismatches": mismatches if use_epf else None,
        "epf_illegal": epf_illegal,
    }


def fmt(v, spec: str) -> str:
    return "–" if v is None else format(v, spec)


def table(rows: list[dict]) -> str:
    head = (
        "| map | size | vertices | triangles | queries | mesh build s | mesh MB | EPF prepare s "
        "| ours median ms | EPF median ms | ratio median | ratio geomean | ratio min "
        "| expanded median | length mismatches | EPF paths leaving the area |"
    )
    lines = [head, "|" + "---|" * 16]
    for r in rows:
        lines.append(
            f"| {r['map']} | {r['size']} | {r['vertices']} | {r['triangles']} | {r['queries']} "
            f"| {r['mesh_s']:.2f} | {r['mesh_mb']:.1f} | {fmt(r['prep_s'], '.1f')} "
            f"| {r['ours_ms']:.2f} | {fmt(r['theirs_ms'], '.2f')} "
            f"| {fmt(r['ratio_median'], '.1f')}× | {fmt(r['ratio_geomean'], '.1f')}× "
            f"| {fmt(r['ratio_min'], '.1f')}× | {r['expanded']:.0f} | {fmt(r['mismatches'], 'd')} "
            f"| {r['epf_illegal']} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--maps", nargs="*", default=DRAGON_AGE)
    parser.add_argument("--limit", type=int, default=100, help="scenarios per map (evenly spread)")
    parser.add_argument(
        "--epf-max-vertices",
        type=int,
        default=20_000,
        help="skip extremitypathfinder on maps with more vertices (its preparation is quadratic)",
    )
    args = parser.parse_args(argv)
    rows = []
    for name in args.maps:
        path = args.data / f"{name}.map"
        if not path.is_file():
            log(f"no such map: {path}")
            return 2
        rows.append(run_map(path, args.limit, args.epf_max_vertices))
        log(table(rows[-1:]).splitlines()[-1])
    print(table(rows))
    print()
    print(machine_line(machine_info()))
    return 1 if any(r["mismatches"] for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
