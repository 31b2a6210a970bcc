"""The Redis authority (``MAP_STORE=redis://host:port/db``): one map state for every process.

Redis is the store of record. Keys (all under ``gridpath:``):

* ``gridpath:maps`` (hash): name -> current revision of every map that exists;
* ``gridpath:last`` (hash): name -> last revision ever given; it survives deletes, so a
  name's revisions only grow;
* ``gridpath:map:NAME`` (hash): ``revision``, ``sha256`` (content hash), ``source``, and the
  encoded content: ``suffix``, ``data`` (a map file) and ``sidecar`` (its JSON, or empty) —
  :func:`gridpath.grid.persist.serialize`, or an uploaded file as sent — so any process loads it
  without the folder;
* ``gridpath:seeded``: set once the first start uploaded ``MAPS_DIR``; ``gridpath:seed-lock``
  (``SET NX PX``) makes that upload happen once when several processes start together;
* channel ``gridpath:changes``: every change announced as JSON ``{name, revision, sha256,
  deleted}``.

Decisions:

* A change is one Lua script (:data:`COMMIT`): the ``if_revision`` check, the new revision,
  the content and the announcement happen atomically, and the change is acknowledged only
  after Redis replied. An edit (``PATCH``) is computed on this process's snapshot, so the
  script also checks that snapshot is still current (``behind``: catch up and edit again).
* The process that made a change applies it to its own registry before it answers, so its
  next read sees it. Other processes apply announcements as they come; a follower
  (one task on the event loop) also compares every revision about once a second
  (``_CHECK_INTERVAL``) and on every reconnect, and reloads what is behind, so a missed
  announcement delays a change by at most that long. The registry never goes back.
* Reads never touch Redis. Redis down: searches go on from the snapshots loaded, ``/health``
  says ``degraded`` and why, changes answer ``store_unavailable``; the follower reconnects,
  resynchronises and logs it.
* A process whose revision of a map is newer than Redis's (Redis lost acknowledged writes:
  restarted without AOF) writes it back if it is still the newest (seed-if-greater), so the
  processes converge on the newest revision instead of diverging.
* One Redis (or a Sentinel-managed primary): the script touches several keys, so Redis
  Cluster is not supported.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
import time
import uuid
from collections.abc import Sequence
from urllib.parse import urlsplit

import redis
import redis.asyncio as aioredis
from redis.exceptions import RedisError

from app.authority.base import Change, ReloadReport, StoreStatus, Upload, edit_map
from gridpath.errors import MapLoadError, MapNotFound, RevisionConflict, StoreUnavailable
from gridpath.grid import Grid, LoadFailure, MapStore, persist
from gridpath.grid.edits import Edit
from gridpath.grid.loader import load_map_data
from gridpath.grid.store import with_revision
from gridpath.nav.model import NAV_SUFFIX
from gridpath.nav.snapshot import PolygonEdit, polygon_map

log = logging.getLogger(__name__)

PREFIX = "gridpath:"
INDEX = PREFIX + "maps"
LAST = PREFIX + "last"
SEEDED = PREFIX + "seeded"
SEED_LOCK = PREFIX + "seed-lock"
CHANNEL = PREFIX + "changes"
_CHECK_INTERVAL = 1.0  # seconds between the follower's full revision comparisons
_SEED_LOCK_MS = 60_000
_EDIT_ATTEMPTS = 20  # an edit redone on the new revision when another process got first


def map_key(name: str) -> str:
    return f"{PREFIX}map:{name}"


# KEYS: INDEX, LAST, map key. ARGV: name, op (put | delete | seed), if_revision, base (the
# revision an edit was computed on), sha256, source, suffix, data, sidecar, channel, and for
# seed the revision to write (only if it is newer than the name's last revision).
# Returns {status, revision, existed}: ok | conflict | behind | missing | exists.
COMMIT = """
local name, op, if_rev, base = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local current = tonumber(redis.call('HGET', KEYS[1], name) or '')
local existed = current and 1 or 0
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
local last = tonumber(redis.call('HGET', KEYS[2], name) or '') or 0
local revision = last + 1
if op == 'seed' then
  revision = tonumber(ARGV[11])
  if revision <= last then return {'exists', last, existed} end
end
redis.call('HSET', KEYS[2], name, revision)
redis.call('HSET', KEYS[1], name, revision)
redis.call('DEL', KEYS[3])
redis.call('HSET', KEYS[3], 'revision', revision, 'sha256', ARGV[5], 'source', ARGV[6],
  'suffix', ARGV[7], 'data', ARGV[8], 'sidecar', ARGV[9])
redis.call('PUBLISH', ARGV[10], cjson.encode({name = name, revision = revision,
  sha256 = ARGV[5], deleted = false}))
return {'ok', revision, existed}
"""

_RELEASE = """
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
    grid: Grid | None = None,
    upload: Upload | None = None,
    seed_revision: int | None = None,
) -> tuple[list[str], list]:
    """KEYS and ARGV of :data:`COMMIT`."""
    args: list = [name, op, "" if if_revision is None else str(if_revision)]
    args.append("" if base is None else str(base))
    if grid is None or upload is None:
        args += ["", "", "", b"", ""]
    else:
        sidecar = json.dumps(upload.sidecar) if upload.sidecar is not None else ""
        args += [grid.sha256, grid.source, upload.suffix, upload.data, sidecar]
    args += [CHANNEL, "" if seed_revision is None else str(seed_revision)]
    return [INDEX, LAST, map_key(name)], args


def parse_reply(reply: list) -> tuple[str, int, bool]:
    status = reply[0].decode() if isinstance(reply[0], bytes) else str(reply[0])
    return status, int(reply[1]), bool(int(reply[2]))


def encode(grid: Grid) -> Upload:
    return Upload(*persist.serialize(grid))


def decode(name: str, fields: dict[bytes, bytes], max_cells: int) -> Grid:
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


class RedisAuthority:
    def __init__(self, settings, registry: MapStore) -> None:
        self.settings = settings
        self.registry = registry
        self.url: str = settings.map_store
        self._status = StoreStatus(kind="redis")
        self._closed = threading.Event()
        self._client: aioredis.Redis | None = None
        self._commit = None
        self._follower: asyncio.Task | None = None
        self._name_locks: dict[str, asyncio.Lock] = {}  # one fetch of a map at a time
        self._edit_locks: dict[str, asyncio.Lock] = {}
        self._load_errors: list[LoadFailure] = []  # the folder's, at the first upload
        # name -> (revision, why): a revision that could not be loaded (not retried)
        self._decode_errors: dict[str, tuple[int, LoadFailure]] = {}

    def _sync_client(self) -> redis.Redis:
        return redis.Redis.from_url(self.url, socket_connect_timeout=2, socket_timeout=10)

    # --- start-up (start-up thread, blocking client) ----------------------------------------

    def load(self) -> None:
        """Load every map from Redis (uploading ``MAPS_DIR`` on the very first start). While
        Redis cannot be reached the process keeps retrying and stays "starting" (``/health``
        503, the reason in ``errors``): a replica with no maps must not take traffic."""
        delay = 0.1
        while not self._closed.is_set():
            client = self._sync_client()
            try:
                self._seed_once(client)
                for raw_name in client.hkeys(INDEX):
                    name = raw_name.decode()
                    fields = client.hgetall(map_key(name))
                    if fields:
                        self._install(name, fields)
                log.info("loaded %d maps from the shared store %s", len(self.registry), self.where)
                self._healthy()
                self._publish_errors()
                return
            except RedisError as exc:
                self._degrade(f"redis unreachable: {exc}")
                failure = LoadFailure(file=self.where, reason=f"redis unreachable: {exc}")
                self.registry.set_errors([failure])
            finally:
                client.close()
            self._closed.wait(delay)
            delay = min(delay * 2, 2.0)

    @property
    def where(self) -> str:
        return redacted(self.url)

    def _seed_once(self, client: redis.Redis) -> None:
        """Upload ``MAPS_DIR`` if this Redis has never held the maps: exactly one process
        does it (the seed lock); the others wait until it is done, then load what it wrote.
        A process that dies half-way loses the lock after ``_SEED_LOCK_MS``; the next one
        uploads the maps still missing (seeding never overwrites a newer revision)."""
        token = uuid.uuid4().hex
        release = client.register_script(_RELEASE)
        commit = client.register_script(COMMIT)
        while not self._closed.is_set() and not client.exists(SEEDED):
            if not client.set(SEED_LOCK, token, nx=True, px=_SEED_LOCK_MS):
                time.sleep(0.05)
                continue
            try:
                if client.exists(SEEDED):
                    break
                s = self.settings
                folder = MapStore.from_dir(
                    s.maps_dir, max_cells=s.max_map_cells, max_bytes=s.max_map_bytes
                )
                self._load_errors = list(folder.errors)
                for grid in folder.all():
                    keys, args = commit_args(
                        grid.name, "seed", grid=grid, upload=encode(grid), seed_revision=1
                    )
                    commit(keys=keys, args=args)
                    client.pexpire(SEED_LOCK, _SEED_LOCK_MS)  # still uploading: keep the lock
                client.set(SEEDED, "1")
                log.info(
                    "first start on %s: uploaded %d maps from %s",
                    self.where,
                    len(folder),
                    s.maps_dir,
                )
            finally:
                release(keys=[SEED_LOCK], args=[token])

    def _install(self, name: str, fields: dict[bytes, bytes]) -> None:
        revision = int(fields[b"revision"])
        if (revision, False) <= self.registry.version(name):
            return
        try:
            grid = decode(name, fields, self.settings.max_map_cells)
        except (MapLoadError, KeyError, ValueError) as exc:
            reason = exc.reason if isinstance(exc, MapLoadError) else f"malformed entry: {exc}"
            log.error(
                "map %s revision %d from the shared store not loaded: %s", name, revision, reason
            )
            self._decode_errors[name] = (revision, LoadFailure(file=map_key(name), reason=reason))
            return
        self._decode_errors.pop(name, None)
        if self.registry.apply(name, grid, revision):
            log.info("map %s is now revision %d (shared store)", name, revision)

    def _publish_errors(self) -> None:
        failed = [failure for _, failure in self._decode_errors.values()]
        self.registry.set_errors(self._load_errors + failed)

    # --- following changes (event loop) -----------------------------------------------------

    async def start(self) -> None:
        self._client = aioredis.Redis.from_url(
            self.url, socket_connect_timeout=2, socket_timeout=10
        )
        self._commit = self._client.register_script(COMMIT)
        self._follower = asyncio.create_task(self._follow(), name="gridpath-store-follower")

    async def _follow(self) -> None:
        assert self._client is not None
        loop = asyncio.get_running_loop()
        backoff = 0.1
        while True:
            pubsub = self._client.pubsub(ignore_subscribe_messages=True)
            try:
                await pubsub.subscribe(CHANNEL)
                await self._resync()  # after subscribing: nothing falls in between
                self._healthy()
                backoff = 0.1
                next_check = loop.time() + _CHECK_INTERVAL
                while True:
                    wait = max(0.0, next_check - loop.time())
                    message = await pubsub.get_message(timeout=wait)
                    if message is not None and message.get("type") == "message":
                        await self._announced(message["data"])
                    if loop.time() >= next_check:
                        await self._resync()
                        # A change that failed on a stale pooled connection marks the store
                        # degraded while this follower stays connected: a check that reached
                        # Redis is what says it is healthy again.
                        self._healthy()
                        next_check = loop.time() + _CHECK_INTERVAL
            except asyncio.CancelledError:
                raise
            except (RedisError, OSError) as exc:
                self._degrade(f"redis unreachable: {exc}")
            except Exception as exc:  # a bug must not stop the follower for good
                log.exception("shared store follower failed")
                self._degrade(f"follower error: {type(exc).__name__}: {exc}")
            finally:
                try:
                    await pubsub.aclose()
                except Exception:  # the connection may be gone already
                    pass
            await asyncio.sleep(backoff)
            backoff = min(backoff * 2, _CHECK_INTERVAL)

    async def _announced(self, data: bytes) -> None:
        try:
            event = json.loads(data)
            name, revision, deleted = str(event["name"]), int(event["revision"]), event["deleted"]
        except (ValueError, KeyError, TypeError):
            log.warning("ignored a malformed announcement on %s: %r", CHANNEL, data[:200])
            return
        if deleted:
            if self.registry.apply(name, None, revision):
                log.info("map %s deleted at revision %d (shared store)", name, revision)
        elif (revision, False) > self.registry.version(name):
            await self._fetch(name)

    async def _fetch(self, name: str) -> None:
        """Load ``name``'s current revision from Redis if it is newer than ours."""
        assert self._client is not None
        lock = self._name_locks.setdefault(name, asyncio.Lock())
        async with lock:
            fields = await self._client.hgetall(map_key(name))
            if not fields:  # deleted (or never existed): remember the deletion's revision
                last = await self._client.hget(LAST, name)
                if last is not None and self.registry.apply(name, None, int(last)):
                    log.info("map %s deleted at revision %d (shared store)", name, int(last))
                return
            revision = int(fields[b"revision"])
            failed = self._decode_errors.get(name)
            if (revision, False) <= self.registry.version(name) or (
                failed is not None and failed[0] == revision
            ):
                return
            await asyncio.to_thread(self._install, name, fields)
            self._publish_errors()

    async def _resync(self) -> list[str]:
        """Compare every revision with Redis and catch up; returns the maps reloaded."""
        assert self._client is not None
        # One consistent view of both hashes (a change updates them together): a map this
        # process creates meanwhile is newer than the view, never taken for a deletion.
        pipe = self._client.pipeline(transaction=True)
        pipe.hgetall(INDEX)
        pipe.hgetall(LAST)
        pipe.exists(SEEDED)
        index, last_given, seeded = await pipe.execute()
        remote = {k.decode(): int(v) for k, v in index.items()}
        last = {k.decode(): int(v) for k, v in last_given.items()}
        caught_up = []
        for name, revision in remote.items():
            version = self.registry.version(name)
            if (revision, False) > version:
                await self._fetch(name)
                caught_up.append(name)
            elif revision < version[0] and not version[1]:
                await self._restore(name)
        for name in self.registry.names():
            if name in remote:
                continue
            if last.get(name, 0) >= self.registry.version(name)[0]:
                if self.registry.apply(name, None, last[name]):
                    log.info("map %s deleted at revision %d (shared store)", name, last[name])
                    caught_up.append(name)
            else:
                await self._restore(name)
        if not seeded:  # Redis lost everything: the maps restored above are the state now
            if await self._client.set(SEEDED, "1", nx=True):
                log.warning(
                    "the shared store %s was empty: restored it from this process", self.where
                )
        return caught_up

    async def _restore(self, name: str) -> None:
        """Redis is behind this process on ``name`` (it lost acknowledged writes): write our
        revision back, if it is still the newest (:data:`COMMIT` ``seed``)."""
        assert self._client is not None
        grid = self.registry.find(name)
        if grid is None or self._commit is None:
            return
        given = await self._client.hget(LAST, name)
        if given is not None and int(given) >= grid.revision:
            return  # not lost: a change newer than our view of Redis
        upload = await asyncio.to_thread(encode, grid)
        keys, args = commit_args(
            name, "seed", grid=grid, upload=upload, seed_revision=grid.revision
        )
        status, revision, _ = parse_reply(await self._commit(keys=keys, args=args))
        if status == "ok":
            log.warning(
                "the shared store had lost map %s revision %d (Redis restarted without "
                "persistence?); restored it from this process",
                name,
                revision,
            )

    def _degrade(self, reason: str) -> None:
        if self._status.state != "degraded":
            log.error("shared store %s degraded: %s", self.where, reason)
        self._status = StoreStatus(kind="redis", state="degraded", reason=reason)

    def _healthy(self) -> None:
        if self._status.state == "degraded":
            log.warning(
                "shared store %s is back: resynchronised (%d maps)", self.where, len(self.registry)
            )
        self._status = StoreStatus(kind="redis")

    async def reload(self) -> ReloadReport:
        await self._require_client()
        try:
            caught_up = await self._resync()
        except (RedisError, OSError) as exc:
            raise self._unavailable(exc) from None
        changes = [Change(n, *self.registry.version(n)) for n in caught_up]
        return ReloadReport(changes, list(self.registry.errors))

    # --- changes (event loop) ---------------------------------------------------------------

    async def _require_client(self) -> None:
        if self._client is None or self._commit is None:
            raise StoreUnavailable("the shared map store is not connected yet; nothing was changed")

    def _unavailable(self, exc: Exception) -> StoreUnavailable:
        self._degrade(f"redis unreachable: {exc}")
        return StoreUnavailable(
            f"the shared map store {self.where} is unreachable ({exc}); the change was not "
            "acknowledged"
        )

    async def _run(self, keys: list[str], args: list) -> tuple[str, int, bool]:
        await self._require_client()
        try:
            return parse_reply(await self._commit(keys=keys, args=args))
        except (RedisError, OSError) as exc:
            raise self._unavailable(exc) from None

    async def _current(self, name: str, if_revision: int | None) -> Grid:
        grid = self.registry.find(name)
        if grid is None or (if_revision is not None and if_revision > grid.revision):
            try:
                await self._fetch(name)  # we may be behind: catch up first
            except (RedisError, OSError) as exc:
                raise self._unavailable(exc) from None
        return self.registry.get(name)

    async def update(
        self, name: str, edits: Sequence[Edit] | PolygonEdit, if_revision: int | None
    ) -> Grid:
        # One edit of a map at a time in this process: its edits never race each other, so
        # an edit is redone ("behind") only when another process changed the map meanwhile.
        async with self._edit_locks.setdefault(name, asyncio.Lock()):
            return await self._update(name, edits, if_revision)

    async def _update(
        self, name: str, edits: Sequence[Edit] | PolygonEdit, if_revision: int | None
    ) -> Grid:
        for _attempt in range(_EDIT_ATTEMPTS):
            current = await self._current(name, if_revision)
            if if_revision is not None and if_revision < current.revision:
                # Revisions only grow: a conflict now, before an edit meant for another
                # revision is computed (and perhaps refused as invalid on this one).
                raise _conflict(name, current.revision, if_revision)
            new = await asyncio.to_thread(edit_map, current, edits, current.revision + 1)
            upload = await asyncio.to_thread(encode, new)
            keys, args = commit_args(
                name, "put", if_revision=if_revision, base=current.revision, grid=new, upload=upload
            )
            status, revision, _ = await self._run(keys, args)
            if status == "ok":
                new = new if new.revision == revision else with_revision(new, revision)
                self.registry.apply(name, new, revision)
                return new
            if status == "conflict":
                raise _conflict(name, revision, if_revision)
            if status == "missing" or (status == "behind" and revision == 0):
                self.registry.apply(name, None, self.registry.version(name)[0])
                raise MapNotFound(f"map {name!r} not found")
            try:  # behind: another process changed it; edit the new one
                await self._fetch(name)
            except (RedisError, OSError) as exc:
                raise self._unavailable(exc) from None
        raise StoreUnavailable(f"map {name!r} kept changing under this edit; nothing was changed")

    async def replace(
        self, name: str, parsed: Grid, upload: Upload | None, if_revision: int | None
    ) -> tuple[Grid, bool]:
        if upload is None:
            upload = await asyncio.to_thread(encode, parsed)
        keys, args = commit_args(name, "put", if_revision=if_revision, grid=parsed, upload=upload)
        status, revision, existed = await self._run(keys, args)
        if status == "conflict":
            raise _conflict(name, revision, if_revision)
        grid = with_revision(parsed, revision)
        await asyncio.to_thread(self.registry.apply, name, grid, revision)  # builds its tables
        return grid, existed

    async def delete(self, name: str, if_revision: int | None) -> Grid:
        current = await self._current(name, None)
        keys, args = commit_args(name, "delete", if_revision=if_revision)
        status, revision, _ = await self._run(keys, args)
        if status == "conflict":
            raise _conflict(name, revision, if_revision)
        if status == "missing":
            raise MapNotFound(f"map {name!r} not found")
        self.registry.apply(name, None, revision)
        return current if current.revision == revision else with_revision(current, revision)

    def status(self) -> StoreStatus:
        return self._status

    async def close(self) -> None:
        self._closed.set()
        if self._follower is not None:
            self._follower.cancel()
            try:
                await self._follower
            except (asyncio.CancelledError, Exception):
                pass
        if self._client is not None:
            await self._client.aclose()


def _conflict(name: str, current: int, if_revision: int | None) -> RevisionConflict:
    found = f"at revision {current}" if current else "absent"
    return RevisionConflict(
        f"map {name!r} is {found}, not at revision {if_revision}; nothing was changed"
    )
