"""The sleep an uploaded roster's scores rest on, stored with its results.

The worker keeps, for every scored schedule, the sleep episodes the model ran on: the
given SleepData records (contract §3.2) or the predicted sleep (reference §4, §5),
in-flight rest included, and the habitual warm-up nights before given records
(reference §9.4). ``GetResults`` answers ``dataKey=sleep`` and ``includeSleep=true`` from
this blob, exactly as ProcessFatigueRisk's ``includeSleep`` (contract §4) would.

Kinds (one string per episode, :data:`KINDS`), each fixing the contract's ``source`` and
``kind`` fields:

==================  ===========  ==========  ==========================================
kind                source       kind (§4)   what it is
==================  ===========  ==========  ==========================================
``predicted``       predicted    main        predicted main sleep, and warm-up nights
``nap``             predicted    nap         predicted nap
``inflight``        predicted    inflight    predicted sleep in an in-flight rest window
``given``           given        main        a SleepData record outside any duty
``given-inflight``  given        inflight    a SleepData record inside a duty
==================  ===========  ==========  ==========================================

Layout (ours, little-endian): one or more segments back to back (each chunk task encodes
its own, the worker joins them in schedule order)::

    segment = b"VGZ1" | uint32 n = len(index) | uint32 m = len(data) | index (n bytes) | data
    data = zlib(arrays)

with index ``{"kinds": [...], "schedules": [[reference, episode_count], ...]}`` and
``arrays`` = ``int64 start_delta[N] | int64 end_s[N] | float32 quality[N] | uint8 kind[N]``
(``start_delta`` the first difference of the start instants, so they compress well).
Instants are whole seconds since the epoch, as the responses round them
(:func:`vigil.scoring.grid.from_epoch_hours`); quality is stored as the float32 of its
3-decimal rounding, which rounds back to the same 3 decimals (as in
:mod:`vigil.results.compact`).
"""

from __future__ import annotations

import json
import struct
import zlib
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from vigil.scoring.grid import SleepEpisode
from vigil.scoring.report import ScheduleResult

__all__ = [
    "KINDS",
    "SleepColumns",
    "StoredSleep",
    "decode_sleep",
    "encode_sleep",
    "schedule_sleep",
    "sleep_columns",
]

MAGIC = b"VGZ1"
_HEADER = struct.Struct("<4sII")
_HOUR = 3600.0
#: quality keeps the 3 decimals of the responses (contract §4)
_QUALITY_DECIMALS = 3

#: stored kinds, in code order: (kind, contract source, contract kind)
KINDS: tuple[tuple[str, str, str], ...] = (
    ("predicted", "predicted", "main"),
    ("nap", "predicted", "nap"),
    ("inflight", "predicted", "inflight"),
    ("given", "given", "main"),
    ("given-inflight", "given", "inflight"),
)
_CODE = {(source, kind): code for code, (_, source, kind) in enumerate(KINDS)}
_NAMES = {name: code for code, (name, _, _) in enumerate(KINDS)}


class StoredSleep(NamedTuple):
    """One stored sleep episode."""

    start_s: int  #: [s since the epoch, UTC]
    end_s: int  #: [s since the epoch, UTC]
    kind: str  #: one of :data:`KINDS` (module docstring)
    quality: float  #: restorative value per hour, 0-1, 3 decimals

    @property
    def source(self) -> str:
        """The contract's ``source``: ``given`` or ``predicted``."""
        return KINDS[_NAMES[self.kind]][1]

    @property
    def contract_kind(self) -> str:
        """The contract's ``kind``: ``main``, ``nap`` or ``inflight``."""
        return KINDS[_NAMES[self.kind]][2]

    def episode(self) -> SleepEpisode:
        """As the scoring service's :class:`~vigil.scoring.grid.SleepEpisode`."""
        return SleepEpisode(
            self.start_s / _HOUR, self.end_s / _HOUR, self.quality, self.source, self.contract_kind
        )


class SleepColumns(NamedTuple):
    """The sleep of consecutive schedules as flat columns (what a chunk task returns)."""

    references: list[str]
    counts: npt.NDArray[np.int64]  #: episodes per schedule
    start_s: npt.NDArray[np.int64]
    end_s: npt.NDArray[np.int64]
    quality: npt.NDArray[np.float32]
    kind: npt.NDArray[np.uint8]  #: index into :data:`KINDS`


def _seconds(hours: Sequence[float]) -> npt.NDArray[np.int64]:
    # exactly grid.from_epoch_hours: Python's round (half to even) of hours * 3600
    return np.array([round(h * _HOUR) for h in hours], dtype=np.int64)


def sleep_columns(results: Sequence[ScheduleResult]) -> SleepColumns:
    """The sleep of scored schedules (``ScheduleResult.sleep``) as columns."""
    episodes = [e for r in results for e in r.sleep]
    return SleepColumns(
        references=[r.reference for r in results],
        counts=np.array([len(r.sleep) for r in results], dtype=np.int64),
        start_s=_seconds([e.start for e in episodes]),
        end_s=_seconds([e.end for e in episodes]),
        quality=np.array([round(e.quality, _QUALITY_DECIMALS) for e in episodes], dtype=np.float32),
        kind=np.array([_CODE[e.source, e.kind] for e in episodes], dtype=np.uint8),
    )


def encode_sleep(parts: Iterable[SleepColumns]) -> bytes:
    """One blob from the sleep of consecutive chunks, in order."""
    pieces = list(parts)
    schedules = [
        [ref, int(n)] for p in pieces for ref, n in zip(p.references, p.counts, strict=True)
    ]
    start = np.concatenate([p.start_s for p in pieces] or [np.empty(0, np.int64)])
    end = np.concatenate([p.end_s for p in pieces] or [np.empty(0, np.int64)])
    quality = np.concatenate([p.quality for p in pieces] or [np.empty(0, np.float32)])
    kind = np.concatenate([p.kind for p in pieces] or [np.empty(0, np.uint8)])
    delta = np.diff(start, prepend=np.int64(0))
    arrays = b"".join(
        (
            delta.astype("<i8").tobytes(),
            end.astype("<i8").tobytes(),
            quality.astype("<f4").tobytes(),
            kind.astype("u1").tobytes(),
        )
    )
    index = json.dumps(
        {"kinds": [k for k, _, _ in KINDS], "schedules": schedules}, separators=(",", ":")
    ).encode()
    data = zlib.compress(arrays, 6)
    return _HEADER.pack(MAGIC, len(index), len(data)) + index + data


def _segments(blob: bytes) -> Iterator[tuple[dict[str, list[Any]], int, int]]:
    """``(index, data start, data end)`` of each segment, the data left compressed."""
    at = 0
    while at < len(blob):
        if len(blob) - at < _HEADER.size:
            raise ValueError("sleep blob is truncated")
        magic, length, size = _HEADER.unpack_from(blob, at)
        if magic != MAGIC:
            raise ValueError("not a Vigil sleep blob")
        start = at + _HEADER.size
        at = start + length + size
        if at > len(blob):
            raise ValueError("sleep blob is truncated")
        yield json.loads(bytes(blob[start : start + length])), start + length, at


def decode_sleep(blob: bytes) -> dict[str, list[StoredSleep]]:
    """Reference → its sleep episodes in time order, from :func:`encode_sleep` segments
    (one, or several joined in schedule order)."""
    out: dict[str, list[StoredSleep]] = {}
    for index, start, end in _segments(blob):
        _decode_segment(index, zlib.decompress(bytes(blob[start:end])), out)
    return out


def schedule_sleep(blob: bytes, reference: str) -> list[StoredSleep]:
    """One Reference's sleep episodes (empty when it has none), decompressing only the
    segment that holds it (a chart at airline size)."""
    for index, start, end in _segments(blob):
        if any(name == reference for name, _ in index["schedules"]):
            out: dict[str, list[StoredSleep]] = {}
            _decode_segment(index, zlib.decompress(bytes(blob[start:end])), out)
            return out.get(reference, [])
    return []


def _decode_segment(
    index: dict[str, list[Any]], data: bytes, out: dict[str, list[StoredSleep]]
) -> None:
    names: list[str] = index["kinds"]
    total = sum(n for _, n in index["schedules"])
    if len(data) != total * 21:
        raise ValueError("sleep blob is truncated")
    starts = np.cumsum(np.frombuffer(data, "<i8", total, 0)).tolist()
    ends = np.frombuffer(data, "<i8", total, 8 * total).tolist()
    quality = np.frombuffer(data, "<f4", total, 16 * total).astype(np.float64)
    qualities = np.round(quality, _QUALITY_DECIMALS).tolist()
    kinds = [names[k] for k in np.frombuffer(data, "u1", total, 20 * total).tolist()]
    at = 0
    for reference, count in index["schedules"]:
        out[reference] = [
            StoredSleep(starts[j], ends[j], kinds[j], qualities[j]) for j in range(at, at + count)
        ]
        at += count
