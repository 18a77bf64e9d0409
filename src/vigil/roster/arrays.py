"""Valid duties as flat arrays grouped by schedule (issue 14's struct-of-arrays roster).

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

    def _duties(self) -> list[Duty]:
        """One :class:`Duty` per element; equal instants share one datetime object."""
        instants: dict[int, datetime] = {}

        def at(minutes: int) -> datetime:
            found = instants.get(minutes)
            if found is None:
                found = instants[minutes] = _EPOCH + timedelta(minutes=minutes)
            return found

        periods = [
            [
                None if start == NO_TIME else Period(at(start), at(end))
                for start, end in zip(starts, ends, strict=True)
            ]
            for starts, ends in zip(
                self.period_start.tolist(), self.period_end.tolist(), strict=True
            )
        ]
        refs = np.repeat(np.arange(len(self.references)), np.diff(self.offsets)).tolist()
        airports, homes = self.airports, self.home_bases
        crew = {c.value: c for c in CrewComposition}
        sleep_class = {c.value: c for c in SleepClass}
        duty_type = {c.value: c for c in DutyType}
        time_ref = {c.value: c for c in TimeReference}
        return [
            Duty(
                row=row,
                reference=self.references[ref],
                on_duty=at(on),
                off_duty=at(off),
                start_airport=airports[start],
                end_airport=airports[end],
                home_base=homes[home],
                time_reference=time_ref[tr],
                sectors=sectors,
                crew_composition=crew[comp],
                sleep_count=count,
                sleep_order=order,
                sleep_class=sleep_class[klass],
                partial_augment=augment,
                first_rest=first,
                second_rest=second,
                split_shift=split == 0,  # seed §2.2 col 27: 0 means True
                duty_type=duty_type[kind],
                fleet=fleet,
                rank=rank,
                workload=workload,
                crew_prep_minutes=prep,
                commute_minutes=commute,
                cabin_crew_sleep_pattern=pattern,
            )
            for (
                row, ref, on, off, start, end, home, tr, sectors, comp, count, order, klass,
                augment, first, second, split, kind, fleet, rank, workload, prep, commute,
                pattern,
            ) in zip(
                self.row.tolist(), refs, self.on_duty.tolist(), self.off_duty.tolist(),
                self.start_airport.tolist(), self.end_airport.tolist(),
                self.home_base.tolist(), self.time_reference.tolist(), self.sectors.tolist(),
                self.crew_composition.tolist(), self.sleep_count.tolist(),
                self.sleep_order.tolist(), self.sleep_class.tolist(), *periods,
                self.split_shift.tolist(), self.duty_type.tolist(), self.fleet, self.rank,
                self.workload.tolist(), self.crew_prep_minutes.tolist(),
                self.commute_minutes.tolist(), self.cabin_crew_sleep_pattern.tolist(),
                strict=True,
            )
        ]  # fmt: skip
