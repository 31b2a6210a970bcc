"""Dependencies shared by the routers.

They are ``async def`` on purpose: they only read state, and a plain ``def`` dependency is
run in the thread pool, one more hop per request (see bench/README.md, 'bench-http').
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from app.grid import MapStore
from app.service import ServiceState


async def get_state(request: Request) -> ServiceState:
    return request.app.state.service


async def get_store(state: Annotated[ServiceState, Depends(get_state)]) -> MapStore:
    return state.require_ready()


StateDep = Annotated[ServiceState, Depends(get_state)]
StoreDep = Annotated[MapStore, Depends(get_store)]
