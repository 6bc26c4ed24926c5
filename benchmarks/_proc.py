"""What the benchmarks read from /proc about a command and the worker processes it starts."""

from __future__ import annotations

import os


def process_tree(pid: int) -> list[int]:
    """``pid`` and all its descendants (from /proc; processes gone meanwhile are skipped)."""
    pids, todo = [], [pid]
    while todo:
        p = todo.pop()
        pids.append(p)
        try:
            for task in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{task}/children") as fh:
                    todo.extend(int(c) for c in fh.read().split())
        except OSError:
            continue
    return pids


def memory(pid: int) -> tuple[int, int]:
    """RSS and PSS of one process, in bytes (0 once it is gone).

    PSS splits the pages a parent shares with its forked workers between them, so the
    sum over a process tree counts each page once, where summed RSS counts it per process.
    """
    rss = pss = 0
    try:
        with open(f"/proc/{pid}/smaps_rollup") as fh:
            for line in fh:
                if line.startswith("Rss:"):
                    rss = int(line.split()[1]) * 1024
                elif line.startswith("Pss:"):
                    pss = int(line.split()[1]) * 1024
    except OSError:
        pass
    return rss, pss
