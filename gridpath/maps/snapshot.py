"""The map snapshot protocol: what every served map revision is, grid or polygon map.

:class:`gridpath.grid.model.Grid` and :class:`gridpath.nav.snapshot.PolygonMap` are sibling
models; the registry, the authorities, persistence and the tools hold either as a
:class:`MapSnapshot` and call its methods: no caller branches on ``kind`` (a test greps
for such branches). ``kind`` stays a data attribute (``GET /maps`` answers it). What only
the service does differently per kind (its request and answer models) is the service's
own dispatch, ``app.api.kinds``.

Decisions: a change of the wrong kind (cells on a polygon map, holes on a grid) is refused
by the snapshot itself, with ``unsupported_map_kind`` and nothing changed; a search
entry is not part of the protocol (a grid query and a polygon query share no parameters).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar, Protocol

from gridpath.grid.encoding import Encoding
from gridpath.grid.model import Grid

# The search layer's per-revision data of a grid (block JPS bitsets, the subgoal tier),
# built by a function the caller passes: this package does not import the search layer.
SearchData = Callable[[Grid], object]


class MapSnapshot(Protocol):
    """One immutable revision of a map: read by any number of searches at once."""

    kind: ClassVar[str]  # "grid" or "polygon", as the API names it
    name: str
    revision: int
    sha256: str  # of the content (not of the file's bytes), equal for equal maps
    source: str  # the file it came from, or what a PUT named

    @property
    def nbytes(self) -> int:
        """Bytes the snapshot holds, its derived structures included."""
        ...

    def prepare(self, search_data: SearchData | None = None) -> MapSnapshot:
        """Build what its queries read before the revision is served (idempotent): a grid
        calls ``search_data(grid)``, a polygon map builds its mesh and waypoint graph.
        Returns the snapshot."""
        ...

    def edit(self, change: object, revision: int) -> MapSnapshot:
        """The next revision, ``revision``, with ``change`` applied (a
        :class:`~gridpath.grid.edits.GridEdit` or a
        :class:`~gridpath.nav.snapshot.PolygonEdit`); raises a domain error and changes
        nothing if the change is bad or for the other kind of map."""
        ...

    def encode(self) -> Encoding:
        """``(suffix, bytes, sidecar or None)``: a file that loads back to the same map."""
        ...

    def summary(self) -> str:
        """One line for people (``gridpath-maps check``, the load log)."""
        ...
