"""The registry of snapshots: revisions applied in order only, and waiting for a revision."""

from __future__ import annotations

import asyncio
import threading
import time

from gridpath.maps import MapRegistry
from gridpath.maps.registry import with_revision
from tests.conftest import make_grid

ART = "....\n.##.\n....\n"


def test_apply_never_goes_back():
    registry = MapRegistry()
    grid = make_grid(ART, "m")
    assert registry.apply("m", grid, 2)
    assert registry.get("m").revision == 2
    assert not registry.apply("m", grid, 1)  # older: ignored
    assert not registry.apply("m", grid, 2)  # the same: ignored
    assert registry.get("m").revision == 2
    assert registry.apply("m", None, 2)  # deleted at 2 comes after 2 itself
    assert "m" not in registry
    assert not registry.apply("m", grid, 2)  # and 2 cannot come back
    assert registry.version("m") == (2, True)
    assert registry.apply("m", grid, 3)
    assert registry.get("m").revision == 3 and registry.version("m") == (3, False)


def test_with_revision_shares_content():
    grid = make_grid(ART, "m")
    again = with_revision(grid, 7, source="m.png")
    assert (again.revision, again.source, again.sha256) == (7, "m.png", grid.sha256)
    assert again.passable is grid.passable and again.jump_distances is grid.jump_distances
    assert grid.revision == 1  # the original is untouched


def test_wait_is_woken_by_a_change_from_another_thread():
    registry = MapRegistry()
    registry.apply("m", make_grid(ART, "m"), 1)

    async def scenario() -> tuple[bool, float]:
        timer = threading.Timer(0.1, registry.apply, ("m", make_grid(ART, "m"), 2))
        began = time.perf_counter()
        timer.start()
        reached = await registry.wait_for("m", 2, timeout=5.0)
        return reached, time.perf_counter() - began

    reached, waited = asyncio.run(scenario())
    assert reached and registry.get("m").revision == 2
    assert 0.05 < waited < 2.0  # woken by the change, long before the timeout
    assert not registry._waiters  # nothing left behind


def test_wait_times_out_when_the_revision_does_not_come():
    registry = MapRegistry()
    registry.apply("m", make_grid(ART, "m"), 1)

    async def scenario() -> tuple[bool, float]:
        began = time.perf_counter()
        reached = await registry.wait_for("m", 3, timeout=0.2)
        return reached, time.perf_counter() - began

    reached, waited = asyncio.run(scenario())
    assert not reached and waited >= 0.19
    assert not registry._waiters


def test_a_revision_already_here_does_not_wait():
    registry = MapRegistry()
    registry.apply("m", make_grid(ART, "m"), 4)
    assert asyncio.run(registry.wait_for("m", 3, timeout=0.0))
    assert (
        registry.reached("m", 4) and not registry.reached("m", 5) and not registry.reached("x", 1)
    )
