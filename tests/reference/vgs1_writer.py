"""The retired ``VGS1`` writer of stored scores, kept as an independent reference.

Workers store ``VGS2`` frames (:mod:`vigil.results.frames`); :func:`vigil.results.compact.unpack`
still reads ``VGS1`` blobs of rosters stored before them. This writer builds such blobs for
the tests, and gives the frames' reader an independent encoding to agree with.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

import numpy as np

from vigil.results.compact import _DTYPE, _HEADER, MAGIC, Float32Array, IndexedDuty, IndexedSchedule
from vigil.results.stored_sleep import SleepColumns, sleep_columns
from vigil.scoring.report import ScheduleResult

__all__ = ["CompactChunk", "compact_chunk", "pack"]


@dataclass(frozen=True, slots=True)
class CompactChunk:
    """Scores of consecutive schedules, compact: what a worker sends back (picklable).

    Attributes
    ----------
    schedules : list of IndexedSchedule
        One per schedule (written as the index format above).
    scores : ndarray of float32, shape (total_intervals, n_scales)
    sleep : SleepColumns, optional
        The sleep the scores rest on (:mod:`vigil.results.stored_sleep`).
    """

    schedules: list[IndexedSchedule]
    scores: Float32Array
    sleep: SleepColumns | None = None


def _epoch_s(instant: datetime) -> int:
    return int(instant.timestamp())


def compact_chunk(results: Sequence[ScheduleResult], scales: Sequence[str]) -> CompactChunk:
    """Float32 matrix and index entries for ``results`` (one scored chunk)."""
    index: list[IndexedSchedule] = []
    blocks: list[Float32Array] = []
    for result in results:
        duties = tuple(
            IndexedDuty(
                _epoch_s(d.on_duty),
                _epoch_s(d.off_duty),
                d.first_interval,
                d.interval_count,
                d.risk,
                d.rest,
            )
            for d in result.duties
        )
        count = int(result.scores[scales[0]].shape[0])
        index.append(IndexedSchedule(result.reference, count, duties))
        blocks.append(np.stack([result.scores[s] for s in scales], axis=1).astype(_DTYPE))
    matrix = np.concatenate(blocks) if blocks else np.empty((0, len(scales)), dtype=_DTYPE)
    return CompactChunk(index, matrix, sleep_columns(results))


def pack(chunks: Iterable[CompactChunk], scales: Sequence[str]) -> bytes:
    """One blob from ``chunks`` in order (each chunk is released once copied)."""
    index: list[IndexedSchedule] = []
    parts: list[bytes] = []
    for chunk in chunks:
        if chunk.scores.shape[1:] != (len(scales),):
            raise ValueError("chunk scales do not match")
        index.extend(chunk.schedules)
        parts.append(np.ascontiguousarray(chunk.scores, dtype=_DTYPE).tobytes())
    header = json.dumps({"scales": list(scales), "schedules": index}, separators=(",", ":"))
    encoded = header.encode()
    parts.insert(0, _HEADER.pack(MAGIC, len(encoded)) + encoded)
    return b"".join(parts)
