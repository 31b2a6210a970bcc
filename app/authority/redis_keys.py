"""The Redis authority's layout: its keys, the one script that changes a map, and the
encoding of a map into a ``gridpath:map:NAME`` hash (app/authority/redis_store.py uses them,
and ``push``).

Keys (all under ``gridpath:``):

* ``gridpath:maps`` (hash): name -> current revision of every map that exists;
* ``gridpath:last`` (hash): name -> last revision ever given; it survives deletes, so a
  name's revisions only grow;
* ``gridpath:map:NAME`` (hash): ``revision``, ``sha256`` (content hash), ``source``, and the
  encoded content: ``suffix``, ``data`` (a map file) and ``sidecar`` (its JSON, or empty) —
  :func:`gridpath.maps.persist.serialize`, or an uploaded file as sent — so any process loads it
  without the folder;
* ``gridpath:seeded``: set once the first start uploaded ``MAPS_DIR``; ``gridpath:seed-lock``
  (``SET NX PX``) makes that upload happen once when several processes start together;
* ``gridpath:restoring`` (expires by itself): Redis restarted or lost maps, and the processes
  are writing back the revisions they hold; changes are refused (``restoring``) meanwhile;
* channel ``gridpath:changes``: every change announced as JSON ``{name, revision, sha256,
  deleted}``.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from dataclasses import dataclass
from urllib.parse import urlsplit

import redis

from app.authority.base import Upload
from gridpath.errors import MapLoadError
from gridpath.grid.loader import load_map_data
from gridpath.maps.registry import with_revision
from gridpath.maps.snapshot import MapSnapshot
from gridpath.nav.model import NAV_SUFFIX
from gridpath.nav.snapshot import polygon_map

PREFIX = "gridpath:"
INDEX = PREFIX + "maps"
LAST = PREFIX + "last"
SEEDED = PREFIX + "seeded"
SEED_LOCK = PREFIX + "seed-lock"
RESTORING = PREFIX + "restoring"
CHANNEL = PREFIX + "changes"
# How long changes stay refused after a process found Redis restarted or behind it, and after
# each map written back: long enough for every other process's follower to notice (it
# retries at least once a second) and write back what it holds before any change is made.
RESTORE_WINDOW_MS = 2000
SEED_LOCK_MS = 60_000


def map_key(name: str) -> str:
    return f"{PREFIX}map:{name}"


@dataclass(frozen=True)
class RedisLayout:
    """The keys of one kind of document (maps, worlds): the same script and rules, keys of
    their own, so a world and a map of one name never meet."""

    index: str
    last: str
    key_prefix: str
    channel: str
    seeded: str
    seed_lock: str

    def key(self, name: str) -> str:
        return f"{self.key_prefix}{name}"


MAPS_LAYOUT = RedisLayout(INDEX, LAST, PREFIX + "map:", CHANNEL, SEEDED, SEED_LOCK)
# Worlds (``gridpath.world``): seeded on their own, so a store that held maps before worlds
# existed uploads the folder's worlds at the first start that knows them.
WORLDS_LAYOUT = RedisLayout(
    PREFIX + "worlds",
    PREFIX + "worlds-last",
    PREFIX + "world:",
    PREFIX + "world-changes",
    PREFIX + "worlds-seeded",
    PREFIX + "worlds-seed-lock",
)


# KEYS: INDEX, LAST, map key, RESTORING. ARGV: [1] name, [2] op (put | delete | seed | bury),
# [3] if_revision, [4] base (the revision an edit was computed on), [5] sha256, [6] source,
# [7] suffix, [8] data, [9] sidecar, [10] channel, [11] for seed and bury the revision to
# write (only if newer than the name's last revision), [12] known: the live revision the
# caller holds (0: none), [13] the Redis run_id the caller last synchronised with ('': do not
# check), [14] RESTORE_WINDOW_MS.
# Returns {status, revision, existed}: ok | conflict | behind | missing | exists, and for a
# put or delete refused while the maps are being written back: restarted (Redis is not the
# one the caller synchronised with), lost (Redis lacks the caller's revision: it lost
# acknowledged writes), restoring (another process is writing back). The first two open the
# window; seed extends it.
COMMIT = """
local name, op, if_rev, base = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local current = tonumber(redis.call('HGET', KEYS[1], name) or '')
local existed = current and 1 or 0
local last = tonumber(redis.call('HGET', KEYS[2], name) or '') or 0
if op == 'put' or op == 'delete' then
  local run_id = string.match(redis.call('INFO', 'server'), 'run_id:(%x+)')
  if ARGV[13] ~= '' and ARGV[13] ~= run_id then
    redis.call('SET', KEYS[4], '1', 'PX', ARGV[14], 'NX')
    return {'restarted', current or 0, existed}
  end
  local known = tonumber(ARGV[12]) or 0
  if known > (current or 0) and known > last then
    redis.call('SET', KEYS[4], '1', 'PX', ARGV[14], 'NX')
    return {'lost', current or 0, existed}
  end
  if redis.call('EXISTS', KEYS[4]) == 1 then return {'restoring', current or 0, existed} end
end
if if_rev ~= '' and current ~= tonumber(if_rev) then return {'conflict', current or 0, existed} end
if base ~= '' and current ~= tonumber(base) then return {'behind', current or 0, existed} end
if op == 'delete' then
  if not current then return {'missing', 0, 0} end
  redis.call('HDEL', KEYS[1], name)
  redis.call('DEL', KEYS[3])
  redis.call('PUBLISH', ARGV[10], cjson.encode({name = name, revision = current,
    sha256 = '', deleted = true}))
  return {'ok', current, 1}
end
local revision = last + 1
if op == 'seed' or op == 'bury' then
  revision = tonumber(ARGV[11])
  if revision <= last then return {'exists', last, existed} end
  redis.call('SET', KEYS[4], '1', 'PX', ARGV[14], 'XX')
end
redis.call('HSET', KEYS[2], name, revision)
if op == 'bury' then
  redis.call('HDEL', KEYS[1], name)
  redis.call('DEL', KEYS[3])
  redis.call('PUBLISH', ARGV[10], cjson.encode({name = name, revision = revision,
    sha256 = '', deleted = true}))
  return {'ok', revision, existed}
end
redis.call('HSET', KEYS[1], name, revision)
redis.call('DEL', KEYS[3])
redis.call('HSET', KEYS[3], 'revision', revision, 'sha256', ARGV[5], 'source', ARGV[6],
  'suffix', ARGV[7], 'data', ARGV[8], 'sidecar', ARGV[9])
redis.call('PUBLISH', ARGV[10], cjson.encode({name = name, revision = revision,
  sha256 = ARGV[5], deleted = false}))
return {'ok', revision, existed}
"""

RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


def redacted(url: str) -> str:
    """The store's address without its password, for messages and logs."""
    parts = urlsplit(url)
    host = parts.hostname or parts.path or ""
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme}://{host}{port}{parts.path if parts.hostname else ''}"


def commit_args(
    name: str,
    op: str,
    *,
    if_revision: int | None = None,
    base: int | None = None,
    grid: MapSnapshot | None = None,
    upload: Upload | None = None,
    seed_revision: int | None = None,
    known: int = 0,
    run_id: str = "",
    layout: RedisLayout = MAPS_LAYOUT,
) -> tuple[list[str], list]:
    """KEYS and ARGV of :data:`COMMIT` (for a world: ``layout=WORLDS_LAYOUT``)."""
    args: list = [name, op, "" if if_revision is None else str(if_revision)]
    args.append("" if base is None else str(base))
    if grid is None or upload is None:
        args += ["", "", "", b"", ""]
    else:
        sidecar = json.dumps(upload.sidecar) if upload.sidecar is not None else ""
        args += [grid.sha256, grid.source, upload.suffix, upload.data, sidecar]
    args += [layout.channel, "" if seed_revision is None else str(seed_revision)]
    args += [str(known), run_id, str(RESTORE_WINDOW_MS)]
    return [layout.index, layout.last, layout.key(name), RESTORING], args


def parse_reply(reply: list) -> tuple[str, int, bool]:
    status = reply[0].decode() if isinstance(reply[0], bytes) else str(reply[0])
    return status, int(reply[1]), bool(int(reply[2]))


def encode(grid: MapSnapshot) -> Upload:
    return Upload(*grid.encode())


def decode(name: str, fields: dict[bytes, bytes], max_cells: int) -> MapSnapshot:
    """The map a ``gridpath:map:NAME`` hash holds, at its revision; :class:`MapLoadError`
    if it cannot be loaded or does not hash to the content hash stored with it."""
    sidecar_text = fields.get(b"sidecar") or b""
    suffix = fields[b"suffix"].decode()
    if suffix == NAV_SUFFIX:  # a polygon map: its .nav.json bytes
        grid = polygon_map(name, fields[b"data"], source=fields[b"source"].decode())
    else:
        grid = load_map_data(
            name,
            fields[b"data"],
            movingai=suffix == ".map",
            max_cells=max_cells,
            sidecar=json.loads(sidecar_text) if sidecar_text else None,
            source=fields[b"source"].decode(),
        )
    expected = fields[b"sha256"].decode()
    if grid.sha256 != expected:
        raise MapLoadError(f"content hash {grid.sha256} is not the stored {expected}")
    return with_revision(grid, int(fields[b"revision"]))


def upload_folder_once(
    client: redis.Redis, settings, closed: threading.Event, documents
) -> tuple[int, list] | None:
    """Upload ``MAPS_DIR``'s documents of one kind (``documents``: maps or worlds,
    app.authority.documents) if this Redis has never held them: exactly one process does it
    (the seed lock) and gets ``(documents uploaded, files that failed)``; the others wait
    until it is done (None), then load what it wrote. A process that dies half-way loses the
    lock after ``SEED_LOCK_MS``; the next one uploads those still missing (seeding never
    overwrites a newer revision)."""
    layout = documents.layout
    token = uuid.uuid4().hex
    release = client.register_script(RELEASE)
    commit = client.register_script(COMMIT)
    while not closed.is_set() and not client.exists(layout.seeded):
        if not client.set(layout.seed_lock, token, nx=True, px=SEED_LOCK_MS):
            time.sleep(0.05)
            continue
        try:
            if client.exists(layout.seeded):
                break
            loaded, errors = documents.read_folder(settings)
            for grid in loaded:
                keys, args = commit_args(
                    grid.name,
                    "seed",
                    grid=grid,
                    upload=documents.encode(grid),
                    seed_revision=1,
                    layout=layout,
                )
                commit(keys=keys, args=args)
                client.pexpire(layout.seed_lock, SEED_LOCK_MS)  # still uploading: keep the lock
            client.set(layout.seeded, "1")
            return len(loaded), errors
        finally:
            release(keys=[layout.seed_lock], args=[token])
    return None
