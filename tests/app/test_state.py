"""ServiceState: searches run on threads below the event loop's CPU priority."""

from __future__ import annotations

import os
import platform
import subprocess
import sys
import threading

import pytest

from app.config import Settings
from app.state import ServiceState

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="per-thread nice is Linux's")


def priorities_in_a_thread(state: ServiceState) -> dict[str, int]:
    seen: dict[str, int] = {}

    def work() -> None:
        tid = threading.get_native_id()
        seen["before"] = os.getpriority(os.PRIO_PROCESS, tid)
        with state.search_scratch():
            seen["during"] = os.getpriority(os.PRIO_PROCESS, tid)
        with state.search_scratch():  # lowered once per thread, not once per search
            seen["again"] = os.getpriority(os.PRIO_PROCESS, tid)

    thread = threading.Thread(target=work)
    thread.start()
    thread.join()
    return seen


def test_search_threads_yield_to_the_event_loop():
    main = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    state = ServiceState(Settings(search_nice=5, search_threads=1))
    try:
        seen = priorities_in_a_thread(state)
    finally:
        state.close()
    assert seen["during"] == min(19, seen["before"] + 5) and seen["again"] == seen["during"]
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == main  # untouched


def test_search_nice_zero_leaves_priorities_alone():
    state = ServiceState(Settings(search_nice=0, search_threads=1))
    try:
        seen = priorities_in_a_thread(state)
    finally:
        state.close()
    assert seen["before"] == seen["during"] == seen["again"]


RELEASE = """
import sys
import numpy as np
from app.state import release_large_frees

def rss_mb():
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS"):
            return int(line.split()[1]) / 1024

if sys.argv[1] == "release":
    assert release_large_frees()
big = np.ones(24 << 20, dtype=np.uint8)  # freeing it raises glibc's dynamic threshold
del big
before = rss_mb()
temporary = np.ones(16 << 20, dtype=np.uint8)
kept = np.ones(1 << 20, dtype=np.uint8)  # allocated after: pins the heap's top
del temporary
print(rss_mb() - before)
"""


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="glibc's allocator only")
@pytest.mark.parametrize("mode", ["default", "release"])
def test_freed_map_sized_temporaries_go_back_to_the_os(mode):
    out = subprocess.run(
        [sys.executable, "-c", RELEASE, mode], capture_output=True, text=True, check=True
    )
    growth_mb = float(out.stdout.strip())
    if mode == "release":
        assert growth_mb < 4  # the 16 MB temporary is gone
    else:
        assert growth_mb > 12  # what the service avoids: glibc keeps it


def test_the_tier_kernels_wait_for_ready_only_where_the_tier_is_on(tmp_path):
    """``auto`` reaches the subgoal tier only on revisions that have one: with the tier (the
    default: every map up to MAX_MAP_CELLS) its kernels are serving, like every runner of
    auto; without it (``SUBGOAL_MAX_CELLS=0``) they are compiled after the others instead
    of before ``/health`` turns 200."""

    def serving(settings: Settings) -> list[str]:
        return [s.name for s in ServiceState(settings).warmup.steps if s.serving]

    on = serving(Settings(maps_dir=tmp_path))
    off = serving(Settings(maps_dir=tmp_path, subgoal_max_cells=0))
    assert "subgoal" not in off and "jps_blocks" in off
    assert on == ["subgoal", *off]
    steps = ServiceState(Settings(maps_dir=tmp_path, subgoal_max_cells=0)).warmup.steps
    assert steps[-1].name == "subgoal" and len(steps) == len({s.name for s in steps})
