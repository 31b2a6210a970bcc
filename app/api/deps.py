"""Dependencies shared by the routers.

They are ``async def`` on purpose: they only read state, and a plain ``def`` dependency is
run in the thread pool, one more hop per request (see bench/README.md, 'bench-http').
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from app.observability import note_map
from app.state import ServiceState
from gridpath.errors import StaleRevision, require_revision
from gridpath.grid import Grid
from gridpath.maps import MapRegistry


async def get_state(request: Request) -> ServiceState:
    return request.app.state.service


async def get_registry(state: Annotated[ServiceState, Depends(get_state)]) -> MapRegistry:
    return state.require_ready()


StateDep = Annotated[ServiceState, Depends(get_state)]
RegistryDep = Annotated[MapRegistry, Depends(get_registry)]


async def wait_for_revision(state: ServiceState, name: str, revision: int | None) -> None:
    """Read your writes: a request naming ``revision`` N of a map this process has not
    reached yet waits for it (woken when it is applied, at most ``REVISION_WAIT_MS``), then
    409 ``stale_revision`` if still behind. No wait when the revision is here (or older:
    the route's own check answers that)."""
    if revision is None:
        return
    store = state.require_ready()
    if store.reached(name, revision):
        return
    wait_ms = state.settings.revision_wait_ms
    if not await store.wait_for(name, revision, wait_ms / 1000):
        raise StaleRevision(
            f"map {name!r} is at revision {store.version(name)[0]} on this process, not yet at "
            f"{revision} after waiting {wait_ms} ms"
        )


async def snapshot_at(
    state: ServiceState, store: MapRegistry, name: str, revision: int | None
) -> Grid:
    """The map snapshot a whole request (a batch, a table) runs on: revision ``revision``
    when named (waited for, then 409 if it is not the current one), else the newest."""
    await wait_for_revision(state, name, revision)
    grid = store.get(name)
    note_map(grid.name, grid.revision)
    require_revision(grid.name, grid.revision, revision)
    return grid
