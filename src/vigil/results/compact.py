"""Compact stored results of an uploaded roster ("results stored compactly").

A roster's scores are kept as one binary blob per roster, float32 interval scores for
**all six scales** plus a small JSON index, so ``GetResults&scale=`` reads another scale
without recomputing (contract §5). Layout (ours, little-endian)::

    b"VGS1" | uint32 n = len(index) | index (UTF-8 JSON, n bytes) | float32[total, n_scales]

The index is ``{"scales": [...], "schedules": [[reference, interval_count, duties], ...]}``
with ``duties = [[on_epoch_s, off_epoch_s, first_interval, interval_count, risk(, rest)], ...]``
(``rest``: the duty's own rest as ``[first, count]`` runs of its intervals; older blobs
have five fields, read as no rest).
Rows of the float32 matrix are intervals, schedules back to back in schedule order, so
chunks scored anywhere (threads, processes, a Dask cluster) are appended in order.

Scores are rounded to 3 decimals by the service; float32 keeps 7 significant digits, so
rounding the float32 value to 3 decimals again gives back exactly the service's float64
value (every score is at most 100, i.e. at most 6 significant digits).
"""

from __future__ import annotations

import struct
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from vigil.results.frames import MAGIC as FRAMES_MAGIC
from vigil.results.frames import decode_all, read_index
from vigil.results.stored_sleep import StoredSleep
from vigil.scoring.duty_risk import COMPONENT_FIELDS, DRIVER_FIELDS
from vigil.scoring.report import DutyResult, ScheduleResult, stream_envelope
from vigil.scoring.request import DECIMALS

__all__ = [
    "IndexedDuty",
    "IndexedSchedule",
    "StoredScores",
    "drivers_of",
    "unpack",
]

MAGIC = b"VGS1"
_HEADER = struct.Struct("<4sI")
_DTYPE = np.dtype("<f4")

Float32Array = npt.NDArray[np.float32]


class IndexedDuty(NamedTuple):
    """One duty of the stored index (serialised as a JSON array in this order)."""

    on_s: int  #: report [s since the epoch]
    off_s: int  #: off duty [s since the epoch]
    first_interval: int
    interval_count: int
    risk: float | None
    #: the crew member's own rest as ``(first, count)`` runs of the duty's intervals
    #: (:attr:`vigil.scoring.report.DutyResult.rest`); written only when there is any
    rest: tuple[tuple[int, int], ...] = ()


class IndexedSchedule(NamedTuple):
    """One schedule of the stored index: its rows of the score matrix and its duties."""

    reference: str
    interval_count: int
    duties: tuple[IndexedDuty, ...]

    @classmethod
    def from_json(cls, row: list[Any]) -> IndexedSchedule:
        """An index entry as stored (``[reference, count, duties]``)."""
        reference, count, duties = row
        return cls(str(reference), int(count), tuple(_duty(d) for d in duties))


def _duty(row: list[Any]) -> IndexedDuty:
    """A stored duty row: five fields, and a sixth (its rest runs) when it has rest."""
    if len(row) > 5:
        rest = tuple((int(a), int(n)) for a, n in row[5])
        return IndexedDuty(row[0], row[1], row[2], row[3], row[4], rest)
    return IndexedDuty(*row)


@dataclass(frozen=True, slots=True)
class StoredScores:
    """A decoded blob: the index and a read-only float32 view of the scores, with what
    drives each duty's risk where it was stored (``(duties, len(DRIVER_FIELDS))`` in
    :data:`vigil.scoring.duty_risk.DRIVER_FIELDS` order, duties in stored order;
    ``None`` for rosters stored before, or without risk)."""

    scales: tuple[str, ...]
    schedules: list[IndexedSchedule]
    matrix: Float32Array
    drivers: Float32Array | None = None

    @classmethod
    def of_results(cls, results: Sequence[ScheduleResult], scales: Sequence[str]) -> StoredScores:
        """Scored schedules as the store reads them back (index, float32 scores), built in
        memory: what ``vigil report roster`` reports from, without encoding a blob."""
        schedules = [
            IndexedSchedule(
                r.reference,
                int(r.scores[scales[0]].shape[0]),
                tuple(
                    IndexedDuty(
                        int(d.on_duty.timestamp()),
                        int(d.off_duty.timestamp()),
                        d.first_interval,
                        d.interval_count,
                        d.risk,
                    )
                    for d in r.duties
                ),
            )
            for r in results
        ]
        blocks = [np.stack([r.scores[s] for s in scales], axis=1).astype(_DTYPE) for r in results]
        matrix = np.concatenate(blocks) if blocks else np.empty((0, len(scales)), dtype=_DTYPE)
        return cls(tuple(scales), schedules, matrix, drivers_of(results))

    @property
    def references(self) -> list[str]:
        """Every stored schedule's Reference, in order."""
        return [s.reference for s in self.schedules]

    def schedule_results(
        self,
        scale: str,
        sleep: Mapping[str, Sequence[StoredSleep]] | None = None,
        only: Sequence[int] | None = None,
    ) -> Iterator[ScheduleResult]:
        """Every schedule's :class:`ScheduleResult` on ``scale`` alone, in order.

        With ``sleep`` (:func:`vigil.results.stored_sleep.decode_sleep`), each result
        carries its schedule's sleep episodes; with ``only``, just the schedules at
        those positions (of :attr:`references`), in that order.
        """
        column = self.scales.index(scale)
        counts = [s.interval_count for s in self.schedules]
        starts = np.concatenate(([0], np.cumsum(counts, dtype=np.int64))).tolist()
        for i in range(len(self.schedules)) if only is None else only:
            reference, count, duties = self.schedules[i]
            offset = starts[i]
            values = self.matrix[offset : offset + count, column].astype(np.float64)
            episodes = sleep.get(reference, ()) if sleep is not None else ()
            yield ScheduleResult(
                reference=reference,
                scores={scale: np.round(values, DECIMALS)},
                duties=tuple(
                    DutyResult(
                        datetime.fromtimestamp(on, UTC),
                        datetime.fromtimestamp(off, UTC),
                        first,
                        n,
                        risk,
                        rest,
                    )
                    for on, off, first, n, risk, rest in duties
                ),
                sleep=tuple(e.episode() for e in episodes),
            )

    def envelope(
        self,
        scale: str,
        *,
        model_version: str,
        errors: Sequence[str],
        settings_version: int | None = 0,
        sleep: Mapping[str, Sequence[StoredSleep]] | None = None,
        only: Sequence[int] | None = None,
    ) -> Iterator[bytes]:
        """The ProcessFatigueRisk envelope (contract §4) as streamed UTF-8 JSON pieces.

        Built by :func:`vigil.scoring.report.stream_envelope`, the builder of every
        response, so GetResults answers exactly what ProcessFatigueRisk would; with
        ``sleep``, exactly what it answers with ``includeSleep=true``; with ``only``, the
        schedules at those positions.
        """
        return stream_envelope(
            self.schedule_results(scale, sleep, only),
            scale,
            model_version=model_version,
            errors=errors,
            risk=True,
            settings_version=settings_version,
            include_sleep=sleep is not None,
        )


def drivers_of(results: Sequence[ScheduleResult]) -> Float32Array | None:
    """The drivers of every duty of ``results`` (``None`` unless every duty has them)."""
    duties = [d.drivers for r in results for d in r.duties]
    if not duties or any(d is None for d in duties):
        return None
    rows = [
        [*(d.components.get(k, 0.0) for k in COMPONENT_FIELDS), d.kind, d.position]
        for d in duties
        if d is not None
    ]
    out = np.asarray(rows, dtype=np.float64).round(3).astype(_DTYPE)
    assert out.shape[1] == len(DRIVER_FIELDS)
    return out


def unpack(blob: bytes, scales: Sequence[str] | None = None) -> StoredScores:
    """Decode a stored scores blob: the layout above (``VGS1``, rosters stored before the
    frames) or the smaller ``VGS2`` of :mod:`vigil.results.frames` (what workers store).

    ``scales`` (default: all stored) keeps only those columns, in that order: a ``VGS2``
    blob then rebuilds only the series they need (the roster summary reads one scale).
    """
    if bytes(blob[:4]) == FRAMES_MAGIC:
        codes, rows, matrix, drivers = decode_all(blob, scales)
        return StoredScores(codes, [IndexedSchedule.from_json(r) for r in rows], matrix, drivers)
    magic, length = _HEADER.unpack_from(blob, 0)
    if magic != MAGIC:
        raise ValueError("not a Vigil scores blob")
    start = _HEADER.size
    index = read_index(blob[start : start + length])
    stored = tuple(index["scales"])
    data = np.frombuffer(blob, dtype=_DTYPE, offset=start + length).reshape(-1, len(stored))
    schedules = [IndexedSchedule.from_json(row) for row in index["schedules"]]
    if scales is None or tuple(scales) == stored:
        return StoredScores(stored, schedules, data)
    if not set(scales) <= set(stored):
        raise ValueError(f"scales {tuple(scales)} are not all stored ({stored})")
    columns = [stored.index(code) for code in scales]
    return StoredScores(tuple(scales), schedules, np.ascontiguousarray(data[:, columns]))
