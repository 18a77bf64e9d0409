"""Valid duties as flat arrays grouped by schedule (struct-of-arrays roster).

:class:`DutyColumns` holds every duty of the schedules without errors, one array
element per duty: schedule ``i`` owns elements ``offsets[i]:offsets[i + 1]``, in
chronological order (contract §3.1). Instants are whole minutes since 1970-01-01 UTC;
an absent rest or augmentation period is :data:`NO_TIME` at both ends. Airports are
indices into :attr:`DutyColumns.airports`, HomeBase lists indices into
:attr:`DutyColumns.home_bases`. :meth:`DutyColumns.schedules` builds the
:class:`~vigil.domain.Schedule`/:class:`~vigil.domain.Duty` objects from them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields, replace
from datetime import UTC, datetime, timedelta
from enum import IntEnum
from itertools import accumulate, chain
from operator import attrgetter

import numpy as np
import numpy.typing as npt

from vigil.domain import (
    Activity,
    Airport,
    CrewComposition,
    Duty,
    DutyType,
    Period,
    Schedule,
    SleepClass,
    SleepRecord,
    TimeReference,
)

__all__ = ["NO_TIME", "PERIODS", "DutyColumns"]

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]

#: An absent period's start and end. [min since epoch]
NO_TIME = int(np.iinfo(np.int64).min)
#: The optional periods of a duty, in column order (seed §2.2 cols 15-26).
PERIODS = ("partial_augment", "first_rest", "second_rest")
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


@dataclass(frozen=True, eq=False)
class DutyColumns:
    """The duties of the schedules without errors, as one array per field.

    Every array has one element per duty (``n_duties``), except ``offsets``
    (``n_schedules + 1``). Codes are the CSV's, defaults applied (contract §3.1):
    ``split_shift`` holds the column as written (0 means a split shift, seed §2.2
    col 27) and ``cabin_crew_sleep_pattern`` 4 is stored as 0.
    """

    references: tuple[str, ...]  #: Reference of each schedule
    offsets: IntArray  #: duties of schedule i are offsets[i]:offsets[i+1]
    row: IntArray  #: RosterData line of each duty
    on_duty: IntArray  #: [min since epoch, UTC]
    off_duty: IntArray  #: [min since epoch, UTC]
    start_airport: IntArray  #: index into ``airports``
    end_airport: IntArray  #: index into ``airports``
    home_base: IntArray  #: index into ``home_bases``
    time_reference: IntArray
    sectors: IntArray
    crew_composition: IntArray
    sleep_count: IntArray
    sleep_order: IntArray
    sleep_class: IntArray
    period_start: IntArray  #: (3, n_duties) by :data:`PERIODS`; NO_TIME if absent [min]
    period_end: IntArray  #: (3, n_duties) [min since epoch, UTC]
    split_shift: IntArray
    duty_type: IntArray
    workload: FloatArray
    crew_prep_minutes: IntArray  #: [min]
    commute_minutes: IntArray  #: [min]
    cabin_crew_sleep_pattern: IntArray
    fleet: tuple[str, ...]
    rank: tuple[str, ...]
    airports: tuple[Airport, ...]
    home_bases: tuple[tuple[Airport, ...], ...]  #: each a HomeBase list, first = base zone

    @property
    def n_duties(self) -> int:
        return int(self.row.shape[0])

    @property
    def interval_counts(self) -> IntArray:
        """``ceil((off - on) / 15 min)`` per duty (contract §4)."""
        return -((self.on_duty - self.off_duty) // 15)

    def take(self, schedules: IntArray) -> DutyColumns:
        """The columns of the schedules at the given (sorted) indices."""
        bounds = self.offsets
        counts = bounds[schedules + 1] - bounds[schedules]
        duty = np.concatenate(
            [np.arange(bounds[i], bounds[i + 1]) for i in schedules.tolist()]
            or [np.zeros(0, dtype=np.int64)]
        ).astype(np.int64)
        picked: dict[str, object] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name in ("airports", "home_bases"):
                continue
            if f.name == "references":
                picked[f.name] = tuple(value[i] for i in schedules.tolist())
            elif f.name == "offsets":
                picked[f.name] = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
            elif isinstance(value, tuple):
                picked[f.name] = tuple(value[i] for i in duty.tolist())
            else:
                picked[f.name] = value[..., duty]
        return replace(self, **picked)  # type: ignore[arg-type]

    @classmethod
    def from_schedules(cls, schedules: Sequence[Schedule]) -> DutyColumns:
        """The columns of domain-object schedules: the inverse of :meth:`schedules`.

        Schedules built in code (the planner's candidates, the reference row reader of
        the tests) reach the one planning path (:func:`vigil.scoring.plan.plan_columns`) through
        this view. Every instant must be a whole minute (contract §3.1 times are).

        Raises
        ------
        ValueError
            For an instant with seconds, or a schedule without duties.
        """
        for schedule in schedules:
            if not schedule.duties:
                raise ValueError(f"schedule {schedule.reference!r} has no duties")
        duties = [d for s in schedules for d in s.duties]
        n = len(duties)
        # one attribute fetch per duty, then one tuple per field (the duties' columns)
        cells = list(zip(*map(_CELLS, duties), strict=True)) if n else [()] * len(_CELL_FIELDS)
        k = len(_INT_FIELDS)
        ints = np.fromiter(chain.from_iterable(cells[:k]), dtype=np.int64, count=k * n)
        ints = ints.reshape(k, n)
        on_duty, off_duty, start, end, home = cells[k : k + 5]
        periods = cells[k + 5 : k + 8]
        split, workload, fleet, rank = cells[k + 8 :]
        period_start, period_end = _period_minutes(periods, n)
        on_off = _minutes(on_duty + off_duty)
        places, airports, home_bases = _places_of(start, end, home)
        return cls(
            references=tuple(s.reference for s in schedules),
            offsets=np.array([0, *accumulate(len(s.duties) for s in schedules)], dtype=np.int64),
            on_duty=on_off[:n],  # contiguous halves
            off_duty=on_off[n:],
            start_airport=places[0].copy(),
            end_airport=places[1].copy(),
            home_base=places[2].copy(),
            period_start=period_start,
            period_end=period_end,
            split_shift=(~np.array(split, dtype=bool).reshape(n)).astype(np.int64),  # col 27
            workload=np.array(workload, dtype=np.float64).reshape(n),
            fleet=tuple(fleet),
            rank=tuple(rank),
            airports=airports,
            home_bases=home_bases,
            **dict(zip(_INT_FIELDS, ints, strict=True)),  # contiguous rows
        )

    def schedules(
        self,
        sleep: Mapping[str, Sequence[SleepRecord]] | None = None,
        activities: Mapping[str, Sequence[Activity]] | None = None,
    ) -> tuple[Schedule, ...]:
        """The schedules as domain objects, with their given sleep and activities."""
        duties = self._duties()
        sleep, activities = sleep or {}, activities or {}
        bounds = self.offsets.tolist()
        return tuple(
            Schedule(
                reference=ref,
                duties=tuple(duties[bounds[i] : bounds[i + 1]]),
                sleep=tuple(sleep.get(ref, ())),
                activities=tuple(activities.get(ref, ())),
            )
            for i, ref in enumerate(self.references)
        )

    def duties(self, index: IntArray) -> list[Duty]:
        """The :class:`Duty` objects of the elements at ``index`` alone."""
        owner = np.searchsorted(self.offsets, index, side="right") - 1
        picked: dict[str, object] = {
            "references": tuple(self.references[i] for i in owner.tolist()),
            "offsets": np.arange(index.size + 1, dtype=np.int64),
        }
        for f in fields(self):
            if f.name in picked or f.name in ("airports", "home_bases"):
                continue
            value = getattr(self, f.name)
            if isinstance(value, tuple):
                picked[f.name] = tuple(value[i] for i in index.tolist())
            else:
                picked[f.name] = value[..., index]
        return replace(self, **picked)._duties()  # type: ignore[arg-type]

    def _duties(self) -> list[Duty]:
        """One :class:`Duty` per element, every field mapped to objects by array lookups.

        Each distinct instant, enum value, airport and HomeBase list becomes one object,
        then a NumPy ``take`` over an object array hands it to every duty that uses it:
        the only per-duty Python work left is the constructors.
        """
        n = self.n_duties
        times = np.concatenate([self.on_duty, self.off_duty, *self.period_start, *self.period_end])
        present = times != NO_TIME
        minutes, inverse = np.unique(times[present], return_inverse=True)
        instants = np.empty(times.shape, dtype=object)
        instants[present] = _objects([_EPOCH + timedelta(minutes=m) for m in minutes.tolist()])[
            inverse.reshape(-1)
        ]
        on, off, *ends = (instants[k * n : (k + 1) * n] for k in range(8))
        periods = [
            [None if a is None else Period(a, b) for a, b in zip(start, end, strict=True)]
            for start, end in zip(ends[:3], ends[3:], strict=True)
        ]
        schedule = np.repeat(np.arange(len(self.references)), np.diff(self.offsets))
        columns = (
            self.row.tolist(),
            _objects(self.references)[schedule].tolist(),
            on.tolist(),
            off.tolist(),
            _objects(self.airports)[self.start_airport].tolist(),
            _objects(self.airports)[self.end_airport].tolist(),
            _objects(self.home_bases)[self.home_base].tolist(),
            _enums(TimeReference, self.time_reference),
            self.sectors.tolist(),
            _enums(CrewComposition, self.crew_composition),
            self.sleep_count.tolist(),
            self.sleep_order.tolist(),
            _enums(SleepClass, self.sleep_class),
            *periods,
            (self.split_shift == 0).tolist(),  # seed §2.2 col 27: 0 means True
            _enums(DutyType, self.duty_type),
            self.fleet,
            self.rank,
            self.workload.tolist(),
            self.crew_prep_minutes.tolist(),
            self.commute_minutes.tolist(),
            self.cabin_crew_sleep_pattern.tolist(),
        )
        return [Duty(*fields) for fields in zip(*columns, strict=True)]


#: whole-number fields of :class:`~vigil.domain.Duty` stored as they are (enums as codes)
_INT_FIELDS = (
    "row",
    "time_reference",
    "sectors",
    "crew_composition",
    "sleep_count",
    "sleep_order",
    "sleep_class",
    "duty_type",
    "crew_prep_minutes",
    "commute_minutes",
    "cabin_crew_sleep_pattern",
)
#: every field :meth:`DutyColumns.from_schedules` reads, whole numbers first
_CELL_FIELDS = (
    *_INT_FIELDS,
    "on_duty",
    "off_duty",
    "start_airport",
    "end_airport",
    "home_base",
    *PERIODS,
    "split_shift",
    "workload",
    "fleet",
    "rank",
)
_CELLS = attrgetter(*_CELL_FIELDS)


def _period_minutes(
    periods: Sequence[Sequence[Period | None]], n: int
) -> tuple[IntArray, IntArray]:
    """Each period column (one entry per duty, ``None`` if absent) → (3, n) start and
    end minutes, :data:`NO_TIME` where absent."""
    period_start = np.full((3, n), NO_TIME, dtype=np.int64)
    period_end = np.full((3, n), NO_TIME, dtype=np.int64)
    for p, column in enumerate(periods):
        given = [(k, q) for k, q in enumerate(column) if q is not None]
        if given:  # most rosters give none
            at = [k for k, _ in given]
            period_start[p, at] = _minutes([q.start for _, q in given])
            period_end[p, at] = _minutes([q.end for _, q in given])
    return period_start, period_end


def _minutes(instants: Sequence[datetime]) -> IntArray:
    """Aware instants → whole minutes since 1970-01-01 UTC.

    ``timestamp()`` of an aware instant is its microseconds since the epoch divided by
    10**6, correctly rounded: exact for whole seconds (any contract year), and a part
    second shows as a fraction.

    Raises
    ------
    ValueError
        For an instant that is not a whole minute.
    """
    seconds = np.array([t.timestamp() for t in instants], dtype=np.float64)
    minutes = seconds // 60
    off = np.flatnonzero(minutes * 60 != seconds)
    if off.size:
        raise ValueError(f"{instants[int(off[0])].isoformat()} is not a whole minute")
    return minutes.astype(np.int64)


def _places_of(
    start: Sequence[Airport], end: Sequence[Airport], home: Sequence[tuple[Airport, ...]]
) -> tuple[IntArray, tuple[Airport, ...], tuple[tuple[Airport, ...], ...]]:
    """Start airport, end airport and HomeBase list of each duty ``(3, n)`` as indices
    into the distinct airports and HomeBase lists, both in order of first use.

    Duties share these objects (the readers resolve each code once), so each is looked
    up by identity first and hashed (equal values, one index) only when first met; the
    duties hold them alive for the whole call, so identities stay unique.
    """
    airports: dict[Airport, int] = {}
    home_bases: dict[tuple[Airport, ...], int] = {}
    by_id: dict[int, int] = {}
    home_by_id: dict[int | tuple[int, ...], int] = {}

    rows = []
    for a, b, h in zip(start, end, home, strict=True):
        i = by_id.get(id(a))
        if i is None:
            i = by_id[id(a)] = airports.setdefault(a, len(airports))
        j = by_id.get(id(b))
        if j is None:
            j = by_id[id(b)] = airports.setdefault(b, len(airports))
        key = id(h[0]) if len(h) == 1 else tuple(map(id, h))
        k = home_by_id.get(key)
        if k is None:
            k = home_by_id[key] = home_bases.setdefault(h, len(home_bases))
        rows.append((i, j, k))
    places = np.array(rows, dtype=np.int64).reshape(len(rows), 3).T
    return places, tuple(airports), tuple(home_bases)


def _objects(values: Sequence[object]) -> npt.NDArray[np.object_]:
    """A 1-D object array of ``values`` (kept whole even when they are tuples)."""
    out = np.empty(len(values), dtype=object)
    for i, value in enumerate(values):  # one by one: NumPy would unpack tuples
        out[i] = value
    return out


def _enums(kind: type[IntEnum], codes: IntArray) -> list[object]:
    """Whole-number codes → members of ``kind``."""
    table = np.empty(max(m.value for m in kind) + 1, dtype=object)
    for member in kind:
        table[member.value] = member
    out: list[object] = table[codes].tolist()
    return out
