"""The worlds a request reads (docs/worlds.md): ``world_maps``, one consistent view of a world
revision and its maps' snapshots.

A placeholder on this branch: the worlds' store (branch worlds-store) provides the real
``world_maps`` here, with the same signature; until it is merged, no world is stored and every
world request is 404 ``world_not_found``.
"""

from __future__ import annotations

from gridpath.world import WorldMaps, WorldNotFound


async def world_maps(
    state, name: str, world_revision: int | None, timeout: float | None = None
) -> WorldMaps:
    raise WorldNotFound(f"world {name!r} not found")
