"""The running build: the package version and the git commit it was built from."""

from __future__ import annotations

import os
import subprocess
from functools import lru_cache
from pathlib import Path

from gridpath import __version__

VERSION = __version__


@lru_cache(maxsize=1)
def git_commit() -> str:
    """``GIT_COMMIT`` (set at image build: ``docker build --build-arg GIT_COMMIT=...``), else
    ``git rev-parse HEAD`` in the source tree when it is a checkout, else ``unknown``."""
    given = os.environ.get("GIT_COMMIT", "").strip()
    if given:
        return given
    try:
        done = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            cwd=Path(__file__).resolve().parent,
            capture_output=True,
            text=True,
            timeout=5,
            check=True,
        )
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return done.stdout.strip() or "unknown"
