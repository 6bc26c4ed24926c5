"""Progress bars and status lines on stderr, shown only to a person watching a terminal."""

from __future__ import annotations

import sys
from types import TracebackType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.progress import Progress, ProgressColumn


class _Silent:
    """What :func:`progress_bar` returns when no bar is shown: every call is a no-op.

    It spares piped and quiet runs the import of rich's progress machinery.
    """

    def __enter__(self) -> _Silent:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        return None

    def add_task(self, description: str, total: float | None = None, **fields: Any) -> int:
        return 0

    def advance(self, task: int, advance: float = 1) -> None:
        return None

    def update(self, task: int, **fields: Any) -> None:
        return None


def watched() -> bool:
    """Whether a person is watching: stderr is a terminal (not a pipe, file or CI log)."""
    return sys.stderr.isatty()


def status(message: str, quiet: bool = False) -> None:
    """Say on stderr what a long, silent step is doing (``training svd on corpus ...``).

    Like the progress bars, only to a person watching a terminal, and not under ``quiet``.
    """
    if not quiet and watched():
        print(f"{message} ...", file=sys.stderr, flush=True)


def progress_bar(quiet: bool = False, *extra_columns: ProgressColumn) -> Progress:
    """A rich :class:`~rich.progress.Progress` on stderr.

    It is disabled (all calls become no-ops) under ``quiet`` or when stderr is not a
    terminal, so piped and CI output stays clean.

    Parameters
    ----------
    quiet : bool
        Hide the bar whatever stderr is.
    *extra_columns : rich ProgressColumn
        Columns after the standard ones (counts, rates...).
    """
    if quiet or not watched():
        return _Silent()  # type: ignore[return-value]
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    return Progress(
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        *extra_columns,
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        transient=False,
    )
