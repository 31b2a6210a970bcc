"""SEARCH_THREADS' default: the CPUs the process may really use (cgroup quota first)."""

from __future__ import annotations

import math
import os
from pathlib import Path

import pytest

from app.config import Settings
from app.cpu import available_cpus, cgroup_cpu_limit, parse_cfs, parse_cpu_max


@pytest.mark.parametrize(
    "text, cpus",
    [
        ("max 100000\n", None),
        ("200000 100000\n", 2.0),
        ("150000 100000\n", 1.5),
        ("50000 100000", 0.5),
        ("100000", 1.0),  # period omitted: the kernel's default 100000
        ("", None),
        ("garbage here", None),
        ("0 100000", None),
    ],
)
def test_cpu_max(text, cpus):
    assert parse_cpu_max(text) == cpus


@pytest.mark.parametrize(
    "quota, period, cpus",
    [("-1", "100000", None), ("400000", "100000", 4.0), ("25000\n", "100000\n", 0.25)],
)
def test_cfs_quota(quota, period, cpus):
    assert parse_cfs(quota, period) == cpus


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_cgroup_v2_in_a_container(tmp_path):
    write(tmp_path / "cpu.max", "200000 100000\n")  # the namespace's root is the container
    assert cgroup_cpu_limit(tmp_path, "0::/\n") == 2.0


def test_cgroup_v2_nested_takes_the_tightest(tmp_path):
    write(tmp_path / "cpu.max", "max 100000\n")
    write(tmp_path / "kubepods" / "cpu.max", "150000 100000\n")
    write(tmp_path / "kubepods" / "pod1" / "cpu.max", "max 100000\n")
    assert cgroup_cpu_limit(tmp_path, "0::/kubepods/pod1\n") == 1.5


def test_cgroup_v2_without_a_limit(tmp_path):
    write(tmp_path / "cpu.max", "max 100000\n")
    assert cgroup_cpu_limit(tmp_path, "0::/user.slice\n") is None


def test_cgroup_v1(tmp_path):
    folder = tmp_path / "cpu,cpuacct" / "docker" / "abc"
    write(folder / "cpu.cfs_quota_us", "300000\n")
    write(folder / "cpu.cfs_period_us", "100000\n")
    write(tmp_path / "cpu,cpuacct" / "cpu.cfs_quota_us", "-1\n")
    write(tmp_path / "cpu,cpuacct" / "cpu.cfs_period_us", "100000\n")
    proc = "12:memory:/docker/abc\n4:cpu,cpuacct:/docker/abc\n1:name=systemd:/docker/abc\n"
    assert cgroup_cpu_limit(tmp_path, proc) == 3.0


def test_no_cgroup_files(tmp_path):
    assert cgroup_cpu_limit(tmp_path, "") is None
    assert cgroup_cpu_limit(tmp_path, "0::/\n") is None


def test_available_cpus_rounds_a_quota_up_and_keeps_the_affinity_cap(tmp_path):
    affinity = len(os.sched_getaffinity(0))
    write(tmp_path / "cpu.max", "150000 100000\n")
    assert available_cpus(tmp_path, "0::/\n") == min(affinity, 2)
    write(tmp_path / "cpu.max", "10000 100000\n")
    assert available_cpus(tmp_path, "0::/\n") == 1  # a tenth of a CPU: still one thread
    write(tmp_path / "cpu.max", "max 100000\n")
    assert available_cpus(tmp_path, "0::/\n") == affinity


def test_search_threads_defaults_to_this_process_quota(monkeypatch):
    monkeypatch.delenv("SEARCH_THREADS", raising=False)
    assert Settings().search_threads == available_cpus()
    limit = cgroup_cpu_limit()
    if limit is not None:
        assert Settings().search_threads <= math.ceil(limit)
