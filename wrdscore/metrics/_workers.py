"""Forked worker processes for the streaming engine (:func:`~wrdscore.metrics.score_files`).

Each worker is given the run's job as it forks (inherited, never pickled: metrics hold
memory-mapped models and caches) and runs ``fn(job, task)`` for each chunk it is sent.
"""

from __future__ import annotations

import gc
import signal
from collections import deque
from collections.abc import Callable, Iterator
from typing import Any


def serve(conn: Any, job: Any) -> None:
    """A worker: run ``(fn, task)`` messages as ``fn(job, task)`` until ``None``,
    answering ``(ok, value)``."""
    while (message := conn.recv()) is not None:
        fn, task = message
        try:
            answer = (True, fn(job, task))
        except BaseException as exc:  # sent back, raised again in the parent
            answer = (False, exc)
        try:
            conn.send(answer)
        except Exception as exc:  # an exception that does not pickle
            conn.send((False, RuntimeError(repr(exc))))


class Workers:
    """Forked worker processes, one pipe each, fed chunks round robin.

    Deliberately simpler than ``multiprocessing.Pool``: no shared queues or locks, so
    stopping them (an error, Ctrl-C) is a plain kill that cannot deadlock, and
    results come back in order because chunk ``k`` always goes to worker
    ``k % jobs``. Each worker has one chunk at a time, and the parent takes a
    worker's result before sending it the next chunk, so neither side ever waits on
    a full pipe. The workers are born ignoring Ctrl-C: the parent alone handles it.
    Each is given the run's ``job`` as it forks (inherited, never pickled), and each
    message names only a module function and a chunk.
    """

    def __init__(self, jobs: int, job: Any) -> None:
        import multiprocessing

        context = multiprocessing.get_context("fork")
        self.conns: list[Any] = []
        self.procs: list[Any] = []
        # Objects that exist now are never collected in the workers: without this
        # their collector would touch (so copy) every page they share with us.
        gc.freeze()
        handler = signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            for _ in range(jobs):
                here, there = context.Pipe()
                proc = context.Process(target=serve, args=(there, job), daemon=True)
                proc.start()
                there.close()
                self.conns.append(here)
                self.procs.append(proc)
        finally:
            signal.signal(signal.SIGINT, handler)
            gc.unfreeze()

    def map(self, fn: Callable[[Any, Any], Any], tasks: Iterator[Any]) -> Iterator[Any]:
        """``map(fn, tasks)``, in order, one task in flight per worker."""
        jobs = len(self.conns)
        busy: deque[int] = deque()
        for k, task in enumerate(tasks):
            if len(busy) == jobs:
                yield self._answer(busy.popleft())  # worker k % jobs: free again
            self.conns[k % jobs].send((fn, task))
            busy.append(k % jobs)
        while busy:
            yield self._answer(busy.popleft())

    def _answer(self, worker: int) -> Any:
        try:
            ok, value = self.conns[worker].recv()
        except EOFError:
            raise RuntimeError("a scoring worker process died") from None
        if not ok:
            raise value
        return value

    def close(self) -> None:
        for proc in self.procs:
            proc.kill()
        for proc in self.procs:
            proc.join()
        for conn in self.conns:
            conn.close()


def run_tasks(
    fn: Callable[[Any, Any], Any], job: Any, tasks: Iterator[Any], workers: Workers | None
) -> Iterator[Any]:
    """``fn(job, task)`` of each task, in order: in this process, or on the workers (which
    hold ``job`` since they forked)."""
    if workers is None:
        return (fn(job, task) for task in tasks)
    return workers.map(fn, tasks)
