"""Where chunks of schedules are scored: this thread, local processes, or a Dask cluster.

:func:`score_chunk` is the task every scorer runs (the service's scoring function, then
compaction to float32); :class:`InlineScorer` and :class:`ProcessScorer` run it here,
:class:`vigil.worker.dask.DaskScorer` on a cluster. The worker loop
(:mod:`vigil.worker.run`) picks one per roster.
"""

from __future__ import annotations

import multiprocessing
import threading
from collections.abc import Iterator, Sequence
from concurrent.futures import Executor, ProcessPoolExecutor
from itertools import repeat
from typing import Protocol

from vigil.domain import Schedule
from vigil.model import Parameters
from vigil.scoring.service import resolve_preset, score_schedules
from vigil.worker.compact import CompactChunk, compact_chunk

__all__ = ["ChunkScorer", "InlineScorer", "ProcessScorer", "score_chunk"]


#: a preset name, or the parameters themselves (an operator's settings, issue 18)
Preset = str | Parameters


def score_chunk(
    schedules: Sequence[Schedule], preset: Preset, scales: tuple[str, ...]
) -> CompactChunk:
    """Score consecutive schedules and compact them (runs in any process or on Dask)."""
    params = preset if isinstance(preset, Parameters) else resolve_preset(preset)
    return compact_chunk(score_schedules(schedules, params, scales), scales)


class ChunkScorer(Protocol):
    """Scores chunks of schedules somewhere and yields their results *in order*."""

    def map(
        self, chunks: Sequence[Sequence[Schedule]], preset: Preset, scales: tuple[str, ...]
    ) -> Iterator[CompactChunk]: ...

    def close(self) -> None: ...


class InlineScorer:
    """Scores in the calling thread."""

    def map(
        self, chunks: Sequence[Sequence[Schedule]], preset: Preset, scales: tuple[str, ...]
    ) -> Iterator[CompactChunk]:
        for chunk in chunks:
            yield score_chunk(chunk, preset, scales)

    def close(self) -> None:
        return None


class ProcessScorer:
    """Scores in a pool of local processes (spawned lazily, shared by a pool's threads).

    Processes keep the server's memory and GIL free of the CPU-bound scoring.
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

    def map(
        self, chunks: Sequence[Sequence[Schedule]], preset: Preset, scales: tuple[str, ...]
    ) -> Iterator[CompactChunk]:
        if len(chunks) <= 1:  # one chunk: not worth a round trip
            yield from InlineScorer().map(chunks, preset, scales)
            return
        yield from self._pool().map(score_chunk, chunks, repeat(preset), repeat(scales))

    def close(self) -> None:
        with self._lock:
            if self._executor is not None:
                self._executor.shutdown(wait=True, cancel_futures=True)
                self._executor = None
