"""The machine line printed under every benchmark table: date, versions, CPU, cores."""

from __future__ import annotations

import os
import platform
import subprocess
from datetime import datetime
from pathlib import Path

import numba
import numpy as np


def cpu_model() -> str:
    """The CPU model name from /proc/cpuinfo (the platform's processor string elsewhere)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def core_count() -> int:
    """CPUs this process may run on (``os.cpu_count()`` where affinity is unknown)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def code_version() -> str:
    """The repository commit benchmarked, ``+dirty`` if ``app/`` has uncommitted changes."""
    root = Path(__file__).resolve().parents[1]

    def git(*args: str) -> str:
        return subprocess.run(
            ["git", *args], cwd=root, capture_output=True, text=True, check=True, timeout=10
        ).stdout.strip()

    try:
        commit = git("rev-parse", "--short", "HEAD")
        dirty = git("status", "--porcelain", "--", "app")
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return f"{commit}+dirty" if dirty else commit


def machine_info() -> dict[str, str | int]:
    """Date, code commit, interpreter/library versions and CPU."""
    return {
        "date": datetime.now().astimezone().isoformat(timespec="seconds"),
        "commit": code_version(),
        "python": platform.python_version(),
        "numba": numba.__version__,
        "numpy": np.__version__,
        "cpu": cpu_model(),
        "cores": core_count(),
    }


def machine_line(info: dict[str, str | int]) -> str:
    """``info`` as one line of text."""
    return (
        f"{info['date']} · commit {info['commit']} · Python {info['python']}, "
        f"numba {info['numba']}, numpy {info['numpy']} · {info['cpu']}, "
        f"{info['cores']} cores"
    )
