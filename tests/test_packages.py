"""The one rule for the system tests' Debian packages (tests/packages.py), and the pinned
versions every install takes (requirements.lock)."""

from __future__ import annotations

import re

import pytest
from packaging.requirements import Requirement

from tests import packages
from tests.conftest import MOVINGAI_MISSING, ROOT


@pytest.fixture
def nothing_installed(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))  # an empty folder: no command at all
    monkeypatch.setattr(packages, "_SBIN", ())


def test_a_missing_package_skips_with_one_line_naming_it(nothing_installed, monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception) as skipped:
        packages.require("nginx")
    assert "nginx" in str(skipped.value) and "\n" not in str(skipped.value)


def test_under_ci_a_missing_package_fails(nothing_installed, monkeypatch):
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception) as failed:
        packages.require("chromium", "wrk")
    assert "chromium wrk" in str(failed.value)


def test_an_installed_package_is_found(monkeypatch, tmp_path):
    command = tmp_path / "wrk"
    command.write_text("#!/bin/sh\n")
    command.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    assert packages.require("wrk") == [str(command)]


def test_the_moving_ai_skip_says_where_the_maps_come_from():
    assert "movingai.com" in MOVINGAI_MISSING and "MOVINGAI_DIR" in MOVINGAI_MISSING


def _name(requirement: str) -> str:
    return re.sub(r"[-_.]+", "-", re.match(r"[A-Za-z0-9_.-]+", requirement).group()).lower()


def test_the_lock_pins_every_dependency_within_its_bounds():
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = project["dependencies"] + project["optional-dependencies"]["dev"]
    lines = (ROOT / "requirements.lock").read_text().splitlines()
    pins = dict(line.split("==") for line in lines if line and not line.startswith("#"))
    assert {_name(r) for r in wanted} <= set(pins), "make lock: pyproject.toml changed"
    for requirement in map(Requirement, wanted):
        version = pins[_name(requirement.name)]
        assert requirement.specifier.contains(version, prereleases=True), (requirement, version)


def test_every_install_takes_the_lock():
    assert "-c $(LOCK)" in (ROOT / "Makefile").read_text()
    assert "-c /tmp/src/requirements.lock" in (ROOT / "Dockerfile").read_text()
