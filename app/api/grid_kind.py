"""Grid maps over HTTP: what ``/path``, ``/paths``, ``/validate`` and the map routes do on a
grid (the sibling of :mod:`app.api.polygon`; :mod:`app.api.kinds` dispatches to either)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app.api.path_batch import answer_chunk
from app.api.path_body import answer_with, query_options
from app.api.rules import expansion_budget, search_options
from app.config import Settings
from app.models import MapInfo, PathQuery, TerrainInfo, ValidateRequest
from gridpath.errors import InvalidField, require_revision
from gridpath.grid import Grid
from gridpath.grid.model import as_cells
from gridpath.search import SearchOptions, tiers
from gridpath.search.scratch import SearchScratch
from gridpath.search.validate import validate_path


@dataclass(frozen=True)
class GridPath:
    """One grid query with its options (the server's caps applied)."""

    query: PathQuery
    options: Any  # SearchOptions
    settings: Settings
    cost: int  # its worst case in expansions: the map's states, capped

    def run(self, grid: Grid, scratch: SearchScratch) -> tuple[dict, float]:
        return answer_with(grid, self.query, self.options, self.settings, scratch)


@dataclass(frozen=True)
class GridValidation:
    query: ValidateRequest
    options: SearchOptions
    cost: int  # the path's cells, and the map's if the optimal cost is searched for

    def run(self, grid: Grid, scratch: SearchScratch) -> tuple[dict, float]:
        request = self.query
        result = validate_path(
            grid,
            as_cells(request.path),
            mode=request.mode,
            options=self.options,
            blocked=[tuple(c) for c in request.blocked],
            max_cost=request.max_cost,
            start=tuple(request.start) if request.start else None,
            goal=tuple(request.goal) if request.goal else None,
            compare_optimal=request.compare_optimal,
            scratch=scratch,
        )
        violations = [
            {"index": v.index, "code": v.code, "message": v.message} for v in result.violations
        ]
        if request.revision is not None and request.revision != grid.revision:
            violations.insert(
                0,
                {
                    "index": -1,
                    "code": "stale_revision",
                    "message": f"the path was made on revision {request.revision}; "
                    f"map {grid.name!r} is at revision {grid.revision}",
                },
            )
        body = {
            "map": grid.name,
            "revision": grid.revision,
            "valid": not violations,
            "cost": result.cost,
            "checked": result.checked,
            "violations": violations,
        }
        if request.compare_optimal:
            body["optimal_cost"] = result.optimal_cost
        if request.timing:
            body["search_us"] = round(result.search_us, 1)
        return body, result.search_us


class GridKind:
    """A grid's answers (:class:`app.api.kinds.MapKind`)."""

    noun = "a grid map"
    rival = "polygon"

    def info(self, grid: Grid) -> MapInfo:
        return MapInfo(
            name=grid.name,
            width=grid.width,
            height=grid.height,
            walkable=grid.walkable_count,
            terrain=[TerrainInfo(name=tc.name, cost=tc.cost) for tc in grid.terrain_classes],
            revision=grid.revision,
            sha256=grid.sha256,
            source=grid.source,
            jump_table=grid.jump_distances is not None,
            memory_bytes=grid.nbytes,
            tiers=tiers(grid),
        )

    def require_grid(self, grid: Grid, what: str) -> Grid:
        return grid

    def path_request(
        self, query: PathQuery, grid: Grid, settings: Settings, expansion_cap: int | None
    ) -> GridPath:
        require_revision(grid.name, grid.revision, query.revision)
        options = query_options(query, grid, settings, expansion_cap)
        return GridPath(query, options, settings, min(grid.cell_count, options.max_expanded))

    def batch_budget(self, grid: Grid, settings: Settings, count: int) -> tuple[int, int]:
        """``(share, cost)`` of each of ``count`` queries: ``MAX_BATCH_EXPANDED`` shared."""
        share = max(1, settings.max_batch_expanded // count)
        cost = min(grid.cell_count, settings.max_expanded, expansion_budget(settings), share)
        return share, cost

    def answer_chunk(self, queries: Any, grid: Grid, scratch: SearchScratch) -> list:
        """The common queries in one compiled call (:mod:`app.api.path_batch`)."""
        return answer_chunk(queries, grid, scratch)

    def validation(self, query: ValidateRequest, grid: Grid, settings: Settings) -> GridValidation:
        if len(query.path) > settings.max_validate_cells:
            raise InvalidField(
                "path",
                f"path has {len(query.path)} entries, over the limit of "
                f"{settings.max_validate_cells}",
            )
        options = search_options(query, settings)
        cost = len(query.path) + (grid.cell_count if query.compare_optimal else 0)
        return GridValidation(query, options, cost)
