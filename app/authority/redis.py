"""The Redis authority (``MAP_STORE=redis://host:port/db``): one map state for every process.

Redis is the store of record; its keys and the change script are in
app/authority/redis_keys.py.

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
* Redis restarted (a new ``run_id``: empty, from an old snapshot, or a failover) or found
  lacking a revision a process holds (it lost acknowledged writes): the processes write back
  the revisions they hold (seed-if-greater, deletions too: ``bury``), so they converge on the
  newest any of them held. Meanwhile changes answer ``store_unavailable`` (the
  ``gridpath:restoring`` window, opened by the first process to notice, kept open while
  revisions are written back): an edit computed on a revision some process had not yet
  written back would otherwise take its number. A map is never dropped from a registry
  because Redis lacks it: only a deletion Redis records (``gridpath:last`` at or past the
  revision held) removes it.
* One Redis (or a Sentinel-managed primary): the script touches several keys, so Redis
  Cluster is not supported.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading

import redis
import redis.asyncio as aioredis
from redis.exceptions import RedisError

from app.authority.base import Change, ReloadReport, StoreStatus, Upload
from app.authority.documents import MAPS, Documents
from app.authority.redis_keys import COMMIT, commit_args, parse_reply, redacted, upload_folder_once
from app.authority.redis_restore import still_lost, write_back
from gridpath.errors import MapLoadError, RevisionConflict, StoreUnavailable
from gridpath.grid.edits import GridEdit
from gridpath.maps import LoadFailure, MapRegistry
from gridpath.maps.registry import with_revision
from gridpath.maps.snapshot import MapSnapshot
from gridpath.nav.snapshot import PolygonEdit

log = logging.getLogger(__name__)

_CHECK_INTERVAL = 1.0  # seconds between the follower's full revision comparisons
_CLOSE_ATTEMPTS = 3  # cancellations sent to the follower at shutdown, one interval apart
_EDIT_ATTEMPTS = 20  # an edit redone on the new revision when another process got first
# Statuses of COMMIT refusing a change while the processes write back what Redis lost.
_RESTORING = frozenset({"restarted", "lost", "restoring"})


class RedisAuthority:
    def __init__(self, settings, registry: MapRegistry, documents: Documents = MAPS) -> None:
        """``documents``: the kind it stores (maps, or worlds: app/authority/documents.py),
        with keys of its own; each kind has its authority and follower."""
        self.settings = settings
        self.registry = registry
        self.documents = documents
        self.layout = documents.layout
        self.what = documents.what
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
        # The Redis (its run_id) whose state this process last synchronised with: a change
        # is refused by a Redis that is not that one until this process wrote back its maps.
        self._run_id = ""

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
                run_id = str(client.info("server")["run_id"])
                for raw_name in client.hkeys(self.layout.index):
                    name = raw_name.decode()
                    fields = client.hgetall(self.layout.key(name))
                    if fields:
                        self._install(name, fields)
                log.info(
                    "loaded %d %ss from the shared store %s",
                    len(self.registry),
                    self.what,
                    self.where,
                )
                self._run_id = run_id
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
        folder = upload_folder_once(client, self.settings, self._closed, self.documents)
        if folder is not None:
            self._load_errors = list(folder[1])
            log.info(
                "first start on %s: uploaded %d %ss from %s",
                self.where,
                folder[0],
                self.what,
                self.settings.maps_dir,
            )

    def _install(self, name: str, fields: dict[bytes, bytes]) -> None:
        revision = int(fields[b"revision"])
        if (revision, False) <= self.registry.version(name):
            return
        try:
            grid = self.documents.decode(name, fields, self.settings)
        except (MapLoadError, KeyError, ValueError) as exc:
            reason = exc.reason if isinstance(exc, MapLoadError) else f"malformed entry: {exc}"
            log.error(
                "%s %s revision %d from the shared store not loaded: %s",
                self.what, name, revision, reason,
            )  # fmt: skip
            failure = LoadFailure(file=self.layout.key(name), reason=reason)
            self._decode_errors[name] = (revision, failure)
            return
        self._decode_errors.pop(name, None)
        if self.registry.apply(name, grid, revision):
            log.info("%s %s is now revision %d (shared store)", self.what, name, revision)

    def _publish_errors(self) -> None:
        failed = [failure for _, failure in self._decode_errors.values()]
        self.registry.set_errors(self._load_errors + failed)

    # --- following changes (event loop) -----------------------------------------------------

    async def start(self) -> None:
        # A pooled connection idle for over a second is checked with a PING (retried on a new
        # connection) before a change is sent on it: one left over from before a Redis restart
        # would otherwise fail the change with "connection closed by server".
        self._client = aioredis.Redis.from_url(
            self.url, socket_connect_timeout=2, socket_timeout=10, health_check_interval=1
        )
        self._commit = self._client.register_script(COMMIT)
        self._follower = asyncio.create_task(self._follow(), name="gridpath-store-follower")

    async def _follow(self) -> None:
        assert self._client is not None
        loop = asyncio.get_running_loop()
        backoff = 0.1
        while not self._closed.is_set():
            pubsub = self._client.pubsub(ignore_subscribe_messages=True)
            try:
                await pubsub.subscribe(self.layout.channel)
                await self._resync()  # after subscribing: nothing falls in between
                self._healthy()
                backoff = 0.1
                next_check = loop.time() + _CHECK_INTERVAL
                while not self._closed.is_set():
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
            log.warning(
                "ignored a malformed announcement on %s: %r", self.layout.channel, data[:200]
            )
            return
        if deleted:
            if self.registry.apply(name, None, revision):
                log.info("%s %s deleted at revision %d (shared store)", self.what, name, revision)
        elif (revision, False) > self.registry.version(name):
            await self._fetch(name)

    async def _fetch(self, name: str) -> None:
        """Load ``name``'s current revision from Redis if it is newer than ours."""
        assert self._client is not None
        lock = self._name_locks.setdefault(name, asyncio.Lock())
        async with lock:
            fields = await self._client.hgetall(self.layout.key(name))
            if not fields:  # deleted (or never existed): remember the deletion's revision
                last = await self._client.hget(self.layout.last, name)
                if last is not None and self.registry.apply(name, None, int(last)):
                    log.info(
                        "%s %s deleted at revision %d (shared store)", self.what, name, int(last)
                    )
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
        """Compare every revision with Redis and catch up; write back what Redis lacks (it
        restarted, or lost writes); returns the maps reloaded."""
        assert self._client is not None
        # One consistent view of both hashes (a change updates them together): a map this
        # process creates meanwhile is newer than the view, never taken for a deletion.
        pipe = self._client.pipeline(transaction=True)
        pipe.hgetall(self.layout.index)
        pipe.hgetall(self.layout.last)
        pipe.exists(self.layout.seeded)
        pipe.info("server")
        index, last_given, seeded, info = await pipe.execute()
        remote = {k.decode(): int(v) for k, v in index.items()}
        last = {k.decode(): int(v) for k, v in last_given.items()}
        caught_up, lost = [], []  # lost: what this process holds newer than Redis
        for name, revision in remote.items():
            version = self.registry.version(name)
            if (revision, False) > version:
                await self._fetch(name)
                caught_up.append(name)
            elif (revision, False) < version:  # ours is newer, or deleted since
                lost.append(name)
        for name in self.registry.names():
            if name in remote:
                continue
            if last.get(name, 0) >= self.registry.version(name)[0]:
                if self.registry.apply(name, None, last[name]):
                    log.info(
                        "%s %s deleted at revision %d (shared store)", self.what, name, last[name]
                    )
                    caught_up.append(name)
            else:  # Redis lacks it: lost, never a reason to drop it here
                lost.append(name)
        for name, revision in self.registry.deletions().items():
            if name not in remote and last.get(name, 0) < revision:
                lost.append(name)  # a deletion Redis forgot: its revision must stay given
        run_id = str(info["run_id"])
        lost = await still_lost(self._client, self.registry, lost, self.layout)
        if lost or run_id != self._run_id:
            restarted = run_id != self._run_id
            if restarted:
                log.warning(
                    "the shared store %s restarted: writing back what it lacks (%d %ss)",
                    self.where,
                    len(lost),
                    self.what,
                )
            assert self._commit is not None
            await write_back(self._client, self._commit, self.registry, lost, self.documents)
        self._run_id = run_id
        if not seeded:  # Redis lost everything: the maps restored above are the state now
            if await self._client.set(self.layout.seeded, "1", nx=True):
                log.warning(
                    "the shared store %s was empty: restored it from this process", self.where
                )
        return caught_up

    async def _refused(self, status: str) -> StoreUnavailable:
        """The answer to a change refused while the maps are written back; if this process
        is the one that found Redis restarted or behind, it writes back its maps first."""
        if status != "restoring":
            try:
                await self._resync()
            except (RedisError, OSError) as exc:
                return self._unavailable(exc)
        return StoreUnavailable(
            f"the shared map store {self.where} restarted or lost maps, and the processes "
            "are writing back the revisions they hold; nothing was changed: try again in a "
            "moment"
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
            reply = parse_reply(await self._commit(keys=keys, args=args))
        except (RedisError, OSError) as exc:
            raise self._unavailable(exc) from None
        if reply[0] in _RESTORING:
            raise await self._refused(reply[0])
        return reply

    async def _current(self, name: str, if_revision: int | None) -> MapSnapshot:
        grid = self.registry.find(name)
        if grid is None or (if_revision is not None and if_revision > grid.revision):
            try:
                await self._fetch(name)  # we may be behind: catch up first
            except (RedisError, OSError) as exc:
                raise self._unavailable(exc) from None
        return self.registry.get(name)

    async def update(
        self, name: str, change: GridEdit | PolygonEdit, if_revision: int | None
    ) -> MapSnapshot:
        # One edit of a map at a time in this process: its edits never race each other, so
        # an edit is redone ("behind") only when another process changed the map meanwhile.
        async with self._edit_locks.setdefault(name, asyncio.Lock()):
            return await self._update(name, change, if_revision)

    async def _update(
        self, name: str, change: GridEdit | PolygonEdit, if_revision: int | None
    ) -> MapSnapshot:
        for _attempt in range(_EDIT_ATTEMPTS):
            current = await self._current(name, if_revision)
            if if_revision is not None and if_revision < current.revision:
                # Revisions only grow: a conflict now, before an edit meant for another
                # revision is computed (and perhaps refused as invalid on this one).
                raise _conflict(self.what, name, current.revision, if_revision)
            new = await asyncio.to_thread(current.edit, change, current.revision + 1)
            upload = await asyncio.to_thread(self.documents.encode, new)
            keys, args = commit_args(
                name,
                "put",
                if_revision=if_revision,
                base=current.revision,
                grid=new,
                upload=upload,
                known=current.revision,
                run_id=self._run_id,
                layout=self.layout,
            )
            status, revision, _ = await self._run(keys, args)
            if status == "ok":
                new = new if new.revision == revision else with_revision(new, revision)
                self.registry.apply(name, new, revision)
                return new
            if status == "conflict":
                raise _conflict(self.what, name, revision, if_revision)
            if status == "missing" or (status == "behind" and revision == 0):
                self.registry.apply(name, None, self.registry.version(name)[0])
                raise self.registry.missing(name)
            try:  # behind: another process changed it; edit the new one
                await self._fetch(name)
            except (RedisError, OSError) as exc:
                raise self._unavailable(exc) from None
        raise StoreUnavailable(
            f"{self.what} {name!r} kept changing under this edit; nothing was changed"
        )

    async def replace(
        self, name: str, parsed: MapSnapshot, upload: Upload | None, if_revision: int | None
    ) -> tuple[MapSnapshot, bool]:
        if upload is None:
            upload = await asyncio.to_thread(self.documents.encode, parsed)
        held = self.registry.find(name)
        keys, args = commit_args(
            name,
            "put",
            if_revision=if_revision,
            grid=parsed,
            upload=upload,
            known=held.revision if held is not None else 0,
            run_id=self._run_id,
            layout=self.layout,
        )
        status, revision, existed = await self._run(keys, args)
        if status == "conflict":
            raise _conflict(self.what, name, revision, if_revision)
        grid = with_revision(parsed, revision)
        await asyncio.to_thread(self.registry.apply, name, grid, revision)  # builds its search data
        return grid, existed

    async def delete(self, name: str, if_revision: int | None) -> MapSnapshot:
        current = await self._current(name, None)
        keys, args = commit_args(
            name,
            "delete",
            if_revision=if_revision,
            known=current.revision,
            run_id=self._run_id,
            layout=self.layout,
        )
        status, revision, _ = await self._run(keys, args)
        if status == "conflict":
            raise _conflict(self.what, name, revision, if_revision)
        if status == "missing":
            raise self.registry.missing(name)
        self.registry.apply(name, None, revision)
        return current if current.revision == revision else with_revision(current, revision)

    def status(self) -> StoreStatus:
        return self._status

    async def close(self) -> None:
        """Stop the follower and close the client, within a bounded time: shutdown never
        hangs on the store."""
        self._closed.set()
        follower = self._follower
        # A cancellation can be lost inside the client (a read timeout expiring as it
        # arrives): the follower's loops also stop on ``_closed``, so a cancellation sent
        # again ends it within one check interval.
        for _attempt in range(_CLOSE_ATTEMPTS):
            if follower is None or follower.done():
                break
            follower.cancel()
            await asyncio.wait({follower}, timeout=_CHECK_INTERVAL)
        else:
            log.error("the shared store follower did not stop; closing its client anyway")
        if self._client is not None:
            try:
                await asyncio.wait_for(self._client.aclose(), _CHECK_INTERVAL)
            except (asyncio.TimeoutError, RedisError, OSError) as exc:
                log.warning("the shared store client did not close cleanly: %r", exc)


def _conflict(what: str, name: str, current: int, if_revision: int | None) -> RevisionConflict:
    found = f"at revision {current}" if current else "absent"
    return RevisionConflict(
        f"{what} {name!r} is {found}, not at revision {if_revision}; nothing was changed"
    )
