"""The shared scenarios every registered search runner is run against
(``tests/gridpath/search/test_scenarios.py``), the way PathFinding.js tests every finder against
one scenario list.

Each scenario is a small hand-made map (``.`` walkable, ``#`` blocked), a start, a goal,
and the expected cost per movement rule as (straight steps, diagonal steps) of an optimal
path, or ``None`` where the goal cannot be reached. The cost under a cost model is
``straight * 1 + diagonal * sqrt(2)`` (float) or ``10 * straight + 14 * diagonal``
(integer). The figures are written by hand; ``test_scenarios.py`` also checks them
against the independent reference (``tests/reference.py``), so a wrong line fails.

Movement rules: ``4`` (connectivity 4), ``never`` (8-connected, no diagonals),
``no_corner_cut``, ``one_free``, ``always`` (the diagonal rules of 8-connected movement).
"""

from __future__ import annotations

from dataclasses import dataclass

RULES = ("4", "never", "no_corner_cut", "one_free", "always")

Steps = tuple[int, int] | None


@dataclass(frozen=True)
class Scenario:
    name: str
    ascii: str
    start: tuple[int, int]
    goal: tuple[int, int]
    expected: dict[str, Steps]  # rule -> (straight, diagonal) steps; None: unreachable


def _same(steps: Steps, **diagonal_rules: Steps) -> dict[str, Steps]:
    """``steps`` without diagonals (4 and never), then each diagonal rule's."""
    return {"4": steps, "never": steps, **diagonal_rules}


SCENARIOS = (
    Scenario(
        "open room",
        """
        .....
        .....
        .....
        """,
        (0, 0),
        (4, 2),
        _same((6, 0), no_corner_cut=(2, 2), one_free=(2, 2), always=(2, 2)),
    ),
    Scenario(
        "start is the goal",
        """
        ..
        ..
        """,
        (1, 1),
        (1, 1),
        _same((0, 0), no_corner_cut=(0, 0), one_free=(0, 0), always=(0, 0)),
    ),
    Scenario(
        "between two diagonal walls",
        """
        .#
        #.
        """,
        (0, 0),
        (1, 1),
        _same(None, no_corner_cut=None, one_free=None, always=(0, 1)),
    ),
    Scenario(
        "past one wall corner",
        """
        ..
        #.
        """,
        (0, 0),
        (1, 1),
        _same((2, 0), no_corner_cut=(2, 0), one_free=(0, 1), always=(0, 1)),
    ),
    Scenario(
        "around a wall",
        """
        .....
        .###.
        .....
        """,
        (0, 1),
        (4, 1),
        _same((6, 0), no_corner_cut=(6, 0), one_free=(2, 2), always=(2, 2)),
    ),
    Scenario(
        "behind a full wall",
        """
        .#.
        .#.
        """,
        (0, 0),
        (2, 1),
        _same(None, no_corner_cut=None, one_free=None, always=None),
    ),
    Scenario(
        "diagonal gap in a wall",
        """
        ...#....
        ...#....
        ....#...
        ....#...
        """,
        (0, 3),
        (7, 0),
        _same(None, no_corner_cut=None, one_free=None, always=(4, 3)),
    ),
    Scenario(
        "a long way round",
        """
        ..........
        .########.
        .#......#.
        .#.####.#.
        .#.#..#...
        .#.#.##.#.
        .#......#.
        .########.
        ..........
        """,
        (4, 4),
        (0, 0),
        # out of the pocket, round the inner ring, out by its one door at (8, 4), round the
        # outer ring: every turn of the 4-connected route is at a wall corner
        _same((22, 0), no_corner_cut=(22, 0), one_free=(12, 5), always=(12, 5)),
    ),
    Scenario(
        "a hall wider than a machine word",
        """
        ......................................................................
        ..............................############............................
        ....................#.................................................
        ..................................................#...................
        ......................................................................
        ......................................................................
        """,
        (0, 5),
        (69, 0),
        # long straight runs (JPS+ jump distances or block scans apply); rows cross 64 cells
        _same((74, 0), no_corner_cut=(64, 5), one_free=(64, 5), always=(64, 5)),
    ),
)
