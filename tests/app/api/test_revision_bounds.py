"""Issue 22: a revision below 1 names no revision (they start at 1), so it is a bad request
(422 ``invalid_request``), not a conflict (409 ``stale_revision`` / ``revision_conflict``),
wherever a request names one; and it changes nothing."""

from __future__ import annotations

import pytest

from tests.app.api.test_api_admin import ADMIN, admin, png_bytes  # noqa: F401  (the fixture)

PATH = {"map": "arena", "start": [2, 2], "goal": [8, 8]}
POLYGON = {"map": "courtyard", "start": [1.25, 2.5], "goal": [45, 15]}
EDIT = {"set": [{"cells": [[3, 3]], "value": "blocked"}]}


def bodies(revision: int) -> list[tuple[str, str, dict]]:
    return [
        ("post", "/path", {"json": {**PATH, "revision": revision}}),
        ("post", "/path", {"json": {**POLYGON, "revision": revision}}),
        ("post", "/flowfield", {"json": {"map": "arena", "goal": [8, 8], "revision": revision}}),
        ("post", "/validate", {"json": {"map": "arena", "path": [[2, 2]], "revision": revision}}),
        ("get", f"/maps/arena?revision={revision}", {}),
        ("patch", "/maps/arena", {"json": {**EDIT, "if_revision": revision}}),
        ("put", f"/maps/arena?if_revision={revision}", {"content": png_bytes([[255, 255]])}),
        ("delete", f"/maps/arena?if_revision={revision}", {}),
    ]


@pytest.mark.parametrize("revision", [-1, 0])
def test_a_revision_below_one_is_a_bad_request(admin, revision):  # noqa: F811
    before = admin.get("/maps/arena").json()
    for method, url, kwargs in bodies(revision):
        answer = getattr(admin, method)(url, headers=ADMIN, **kwargs)
        assert answer.status_code == 422, (method, url, answer.text)
        assert answer.headers["content-type"] == "application/json"
        error = answer.json()["error"]
        assert error["code"] == "invalid_request", (method, url, error)
        assert "revision" in error["message"], (method, url, error)
    query = {"start": [2, 2], "goal": [8, 8], "revision": revision}
    batch = admin.post("/paths", json={"map": "arena", "queries": [query]})
    assert batch.status_code == 200  # a batch answers each query: this one's error
    assert batch.json()["results"][0]["error"]["code"] == "invalid_request", batch.text
    assert admin.get("/maps/arena").json() == before  # nothing changed


def test_revision_one_is_still_a_revision(admin):  # noqa: F811
    assert admin.post("/path", json={**PATH, "revision": 1}).status_code == 200
    changed = admin.patch("/maps/arena", json={**EDIT, "if_revision": 1}, headers=ADMIN)
    assert changed.status_code == 200 and changed.json()["revision"] == 2
    stale = admin.post("/path", json={**PATH, "revision": 1})
    assert stale.status_code == 409 and stale.json()["error"]["code"] == "stale_revision"
