"""Service settings, read from environment variables (and an optional ``.env`` file).

Each field's variable is its name in upper case (``maps_dir`` is ``MAPS_DIR``). The README's
"Configuration" section lists them all with their meaning.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

from app.cpu import available_cpus
from gridpath.grid.loader import DEFAULT_MAX_MAP_BYTES, DEFAULT_MAX_MAP_CELLS


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_file=".env", env_ignore_empty=True, extra="ignore")

    maps_dir: Path = Path("maps")
    max_map_cells: int = Field(DEFAULT_MAX_MAP_CELLS, ge=1)
    max_map_bytes: int = Field(DEFAULT_MAX_MAP_BYTES, ge=1)
    max_expanded: int = Field(16_000_000, ge=1)
    max_body_bytes: int = Field(1024 * 1024, ge=256)
    # The request head (app/http_protocol.py, app.api.limits.RequestHeadLimits): 414 past
    # the first, 431 past the second; nginx's defaults are of the same order.
    max_url_bytes: int = Field(8192, ge=256)
    max_header_bytes: int = Field(32768, ge=1024)
    search_threads: int = Field(default_factory=available_cpus, ge=1)  # the CPU quota
    search_nice: int = Field(10, ge=0, le=19)
    max_blocked: int = Field(4096, ge=0)
    max_goals: int = Field(256, ge=1)
    max_batch: int = Field(1000, ge=1)
    max_batch_expanded: int = Field(64_000_000, ge=1)
    max_explored: int = Field(100_000, ge=0)
    max_turn_cells: int = Field(1_048_576, ge=1)
    max_flowfield_cells: int = Field(4_194_304, ge=1)
    # JUMP_TABLE_MAX_CELLS is no longer read (no JPS+ jump distances are built: block JPS serves
    # those maps); extra="ignore" keeps configurations that still set it loading.
    # The subgoal tier: largest map that gets it (unset: every map up to MAX_MAP_CELLS; 0:
    # none). An edit repairs it (gridpath/search/_subgoal/parts.py), so it is on by default.
    subgoal_max_cells: int | None = Field(None, ge=0)
    # Worker processes compiling the kernels after start-up (0: one per CPU); see
    # gridpath/search/staged.py.
    warmup_processes: int = Field(0, ge=0)
    flowfield_cache: int = Field(64, ge=0)
    flowfield_cache_bytes: int = Field(256 * 1024 * 1024, ge=0)
    max_upload_bytes: int = Field(64 * 1024 * 1024, ge=1)
    max_validate_cells: int = Field(1_000_000, ge=1)
    admin_token: SecretStr | None = None
    api_token: SecretStr | None = None
    maps_writable: bool = False
    log_level: str = "info"
    # The browser page (app/web): origins allowed to call the API from another site,
    # comma-separated (e.g. "https://tools.studio.lan"); empty: same origin only.
    cors_origins: str = ""
    # Targets that are not walkable (snap, GET /maps/{name}/nearest): how far to look.
    snap_radius: int = Field(64, ge=1, le=256)  # a window of (2r + 1)^2 cells at most

    # Observability and overload (README: "Observability", "Overload fails fast").
    search_queue: int = Field(64, ge=0)
    short_search_expansions: int = Field(65_536, ge=0)
    # The short lane: threads that run only searches of at most SHORT_SEARCH_EXPANSIONS.
    short_search_threads: int = Field(1, ge=0, le=64)
    # The longest a search waits for a thread before its request gets 503 overloaded.
    search_queue_wait_ms: int = Field(2_000, ge=1, le=600_000)
    # GET /maps/{name}/image: the largest picture (width x height, after scale).
    max_image_pixels: int = Field(64_000_000, ge=1)
    max_search_ms: int = Field(10_000, ge=1)
    search_expansions_per_ms: int = Field(2_000, ge=1)
    metrics_enabled: bool = True
    log_format: Literal["text", "json"] = "text"
    access_log: bool = True

    # HTTP fast path (README: "Configuration"): searches whose worst case is at most this many
    # expansions run on the event loop, without the hop to a search thread; 0: never.
    inline_search_expansions: int = Field(4096, ge=0)

    # The map authority (app/authority): unset = the MAPS_DIR folder, this process alone;
    # redis://host:port/db = Redis, shared by every process and replica.
    map_store: str | None = Field(None, pattern=r"^(rediss?|unix)://")
    revision_wait_ms: int = Field(1000, ge=0, le=60_000)  # read your writes: the longest wait
    maps_reload: Literal["watch", "poll", "off"] = "watch"  # folder store: hot reload
    maps_poll_interval: float = Field(1.0, gt=0, le=3600)
    map_state_dir: Path | None = None  # folder store: lock and revisions, if not MAPS_DIR
    # POST /table: most entries (sources x targets) in one cost table; its searches share
    # MAX_BATCH_EXPANDED like a /paths batch.
    max_table_cells: int = Field(65_536, ge=1)
    # Polygon maps (NAME.nav.json): most search nodes one exact path (Polyanya) may expand
    # (a request's max_expanded is capped by it); past it, reason limit_reached.
    max_polygon_expanded: int = Field(200_000, ge=1)
    # POST /group (docs/group.md): most units in one order; the largest time_budget_ms a
    # request may ask and the one it gets by default; most units x free cells (the per-goal
    # distances' worst case, 8 bytes each); the work units a ms of budget buys (0: this
    # machine's rate, measured once and kept beside the compiled kernels,
    # gridpath.group.budget; a number pins it, the same answers on every machine).
    max_group_units: int = Field(2000, ge=1)
    max_group_budget_ms: int = Field(5000, ge=1)
    group_budget_ms: int = Field(1000, ge=1)
    max_group_table_cells: int = Field(256_000_000, ge=1)
    group_work_per_ms: int = Field(0, ge=0, le=100_000)

    @property
    def subgoal_cells(self) -> int:
        """The largest map that gets the subgoal tier (SUBGOAL_MAX_CELLS, else every map
        the service loads)."""
        return self.max_map_cells if self.subgoal_max_cells is None else self.subgoal_max_cells


@lru_cache
def get_settings() -> Settings:
    return Settings()
