"""Tables that fit the terminal: split into blocks of columns, never cut to ``0.…``.

rich fits a table that is too wide by narrowing its columns until they fit, then cuts
every cell that no longer fits with an ellipsis: in an 80-column terminal ``explain``
of a long name printed ``-0.0…`` and ``refer…``. :func:`fit_table` instead gives each
column at least its longest word (a number is one word), wrapping only between words,
and where even that is too wide, splits the columns into several tables that each
repeat the row labels, as pandas prints a wide frame.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table


def _edges(table: Table, columns: int) -> int:
    """Columns of box drawing around and between ``columns`` columns (rich's rule)."""
    if not table.box:
        return 0
    return (2 if table.show_edge else 0) + columns - 1


def column_widths(table: Table, console: Console) -> tuple[list[int], list[int], int]:
    """Each column's narrowest and widest width, padding included, and the padding.

    The narrowest is its longest word (cells wrap only between words), the widest its
    longest line.
    """
    from rich.measure import Measurement
    from rich.padding import Padding

    _, right, _, left = Padding.unpack(table.padding)
    options = console.options.update_width(10_000)
    narrow, wide = [], []
    for column in table.columns:
        cells = [column.header, *column.cells] if table.show_header else list(column.cells)
        sizes = [Measurement.get(console, options, cell) for cell in cells]
        narrow.append(max((s.minimum for s in sizes), default=0) + left + right)
        wide.append(max((s.maximum for s in sizes), default=0) + left + right)
    return narrow, wide, left + right


def _blocks(narrow: list[int], keep: int, width: int, table: Table) -> list[list[int]]:
    """The columns after the first ``keep``, in blocks that each fit ``width`` beside them.

    As few blocks as fit, of even sizes where that fits too (7 columns as 4 and 3,
    not 6 and a lone 1).
    """

    def fits(block: list[int]) -> bool:
        needed = sum(narrow[:keep]) + sum(narrow[j] for j in block)
        return needed + _edges(table, keep + len(block)) <= width

    greedy: list[list[int]] = [[]]
    for j in range(keep, len(narrow)):
        if greedy[-1] and not fits([*greedy[-1], j]):
            greedy.append([])
        greedy[-1].append(j)
    rest = list(range(keep, len(narrow)))
    size = -(-len(rest) // len(greedy))
    even = [rest[i : i + size] for i in range(0, len(rest), size)]
    return even if len(even) == len(greedy) and all(map(fits, even)) else greedy


def _shrink(wide: list[int], narrow: list[int], excess: int) -> list[int]:
    """Widths that give up ``excess`` columns, taken from those with the most to spare.

    Where every column is down to its longest word and the table is still too wide
    (one word wider than the terminal), the widest column gives up the rest: its word
    folds, and the other columns' words (the numbers) stay whole.
    """
    widths = list(wide)
    while excess > 0:
        spare = [w - n for w, n in zip(widths, narrow, strict=True)]
        k = max(range(len(widths)), key=spare.__getitem__)
        if spare[k] <= 0:
            k = max(range(len(widths)), key=widths.__getitem__)
            if widths[k] <= 3:
                break  # nothing left to give: rich folds what remains
        widths[k] -= 1
        excess -= 1
    return widths


def fit_table(table: Table, console: Console, keep: int = 1) -> list[Table]:
    """``table`` as one or more tables as wide as ``console`` at most, nothing cut.

    Parameters
    ----------
    table : rich Table
    console : rich Console
        Its width is the one to fit.
    keep : int
        Leading columns (the row labels) repeated in every block of columns.

    Returns
    -------
    list of rich Table
        ``table`` itself where it fits; otherwise copies of it, each with the kept
        columns and as many of the others as fit, every column at least as wide as its
        longest word. The title goes on the first, the caption on the last. A word wider
        than the whole console (a 200-character token) folds onto the next line.

    Examples
    --------
    >>> from rich.console import Console
    >>> from rich.table import Table
    >>> t = Table()
    >>> for name in ("token", *(f"column{i}" for i in range(12))):
    ...     t.add_column(name)
    >>> t.add_row("getName", *(f"-0.{i:03d}" for i in range(12)))
    >>> [len(p.columns) for p in fit_table(t, Console(width=80))]
    [7, 7]
    >>> [len(p.columns) for p in fit_table(t, Console(width=60))]
    [5, 5, 5]
    """
    width = console.width
    for column in table.columns:
        # The last resort, where a single word is wider than the console: fold it
        # onto the next line, every character kept, instead of cutting it with "…".
        column.overflow = "fold"
    narrow, wide, padding = column_widths(table, console)
    n = len(table.columns)
    if sum(wide) + _edges(table, n) <= width or n == 0:
        return [table]
    keep = max(0, min(keep, n - 1))
    blocks = _blocks(narrow, keep, width, table)
    parts = []
    for b, block in enumerate(blocks):
        chosen = [*range(keep), *block]
        excess = sum(wide[j] for j in chosen) + _edges(table, len(chosen)) - width
        widths = _shrink([wide[j] for j in chosen], [narrow[j] for j in chosen], excess)
        part = copy.copy(table)
        part.columns = [
            # A fixed width: rich would otherwise narrow the widest column below its
            # longest word before the others, and cut it.
            dataclasses.replace(table.columns[j], _index=k, width=w - padding)
            for k, (j, w) in enumerate(zip(chosen, widths, strict=True))
        ]
        part.title = table.title if b == 0 else None
        part.caption = table.caption if b == len(blocks) - 1 else None
        parts.append(part)
    return parts


def print_tables(tables: Iterable[Table], console: Console | None = None) -> Console:
    """Print each table fitted to the console's width (:func:`fit_table`).

    Returns
    -------
    Console
        The console printed on (a new one on standard output if none was given).
    """
    if console is None:
        from rich.console import Console

        console = Console()
    for table in tables:
        for part in fit_table(table, console):
            console.print(part)
    return console
