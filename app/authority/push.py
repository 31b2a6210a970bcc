"""``python -m app.authority push DIR`` (also ``python -m gridpath.cli push DIR``): upload the
maps of a folder to the shared store (``MAP_STORE``) as new revisions, without restarting anything.

Every map file of ``DIR`` is loaded as the service would load it; a map whose content hash
is already the current one in the store is left alone (pushing the same folder twice makes
no new revisions). Each new revision is committed and announced like an API change, so every
process serves it within moments. Maps absent from ``DIR`` are not deleted. Exit status 0
when every file was pushed or unchanged, 1 if any file failed to load, 2 on a usage or store
error.
"""

from __future__ import annotations

import argparse
import sys

import redis

from app.authority.redis import COMMIT, commit_args, encode, map_key, parse_reply, redacted
from app.config import get_settings
from gridpath.errors import MapLoadError
from gridpath.grid.store import load_logged, scan_folder


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["push"]:
        argv = argv[1:]
    parser = argparse.ArgumentParser(
        prog="python -m app.authority push",
        description="Upload a folder's maps to the shared map store (MAP_STORE) as new "
        "revisions; unchanged maps keep theirs.",
    )
    parser.add_argument("directory", help="folder of map files (as MAPS_DIR)")
    parser.add_argument("--store", help="redis://host:port/db (default: MAP_STORE)")
    args = parser.parse_args(argv)
    settings = get_settings()
    url = args.store or settings.map_store
    if not url:
        print("push needs a shared store: set MAP_STORE=redis://host:port/db", file=sys.stderr)
        return 2
    files, errors = scan_folder(args.directory)
    client = redis.Redis.from_url(url, socket_connect_timeout=5, socket_timeout=30)
    commit = client.register_script(COMMIT)
    failed = len(errors)
    for failure in errors:
        print(f"{failure.file}: not pushed: {failure.reason}", file=sys.stderr)
    try:
        for name, path in files.items():
            try:
                grid = load_logged(
                    path, max_cells=settings.max_map_cells, max_bytes=settings.max_map_bytes
                )
            except MapLoadError as exc:
                print(f"{path.name}: not pushed: {exc.reason}", file=sys.stderr)
                failed += 1
                continue
            current = client.hmget(map_key(name), ["sha256", "revision"])
            if current[0] is not None and current[0].decode() == grid.sha256:
                print(f"{name}: unchanged at revision {int(current[1])}")
                continue
            keys, commit_argv = commit_args(name, "put", grid=grid, upload=encode(grid))
            _, revision, _ = parse_reply(commit(keys=keys, args=commit_argv))
            print(f"{name}: revision {revision} (from {path.name})")
    except redis.RedisError as exc:
        print(f"the shared store {redacted(url)} failed: {exc}", file=sys.stderr)
        return 2
    finally:
        client.close()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
