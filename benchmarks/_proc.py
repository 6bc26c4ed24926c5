"""What the benchmarks read from /proc about a command and the worker processes it starts."""

from __future__ import annotations

import os
import resource
import subprocess
import threading
import time
from pathlib import Path
from typing import NamedTuple


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


class Measured(NamedTuple):
    """What :func:`run_measured` saw of one command."""

    wall: float  # seconds
    cpu: float  # user + system seconds of the command and every process it waited for
    rss: int  # peak summed RSS over the process tree, bytes
    pss: int  # peak summed PSS over the process tree, bytes


def run_measured(cmd: list[str], cwd: Path | None = None) -> Measured:
    """Run ``cmd`` (in ``cwd``: ``python -c`` then imports that checkout) and measure it.

    Memory is sampled every 20 ms over the command and its workers; a failing command
    ends the benchmark with its stderr.
    """
    env = None if cwd is None else {**os.environ, "PYTHONPATH": str(cwd)}
    peak = [0, 0]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.Popen(
        cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=cwd, env=env
    )
    done = threading.Event()

    def sample() -> None:
        while not done.is_set():
            mem = [memory(p) for p in process_tree(proc.pid)]
            peak[0] = max(peak[0], sum(m[0] for m in mem))
            peak[1] = max(peak[1], sum(m[1] for m in mem))
            done.wait(0.02)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    _, err = proc.communicate()
    wall = time.perf_counter() - start
    done.set()
    sampler.join()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}): {err.decode()}")
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return Measured(wall, cpu, peak[0], peak[1])
