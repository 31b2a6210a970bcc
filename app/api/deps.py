"""Dependencies shared by the routers."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from app.grid import MapStore
from app.service import ServiceState


def get_state(request: Request) -> ServiceState:
    return request.app.state.service


def get_store(state: Annotated[ServiceState, Depends(get_state)]) -> MapStore:
    return state.require_ready()


StateDep = Annotated[ServiceState, Depends(get_state)]
StoreDep = Annotated[MapStore, Depends(get_store)]
