"""The compiled kernels' cache folder follows every source file: a change anywhere in the
package means a fresh folder (numba alone would keep a caller's stale copy of a helper
from another module)."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import numba

import gridpath
from gridpath.kernel_cache import cache_base, key_of, sources_key


def test_any_source_change_gives_another_key(tmp_path: Path):
    for name in ("a.py", "sub/b.py"):
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text("x = 1\n")
    key = key_of(tmp_path)
    assert key_of(tmp_path) == key
    stat = (tmp_path / "sub/b.py").stat()
    os.utime(tmp_path / "sub/b.py", ns=(stat.st_atime_ns, stat.st_mtime_ns + 1))
    assert key_of(tmp_path) != key  # a helper touched in another module
    copy = tmp_path.parent / "copy"
    shutil.copytree(tmp_path, copy, copy_function=shutil.copy2)
    assert key_of(copy) == key_of(tmp_path)  # the same files, the same kernels


def test_numba_compiles_into_the_folder_of_this_state_of_the_sources():
    assert Path(numba.config.CACHE_DIR) == cache_base() / f"numba-{sources_key()}"
    assert sources_key() == key_of(Path(gridpath.__file__).parent)


def test_folders_of_older_sources_idle_for_a_day_are_removed(tmp_path: Path):
    from gridpath.kernel_cache import prune

    for name in ("numba-current", "numba-old", "numba-recent", "other"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "kernel.nbi").write_text("x")
    day_ago = time.time() - 25 * 3600
    for name in ("numba-current", "numba-old", "other"):
        os.utime(tmp_path / name, (day_ago, day_ago))
    removed = prune(tmp_path, keep="numba-current")
    assert removed == [tmp_path / "numba-old"]
    left = sorted(p.name for p in tmp_path.iterdir())
    assert left == ["numba-current", "numba-recent", "other"]
