"""Where chunk tasks run: this thread, local processes, or a Dask cluster.

:func:`vigil.worker.tasks.run_task` is the task every scorer runs (parse a part of the
roster if given text, score with the service's scoring function, encode to bytes);
:class:`InlineScorer` and :class:`ProcessScorer` run it here,
:class:`vigil.worker.dask.DaskScorer` on a cluster. The worker loop
(:mod:`vigil.worker.run`) picks one per roster.
"""

from __future__ import annotations

import multiprocessing
import threading
from collections.abc import Iterator, Sequence
from concurrent.futures import Executor, ProcessPoolExecutor
from typing import Protocol

from vigil.worker.memory import release_memory
from vigil.worker.tasks import ChunkOutcome, ChunkTask, run_task

__all__ = ["ChunkScorer", "InlineScorer", "ProcessScorer", "run_task", "run_task_then_release"]


class ChunkScorer(Protocol):
    """Runs chunk tasks somewhere and yields their outcomes *in order*."""

    def map(self, tasks: Sequence[ChunkTask]) -> Iterator[ChunkOutcome]: ...

    def close(self) -> None: ...


class InlineScorer:
    """Runs tasks in the calling thread."""

    def map(self, tasks: Sequence[ChunkTask]) -> Iterator[ChunkOutcome]:
        for task in tasks:
            yield run_task(task)

    def close(self) -> None:
        return None


def run_task_then_release(task: ChunkTask) -> ChunkOutcome:
    """:func:`run_task`, then the task's freed memory back to the OS
    (:func:`vigil.worker.memory.release_memory`): a scoring process waiting for its next
    task, or idle after the roster, holds its base, not its last task's peak."""
    outcome = run_task(task)
    release_memory()
    return outcome


class ProcessScorer:
    """Runs tasks in a pool of local processes (spawned lazily, shared by a pool's threads).

    Processes keep the server's memory and GIL free of the CPU-bound work.
    """

    def __init__(self, processes: int) -> None:
        self._processes = processes
        self._executor: Executor | None = None
        self._lock = threading.Lock()

    def _pool(self) -> Executor:
        with self._lock:
            if self._executor is None:
                context = multiprocessing.get_context("spawn")
                self._executor = ProcessPoolExecutor(self._processes, mp_context=context)
            return self._executor

    def map(self, tasks: Sequence[ChunkTask]) -> Iterator[ChunkOutcome]:
        if len(tasks) <= 1:  # one task: not worth a round trip
            yield from InlineScorer().map(tasks)
            return
        yield from self._pool().map(run_task_then_release, tasks)

    def close(self) -> None:
        with self._lock:
            if self._executor is not None:
                self._executor.shutdown(wait=True, cancel_futures=True)
                self._executor = None
