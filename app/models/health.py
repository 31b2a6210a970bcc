"""Models of ``/health``, ``/livez`` and ``/readyz``."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from app.models.common import LoadError


class Health(BaseModel):
    status: Literal["ok", "starting"]
    maps: list[str]
    errors: list[LoadError]
    version: str
    commit: str = Field(description="Git commit of the build, or 'unknown'.")
    store: Literal["ok", "degraded"] = Field(
        "ok", description="The map store: degraded while MAP_STORE is unreachable."
    )
    store_type: Literal["folder", "redis"] = "folder"
    store_reason: str | None = Field(None, description="Why the store is degraded.")


class Liveness(BaseModel):
    status: Literal["alive"]


class Readiness(BaseModel):
    status: Literal["ready", "not_ready"]
    checks: dict[str, str] = Field(
        description="Why the service is not ready, by check (maps, store, ...); empty when ready."
    )
