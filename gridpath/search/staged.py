"""The service's warm-up in stages: answer early, compile the rest in parallel.

On a cold numba cache every kernel compiles once (minutes on two cores, numba compiles one
function at a time per process). A :class:`StagedWarmUp`:

1. ``begin()``: marks every step but the serving ones pending
   (:mod:`gridpath.search.warming`: their queries get 503 ``warming_up``) and starts worker
   processes (``python -m gridpath.search.warmup --step NAME``; niced but for the serving
   steps, which no query is answered before) that compile the steps after the first into
   numba's on-disk cache, in order (the serving steps first), one less than ``processes``
   at once while this process compiles;
2. ``serving()``: compiles the first serving step here, then each other serving step here
   unless a worker has it, and loads what the workers compiled (the caller then answers:
   ``auto``'s query with the default options needs no other kernel, whatever the map);
3. ``finish()``: keeps ``processes`` workers busy and, in step order, loads each compiled
   step from the cache into this process (milliseconds) and clears its gates.

A step compiled before (any process, same sources, numba and CPU: a stamp file beside the
cache says so) starts no worker: it is loaded here. A worker that fails leaves its step to
be compiled here. A progress line is logged every ``tick`` seconds while anything compiles:
the step, n of m, the kernel numba is compiling in this process, the seconds elapsed.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import replace

from numba.core import event

from gridpath.search import warming, warmup
from gridpath.search.scratch import SearchScratch
from gridpath.search.warmup import STEPS, Step


class _CompileWatch(event.Listener):
    """The function numba is compiling in this process (the outermost one), for progress."""

    def __init__(self) -> None:
        self.depth = 0
        self.current = ""

    def on_start(self, ev: event.Event) -> None:
        if self.depth == 0:
            self.current = getattr(ev.data.get("dispatcher"), "__name__", "") or ""
        self.depth += 1

    def on_end(self, ev: event.Event) -> None:
        self.depth = max(0, self.depth - 1)
        if self.depth == 0:
            self.current = ""


_WATCH = _CompileWatch()
event.register("numba:compile", _WATCH)


def _ordered(steps: Sequence[Step], later: frozenset[str]) -> tuple[Step, ...]:
    """The steps with those named in ``later`` moved to the end and no longer serving."""
    demoted = tuple(replace(step, serving=False) for step in steps if step.name in later)
    return (*(step for step in steps if step.name not in later), *demoted)


class StagedWarmUp:
    def __init__(
        self,
        processes: int = 0,
        log: Callable[[str], None] = print,
        tick: float = 5.0,
        later: Collection[str] = (),
    ) -> None:
        """``later``: serving steps this service's settings leave no query to (the subgoal
        tier's where no revision gets one): compiled after the others, not before ready."""
        self.steps = _ordered(STEPS, frozenset(later))
        self.processes = max(1, processes or os.cpu_count() or 1)
        self.log = log
        self.tick = tick
        self.began = time.perf_counter()
        self.done: list[str] = []  # steps loaded in this process, in order
        self.phase = "loading maps"
        self._workers: dict[str, subprocess.Popen] = {}
        self._exited: dict[str, int] = {}
        self._stopped = threading.Event()
        self._ticker: threading.Thread | None = None

    # -- what is left, for GET /health and the progress lines ------------------------------

    def elapsed(self) -> float:
        return time.perf_counter() - self.began

    def status(self) -> dict:
        left = [s.name for s in self.steps if s.name not in self.done]
        return {
            "steps": len(self.steps),
            "ready": list(self.done),
            "compiling": [name for name in left if name in self._workers] or left[:1],
            "waiting": left,
            "elapsed_s": round(self.elapsed(), 1),
        }

    def describe(self) -> str:
        """One line: what the process is doing or waiting for."""
        left = [s.name for s in self.steps if s.name not in self.done]
        if not left:
            return f"every kernel ready ({len(self.steps)} steps) in {self.elapsed():.1f} s"
        here = f" (now compiling {_WATCH.current})" if _WATCH.current else ""
        workers = ", ".join(self._workers) or "none"
        return (
            f"{self.phase}{here}: kernel step {len(self.done) + 1} of {len(self.steps)} "
            f"({left[0]}), {self.elapsed():.0f} s elapsed; in worker processes: {workers}"
        )

    # -- the stages ------------------------------------------------------------------------

    def begin(self) -> None:
        """Mark the steps after the serving ones pending, start workers and the ticker."""
        for step in self.steps:
            if not step.serving:
                warming.mark_pending(step.name, step.gates)
        self._ticker = threading.Thread(target=self._tick, name="gridpath-warmup-progress")
        self._ticker.daemon = True
        self._ticker.start()
        self._launch(self.processes - 1)

    def serving(self) -> float:
        """Compile (or load) the serving steps, here or in the workers, then load the steps
        after them that are compiled already (a warm cache: all of them, in milliseconds,
        so a restart is ready with every kernel as before); the seconds since ``begin``."""
        self.phase = "compiling the kernels the first queries need"
        left = [step for step in self.steps if step.serving]
        while left:
            self._reap()
            self._launch(self.processes - 1)
            step = next((s for s in left if s.name not in self._workers), left[0])
            if step.name in self._workers and not self._await(step):
                return self.elapsed()  # stopped
            self._run_here(step)  # compiled here, or loaded from the cache a worker filled
            left.remove(step)
        for step in self.steps:
            if step.name in self.done:
                continue
            if not self._stamped(step) or step.name in self._workers:
                break
            self._load(step)
        return self.elapsed()

    def finish(self) -> float:
        """Every other step compiled (by the workers) and loaded here; the seconds since
        ``begin``. Returns early (steps left pending) when ``stop`` is called."""
        self.phase = "serving; compiling the other kernels"
        for step in self.steps:
            if step.name in self.done:
                continue
            if not self._await(step, self.processes):
                return self.elapsed()
            self._load(step)
        self._stopped.set()  # the ticker's last line, then it ends
        self.log(f"kernels: {self.describe()}")
        return self.elapsed()

    def stop(self) -> None:
        """End the workers (shutdown); steps not loaded stay pending."""
        self._stopped.set()
        for process in list(self._workers.values()):
            process.kill()
            process.wait()

    # -- helpers ---------------------------------------------------------------------------

    def _stamped(self, step: Step) -> bool:
        return warmup.stamped(step)

    def _await(self, step: Step, workers: int = 0) -> bool:
        """Wait until ``step`` is compiled into the cache or its worker has exited, keeping
        ``workers`` workers busy (0: one less than ``processes``, this process compiling
        too); False if ``stop`` was called."""
        while not self._stopped.is_set():
            self._reap()
            self._launch(workers or self.processes - 1)
            if self._stamped(step) or step.name in self._exited:
                return True
            self._stopped.wait(0.1)
        return False

    def _load(self, step: Step) -> None:
        """Run ``step`` here (its kernels from the cache, or compiled), then open its gates."""
        with warming.loading():
            self._run_here(step)
        warming.mark_ready(step.gates, step.name)

    def _run_here(self, step: Step) -> None:
        step.run(SearchScratch())
        self.done.append(step.name)
        warmup.stamp(step)  # the next start loads it before serving, without a worker

    def _launch(self, limit: int) -> None:
        for step in self.steps[1:]:
            if len(self._workers) >= limit or self._stopped.is_set():
                return
            name = step.name
            if name in self._workers or name in self._exited or name in self.done:
                continue
            if self._stamped(step):
                continue
            nice = "0" if step.serving else "10"  # the serving steps: nothing to yield to yet
            self._workers[name] = subprocess.Popen(
                [sys.executable, "-m", "gridpath.search.warmup", "--step", name, "--nice", nice],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )

    def _reap(self) -> None:
        for name, process in list(self._workers.items()):
            code = process.poll()
            if code is not None:
                del self._workers[name]
                self._exited[name] = code
                if code != 0 and not self._stopped.is_set():
                    self.log(f"kernels: the worker for {name} exited with {code}; compiling here")

    def _tick(self) -> None:
        while not self._stopped.wait(self.tick):
            self.log(f"kernels: {self.describe()}")
