"""Which kernels are still compiling, for a process that answers before all of them are.

The service's start-up (:class:`gridpath.search.warmup.StagedWarmUp`) compiles what the maps
and ``auto``'s common query need first, then serves, and marks the rest pending here until
they are compiled. A query that needs a pending kernel is refused with :class:`WarmingUp`
(503, ``Retry-After``): never compiled on the spot (that would hold a search thread for
seconds) and never answered by another algorithm (the same request on the same revision
gives the same body in every process, warm or not). Nothing is pending unless a staged
warm-up marked it: a library user compiles on first use, as before.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator

from gridpath.errors import WarmingUp

# gate (a runner's name, or "flowfield", "table", "validate", "worlds") -> the warm-up step
# compiling it
_pending: dict[str, str] = {}
_loaded: set[str] = set()  # steps whose kernels this process holds (never pending again)
_loading = threading.local()  # set on the thread that loads a step's kernels into the process


def mark_pending(step: str, gates: tuple[str, ...]) -> None:
    """Refuse ``gates``' queries until ``step`` is loaded; nothing if it is already (a
    second app in one process must not refuse what the first serves)."""
    if step in _loaded:
        return
    for gate in gates:
        _pending[gate] = step


def mark_ready(gates: tuple[str, ...], step: str | None = None) -> None:
    if step is not None:
        _loaded.add(step)
    for gate in gates:
        _pending.pop(gate, None)


def pending() -> dict[str, str]:
    """The gates still waiting, with the step that compiles each."""
    return dict(_pending)


def require(gate: str) -> None:
    """Raise :class:`WarmingUp` while ``gate``'s kernels are still compiling."""
    if _pending:  # the common case (all warm) costs one truth test
        step = _pending.get(gate)
        if step is not None and not getattr(_loading, "active", False):
            raise WarmingUp(
                f"the {gate} kernels are still compiling after start-up (warm-up step "
                f"{step!r}); GET /health lists what is left: retry shortly"
            )


@contextlib.contextmanager
def loading() -> Iterator[None]:
    """On this thread, no gate holds: the warm-up itself runs a pending step's queries."""
    _loading.active = True
    try:
        yield
    finally:
        _loading.active = False
