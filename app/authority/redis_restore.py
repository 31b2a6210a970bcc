"""Writing back what Redis lost (see the decisions in :mod:`app.authority.redis`).

Redis restarted (a new ``run_id``) or lacks revisions a process holds (it lost acknowledged
writes): the process opens the ``gridpath:restoring`` window, in which every change is
refused, and writes back its revisions and deletions with :data:`COMMIT`'s ``seed`` and
``bury`` (seed-if-greater: atomic, so two processes never overwrite each other's newer
revision, and they converge on the newest any of them held).
"""

from __future__ import annotations

import asyncio
import logging

import redis.asyncio as aioredis

from app.authority.redis_keys import (
    MAPS_LAYOUT,
    RESTORE_WINDOW_MS,
    RESTORING,
    RedisLayout,
    commit_args,
    encode,
    parse_reply,
)
from gridpath.maps import MapRegistry

log = logging.getLogger("app.authority.redis")  # the authority's log, as before the split


async def still_lost(
    client: aioredis.Redis,
    registry: MapRegistry,
    names: list[str],
    layout: RedisLayout = MAPS_LAYOUT,
) -> list[str]:
    """Of ``names``, those Redis still lacks when asked again after reading what this
    process holds. The resync's view is older than a change this process committed while
    the resync awaited (a commit reaches Redis before this registry), and taking that
    change for a loss would refuse every process's changes for a window."""
    if not names:
        return names
    held = {name: registry.version(name) for name in names}  # ours first, then Redis
    pipe = client.pipeline(transaction=True)
    for name in names:
        pipe.hget(layout.index, name)
        pipe.hget(layout.last, name)
    replies = await pipe.execute()
    still = []
    for i, name in enumerate(names):
        current, last = replies[2 * i], int(replies[2 * i + 1] or 0)
        if current is not None and (int(current), False) < held[name]:
            still.append(name)  # ours is newer, or deleted since
        elif current is None and last < held[name][0]:
            still.append(name)  # Redis lacks the map, or forgot its deletion
    return still


async def write_back(
    client: aioredis.Redis, commit, registry: MapRegistry, lost: list[str], documents=None
) -> None:
    """Refuse changes everywhere for a moment (``gridpath:restoring``) and write this
    process's revisions of ``lost`` back (each one extends the window); ``commit`` is the
    registered :data:`COMMIT` script; ``documents`` the kind (app.authority.documents;
    None: maps)."""
    await client.set(RESTORING, "1", px=RESTORE_WINDOW_MS, nx=True)
    for name in lost:
        await _restore(commit, registry, name, documents)


async def _restore(commit, registry: MapRegistry, name: str, documents) -> None:
    """Redis is behind this process on ``name``: write our revision (or deletion) back, if
    it is still the newest."""
    layout = documents.layout if documents is not None else MAPS_LAYOUT
    grid = registry.find(name)
    if grid is not None:
        upload = await asyncio.to_thread(documents.encode if documents else encode, grid)
        keys, args = commit_args(
            name, "seed", grid=grid, upload=upload, seed_revision=grid.revision, layout=layout
        )
    else:
        revision, deleted = registry.version(name)
        if not deleted:
            return
        keys, args = commit_args(name, "bury", seed_revision=revision, layout=layout)
    status, revision, _ = parse_reply(await commit(keys=keys, args=args))
    if status == "ok":
        log.warning(
            "the shared store had lost %s %s revision %d%s (Redis restarted without "
            "persistence?); restored it from this process",
            registry.what,
            name,
            revision,
            "" if grid is not None else " (deleted)",
        )
