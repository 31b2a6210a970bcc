"""The Debian packages some system tests need, and the one rule for a missing one.

A machine prepared as the README says (Python 3.11+, nothing else) runs ``make test``: a
test whose package is missing skips with one line naming it. Under ``CI=true`` a missing
package fails the test instead (``.ci/run`` installs every one first), so CI still proves
everything. Each system test that needs a package calls :func:`require`.
"""

from __future__ import annotations

import os
import shutil

import pytest

# Debian package -> the command it installs
COMMANDS = {
    "redis-server": "redis-server",
    "nginx": "nginx",
    "chromium": "chromium",
    "wrk": "wrk",
    "nodejs": "node",
    "npm": "npm",
}
# nginx and redis-server install into sbin on some systems, off a regular user's PATH
_SBIN = ("/usr/local/sbin", "/usr/sbin", "/sbin")


def find(package: str) -> str | None:
    """The installed command of ``package``, or None."""
    path = os.pathsep.join([os.environ.get("PATH", os.defpath), *_SBIN])
    return shutil.which(COMMANDS[package], path=path)


def require(*packages: str) -> list[str]:
    """The commands of ``packages``; skips the test (fails it under ``CI=true``) with one
    line naming the missing packages."""
    missing = [package for package in packages if find(package) is None]
    if missing:
        names = " ".join(missing)
        message = f"needs the Debian package(s) {names} (apt-get install {names})"
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true: {message}", pytrace=False)
        pytest.skip(message)
    return [find(package) or "" for package in packages]
