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

from vigil.worker.memory import release_memory, reuse_heap_in_tasks
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
    """:func:`run_task` in a scoring process (local or a Dask worker), then the task's
    freed memory back to the OS (:func:`vigil.worker.memory.release_memory`): a scoring
    process waiting for its next task, or idle after the roster, holds its base, not its
    last task's peak. In a Dask worker, whose nanny makes glibc give back every freed
    block at once, the heap is first set to reuse them during the task
    (:func:`vigil.worker.memory.reuse_heap_in_tasks`: a third less CPU per task)."""
    reuse_heap_in_tasks()
    outcome = run_task(task)
    release_memory()
    return outcome


class ProcessScorer:
    """Runs tasks in a pool of local processes (spawned lazily, shared by a pool's threads).

    Processes keep the server's memory and GIL free of the CPU-bound work. Between
    rosters they hold their imports and compiled kernels (about 270 MiB each):
    :meth:`release_idle` ends them when no roster is using them, and the next roster
    spawns new ones (a few seconds, in parallel with its splitting).
    """

    def __init__(self, processes: int) -> None:
        self._processes = processes
        self._executor: Executor | None = None
        self._lock = threading.Lock()
        self._users = 0  #: map() calls under way

    def _pool(self) -> Executor:
        if self._executor is None:
            context = multiprocessing.get_context("spawn")
            self._executor = ProcessPoolExecutor(self._processes, mp_context=context)
        return self._executor

    def map(self, tasks: Sequence[ChunkTask]) -> Iterator[ChunkOutcome]:
        if len(tasks) <= 1:  # one task: not worth a round trip
            yield from InlineScorer().map(tasks)
            return
        with self._lock:
            pool = self._pool()
            self._users += 1
        try:
            yield from pool.map(run_task_then_release, tasks)
        finally:
            with self._lock:
                self._users -= 1

    @property
    def running(self) -> bool:
        """Whether scoring processes are alive."""
        return self._executor is not None

    def release_idle(self) -> bool:
        """End the processes if no roster is using them; ``True`` if they were ended."""
        with self._lock:
            if self._users or self._executor is None:
                return False
            executor, self._executor = self._executor, None
        executor.shutdown(wait=True)
        return True

    def close(self) -> None:
        with self._lock:
            executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=True, cancel_futures=True)
