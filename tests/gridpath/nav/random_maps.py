"""Random polygon maps for the property tests and the fuzzing scripts."""

from __future__ import annotations

import math
import random

import shapely
from shapely.geometry import Polygon


def random_ring(rng: random.Random, cx: float, cy: float, radius: float, n: int) -> list:
    """A star-shaped simple ring around (cx, cy), counter-clockwise, on a 1/8 grid."""
    angles = sorted(rng.uniform(0, 2 * math.pi) for _ in range(n))
    ring = []
    for a in angles:
        r = radius * rng.uniform(0.35, 1.0)
        p = [round((cx + r * math.cos(a)) * 8) / 8, round((cy + r * math.sin(a)) * 8) / 8]
        if not ring or p != ring[-1]:
            ring.append(p)
    if len(ring) > 1 and ring[0] == ring[-1]:
        ring.pop()
    return ring


def random_map(seed: int, *, holes: int = 6, size: float = 40.0, axis: bool = False) -> dict:
    """An outline with up to ``holes`` non-overlapping holes (touching allowed).

    ``axis`` makes holes axis-aligned rectangles on integer coordinates, which touch at
    vertices and along edges often (the degenerate cases)."""
    rng = random.Random(seed)
    if axis:
        outline = [[0, 0], [size, 0], [size, size], [0, size]]
    else:
        outline = random_ring(rng, size / 2, size / 2, size / 2, rng.randint(3, 12))
        while not Polygon(outline).is_valid or Polygon(outline).area < size:
            outline = random_ring(rng, size / 2, size / 2, size / 2, rng.randint(3, 12))
    out_poly = Polygon(outline)
    placed: list[Polygon] = []
    rings = []
    for _ in range(holes * 4):
        if len(rings) >= holes:
            break
        if axis:
            x, y = rng.randint(0, int(size) - 2), rng.randint(0, int(size) - 2)
            w, h = rng.randint(1, 8), rng.randint(1, 8)
            ring = [[x, y], [x + w, y], [x + w, y + h], [x, y + h]]
        else:
            cx, cy = rng.uniform(0, size), rng.uniform(0, size)
            ring = random_ring(rng, cx, cy, rng.uniform(1, size / 5), rng.randint(3, 7))
        if len(ring) < 3:
            continue
        poly = Polygon(ring)
        if not poly.is_valid or poly.area <= 0 or not out_poly.covers(poly):
            continue
        if any(shapely.relate_pattern(poly, q, "T********") for q in placed):
            continue
        placed.append(poly)
        rings.append(ring)
    return {"outline": outline, "holes": rings, "waypoints": []}


def random_walkable_point(rng: random.Random, area, *, grid: int = 8) -> tuple[float, float]:
    minx, miny, maxx, maxy = area.bounds
    while True:
        x = round(rng.uniform(minx, maxx) * grid) / grid
        y = round(rng.uniform(miny, maxy) * grid) / grid
        if area.covers(shapely.points((x, y))):
            return (float(x), float(y))
