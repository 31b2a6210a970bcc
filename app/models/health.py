"""Models of ``/health``, ``/livez`` and ``/readyz``."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from app.models.common import LoadError


class KernelWarmUp(BaseModel):
    """The kernels' staged warm-up (gridpath/search/staged.py): ``steps`` in all, those
    ``ready``, those ``compiling`` (in worker processes or here) and all still ``waiting``."""

    steps: int
    ready: list[str]
    compiling: list[str]
    waiting: list[str]
    elapsed_s: float


class Health(BaseModel):
    status: Literal["ok", "starting"]
    maps: list[str]
    worlds: list[str] = Field(default_factory=list, description="Worlds served (by name).")
    errors: list[LoadError] = Field(
        description="Map and world files that did not load (a bad world file is listed here, "
        "as a bad map file is; the service serves the others)."
    )
    version: str
    commit: str = Field(description="Git commit of the build, or 'unknown'.")
    store: Literal["ok", "degraded"] = Field(
        "ok", description="The map store: degraded while MAP_STORE is unreachable."
    )
    store_type: Literal["folder", "redis"] = "folder"
    store_reason: str | None = Field(None, description="Why the store is degraded.")
    waiting_for: str | None = Field(
        None,
        description="While starting: what readiness waits for (maps loading, the kernel "
        "being compiled, n of m steps, seconds elapsed); after: the kernels still compiling "
        "in the background (their queries answer 503 `warming_up`); null once all are ready.",
    )
    kernels: KernelWarmUp | None = None


class Liveness(BaseModel):
    status: Literal["alive"]


class Readiness(BaseModel):
    status: Literal["ready", "not_ready"]
    checks: dict[str, str] = Field(
        description="Why the service is not ready, by check (maps, store, ...); empty when ready."
    )
