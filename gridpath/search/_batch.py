"""Many exact-pair queries of one plan in one compiled call (:func:`gridpath.search.batch.
find_pairs`): per query the runner's kernel, then :func:`~gridpath.search._finish.
finish_pair`, exactly as :class:`gridpath.search.runner.PairRun` calls them one query at
a time, with the answers written into one table and two flat cell buffers. A search
thread gives the GIL up once per batch, not twice per query.

numba caches neither a function that takes a kernel as an argument nor a closure over one
(both are compiled again in every process), so each pair kernel has its own loop here, the
three alike but for the kernel they call and its extra argument.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from gridpath.search._astar import astar_octile
from gridpath.search._blocks import jps_blocks
from gridpath.search._finish import finish_pair
from gridpath.search._frontier import FOUND
from gridpath.search._jps import jps

# The table's columns, one row per query: the kernel's status (SEARCH before: the query is
# searched; any other status is kept, unsearched: UNREACHABLE, or CLOSED for a query that
# is not answered), its expansions, where its path and its waypoints end in the flat
# buffers, its exact step counts and its turns.
STATUS, EXPANDED, PATH_END, WAYS_END, ORTH, DIAG, TURNS = range(7)
COLUMNS = 7
SEARCH = -1
CLOSED = -2


@njit(nogil=True, cache=True)
def _put(buffer, used, rows):
    """``rows`` written at ``used`` in ``buffer`` (a larger copy when it is full)."""
    need = used + rows.shape[0]
    if need > buffer.shape[0]:
        bigger = np.empty((max(need, 2 * buffer.shape[0]), 2), dtype=np.int32)
        bigger[:used] = buffer[:used]
        buffer = bigger
    buffer[used:need] = rows
    return buffer


@njit(nogil=True, cache=True)
def _settle(i, status, expanded, nodes, goal, finish, table, walked, cells, ways):
    """Row ``i`` of the table after its search: a found path rebuilt and appended with its
    waypoints (``finish``: ``finish_pair``'s arguments after the goal)."""
    stride, jumps, grid, sight, pulled, price = finish
    used = table[i - 1, PATH_END] if i > 0 else 0
    ways_used = table[i - 1, WAYS_END] if i > 0 else 0
    table[i, STATUS] = status
    table[i, EXPANDED] = expanded
    if status == FOUND:
        path, waypoints, orth, diag, turns, walk = finish_pair(
            nodes, goal, stride, jumps, grid, sight, pulled, price
        )
        cells = _put(cells, used, path)
        ways = _put(ways, ways_used, waypoints)
        used += path.shape[0]
        ways_used += waypoints.shape[0]
        table[i, ORTH] = orth
        table[i, DIAG] = diag
        table[i, TURNS] = turns
        walked[i] = walk
    table[i, PATH_END] = used
    table[i, WAYS_END] = ways_used
    return cells, ways


@njit(nogil=True, cache=True)
def _buffers(count):
    return np.empty((16 * count + 16, 2), dtype=np.int32), np.empty((4 * count + 4, 2), np.int32)


@njit(nogil=True, cache=True)
def pairs_astar(grid, rules, scratch, ends, finish, table, walked):
    """Every row of ``ends`` (padded start, goal) searched by ``astar_octile``; the query
    ``i`` runs on scratch generation ``generation + i``. Returns the path and waypoint
    buffers (rows up to the table's last ends)."""
    nodes, frontier, costs, marks, generation = scratch
    cells, ways = _buffers(ends.shape[0])
    for i in range(ends.shape[0]):
        status, expanded = table[i, STATUS], 0
        if status == SEARCH:
            status, expanded = astar_octile(
                grid, rules, (nodes, frontier, costs, marks, generation + i), ends[i, 0],
                ends[i, 1],
            )  # fmt: skip
        cells, ways = _settle(i, status, expanded, nodes, ends[i, 1], finish, table, walked,
                              cells, ways)  # fmt: skip
    return cells, ways


@njit(nogil=True, cache=True)
def pairs_jps(grid, rules, scratch, jumps, ends, finish, table, walked):
    """:func:`pairs_astar` with ``jps`` (``jumps``: its jump distances, or None)."""
    nodes, frontier, costs, marks, generation = scratch
    cells, ways = _buffers(ends.shape[0])
    for i in range(ends.shape[0]):
        status, expanded = table[i, STATUS], 0
        if status == SEARCH:
            status, expanded = jps(
                grid, rules, (nodes, frontier, costs, marks, generation + i), jumps,
                ends[i, 0], ends[i, 1],
            )  # fmt: skip
        cells, ways = _settle(i, status, expanded, nodes, ends[i, 1], finish, table, walked,
                              cells, ways)  # fmt: skip
    return cells, ways


@njit(nogil=True, cache=True)
def pairs_blocks(grid, rules, scratch, blocks, ends, finish, table, walked):
    """:func:`pairs_astar` with ``jps_blocks`` (``blocks``: the revision's block record)."""
    nodes, frontier, costs, marks, generation = scratch
    cells, ways = _buffers(ends.shape[0])
    for i in range(ends.shape[0]):
        status, expanded = table[i, STATUS], 0
        if status == SEARCH:
            status, expanded = jps_blocks(
                grid, rules, (nodes, frontier, costs, marks, generation + i), blocks,
                ends[i, 0], ends[i, 1],
            )  # fmt: skip
        cells, ways = _settle(i, status, expanded, nodes, ends[i, 1], finish, table, walked,
                              cells, ways)  # fmt: skip
    return cells, ways


@njit(nogil=True, cache=True)
def _write_int(out, at, value):
    """``value``'s decimal digits written at ``out[at:]``; returns where they end."""
    if value < 0:
        out[at] = 45  # -
        at += 1
        value = -value
    digits, rest = 1, value // 10
    while rest > 0:
        digits += 1
        rest //= 10
    for k in range(digits):
        out[at + digits - 1 - k] = 48 + value % 10
        value //= 10
    return at + digits


@njit(nogil=True, cache=True)
def runs_json(cells, ends):
    """The JSON text ``[[x,y],...]`` (no spaces, as orjson writes a list of pairs) of
    each run of ``cells`` (run ``i``: rows ``ends[i - 1]`` to ``ends[i]``), one after the
    other in one byte array; returns it and where each run's text ends."""
    out = np.empty(cells.shape[0] * 26 + 2 * ends.shape[0], dtype=np.uint8)
    text_ends = np.empty(ends.shape[0], dtype=np.int64)
    at, begin = 0, 0
    for i in range(ends.shape[0]):
        out[at] = 91  # [
        at += 1
        for j in range(begin, ends[i]):
            if j > begin:
                out[at] = 44  # ,
                at += 1
            out[at] = 91
            at = _write_int(out, at + 1, np.int64(cells[j, 0]))
            out[at] = 44
            at = _write_int(out, at + 1, np.int64(cells[j, 1]))
            out[at] = 93  # ]
            at += 1
        out[at] = 93
        at += 1
        text_ends[i] = at
        begin = ends[i]
    return out[:at], text_ends
