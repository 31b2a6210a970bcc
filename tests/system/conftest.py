"""System tests: real processes (uvicorn servers), container and manifest files, benchmark
smoke runs, the Moving AI scenarios and the linters. Every test below this folder carries
the ``system`` marker, so ``pytest -m "not system"`` is the quick inner loop and
``make test`` still runs everything."""

from __future__ import annotations

from pathlib import Path

import pytest

_HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if _HERE in Path(str(item.fspath)).resolve().parents:
            item.add_marker(pytest.mark.system)
