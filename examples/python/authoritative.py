"""gridpath from Python with the client generated from its OpenAPI document (make clients).

An authoritative game server computes a unit's path, keeps the map revision and path_hash
it got, and later checks the path a game client claims to have walked against that revision.

    make clients
    PYTHONPATH=clients/python .venv/bin/python examples/python/authoritative.py http://127.0.0.1:8000

With API_TOKEN set on the server, pass it as GRIDPATH_TOKEN (any value works without one).
"""

from __future__ import annotations

import os
import sys

from gridpath_client import AuthenticatedClient
from gridpath_client.api.paths import find_path, validate_path
from gridpath_client.models import ErrorResponse, PathRequest, ValidateRequest


def run(base_url: str, token: str = "none") -> dict:
    with AuthenticatedClient(base_url=base_url, token=token) as client:
        # 1. The server's own path. Cells are [x, y]: x the column, y the row, top-left origin.
        path = find_path.sync(
            client=client, body=PathRequest(map_="arena", start=[1, 1], goal=[60, 60])
        )
        if isinstance(path, ErrorResponse) or path is None:
            raise RuntimeError(f"no path: {path}")
        # 2. Keep what the authority needs to judge later: the revision and the path's hash.
        revision, path_hash = path.revision, path.path_hash

        # 3. A client claims it walked this path: valid on the revision the path was made on?
        claim = ValidateRequest(map_="arena", path=path.path, revision=revision)
        honest = validate_path.sync(client=client, body=claim)

        # 4. A cheater's claim: the same path with a jump in the middle.
        jumped = path.path[:3] + path.path[10:]
        cheat = validate_path.sync(
            client=client, body=ValidateRequest(map_="arena", path=jumped, revision=revision)
        )

        # 5. Asking for a path on a revision the map has left answers 409 stale_revision.
        stale = find_path.sync(
            client=client,
            body=PathRequest(map_="arena", start=[1, 1], goal=[60, 60], revision=revision + 1),
        )
    return {
        "revision": revision,
        "path_hash": path_hash,
        "cost": path.cost,
        "steps": len(path.path),
        "honest_valid": honest.valid,
        "cheat_valid": cheat.valid,
        "cheat_violations": [v.code.value for v in cheat.violations],
        "stale": stale.error.code if isinstance(stale, ErrorResponse) else None,
    }


if __name__ == "__main__":
    base = sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:8000"
    print(run(base, os.environ.get("GRIDPATH_TOKEN", "none")))
