"""Where chunk tasks run: this thread, local processes, or a Dask cluster.

:func:`vigil.worker.tasks.run_task` is the task every scorer runs (parse a part of the
roster if given text, score with the service's scoring function, encode to bytes);
:class:`InlineScorer` and :class:`ProcessScorer` run it here,
:class:`vigil.worker.dask.DaskScorer` on a cluster. The worker loop
(:mod:`vigil.worker.run`) picks one per roster. A scorer also splits a roster's text
(:meth:`ChunkScorer.map_split`: here in the calling thread, on the cluster for Dask) and
runs the roster's summary build where the tasks ran (:meth:`ChunkScorer.submit`).
"""

from __future__ import annotations

import multiprocessing
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from typing import Any, Protocol, TypeVar

from vigil.domain import DateFormat
from vigil.worker.memory import release_memory, reuse_heap_in_tasks
from vigil.worker.split import split_roster
from vigil.worker.tasks import ChunkOutcome, ChunkTask, run_task, split_counts, task_of

__all__ = [
    "ChunkScorer",
    "InlineScorer",
    "Pending",
    "ProcessScorer",
    "SplitOutcomes",
    "run_task",
    "run_task_then_release",
    "split_here",
]

T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)

#: crew per task (0: known once the task has run), then the outcomes in order
SplitOutcomes = tuple[list[int], Iterator[ChunkOutcome]]


class Pending(Protocol[T_co]):
    """A result being computed (a ``concurrent.futures.Future`` or a Dask future)."""

    def result(self) -> T_co: ...


class ChunkScorer(Protocol):
    """Runs chunk tasks somewhere and yields their outcomes *in order*."""

    def map(self, tasks: Sequence[ChunkTask]) -> Iterator[ChunkOutcome]: ...

    def map_split(
        self, text: str, date_format: DateFormat, size: int, options: ChunkTask
    ) -> SplitOutcomes:
        """Split RosterData ``text`` into parts of ``size`` schedules
        (:func:`vigil.worker.split.split_roster`) and run a task per part (``options``
        with the part: :func:`vigil.worker.tasks.task_of`)."""
        ...

    def submit(self, fn: Callable[..., T], *args: Any) -> Pending[T]:
        """Run ``fn(*args)`` (picklable) where the tasks run."""
        ...

    def close(self) -> None: ...


def split_here(
    scorer: ChunkScorer, text: str, date_format: DateFormat, size: int, options: ChunkTask
) -> SplitOutcomes:
    """:meth:`ChunkScorer.map_split` with the split in the calling thread (local scorers:
    the text is already in this process), then the memory it freed back to the OS."""
    split = split_roster(text, date_format, size)
    counts = split_counts(split)
    tasks = [task_of(split, text, options, i) for i in range(len(counts))]
    del split
    release_memory()  # the split's lines and keys, before the tasks' processes grow
    return counts, scorer.map(tasks)


class _Later:
    """``fn(*args)`` run by the first thread that asks for its result (a local scorer's
    :meth:`~ChunkScorer.submit`): the summariser's thread when rosters are queued, the
    worker's when it waits, so the worker's thread never builds it ahead of the next
    roster."""

    def __init__(self, fn: Callable[..., Any], args: tuple[Any, ...]) -> None:
        self._call: tuple[Callable[..., Any], tuple[Any, ...]] | None = (fn, args)
        self._lock = threading.Lock()
        self._future: Future[Any] = Future()

    def result(self) -> Any:
        with self._lock:
            if self._call is not None:
                fn, args = self._call
                self._call = None  # the arguments are not held once run
                try:
                    self._future.set_result(fn(*args))
                except Exception as exc:  # noqa: BLE001 - raised to whoever asks, below
                    self._future.set_exception(exc)
        return self._future.result()


class InlineScorer:
    """Runs tasks in the calling thread."""

    def map(self, tasks: Sequence[ChunkTask]) -> Iterator[ChunkOutcome]:
        for task in tasks:
            yield run_task(task)

    def map_split(
        self, text: str, date_format: DateFormat, size: int, options: ChunkTask
    ) -> SplitOutcomes:
        return split_here(self, text, date_format, size, options)

    def submit(self, fn: Callable[..., T], *args: Any) -> Pending[T]:
        """Run by the thread that first asks for the result (:class:`_Later`)."""
        later: Pending[T] = _Later(fn, args)
        return later

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
            self._leave()

    def map_split(
        self, text: str, date_format: DateFormat, size: int, options: ChunkTask
    ) -> SplitOutcomes:
        return split_here(self, text, date_format, size, options)

    def submit(self, fn: Callable[..., T], *args: Any) -> Pending[T]:
        """In a scoring process while they run (a roster of several tasks has just used
        them), else by the thread that asks for the result (:class:`_Later`): no processes
        are spawned for one call."""
        with self._lock:
            if self._executor is None:
                pool = None
            else:
                pool = self._executor
                self._users += 1
        if pool is None:
            later: Pending[T] = _Later(fn, args)
            return later
        try:
            future = pool.submit(fn, *args)
        except BaseException:
            self._leave()
            raise
        future.add_done_callback(lambda _: self._leave())
        return future

    def _leave(self) -> None:
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
