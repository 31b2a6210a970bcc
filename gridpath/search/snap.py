"""Targets that are not walkable: the nearest cell where a unit can stand (``snap``,
``GET /maps/{name}/nearest``).

A unit of size ``clearance`` can stand on a cell whose clearance is at least that (see
:mod:`gridpath.grid.model`) and which the request does not block. *Nearest* is by Euclidean
distance between cell centres, ties broken by the cell order: smaller ``y`` first, then
smaller ``x`` (row-major, the order of the map's rows). A snapped start or goal must also
be reachable from the other end: it lies in that end's connected component (the map's
component labels for the unit size and diagonal rule; per-request blocked cells can
still split a component, and then the search reports the target unreachable).

The search looks in square windows around the cell, doubling from 4 cells out to
``radius`` (Chebyshev distance): the best cell of a window of half-size ``r`` at
Euclidean distance ``<= r`` is the nearest anywhere, since every cell outside lies more
than ``r`` away. Work and memory are bounded by the window, never by the map.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field

import numpy as np

from gridpath.errors import GoalBlocked, StartBlocked
from gridpath.grid.components import MINOR
from gridpath.grid.model import Grid
from gridpath.search.options import Diagonal, SearchOptions

Cell = tuple[int, int]
FIRST_WINDOW = 4


def can_stand(grid: Grid, cell: Cell, clearance: int, blocked: Collection[Cell] = ()) -> bool:
    """A unit of size ``clearance`` can stand on ``cell`` (in the map, room, not blocked)."""
    return grid.clearance_at(*cell) >= clearance and tuple(cell) not in blocked


def nearest_standable(
    grid: Grid,
    cell: Cell,
    clearance: int,
    radius: int,
    *,
    blocked: Collection[Cell] = (),
    components=None,
    labels: Collection[int] | None = None,
) -> Cell | None:
    """The nearest cell to ``cell`` where a unit of size ``clearance`` can stand, at most
    ``radius`` cells away (Chebyshev), or None. With ``components`` (the map's
    :class:`~gridpath.grid.components.Components`) and ``labels``, only cells of those
    components count. ``cell`` may lie outside the map."""
    x, y = int(cell[0]), int(cell[1])
    r = min(FIRST_WINDOW, radius)
    while True:
        best = _best_in_window(grid, x, y, r, clearance, blocked, components, labels)
        if best is not None and best[0] <= r * r:
            return best[1]
        if r >= radius:  # the last window: its best is within radius, even if beyond r
            return None if best is None else best[1]
        r = min(2 * r, radius)


def _best_in_window(grid, x, y, r, clearance, blocked, components, labels):
    """``(squared distance, cell)`` of the nearest standable cell within ``r`` (Chebyshev)
    of ``(x, y)``, by distance then ``y`` then ``x``; None if there is none."""
    x0, x1 = max(0, x - r), min(grid.width - 1, x + r)
    y0, y1 = max(0, y - r), min(grid.height - 1, y + r)
    if x0 > x1 or y0 > y1:
        return None
    window = grid.passable[y0 + 1 : y1 + 2, x0 + 1 : x1 + 2]
    ys, xs = np.nonzero(window >= clearance)
    if ys.size == 0:
        return None
    xs = xs.astype(np.int64) + x0
    ys = ys.astype(np.int64) + y0
    minor = False
    if labels is not None:  # one-byte labels compared at once; shared minor ones per cell
        label = components.labels[(ys + 1) * grid.stride + xs + 1]
        minor = any(lab >= MINOR for lab in labels)
        keep = np.isin(label, [lab for lab in labels if lab < MINOR]) | (minor & (label == MINOR))
        xs, ys = xs[keep], ys[keep]
    d2 = (xs - x) ** 2 + (ys - y) ** 2
    for i in np.lexsort((xs, ys, d2)):  # by distance, then y, then x
        c = (int(xs[i]), int(ys[i]))
        if c in blocked:
            continue
        if minor and components.of(grid.index(*c)) not in labels:
            continue
        return int(d2[i]), c
    return None


@dataclass
class Snapped:
    """Where a query's ends moved to: the ends to search, what moved (``start``/``goal``:
    the new cell; ``goals``: index -> new cell) and which goals were skipped (nothing to
    stand on within reach); ``kept`` maps the searched goals back to the request's."""

    start: Cell
    goals: list[Cell]
    kept: list[int]
    moved_start: Cell | None = None
    moved_goals: dict[int, Cell] = field(default_factory=dict)
    skipped: list[int] = field(default_factory=list)


def snap_ends(
    grid: Grid,
    start: Cell,
    goals: Sequence[Cell],
    options: SearchOptions,
    blocked: Collection[Cell],
    radius: int,
    *,
    skip: bool,
) -> Snapped:
    """Move a start or goals where the unit cannot stand to the nearest cell where it can
    that is reachable from the other end. The start moves first, into a component of an
    end that can stand (any component if none can); then each goal into the start's
    component. A goal with nowhere to go is skipped when ``skip`` (several goals), else it
    raises :class:`GoalBlocked`; a start with nowhere to go raises :class:`StartBlocked`.
    Ends outside the map are left for the search's own check (``out_of_bounds``)."""
    options = options.resolved()
    unit = options.clearance
    components = grid.components(unit, options.diagonal == Diagonal.ALWAYS)

    def component(cell: Cell) -> int:
        return components.of(grid.index(*cell))

    def stands(cell: Cell) -> bool:
        return not grid.in_bounds(*cell) or can_stand(grid, cell, unit, blocked)

    start = (int(start[0]), int(start[1]))
    goals = [(int(x), int(y)) for x, y in goals]
    result = Snapped(start, [], [])
    if not stands(start):
        targets = {component(g) for g in goals if grid.in_bounds(*g) and stands(g)}
        moved = nearest_standable(
            grid, start, unit, radius, blocked=blocked, components=components,
            labels=targets or None,
        )  # fmt: skip
        if moved is None:
            raise StartBlocked(
                f"start {list(start)} is not a cell a unit of size {unit} can stand on, and "
                f"none {'reachable from a goal ' if targets else ''}is within {radius} cells"
            )
        result.start = result.moved_start = moved
    home = {component(result.start)} if grid.in_bounds(*result.start) else None
    for i, goal in enumerate(goals):
        if not stands(goal):
            moved = nearest_standable(
                grid, goal, unit, radius, blocked=blocked, components=components, labels=home
            )
            if moved is None:
                if skip:
                    result.skipped.append(i)
                    continue
                raise GoalBlocked(
                    f"goal {list(goal)} is not a cell a unit of size {unit} can stand on, and "
                    f"none reachable from the start is within {radius} cells"
                )
            result.moved_goals[i] = goal = moved
        result.goals.append(goal)
        result.kept.append(i)
    if not result.goals:
        raise GoalBlocked(
            f"no goal has a cell a unit of size {unit} can stand on, reachable from the "
            f"start, within {radius} cells"
        )
    return result
