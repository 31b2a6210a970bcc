"""Progress bars for work that takes seconds, on standard error, only on a terminal (a
pipe or a CI log gets the results alone), gone once the work is done."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from typing import TypeVar

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

T = TypeVar("T")


def progress() -> Progress:
    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=Console(stderr=True),
        transient=True,
        disable=not sys.stderr.isatty(),
    )


def track(items: Iterable[T], description: str, total: int) -> Iterator[T]:
    """``items``, with a bar counting them; printing to stdout meanwhile is fine."""
    with progress() as bar:
        yield from bar.track(items, total=total, description=description)
