"""Service settings, read from environment variables (and an optional ``.env`` file).

| variable | default | meaning |
| --- | --- | --- |
| ``MAPS_DIR`` | ``maps`` | folder whose map files are loaded at startup |
| ``MAX_MAP_CELLS`` | 16000000 | largest map accepted (width x height), checked before decoding |
| ``MAX_MAP_BYTES`` | 268435456 | largest map file accepted, in bytes |
| ``MAX_EXPANDED`` | 16000000 | hard cap on nodes one search may expand |
| ``MAX_BODY_BYTES`` | 1048576 | largest request body accepted |
| ``SEARCH_THREADS`` | number of CPUs | searches that run at once (each owns one scratch buffer) |
| ``MAX_BLOCKED`` | 4096 | most per-request ``blocked`` cells |
| ``MAX_GOALS`` | 256 | most ``goals`` in one query |
| ``MAX_BATCH`` | 1000 | most queries in one ``POST /paths`` |
| ``MAX_BATCH_EXPANDED`` | 64000000 | expansions one batch may spend in all, shared evenly by its queries |
| ``MAX_EXPLORED`` | 100000 | most ``explored`` cells returned |
| ``MAX_TURN_CELLS`` | 1048576 | largest map for ``turn_penalty`` searches (9 states per cell, ~470 MB of scratch at the limit) |
| ``MAX_FLOWFIELD_CELLS`` | 4194304 | largest map for ``POST /flowfield`` |
| ``FLOWFIELD_CACHE`` | 64 | flow fields kept (least recently used dropped) |
| ``MAX_UPLOAD_BYTES`` | 67108864 | largest ``PUT /maps/{name}`` body |
| ``MAX_VALIDATE_CELLS`` | 1000000 | longest path ``POST /validate`` accepts |
| ``ADMIN_TOKEN`` | unset | bearer token for ``PUT``/``PATCH``/``DELETE /maps``; unset: map changes refused |
| ``API_TOKEN`` | unset | if set, every endpoint but ``/health`` needs it (or the admin token) |
| ``MAPS_WRITABLE`` | ``false`` | write edits and uploads back to ``MAPS_DIR`` (atomically) |
| ``LOG_LEVEL`` | ``info`` | logging level |
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_file=".env", env_ignore_empty=True, extra="ignore")

    maps_dir: Path = Path("maps")
    max_map_cells: int = Field(16_000_000, ge=1)
    max_map_bytes: int = Field(256 * 1024 * 1024, ge=1)
    max_expanded: int = Field(16_000_000, ge=1)
    max_body_bytes: int = Field(1024 * 1024, ge=256)
    search_threads: int = Field(default_factory=lambda: os.cpu_count() or 1, ge=1)
    max_blocked: int = Field(4096, ge=0)
    max_goals: int = Field(256, ge=1)
    max_batch: int = Field(1000, ge=1)
    max_batch_expanded: int = Field(64_000_000, ge=1)
    max_explored: int = Field(100_000, ge=0)
    max_turn_cells: int = Field(1_048_576, ge=1)
    max_flowfield_cells: int = Field(4_194_304, ge=1)
    flowfield_cache: int = Field(64, ge=0)
    max_upload_bytes: int = Field(64 * 1024 * 1024, ge=1)
    max_validate_cells: int = Field(1_000_000, ge=1)
    admin_token: SecretStr | None = None
    api_token: SecretStr | None = None
    maps_writable: bool = False
    log_level: str = "info"


@lru_cache
def get_settings() -> Settings:
    return Settings()
