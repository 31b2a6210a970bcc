"""What a request through a world reads: :func:`world_maps`, the one way every route that
takes ``"world"`` (``/path``, ``/paths``, ``/table``, ``/flowfield``, ``/validate``,
``/group``) gets its view, and the bodies the ``/worlds`` routes answer.

Decisions:

* Read your writes as with maps: a request naming ``world_revision`` N waits (woken when
  it is applied, at most ``REVISION_WAIT_MS``) for this process to reach it, and is answered
  on that revision only (409 ``stale_revision`` if it is not the current one then), so the
  same request on the same world and map revisions gives the same body in any process.
* A world names maps, holds none: the view takes the current snapshot of each, once, and a
  map that is gone is ``map_not_found`` before any search starts. A map shrunk under a link
  leaves the link's end outside it: the searches find such a link unusable.
* The links a world's maps declare (a snapshot's ``links``: a Tiled map's link objects)
  join the world's own, after them, in the order of the world's maps
  (``gridpath.world.model.with_map_links``): the view's ``world.links`` is what every
  search and index (``/flowfield``'s ``link``) reads.
"""

from __future__ import annotations

from typing import Any

from app.observability import note_map
from app.state import ServiceState
from gridpath.errors import InvalidRequest, StaleRevision
from gridpath.grid import is_valid_map_name
from gridpath.world import World, WorldMaps
from gridpath.world.model import with_map_links


def check_world_name(name: str) -> None:
    if not is_valid_map_name(name):
        raise InvalidRequest(f"world name {name!r} is not 1-64 characters of [A-Za-z0-9_-]")


async def wait_for_world(
    state: ServiceState, name: str, revision: int | None, timeout: float | None = None
) -> None:
    """Until this process holds revision ``revision`` of world ``name`` (or later); 409
    ``stale_revision`` after ``timeout`` seconds (default ``REVISION_WAIT_MS``)."""
    if revision is None:
        return
    state.require_ready()
    worlds = state.worlds
    if worlds.reached(name, revision):
        return
    if timeout is None:
        timeout = state.settings.revision_wait_ms / 1000
    if not await worlds.wait_for(name, revision, timeout):
        raise StaleRevision(
            f"world {name!r} is at revision {worlds.version(name)[0]} on this process, not "
            f"yet at {revision} after waiting {timeout * 1000:.0f} ms"
        )


async def world_maps(
    state: ServiceState, name: str, world_revision: int | None, timeout: float | None = None
) -> WorldMaps:
    """World ``name`` at ``world_revision`` (waited for; None: the current one) and the
    current snapshot of each of its maps: one consistent, immutable view for a whole request.
    Raises ``world_not_found``, ``stale_revision``, ``map_not_found`` (a map of the world
    gone), ``invalid_world`` (a map's declared link id taken by a world link)."""
    check_world_name(name)
    await wait_for_world(state, name, world_revision, timeout)
    world: World = state.worlds.get(name)
    if world_revision is not None and world.revision != world_revision:
        raise StaleRevision(f"world {name!r} is at revision {world.revision}, not {world_revision}")
    maps = state.require_ready()
    grids = {}
    for map_name in world.maps:
        grid = maps.find(map_name)
        if grid is None:
            raise maps.not_found(
                f"map {map_name!r} of world {name!r} not found (deleted since the world named it)"
            )
        grids[map_name] = grid
        note_map(grid.name, grid.revision)
    return WorldMaps(with_map_links(world, grids), grids)


def _listed(world: World, maps: Any) -> tuple[World, dict[str, Any]]:
    """The world with its maps' declared links (a clash left out: it is refused when the world
    is written or queried) and the current snapshot of each of its maps still served."""
    grids = {n: snapshot for n in world.maps if (snapshot := maps.find(n)) is not None}
    return with_map_links(world, grids, strict=False), grids


def world_body(world: World, maps: Any) -> dict[str, Any]:
    """``GET /worlds/{name}`` (and ``PUT``'s answer): the world, its maps' current revisions
    (null for a map gone) with the ids of the links each declares, and its links: its own,
    then its maps' (``with_map_links``), as a query through it reads them."""
    listed, grids = _listed(world, maps)
    declared: dict[str, list[str]] = {name: [] for name in world.maps}
    for link in listed.links[len(world.links) :]:
        declared[link.source.map].append(link.id)
    revisions = [
        {
            "name": map_name,
            "revision": grids[map_name].revision if map_name in grids else None,
            "links": declared[map_name],
        }
        for map_name in world.maps
    ]
    return {
        "name": world.name,
        "revision": world.revision,
        "maps": revisions,
        "links": [link.document() for link in listed.links],
    }


def world_summary(world: World, maps: Any) -> dict[str, Any]:
    return {
        "name": world.name,
        "revision": world.revision,
        "maps": list(world.maps),
        "links": len(_listed(world, maps)[0].links),
    }
