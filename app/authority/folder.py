"""The folder authority (``MAP_STORE`` unset): the maps of ``MAPS_DIR``, one process.

Decisions:

* **Revisions survive restarts and only grow**, across deletes: the last revision of every
  name (and the content hash it had) is kept in ``.gridpath-revisions.json`` in the state
  dir: ``MAPS_DIR`` itself with ``MAPS_WRITABLE=true`` (beside the maps), else
  ``MAP_STATE_DIR`` (default: the runtime dir, one folder per maps folder's real path). At
  start-up a file whose content hash is the recorded one keeps its revision; a changed,
  new or re-added file gets the next one. Processes read and write the records under a
  lock, so processes that load the same file give it the same revision.
* **Hot reload**: a map file added, changed or removed becomes a new revision without a
  restart (``watchfiles``; polling every ``MAPS_POLL_INTERVAL`` s when it cannot watch or
  ``MAPS_RELOAD=poll``). A file is re-read only when its size or modification time (or its
  sidecar's) changed, and it becomes a new revision only when its content hash changed (so
  the service's own writes, and ``touch``, change nothing). A file that fails to load keeps
  the previous revision serving and is listed in ``/health``'s errors until it loads.
  The watcher leaves the API's changes alone (a map deleted or edited through the API stays
  so while its file is unchanged; a map created by ``PUT`` without a file stays).
* **An explicit reload** (``POST /maps/reload``, ``SIGHUP``) **serves what a restart would**:
  the folder. Without ``MAPS_WRITABLE`` the API's changes live in memory only, so a map
  deleted or edited through the API whose file is still there is served from its file
  again, as a new revision, and a map created by ``PUT`` (no file) is removed, as after a
  restart. The one difference: a file that fails to load keeps its previous revision
  serving (a restart would serve nothing under that name), listed in the errors.
* **One process only changes maps** (:mod:`app.authority.folder_lock`): a change from the API
  when another process serves the same folder is refused with ``shared_store_required``.
* **Worlds** (``NAME.world.json``) are documents of the same folder under the same rules
  (app/authority/documents.py): a second authority of kind worlds shares the maps
  authority's lock, and is reloaded right after it, by the same watcher, reload or ``SIGHUP``
  (a world is checked against the maps it names as its file is read).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import os
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path

from app.authority.base import Change, ReloadReport, StoreStatus, Upload
from app.authority.documents import MAPS, Documents
from app.authority.folder_lock import FolderLock
from gridpath.errors import MapLoadError, RevisionConflict, SharedStoreRequired
from gridpath.grid.edits import GridEdit
from gridpath.maps import LoadFailure, MapRegistry, persist
from gridpath.maps.registry import check_revision, with_revision
from gridpath.maps.snapshot import MapSnapshot
from gridpath.nav.snapshot import PolygonEdit

log = logging.getLogger(__name__)

RECORDS_FILE = ".gridpath-revisions.json"
LOCK_FILE = ".gridpath.lock"


def state_dir(settings) -> Path:
    """Where the lock and the revision records live (see the module docstring)."""
    if settings.maps_writable:
        return Path(settings.maps_dir)
    base = settings.map_state_dir or Path(
        os.environ.get("XDG_RUNTIME_DIR") or tempfile.gettempdir(), f"gridpath-{os.getuid()}"
    )
    key = hashlib.sha256(str(Path(settings.maps_dir).resolve()).encode()).hexdigest()[:16]
    return Path(base) / key


def _stat(path: Path) -> tuple[int, int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_size, st.st_mtime_ns


def fingerprint(path: Path) -> tuple:
    """Cheap change detection: size and modification time of the file and its sidecar."""
    return _stat(path), _stat(path.with_suffix(".json"))


class FolderAuthority:
    def __init__(
        self,
        settings,
        registry: MapRegistry,
        documents: Documents = MAPS,
        site: FolderAuthority | None = None,
    ) -> None:
        """``site``: the authority whose lock, watcher and reloads this one shares (the maps
        authority, for the worlds of the same folder)."""
        self.settings = settings
        self.registry = registry
        self.documents = documents
        self.site = site
        self.followers: list[FolderAuthority] = []  # reloaded right after this one
        if site is not None:
            site.followers.append(self)
        self.directory = Path(settings.maps_dir)
        self.state_dir = state_dir(settings)
        self.records_path = self.state_dir / RECORDS_FILE
        self.lock: FolderLock | None = None
        self._fingerprints: dict[str, tuple] = {}  # name -> fingerprint of the file serving
        self._file_sha: dict[str, str] = {}  # name -> content hash of that file
        self._failed: dict[str, tuple[tuple, LoadFailure]] = {}  # name -> (fingerprint, why)
        self._change_lock = threading.Lock()  # one change or reload at a time in this process
        self._stop = threading.Event()
        self._watcher: threading.Thread | None = None
        self._watching = "off"

    # --- start-up and hot reload ---------------------------------------------------------

    def load(self) -> None:
        """Serve the folder's documents of this kind; a follower (worlds) loads after its
        site (maps), whose lock it shares and whose watcher reloads it."""
        if self.site is not None:
            self.reload_now()
            return
        try:
            self.lock = FolderLock(self.state_dir / LOCK_FILE)
            self.lock.hold_shared()
        except OSError as exc:  # no state dir: serve, but refuse changes (never diverge)
            log.error("cannot create the folder lock in %s: %s", self.state_dir, exc)
            self.lock = None
        for follower in self.followers:
            follower.lock = self.lock
        self.reload_now()
        if self.settings.maps_reload != "off":
            self._watcher = threading.Thread(
                target=self._watch, name="gridpath-maps-watch", daemon=True
            )
            self._watcher.start()

    async def start(self) -> None:
        return None

    def _watch(self) -> None:
        if self.settings.maps_reload == "watch":
            try:
                from watchfiles import watch

                self._watching = "watch"
                for _ in watch(
                    self.directory,
                    watch_filter=lambda _change, path: not Path(path).name.startswith("."),
                    stop_event=self._stop,
                    recursive=False,
                    debounce=200,
                    step=50,
                    rust_timeout=int(self.settings.maps_poll_interval * 1000),
                    yield_on_timeout=True,
                ):
                    self._reload_logged()
                return
            except Exception as exc:  # no inotify (limits, some filesystems): poll instead
                log.warning("cannot watch %s (%s); polling for map changes", self.directory, exc)
        self._watching = "poll"
        while not self._stop.wait(self.settings.maps_poll_interval):
            self._reload_logged()

    def _reload_logged(self) -> None:
        try:
            self.reload_now()
            for follower in self.followers:  # worlds after the maps they name
                follower.reload_now()
        except Exception:  # the watcher must outlive any one bad reload
            if not self._stop.is_set():  # (a folder removed at shutdown is no news)
                log.exception("map reload failed")

    async def reload(self) -> ReloadReport:
        return await asyncio.to_thread(self.reload_now, True)

    def _as_file(self, name: str) -> bool:
        """Whether the map served under ``name`` is its file's content (not deleted or
        edited through the API since)."""
        current = self.registry.find(name)
        return current is not None and current.sha256 == self._file_sha.get(name)

    def reload_now(self, as_restart: bool = False) -> ReloadReport:
        """Compare the folder with what is served; new revisions for what changed. The
        watcher: the files changed on disk only (then its followers'). ``as_restart`` (an
        explicit reload): the folder as a restart would serve it (the module docstring)."""
        s = self.settings
        with self._change_lock:
            files, errors = self.documents.scan(self.directory)
            loaded: dict[str, MapSnapshot] = {}
            for name, path in files.items():
                mark = fingerprint(path)
                if self._fingerprints.get(name) == mark and not (
                    as_restart and not self._as_file(name)
                ):
                    continue  # unchanged since loaded or written
                failed = self._failed.get(name)
                if failed is not None and failed[0] == mark:
                    errors.append(failed[1])
                    continue
                try:
                    grid = self.documents.load(path, s)
                except MapLoadError as exc:
                    failure = LoadFailure(file=path.name, reason=exc.reason)
                    self._failed[name] = (mark, failure)
                    errors.append(failure)
                    if name in self.registry:
                        log.error("%s %s keeps serving its previous revision", self.what, name)
                    continue
                self._failed.pop(name, None)
                self._fingerprints[name] = mark
                self._file_sha[name] = grid.sha256
                current = self.registry.find(name)
                if current is None or current.sha256 != grid.sha256:
                    loaded[name] = grid
            served = self.registry.names() if as_restart else self._fingerprints
            removed = [n for n in served if n not in files and n in self.registry]
            for name in [n for n in self._failed if n not in files]:
                del self._failed[name]
            # the errors first: whoever sees the new revisions sees the errors that go with them
            self.registry.set_errors(errors)
            changes: list[Change] = []
            if loaded or removed:
                with self._records() as records:
                    for name, grid in loaded.items():
                        known, _ = self.registry.version(name)
                        record = records.get(name, {})
                        if (
                            record.get("sha256") == grid.sha256
                            and not record.get("deleted")
                            and record.get("revision", 0) > known
                        ):
                            revision = record["revision"]  # numbered by another process
                        else:
                            revision = max(known, record.get("revision", 0)) + 1
                            records[name] = {"revision": revision, "sha256": grid.sha256}
                        self.registry.apply(name, grid, revision)
                        changes.append(Change(name, revision))
                        log.info(
                            "%s %s is now revision %d (from %s)",
                            self.what, name, revision, grid.source,
                        )  # fmt: skip
                    for name in removed:
                        revision = self.registry.version(name)[0]
                        records[name] = {"revision": revision, "sha256": "", "deleted": True}
                        self.registry.apply(name, None, revision)
                        self._fingerprints.pop(name, None)
                        self._file_sha.pop(name, None)
                        changes.append(Change(name, revision, deleted=True))
                        log.info("%s %s removed (it has no file)", self.what, name)
            return ReloadReport(changes, errors)

    @property
    def what(self) -> str:
        return self.documents.what

    @contextlib.contextmanager
    def _records(self):
        """The revision records of this kind, read and written back under the records lock
        (the file holds every kind's: ``{"maps": {...}, "worlds": {...}}``)."""
        lock = self.lock.records() if self.lock else contextlib.nullcontext()
        with lock:
            try:
                every = json.loads(self.records_path.read_bytes())
                every = every if isinstance(every, dict) else {}
            except (OSError, ValueError):
                every = {}
            records = every.get(self.documents.records)
            if not isinstance(records, dict):
                records = every[self.documents.records] = {}
            yield records
            try:
                persist.atomic_write(self.records_path, json.dumps(every, indent=1).encode())
            except OSError as exc:
                log.error("cannot write the revision records %s: %s", self.records_path, exc)

    # --- changes from the API --------------------------------------------------------------

    @contextlib.contextmanager
    def _alone(self):
        """Exclusive use of the folder for one change, or ``shared_store_required``."""
        if self.lock is None:
            raise SharedStoreRequired(
                f"map changes are refused: the folder lock in {self.state_dir} could not be "
                "created, so this process cannot tell whether others serve the same maps; "
                "set MAP_STATE_DIR to a writable folder, or MAP_STORE=redis://host:port/db; "
                "nothing was changed"
            )
        if not self.lock.try_exclusive():
            raise SharedStoreRequired(
                "map changes are refused: other processes serve the same maps folder "
                f"({self.directory}) and would not see them; set MAP_STORE=redis://host:port/db "
                "to share maps between processes, or run one process; nothing was changed"
            )
        try:
            yield
        finally:
            self.lock.back_to_shared()

    def _change(
        self, name: str, make: Callable[[int], tuple[MapSnapshot | None, Upload | None]]
    ) -> MapSnapshot:
        """Number, persist, record and apply one change (``make(revision)``)."""
        with self._change_lock, self._alone(), self._records() as records:
            known, _ = self.registry.version(name)
            revision = max(known, records.get(name, {}).get("revision", 0)) + 1
            grid, upload = make(revision)
            if grid is None:  # a deletion: the revision deleted is the current one
                current = self.registry.get(name)
                if self.settings.maps_writable:
                    self.documents.remove(self.directory, name)
                    self._fingerprints.pop(name, None)
                    self._file_sha.pop(name, None)
                records[name] = {"revision": known, "sha256": "", "deleted": True}
                self.registry.apply(name, None, known)
                return current
            if self.settings.maps_writable:  # StorageError if the disk says no: nothing applied
                path = self.documents.save(self.directory, grid, upload)
                self._fingerprints[name] = fingerprint(path)
                self._file_sha[name] = grid.sha256
            grid = with_revision(grid, revision)
            records[name] = {"revision": revision, "sha256": grid.sha256}
            self.registry.apply(name, grid, revision)
            return grid

    async def update(
        self, name: str, change: GridEdit | PolygonEdit, if_revision: int | None
    ) -> MapSnapshot:
        def make(revision: int) -> tuple[MapSnapshot, None]:
            current = self.registry.get(name)
            check_revision(current, if_revision, self.what)
            return current.edit(change, revision), None

        return await asyncio.to_thread(self._change, name, make)

    async def replace(
        self, name: str, parsed: MapSnapshot, upload: Upload | None, if_revision: int | None
    ) -> tuple[MapSnapshot, bool]:
        existed = name in self.registry

        def make(revision: int) -> tuple[MapSnapshot, Upload | None]:
            current = self.registry.find(name)
            if if_revision is not None and (current is None or current.revision != if_revision):
                found = "absent" if current is None else f"at revision {current.revision}"
                raise RevisionConflict(
                    f"{self.what} {name!r} is {found}, not at revision {if_revision}; "
                    "nothing was changed"
                )
            return parsed, upload

        grid = await asyncio.to_thread(self._change, name, make)
        return grid, existed

    async def delete(self, name: str, if_revision: int | None) -> MapSnapshot:
        def make(revision: int) -> tuple[None, None]:
            check_revision(self.registry.get(name), if_revision, self.what)
            return None, None

        return await asyncio.to_thread(self._change, name, make)

    def status(self) -> StoreStatus:
        return StoreStatus(kind="folder")

    async def close(self) -> None:
        self._stop.set()
        if self.lock is not None:
            self.lock.close()
