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
* The links of a world's Tiled maps (object class ``link``) join the world's own, after
  them, in the order of the world's maps (``gridpath.world.with_map_links``): the view's
  ``world.links`` is what every search and index (``/flowfield``'s ``link``) reads.
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
    gone), ``invalid_world`` (a Tiled map's link id taken by a world link)."""
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


def world_body(world: World, maps: Any) -> dict[str, Any]:
    """``GET /worlds/{name}`` (and ``PUT``'s answer): the world, its maps' current revisions
    (null for a map gone), its links and its Tiled maps' links."""
    revisions = []
    for map_name in world.maps:
        snapshot = maps.find(map_name)
        revisions.append(
            {"name": map_name, "revision": None if snapshot is None else snapshot.revision}
        )
    present = {n: maps.find(n) for n in world.maps if maps.find(n) is not None}
    merged = with_map_links(world, present, strict=False)
    return {
        "name": world.name,
        "revision": world.revision,
        "maps": revisions,
        "links": [link.document() for link in world.links],
        "map_links": [link.document() for link in merged.links[len(world.links) :]],
    }


def world_summary(world: World) -> dict[str, Any]:
    return {
        "name": world.name,
        "revision": world.revision,
        "maps": list(world.maps),
        "links": len(world.links),
    }
