"""What the machine is doing besides the benchmark, read from /proc: every process's CPU
time, a sampler that splits CPU use between the servers, the clients and everything else,
the load before and after a run, and which process holds which loopback connection."""

from __future__ import annotations

import contextlib
import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Proc:
    """One process as /proc shows it: CPU time so far (clock ticks), parent, group, command."""

    ticks: int
    ppid: int
    pgid: int
    command: str


def proc_table() -> dict[int, Proc]:
    """Every process of the machine (an empty table where there is no /proc)."""
    table = {}
    for entry in Path("/proc").iterdir() if Path("/proc").is_dir() else ():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmd = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        comm = stat[stat.find("(") + 1 : stat.rfind(")")]
        fields = stat[stat.rfind(")") + 2 :].split()  # fields[0] is the state (field 3)
        table[int(entry.name)] = Proc(
            ticks=int(fields[11]) + int(fields[12]),
            ppid=int(fields[1]),
            pgid=int(fields[2]),
            command=" ".join(cmd.split()) or f"[{comm}]",
        )
    return table


def descendants(table: dict[int, Proc], root: int) -> set[int]:
    """``root`` and every process below it."""
    children: dict[int, list[int]] = {}
    for pid, proc in table.items():
        children.setdefault(proc.ppid, []).append(pid)
    found, todo = set(), [root]
    while todo:
        pid = todo.pop()
        found.add(pid)
        todo.extend(children.get(pid, ()))
    return found


class CpuMonitor(threading.Thread):
    """Samples the machine's CPU use every ``interval`` seconds, split three ways: the
    servers (this process's descendants in other process groups: they run in their own
    sessions), the clients (this process, wrk, the load generator) and everything else.

    ``window(t0, t1)`` gives the mean cores each used between two ``perf_counter`` times,
    so every measurement can say what else the machine was doing meanwhile.
    """

    def __init__(self, interval: float = 0.5) -> None:
        super().__init__(name="cpu-monitor", daemon=True)
        self.interval = interval
        self.samples: list[tuple[float, float, float, float]] = []  # t, server, client, others
        self.others_by_command: dict[str, float] = {}  # CPU seconds over the whole run
        self._stop_event = threading.Event()
        self._hz = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100

    def run(self) -> None:
        me, my_group = os.getpid(), os.getpgid(0)
        previous, previous_t = proc_table(), time.perf_counter()
        while not self._stop_event.wait(self.interval):
            table, now = proc_table(), time.perf_counter()
            ours = descendants(table, me)
            used = {"server": 0.0, "client": 0.0, "others": 0.0}
            for pid, proc in table.items():
                before = previous.get(pid)
                seconds = (proc.ticks - before.ticks) / self._hz if before else 0.0
                if pid in ours:
                    used["server" if proc.pgid != my_group else "client"] += seconds
                else:
                    used["others"] += seconds
                    key = proc.command[:80]
                    self.others_by_command[key] = self.others_by_command.get(key, 0.0) + seconds
            span = now - previous_t
            self.samples.append((now, *(used[k] / span for k in ("server", "client", "others"))))
            previous, previous_t = table, now

    def window(self, began: float, ended: float) -> dict[str, float]:
        """Mean cores used by the servers, the clients and the others in ``[began, ended]``."""
        inside = [s for s in self.samples if began < s[0] <= ended + self.interval / 2]
        if not inside:
            return {"server": 0.0, "client": 0.0, "others": 0.0}
        return {
            key: sum(s[i] for s in inside) / len(inside)
            for i, key in enumerate(("server", "client", "others"), start=1)
        }

    def stop(self, elapsed: float) -> dict[str, Any]:
        """Stop sampling; the others' mean load over the run and their busiest commands."""
        self._stop_event.set()
        self.join(timeout=5)
        busiest = sorted(self.others_by_command.items(), key=lambda kv: -kv[1])[:3]
        return {
            "others_cores": sum(s[3] for s in self.samples) / max(1, len(self.samples)),
            "busiest": [
                {"command": cmd, "cores": seconds / elapsed}
                for cmd, seconds in busiest
                if seconds / elapsed > 0.05
            ],
        }


def background_load(seconds: float = 2.0) -> dict[str, Any]:
    """Load average and the processes busy over ``seconds`` (more than 10 % of a core)."""
    if not Path("/proc/loadavg").exists():
        return {"loadavg": "unknown", "busy": []}
    before = proc_table()
    time.sleep(seconds)
    after = proc_table()
    hz = os.sysconf("SC_CLK_TCK")
    busy = []
    for pid, proc in after.items():
        if pid == os.getpid() or pid not in before:
            continue
        share = (proc.ticks - before[pid].ticks) / hz / seconds * 100
        if share > 10:
            busy.append({"pid": pid, "cpu_percent": round(share), "command": proc.command[:80]})
    busy.sort(key=lambda b: -b["cpu_percent"])
    del busy[3:]  # the busiest three: enough to say what else ran
    loadavg = " ".join(Path("/proc/loadavg").read_text().split()[:3])
    return {"loadavg": loadavg, "busy": busy}


def describe_load(load: dict[str, Any]) -> str:
    busy = "; ".join(f"{b['cpu_percent']} % {b['command']}" for b in load["busy"]) or "none"
    return f"load average {load['loadavg']}; other processes over 10 % of a core: {busy}"


def established_inodes(port: int) -> set[int]:
    """Socket inodes of established TCP connections whose local port is ``port``."""
    inodes = set()
    with contextlib.suppress(OSError):
        for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
            fields = line.split()
            if int(fields[1].rsplit(":", 1)[1], 16) == port and fields[3] == "01":
                inodes.add(int(fields[9]))
    return inodes


def count_sockets(pid: int, inodes: set[int]) -> int:
    """How many of ``inodes`` process ``pid`` holds open."""
    count = 0
    with contextlib.suppress(OSError):
        for fd in Path(f"/proc/{pid}/fd").iterdir():
            with contextlib.suppress(OSError):
                target = os.readlink(fd)
                if target.startswith("socket:[") and int(target[8:-1]) in inodes:
                    count += 1
    return count
