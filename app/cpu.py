"""How many CPUs this process may really use: the default of ``SEARCH_THREADS``.

``os.cpu_count()`` is the host's count, which ignores a container's CPU limit: a container
limited to 2 CPUs on a 64-core host would otherwise run 64 searches at once, each with its
own scratch (44-60 bytes per cell of the largest map served), and only two of them would
make progress at a time. The limit is read, in order, from the cgroup v2 ``cpu.max``, the
cgroup v1 ``cpu.cfs_quota_us``/``cpu.cfs_period_us``, the scheduler affinity mask, then the
CPU count; a fractional quota rounds up (1.5 CPUs: 2 threads).
"""

from __future__ import annotations

import math
import os
from pathlib import Path

CGROUP_ROOT = Path("/sys/fs/cgroup")
PROC_SELF_CGROUP = Path("/proc/self/cgroup")


def parse_cpu_max(text: str) -> float | None:
    """CPUs allowed by a cgroup v2 ``cpu.max`` (``"<quota> <period>"``, quota ``max`` for no
    limit); None when unlimited or unreadable."""
    parts = text.split()
    if not parts or parts[0] == "max":
        return None
    try:
        quota = int(parts[0])
        period = int(parts[1]) if len(parts) > 1 else 100_000
    except ValueError:
        return None
    return quota / period if quota > 0 and period > 0 else None


def parse_cfs(quota_text: str, period_text: str) -> float | None:
    """CPUs allowed by cgroup v1 ``cpu.cfs_quota_us`` / ``cpu.cfs_period_us`` (quota -1: no
    limit); None when unlimited or unreadable."""
    try:
        quota, period = int(quota_text.strip()), int(period_text.strip())
    except ValueError:
        return None
    return quota / period if quota > 0 and period > 0 else None


def _read(path: Path) -> str | None:
    try:
        return path.read_text()
    except OSError:
        return None


def _ancestors(root: Path, relative: str) -> list[Path]:
    """``root/relative`` and each of its parents up to ``root`` (the tightest limit wins)."""
    folders = [root]
    current = root
    for part in (p for p in relative.strip("/").split("/") if p):
        current = current / part
        folders.append(current)
    return folders


def cgroup_cpu_limit(root: Path = CGROUP_ROOT, proc_cgroup: str | None = None) -> float | None:
    """The CPU limit of this process's cgroup (v2, else v1), or None if there is none.

    ``proc_cgroup`` is the text of ``/proc/self/cgroup`` (read when None). Inside a container
    with a cgroup namespace the process's cgroup is ``/`` and the limit is at the root.
    """
    if proc_cgroup is None:
        proc_cgroup = _read(PROC_SELF_CGROUP) or ""
    limits: list[float] = []
    for line in proc_cgroup.splitlines():
        hierarchy, _, rest = line.partition(":")
        controllers, _, relative = rest.partition(":")
        if hierarchy == "0" and controllers == "":  # cgroup v2 unified hierarchy
            for folder in _ancestors(root, relative):
                text = _read(folder / "cpu.max")
                limit = parse_cpu_max(text) if text is not None else None
                if limit is not None:
                    limits.append(limit)
        elif "cpu" in controllers.split(","):  # cgroup v1: cpu (often cpu,cpuacct)
            for mount in (root / controllers, root / "cpu", root / "cpu,cpuacct"):
                for folder in _ancestors(mount, relative) if mount.is_dir() else ():
                    quota = _read(folder / "cpu.cfs_quota_us")
                    period = _read(folder / "cpu.cfs_period_us")
                    limit = parse_cfs(quota, period) if quota and period else None
                    if limit is not None:
                        limits.append(limit)
                if mount.is_dir():
                    break
    return min(limits) if limits else None


def available_cpus(root: Path = CGROUP_ROOT, proc_cgroup: str | None = None) -> int:
    """Whole CPUs this process may use: the cgroup quota (rounded up), capped by the
    affinity mask, else the CPU count; at least 1."""
    try:
        count = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not on Linux
        count = os.cpu_count() or 1
    limit = cgroup_cpu_limit(root, proc_cgroup)
    if limit is not None:
        count = min(count, math.ceil(limit))
    return max(1, count)
