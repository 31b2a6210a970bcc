"""The folder map store (MAP_STORE unset): revisions across restarts, hot reload, one process."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.authority.folder import LOCK_FILE, RECORDS_FILE, state_dir
from app.config import Settings
from app.main import create_app
from tests.conftest import MAPS_DIR, ROOT, wait_ready

ADMIN = {"authorization": "Bearer admin"}
BLOCK = {"set": [{"cells": [[2, 2]], "value": "blocked"}]}


def movingai(rows: list[str]) -> bytes:
    return (
        f"type octile\nheight {len(rows)}\nwidth {len(rows[0])}\nmap\n".encode()
        + ("\n".join(rows) + "\n").encode()
    )


def write(path: Path, data: bytes) -> None:
    """Replace a file at once, as a deploy tool would (rename over it)."""
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


@pytest.fixture
def maps(tmp_path: Path) -> Path:
    folder = tmp_path / "maps"
    shutil.copytree(MAPS_DIR, folder, ignore=shutil.ignore_patterns("*.py", "*.md"))
    return folder


def config(folder: Path, tmp_path: Path, **extra) -> Settings:
    extra.setdefault("maps_reload", "off")
    return Settings(maps_dir=folder, admin_token="admin", map_state_dir=tmp_path / "state", **extra)


@contextmanager
def serving(settings: Settings) -> Iterator[TestClient]:
    with TestClient(create_app(settings)) as client:
        wait_ready(client)
        yield client


def eventually(check: Callable[[], bool], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "did not happen in time"
        time.sleep(0.05)


def revision(client: TestClient, name: str) -> int | None:
    answer = client.get(f"/maps/{name}")
    return answer.json()["revision"] if answer.status_code == 200 else None


def test_revisions_survive_restarts_beside_the_maps(maps, tmp_path):
    settings = config(maps, tmp_path, maps_writable=True)
    with serving(settings) as client:
        changed = client.patch("/maps/arena", json=BLOCK, headers=ADMIN).json()
        assert changed["revision"] == 2
        assert client.delete("/maps/maze", headers=ADMIN).json()["revision"] == 1
    assert (maps / RECORDS_FILE).is_file() and (maps / LOCK_FILE).is_file()  # beside the maps
    with serving(settings) as client:
        arena = client.get("/maps/arena").json()
        assert (arena["revision"], arena["sha256"]) == (2, changed["sha256"])
        assert client.get("/maps/maze").status_code == 404
        body = movingai(["...", "..."])
        assert client.put("/maps/maze", content=body, headers=ADMIN).json()["revision"] == 2
    with serving(settings) as client:
        assert (revision(client, "arena"), revision(client, "maze")) == (2, 2)


def test_revisions_never_go_back_without_maps_writable(maps, tmp_path):
    """Edits live in memory only; after a restart the file is served again, as a new
    revision (the records are kept in MAP_STATE_DIR)."""
    settings = config(maps, tmp_path)
    with serving(settings) as client:
        original = client.get("/maps/arena").json()
        assert client.patch("/maps/arena", json=BLOCK, headers=ADMIN).json()["revision"] == 2
    assert not (maps / RECORDS_FILE).exists()
    assert (state_dir(settings) / RECORDS_FILE).is_file()
    with serving(settings) as client:
        arena = client.get("/maps/arena").json()
        assert (arena["revision"], arena["sha256"]) == (3, original["sha256"])
    with serving(settings) as client:  # nothing changed since: the same revision
        assert revision(client, "arena") == 3


@pytest.mark.parametrize("mode", ["watch", "poll"])
def test_hot_reload(maps, tmp_path, mode):
    settings = config(maps, tmp_path, maps_reload=mode, maps_poll_interval=0.2)
    extra = maps / "extra.map"
    with serving(settings) as client:
        eventually(lambda: client.app.state.service.authority._watching == mode)
        write(extra, movingai(["....", "...."]))
        eventually(lambda: revision(client, "extra") == 1)
        write(extra, movingai(["..@.", "...."]))
        eventually(lambda: revision(client, "extra") == 2)
        assert client.get("/maps/extra").json()["walkable"] == 7

        write(extra, b"type octile\nheight 2\nwidth 4\nmap\n..X.\n")  # broken
        eventually(
            lambda: any(e["file"] == "extra.map" for e in client.get("/health").json()["errors"])
        )
        assert revision(client, "extra") == 2  # the previous revision keeps serving
        assert client.get("/health").status_code == 200

        write(extra, movingai(["@@..", "...."]))
        eventually(lambda: revision(client, "extra") == 3)
        assert client.get("/health").json()["errors"] == []

        extra.unlink()
        eventually(lambda: revision(client, "extra") is None)
        write(extra, movingai(["@@..", "...."]))
        eventually(lambda: revision(client, "extra") == 4)  # revisions grow across deletes
        os.utime(extra)  # touched, same content: no new revision
        time.sleep(1.0)
        assert revision(client, "extra") == 4
    with serving(settings) as client:
        assert revision(client, "extra") == 4


def test_a_map_deleted_through_the_api_stays_deleted_while_its_file_is_unchanged(maps, tmp_path):
    settings = config(maps, tmp_path, maps_reload="poll", maps_poll_interval=0.1)
    with serving(settings) as client:
        assert client.delete("/maps/maze", headers=ADMIN).json()["revision"] == 1
        time.sleep(0.5)  # several scans of the folder: the watcher leaves it deleted
        assert revision(client, "maze") is None
        write(maps / "maze.png", (MAPS_DIR / "arena.png").read_bytes())  # a new file
        eventually(lambda: revision(client, "maze") == 2)


def every_map(client: TestClient) -> dict[str, tuple[int, str]]:
    return {m["name"]: (m["revision"], m["sha256"]) for m in client.get("/maps").json()["maps"]}


@pytest.mark.parametrize("writable", [False, True])
def test_an_explicit_reload_serves_what_a_restart_would(maps, tmp_path, writable):
    """Issue 22: a map deleted through the API whose file is still there came back on a
    restart but not on POST /maps/reload. Now the reload serves exactly what a restart
    would: without MAPS_WRITABLE the API's changes (a delete, an edit, a map created by PUT)
    live in memory only and give way to the folder; with it, they are the folder."""
    settings = config(maps, tmp_path, maps_writable=writable)
    with serving(settings) as client:
        assert client.delete("/maps/maze", headers=ADMIN).status_code == 200
        assert client.patch("/maps/arena", json=BLOCK, headers=ADMIN).status_code == 200
        body = movingai(["...", "..."])
        assert client.put("/maps/fresh", content=body, headers=ADMIN).status_code == 201
        report = client.post("/maps/reload", headers=ADMIN).json()
        reloaded = every_map(client)
        assert client.post("/maps/reload", headers=ADMIN).json()["changed"] == []  # settled
    with serving(settings) as client:
        assert every_map(client) == reloaded
    changed = {c["name"]: c for c in report["changed"]}
    if writable:  # the API's changes are in the folder: nothing to give way
        assert changed == {}
        assert "maze" not in reloaded and reloaded["fresh"][0] == 1
    else:
        assert set(changed) == {"maze", "arena", "fresh"}, report
        assert changed["fresh"]["deleted"] and not changed["maze"]["deleted"]
        assert reloaded["maze"][0] == 2 and reloaded["arena"][0] == 3  # new revisions
        assert "fresh" not in reloaded


def test_own_writes_are_not_reloaded_as_new_revisions(maps, tmp_path):
    settings = config(
        maps, tmp_path, maps_writable=True, maps_reload="poll", maps_poll_interval=0.1
    )
    with serving(settings) as client:
        assert client.patch("/maps/arena", json=BLOCK, headers=ADMIN).json()["revision"] == 2
        time.sleep(0.8)
        assert revision(client, "arena") == 2


def test_reload_on_demand(maps, tmp_path):
    settings = config(maps, tmp_path)  # no watching: only POST /maps/reload (or SIGHUP)
    with serving(settings) as client:
        write(maps / "maze.map", movingai(["...", ".@."]))
        (maps / "maze.png").unlink()
        write(maps / "bad.map", b"nonsense")
        time.sleep(0.3)
        assert revision(client, "maze") == 1
        assert client.post("/maps/reload").status_code in (401, 403)
        report = client.post("/maps/reload", headers=ADMIN)
        assert report.status_code == 200
        assert report.json()["changed"] == [{"name": "maze", "revision": 2, "deleted": False}]
        assert [e["file"] for e in report.json()["errors"]] == ["bad.map"]
        assert client.get("/maps/maze").json()["width"] == 3
        assert client.post("/maps/reload", headers=ADMIN).json()["changed"] == []


def test_changes_refused_while_another_process_serves_the_folder(maps, tmp_path):
    settings = config(maps, tmp_path, maps_writable=True)
    with serving(settings) as client:
        before = client.get("/maps/arena").json()
        # another process serving the same folder: it holds the folder lock shared
        holder = subprocess.Popen(
            [
                sys.executable,
                "-c",
                "import sys; from app.authority.folder_lock import FolderLock; "
                "FolderLock(sys.argv[1]).hold_shared(); print('held', flush=True); "
                "sys.stdin.read()",
                str(maps / LOCK_FILE),
            ],
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            assert holder.stdout.readline().strip() == "held"
            for answer in (
                client.patch("/maps/arena", json=BLOCK, headers=ADMIN),
                client.put("/maps/new", content=movingai([".."]), headers=ADMIN),
                client.delete("/maps/maze", headers=ADMIN),
            ):
                assert answer.status_code == 503
                assert answer.json()["error"]["code"] == "shared_store_required"
                assert "MAP_STORE" in answer.json()["error"]["message"]
            assert client.get("/maps/arena").json() == before  # nothing changed
            assert revision(client, "new") is None and revision(client, "maze") == 1
            assert not (maps / "new.map").exists() and (maps / "maze.png").exists()
        finally:
            holder.stdin.close()
            holder.wait(10)
        # the other process is gone: this one is alone again
        assert client.patch("/maps/arena", json=BLOCK, headers=ADMIN).json()["revision"] == 2


def test_two_services_on_one_folder_refuse_changes(maps, tmp_path):
    settings = config(maps, tmp_path)
    with serving(settings) as first, serving(settings) as second:
        for client in (first, second):
            answer = client.patch("/maps/arena", json=BLOCK, headers=ADMIN)
            assert answer.json()["error"]["code"] == "shared_store_required"
    with serving(settings) as alone:
        assert alone.patch("/maps/arena", json=BLOCK, headers=ADMIN).status_code == 200
