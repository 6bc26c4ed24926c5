"""Progress bars on stderr, shown only to a person watching a terminal."""

from __future__ import annotations

import sys

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)


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
    console = Console(stderr=True)
    return Progress(
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        *extra_columns,
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=console,
        disable=quiet or not sys.stderr.isatty(),
        transient=False,
    )
