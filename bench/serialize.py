"""How long it takes to turn a /path result into JSON bytes, four ways.

Run from the repository root::

    python -m bench.serialize

The response body is the one the endpoint builds (``app.api.path_body.answer`` run on a
tiny map, so every field of the current schema is there), with its ``path`` and
``waypoints`` replaced by arrays of 10, 100, 1000 and 10000 cells (a seeded random walk,
as an ``(n, 2)`` int32 array, and a waypoint array a tenth as long). It times producing
the JSON bytes by

* **(a)** ``orjson.dumps(body, option=OPT_SERIALIZE_NUMPY)`` on the dict holding the numpy
  arrays, as ``POST /path`` does;
* **(b)** ``PathResponse(..., path=path.tolist(), waypoints=...tolist()).model_dump_json()``;
* **(c)** ``PathResponse.model_validate(body)`` then ``model_dump_json()``: what FastAPI's
  ``response_model`` does (validate, then dump to JSON) if the endpoint returned ``body``
  with its numpy arrays;
* **(d)** the same as (c) on a copy of ``body`` whose arrays were turned into lists with
  ``.tolist()`` first (an endpoint returning lists under ``response_model``).

Each is timed timeit-style (a loop sized by ``Timer.autorange``, repeated; the median of
the repeats is reported, per call, in µs). The four outputs are parsed and compared
before timing. The table goes to stdout as GitHub-flavoured Markdown.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import timeit
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import orjson
import pydantic

from app.api.path_body import answer
from app.config import Settings
from app.models import PathQuery, PathResponse
from bench.common import machine_info, machine_line
from gridpath.grid import Grid
from gridpath.search import SearchScratch

LENGTHS = (10, 100, 1000, 10_000)
STEPS = np.array([(dx, dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1) if dx or dy], dtype=np.int32)


@dataclass(frozen=True)
class Row:
    """Median µs per call of the four ways, for one path length."""

    cells: int
    waypoints: int
    json_bytes: int
    orjson_us: float
    model_us: float
    validate_us: float
    validate_lists_us: float


def random_walk(rng: np.random.Generator, n: int) -> np.ndarray:
    """An ``(n, 2)`` int32 array of ``[x, y]`` cells, each an 8-neighbour of the last."""
    steps = STEPS[rng.integers(0, len(STEPS), size=n - 1)]
    start = rng.integers(1000, 2000, size=(1, 2), dtype=np.int32)
    return np.concatenate([start, start + np.cumsum(steps, axis=0, dtype=np.int32)])


def waypoints_of(path: np.ndarray) -> np.ndarray:
    """A subsequence of ``path``: about every tenth cell, always the first and the last."""
    index = np.unique(np.r_[np.arange(0, len(path), 10), len(path) - 1])
    return path[index]


def template_body() -> dict[str, Any]:
    """A real ``POST /path`` body (default options) from the endpoint's own builder."""
    grid = Grid.from_walkable("bench", np.ones((4, 4), dtype=bool))
    query = PathQuery(start=(0, 0), goal=(3, 3))
    body, _ = answer(grid, query, Settings(_env_file=None), SearchScratch())
    return body


def response_body(
    template: dict[str, Any], path: np.ndarray, waypoints: np.ndarray
) -> dict[str, Any]:
    """``template`` carrying ``path`` and ``waypoints`` (numpy arrays, as the endpoint has)."""
    return dict(
        template,
        path=path,
        waypoints=waypoints,
        expanded=7 * len(path),
        cost=float(len(path) - 1) * 1.2071067811865475,
    )


def via_orjson(body: dict[str, Any]) -> bytes:
    """(a) the endpoint's way: orjson straight from the numpy arrays."""
    return orjson.dumps(body, option=orjson.OPT_SERIALIZE_NUMPY)


def with_lists(body: dict[str, Any]) -> dict[str, Any]:
    """``body`` with its numpy arrays converted to nested lists."""
    return dict(body, path=body["path"].tolist(), waypoints=body["waypoints"].tolist())


def via_model(body: dict[str, Any]) -> bytes:
    """(b) a PathResponse built from ``.tolist()`` lists, dumped by pydantic."""
    return PathResponse(**with_lists(body)).model_dump_json().encode()


def via_validate(body: dict[str, Any]) -> bytes:
    """(c) FastAPI's response_model path: validate the returned dict, then dump to JSON."""
    return PathResponse.model_validate(body).model_dump_json().encode()


def via_validate_lists(body: dict[str, Any]) -> bytes:
    """(d) as (c), but the endpoint converted its arrays with ``.tolist()`` first."""
    return PathResponse.model_validate(with_lists(body)).model_dump_json().encode()


WAYS: tuple[Callable[[dict[str, Any]], bytes], ...] = (
    via_orjson,
    via_model,
    via_validate,
    via_validate_lists,
)


def without_nulls(document: dict[str, Any]) -> dict[str, Any]:
    """``document`` without its top-level null members.

    The endpoint leaves out optional members it was not asked for (``explored``), where
    pydantic writes them as ``null``; both mean the same under the declared schema.
    """
    return {key: value for key, value in document.items() if value is not None}


def assert_equivalent(body: dict[str, Any]) -> int:
    """Check the four ways give the same JSON document; returns (a)'s size in bytes."""
    outputs = [way(body) for way in WAYS]
    expected = without_nulls(orjson.loads(outputs[0]))
    for way, output in zip(WAYS[1:], outputs[1:]):
        assert without_nulls(orjson.loads(output)) == expected, (
            f"{way.__name__} differs from via_orjson"
        )
    return len(outputs[0])


def median_us(func: Callable[[], object], repeat: int) -> float:
    """Median µs per call over ``repeat`` loops, each sized by ``Timer.autorange`` (≥0.2 s)."""
    timer = timeit.Timer(func)
    number, _ = timer.autorange()
    return statistics.median(timer.repeat(repeat=repeat, number=number)) / number * 1e6


def measure(template: dict[str, Any], rng: np.random.Generator, cells: int, repeat: int) -> Row:
    """Time the four ways for one path length."""
    path = random_walk(rng, cells)
    waypoints = waypoints_of(path)
    body = response_body(template, path, waypoints)
    size = assert_equivalent(body)
    times = [median_us(lambda way=way: way(body), repeat) for way in WAYS]
    return Row(cells, len(waypoints), size, *times)


def table(rows: Sequence[Row]) -> str:
    """The Markdown table: median µs per response and the ratios to orjson."""
    lines = [
        "| path cells | waypoints | JSON bytes | (a) orjson µs | (b) model from lists µs "
        "| (c) validate arrays + dump µs | (d) validate lists + dump µs | b/a | c/a | d/a |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r.cells:,} | {r.waypoints:,} | {r.json_bytes:,} | {r.orjson_us:,.1f} "
            f"| {r.model_us:,.1f} | {r.validate_us:,.1f} | {r.validate_lists_us:,.1f} "
            f"| {r.model_us / r.orjson_us:.1f}x | {r.validate_us / r.orjson_us:.1f}x "
            f"| {r.validate_lists_us / r.orjson_us:.1f}x |"
        )
    return "\n".join(lines)


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m bench.serialize",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--repeat",
        type=int,
        default=7,
        help="timed loops per figure (default: %(default)s); the median is reported",
    )
    parser.add_argument("--seed", type=int, default=12345, help="random-walk seed")
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    rng = np.random.default_rng(args.seed)
    template = template_body()
    rows = []
    for cells in LENGTHS:
        print(f"measuring {cells} cells ...", file=sys.stderr, flush=True)
        rows.append(measure(template, rng, cells, args.repeat))
    print(table(rows))
    print(
        f"\n{machine_line(machine_info())} · orjson {orjson.__version__}, "
        f"pydantic {pydantic.VERSION}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
