"""Valid SleepData records by schedule as arrays, readable as :class:`SleepRecord` values.

:func:`vigil.roster.sleep_records.parse_sleep_data` returns a :class:`SleepColumns`: one
flat array per field, sorted by schedule and then by start, end and record index (the
order of its former per-schedule lists). It is a ``Mapping[str, Sequence[SleepRecord]]``,
so every caller that reads records keeps working; a schedule's records are built as
objects only when that schedule is read, and array readers (:func:`record_arrays`) never
build them. A month's SleepData has 366,000 records: building their objects took longer
than reading them.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from functools import cached_property
from typing import overload

import numpy as np
import numpy.typing as npt

from vigil.domain import SleepRecord
from vigil.gc_pause import cyclic_gc_paused

__all__ = [
    "SleepColumns",
    "SleepSlice",
    "first_start",
    "instant_of",
    "last_end",
    "microseconds_of",
    "record_arrays",
]

IntArray = npt.NDArray[np.int64]

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICROSECOND = timedelta(microseconds=1)


def microseconds_of(instant: datetime) -> int:
    """An aware datetime → whole microseconds since the epoch."""
    return (instant - _EPOCH) // _MICROSECOND


def instant_of(microseconds: int) -> datetime:
    """Whole microseconds since the epoch → the aware UTC datetime (inverse of
    :func:`microseconds_of`)."""
    return _EPOCH + timedelta(microseconds=microseconds)


@dataclass(frozen=True, eq=False)
class SleepColumns(Mapping[str, Sequence[SleepRecord]]):
    """Valid SleepData records of each schedule (module docstring).

    Attributes
    ----------
    names : tuple of str
        Schedules with at least one record, in order of their first valid record.
    offsets : ndarray of int64, shape (k + 1,)
        Records of ``names[g]`` are ``offsets[g]:offsets[g + 1]``.
    start, end : ndarray of int64, shape (N,)
        The record's instants [microseconds since the epoch, UTC].
    index : ndarray of int64, shape (N,)
        The record's 0-based position in SleepData.
    """

    names: tuple[str, ...]
    offsets: IntArray
    start: IntArray
    end: IntArray
    index: IntArray
    _group: dict[str, int] = field(init=False, repr=False)
    _slices: dict[int, SleepSlice] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_group", {name: g for g, name in enumerate(self.names)})
        object.__setattr__(self, "_slices", {})

    @cached_property
    def records(self) -> tuple[SleepRecord, ...]:
        """Every record as an object, in array order: built once, for all schedules at
        the first read of any, with the cyclic collector paused as when
        :func:`vigil.roster.parse.parse_request` built them (they hold no cycles)."""
        distinct = np.unique(np.concatenate([self.start, self.end])).tolist()
        at = {us: instant_of(us) for us in distinct}  # one datetime per instant
        group = np.repeat(np.arange(len(self.names)), np.diff(self.offsets))
        rows = zip(
            group.tolist(), self.start.tolist(), self.end.tolist(), self.index.tolist(), strict=True
        )
        with cyclic_gc_paused():
            return tuple(SleepRecord(self.names[g], at[a], at[b], i) for g, a, b, i in rows)

    @classmethod
    def empty(cls) -> SleepColumns:
        none = np.zeros(0, dtype=np.int64)
        return cls((), np.zeros(1, dtype=np.int64), none, none, none)

    def __getitem__(self, name: str) -> SleepSlice:
        group = self._group[name]
        found = self._slices.get(group)
        if found is None:
            found = self._slices[group] = SleepSlice(self, group)
        return found

    def __iter__(self) -> Iterator[str]:
        return iter(self.names)

    def __len__(self) -> int:
        return len(self.names)

    def __contains__(self, name: object) -> bool:
        return name in self._group


class SleepSlice(Sequence[SleepRecord]):
    """The records of one schedule of a :class:`SleepColumns`, built on first read."""

    __slots__ = ("columns", "group")

    def __init__(self, columns: SleepColumns, group: int) -> None:
        self.columns = columns
        self.group = group

    @property
    def bounds(self) -> tuple[int, int]:
        """This schedule's records in the flat arrays, ``lo:hi``."""
        offsets = self.columns.offsets
        return int(offsets[self.group]), int(offsets[self.group + 1])

    def records(self) -> tuple[SleepRecord, ...]:
        """The records as objects (:attr:`SleepColumns.records`)."""
        lo, hi = self.bounds
        return self.columns.records[lo:hi]

    def __len__(self) -> int:
        lo, hi = self.bounds
        return hi - lo

    @overload
    def __getitem__(self, item: int) -> SleepRecord: ...
    @overload
    def __getitem__(self, item: slice) -> tuple[SleepRecord, ...]: ...
    def __getitem__(self, item: int | slice) -> SleepRecord | tuple[SleepRecord, ...]:
        return self.records()[item]

    def __iter__(self) -> Iterator[SleepRecord]:
        return iter(self.records())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, SleepSlice | tuple | list):
            return self.records() == tuple(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"SleepSlice({list(self.records())!r})"


def record_arrays(per_crew: Sequence[Sequence[SleepRecord]]) -> tuple[IntArray, IntArray, IntArray]:
    """Records of each crew member, flat: ``(counts, start, end)`` [microseconds since the
    epoch], crew member after crew member, each in its own order.

    Slices of one :class:`SleepColumns` are read from its arrays without building a
    record; anything else (tuples of records) one record at a time.
    """
    counts = np.array([len(records) for records in per_crew], dtype=np.int64)
    slices = [records for records in per_crew if records]
    columns = {id(s.columns): s.columns for s in slices if isinstance(s, SleepSlice)}
    if len(columns) == 1 and all(isinstance(s, SleepSlice) for s in slices):
        (source,) = columns.values()
        lo = np.array([s.bounds[0] for s in slices if isinstance(s, SleepSlice)], dtype=np.int64)
        lengths = counts[counts > 0]
        # position k of crew member c's records: its first record plus k
        take = np.repeat(lo - np.cumsum(lengths) + lengths, lengths) + np.arange(lengths.sum())
        return counts, source.start[take], source.end[take]
    flat = [r for records in per_crew for r in records]
    start = np.array([microseconds_of(r.start) for r in flat], dtype=np.int64)
    end = np.array([microseconds_of(r.end) for r in flat], dtype=np.int64)
    return counts, start, end


def first_start(records: Sequence[SleepRecord]) -> datetime | None:
    """The earliest start of ``records`` (None when empty), without building the records
    of a :class:`SleepSlice` (sorted by start)."""
    if not records:
        return None
    if isinstance(records, SleepSlice):
        return instant_of(int(records.columns.start[records.bounds[0]]))
    return min(r.start for r in records)


def last_end(records: Sequence[SleepRecord]) -> datetime | None:
    """The latest end of ``records`` (None when empty), without building the records of a
    :class:`SleepSlice`."""
    if not records:
        return None
    if isinstance(records, SleepSlice):
        lo, hi = records.bounds
        return instant_of(int(records.columns.end[lo:hi].max()))
    return max(r.end for r in records)
