"""Where numba keeps the compiled kernels: one folder per state of the sources.

numba's cache checks a function against its own file's stamp only: a kernel that inlines
a helper from another module keeps the helper's old machine code after that module
changes (a limit numba documents), and answers with it. So the cache lives in a folder
named after every source file's stamp, numba's version, Python's and the CPU: any change
to the package starts a fresh folder, and nothing stale is ever loaded. The folder is
below ``NUMBA_CACHE_DIR`` when that is set (the Docker image compiles into it at build
time, with the sources it serves), else below ``gridpath/__pycache__`` (``make clean``
removes it).
"""

from __future__ import annotations

import functools
import hashlib
import os
import shutil
import sys
import time
from pathlib import Path

import llvmlite.binding as llvm
import numba

ROOT = Path(__file__).parent
STALE_AFTER_S = 24 * 3600.0  # an older state's folder unused this long is removed


def key_of(root: Path) -> str:
    """What compiled kernels depend on: numba's and Python's versions, the CPU, and the
    stamp of every source file below ``root``."""
    digest = hashlib.sha256(f"{numba.__version__} {sys.version}".encode())
    digest.update(llvm.get_host_cpu_name().encode())
    for path in sorted(root.rglob("*.py")):
        stat = path.stat()
        digest.update(f"{path.relative_to(root)} {stat.st_mtime_ns} {stat.st_size}".encode())
    return digest.hexdigest()[:16]


@functools.cache
def sources_key() -> str:
    """The key of this package's sources, as they were when it was first asked for."""
    return key_of(ROOT)


def cache_base() -> Path:
    cache = os.environ.get("NUMBA_CACHE_DIR")
    return Path(cache) if cache else ROOT / "__pycache__"


def keyed_folder() -> Path:
    """This state's folder: its compiled kernels, and what else depends on the sources and
    the CPU alone (the group budget's rate, :mod:`gridpath.group.budget`)."""
    return cache_base() / f"numba-{sources_key()}"


def use_keyed_cache() -> None:
    """Point numba's cache at this state's folder: before any kernel is defined (numba
    chooses a kernel's cache folder when it decorates it)."""
    folder = keyed_folder()
    numba.config.CACHE_DIR = str(folder)
    if "NUMBA_CACHE_DIR" not in os.environ:  # the folder beside the sources is ours alone
        prune(folder.parent, keep=folder.name)


def prune(base: Path, keep: str, idle_s: float = STALE_AFTER_S) -> list[Path]:
    """Remove the folders of older states of the sources below ``base`` (each edit while
    developing leaves one, ~7 MB) that nothing has written to for ``idle_s``: a process
    still running older sources may yet be using its folder. Returns what was removed."""
    removed = []
    now = time.time()
    for folder in base.glob("numba-*"):
        try:
            if folder.name != keep and now - folder.stat().st_mtime > idle_s:
                shutil.rmtree(folder)
                removed.append(folder)
        except OSError:  # another process pruned it first, or it is not ours to remove
            continue
    return removed
