"""Real uvicorn processes on the folder store: SIGHUP reloads the maps, and several workers
on one folder refuse map changes (``shared_store_required``) instead of diverging."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from app.authority.folder import LOCK_FILE, state_dir
from app.config import Settings
from bench.server import ServerSpec, running_server
from tests.conftest import MAPS_DIR
from tests.system.test_server import call


@contextmanager
def uvicorn(maps: Path, state: Path, workers: int = 1) -> Iterator[tuple[str, subprocess.Popen]]:
    """A server on the folder store (no MAP_STORE), reloading on SIGHUP only."""
    env = {"MAPS_DIR": str(maps), "MAP_STATE_DIR": str(state), "ADMIN_TOKEN": "admin"}
    spec = ServerSpec({**env, "MAPS_RELOAD": "off", "MAP_STORE": None}, workers=workers)
    with running_server(spec) as server:
        yield server.url, server.process


def holders(lock_file: Path) -> int:
    """Processes holding the folder lock (open-file-description locks in /proc/locks)."""
    inode = os.stat(lock_file).st_ino
    lines = Path("/proc/locks").read_text().splitlines()
    return sum(1 for line in lines if "OFDLCK" in line and line.split()[5].endswith(f":{inode}"))


def patch(base: str, body: dict) -> tuple[int, dict]:
    import urllib.error
    import urllib.request

    request = urllib.request.Request(
        base + "/maps/arena",
        data=json.dumps(body).encode(),
        method="PATCH",
        headers={"content-type": "application/json", "authorization": "Bearer admin"},
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def test_sighup_reloads_the_folder(tmp_path):
    maps = tmp_path / "maps"
    shutil.copytree(MAPS_DIR, maps, ignore=shutil.ignore_patterns("*.py", "*.md"))
    with uvicorn(maps, tmp_path / "state") as (base, process):
        (maps / ".new.map").write_bytes(b"type octile\nheight 1\nwidth 3\nmap\n...\n")
        os.replace(maps / ".new.map", maps / "new.map")
        time.sleep(0.3)
        assert call(base + "/maps/new")[0] == 404  # MAPS_RELOAD=off: not yet
        process.send_signal(signal.SIGHUP)
        deadline = time.monotonic() + 10
        while call(base + "/maps/new")[0] != 200:
            assert time.monotonic() < deadline, "SIGHUP did not reload"
            time.sleep(0.05)
        assert json.loads(call(base + "/maps/new")[1])["revision"] == 1


def test_two_workers_without_a_shared_store_refuse_changes(tmp_path):
    edit = {"set": [{"cells": [[2, 2]], "value": "blocked"}]}
    with uvicorn(MAPS_DIR, tmp_path / "state", workers=2) as (base, _):
        lock = state_dir(Settings(maps_dir=MAPS_DIR, map_state_dir=tmp_path / "state"))
        deadline = time.monotonic() + 600
        while holders(lock / LOCK_FILE) < 2:  # both workers hold the folder lock
            assert time.monotonic() < deadline, "the second worker never started"
            time.sleep(0.1)
        refused = 0
        while refused < 4:  # whichever worker answers; a worker still warming up: not_ready
            status, body = patch(base, edit)
            assert status == 503 and body["error"]["code"] in ("shared_store_required", "not_ready")
            refused += body["error"]["code"] == "shared_store_required"
            assert time.monotonic() < deadline, "the workers never became ready"
        revisions = []
        while len(revisions) < 6:  # the other worker may still be warming up (not_ready)
            status, raw = call(base + "/maps/arena")
            if status == 200:
                revisions.append(json.loads(raw)["revision"])
            else:
                assert status == 503 and json.loads(raw)["error"]["code"] == "not_ready"
                assert time.monotonic() < deadline, "the workers never became ready"
                time.sleep(0.05)
        assert set(revisions) == {1}  # nothing was changed
    with uvicorn(MAPS_DIR, tmp_path / "state") as (base, _):
        status, body = patch(base, edit)
        assert status == 200 and body["revision"] == 2
