"""Who else serves this maps folder? A lock file every process holds shared.

Decision (issue 12): with no shared store, a process accepts map changes only when it can be
sure no other process serves the same folder, because a change it makes would exist in its
own memory (and files) only. Every process holds a *shared* lock on byte 0 of the folder's
lock file for as long as it runs; a change first tries to upgrade it to *exclusive* without
waiting. The upgrade succeeds only if no other process holds the lock, and it is atomic (the
shared lock is kept when it fails), then it is downgraded again when the change is done.
Byte 1 serialises the revision records (``.gridpath-revisions.json``) between processes.

Open-file-description locks (``F_OFD_SETLK``, Linux 3.15+) are used: they belong to the open
file, so two services in one process (tests) see each other, and closing another descriptor
of the file does not drop them. Elsewhere the classic POSIX record locks are used (same
semantics between processes; not between two services in one process).

What this detects: ``uvicorn --workers N``, gunicorn workers, several processes or containers
sharing the folder (or ``MAP_STATE_DIR``) on one host's filesystem. What it cannot detect:
processes on other hosts over a filesystem without working locks, or containers that share
a read-only maps volume but each have their own state dir (give them one shared
``MAP_STATE_DIR``, or use ``MAP_STORE``).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import struct
import threading
from collections.abc import Iterator
from pathlib import Path

_OFD = hasattr(fcntl, "F_OFD_SETLK")
PRESENCE = 0  # byte held shared by every process serving the folder
RECORDS = 1  # byte held exclusive while the revision records are read and written


class FolderLock:
    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o666)
        # The records byte locks other processes out; this, the threads of this one (the
        # maps' and the worlds' authorities share this lock, and its file description).
        self._records_guard = threading.Lock()

    def _set(self, kind: int, byte: int, wait: bool) -> bool:
        try:
            if _OFD:
                # struct flock: l_type, l_whence, l_start, l_len, l_pid (0 for OFD locks)
                arg = struct.pack("hhqqi4x", kind, os.SEEK_SET, byte, 1, 0)
                cmd = fcntl.F_OFD_SETLKW if wait else fcntl.F_OFD_SETLK
                fcntl.fcntl(self.fd, cmd, arg)
            else:  # pragma: no cover - non-Linux
                op = {fcntl.F_RDLCK: fcntl.LOCK_SH, fcntl.F_WRLCK: fcntl.LOCK_EX}.get(
                    kind, fcntl.LOCK_UN
                )
                fcntl.lockf(self.fd, op | (0 if wait else fcntl.LOCK_NB), 1, byte)
            return True
        except (BlockingIOError, PermissionError):
            return False

    def hold_shared(self) -> None:
        """Announce this process (blocks while another process is changing maps)."""
        self._set(fcntl.F_RDLCK, PRESENCE, wait=True)

    def try_exclusive(self) -> bool:
        """Upgrade to exclusive if no other process holds the folder; never waits."""
        return self._set(fcntl.F_WRLCK, PRESENCE, wait=False)

    def back_to_shared(self) -> None:
        self._set(fcntl.F_RDLCK, PRESENCE, wait=True)

    @contextlib.contextmanager
    def records(self) -> Iterator[None]:
        """Exclusive use of the revision records, between processes and threads (waits)."""
        with self._records_guard:
            self._set(fcntl.F_WRLCK, RECORDS, wait=True)
            try:
                yield
            finally:
                self._set(fcntl.F_UNLCK, RECORDS, wait=True)

    def close(self) -> None:
        with contextlib.suppress(OSError):
            os.close(self.fd)
