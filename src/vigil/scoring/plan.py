"""Each duty's derived data, computed once for every crew member.

:class:`CrewPlan` holds, as flat arrays grouped by crew member (``offsets``), what the
sleep predictor (:mod:`vigil.scoring.predict`), the layout (:mod:`vigil.scoring.layout`)
and risk need from a duty: epoch times, the lead and lag around it and the away flag
(reference §4.1), its own rest windows (§5.1, §7: :func:`vigil.scoring.rest.rest_windows`
with the request's preset), and per crew member the warm-up start (§9.4) and the
body-clock target timeline θ(t) (§3, :mod:`vigil.scoring.zones`).

One builder, :func:`plan_columns`, works on :class:`~vigil.roster.arrays.DutyColumns`
by array passes over all crew (rest windows by :mod:`vigil.scoring.rest`, no
:class:`~vigil.domain.Duty` objects). :func:`plan_schedules` plans domain-object
schedules (the planner's candidates, the worker's pre-parsed chunks) through the same
builder, by way of :meth:`DutyColumns.from_schedules`. The per-duty builder it replaced is
kept as an independent reference in ``tests/reference/plan_rows.py``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import Any, TypedDict

import numpy as np
import numpy.typing as npt

from vigil.domain import Activity, Airport, CrewComposition, DutyType, Schedule, SleepRecord
from vigil.model.parameters import Parameters
from vigil.model.sleep import SleepParameters
from vigil.roster.arrays import NO_TIME, DutyColumns
from vigil.roster.sleep_columns import first_start, last_end
from vigil.scoring import grid
from vigil.scoring.grid import FloatArray, IntArray
from vigil.scoring.rest import (
    inflight_quality,
    inflight_rest,
    split_breaks,
    split_duties,
)

__all__ = [
    "CrewPlan",
    "plan_columns",
    "plan_schedules",
]

BoolArray = npt.NDArray[np.bool_]
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MINUTE = timedelta(minutes=1)
#: codes compared with whole columns, read once (an enum member lookup is slow)
_STANDBY = int(DutyType.STANDBY)
_TWO_PILOTS, _CABIN_CREW = int(CrewComposition.TWO_PILOTS), int(CrewComposition.CABIN_CREW)


@dataclass(frozen=True, slots=True)
class CrewPlan:
    """Duties of ``n_crew`` crew members and their derived data, as flat arrays.

    Duty arrays (``D``) are in crew order then chronological order: crew member ``i``
    owns ``offsets[i]:offsets[i + 1]``. Rest windows (``W``) are grouped by duty
    (``rest_ptr``, ``D + 1``). Instants are epoch hours.
    """

    references: tuple[str, ...]
    offsets: IntArray  #: (n + 1,)
    on: FloatArray  #: (D,) report [epoch h]
    off: FloatArray  #: (D,) off duty [epoch h]
    on_instant: Sequence[datetime]  #: (D,) report, as given
    off_instant: Sequence[datetime]  #: (D,) off duty, as given
    count: IntArray  #: (D,) 15-min intervals (contract §4)
    sectors: FloatArray  #: (D,)
    workload: FloatArray  #: (D,)
    cabin: BoolArray  #: (D,) cabin crew (CrewComposition 9)
    lead: FloatArray  #: (D,) latest wake = report - lead [h], reference §4.1
    lag: FloatArray  #: (D,) earliest sleep = off + lag [h], reference §4.1
    away: FloatArray  #: (D,) 1 when the duty ends away from base
    ready_minutes: IntArray  #: (D,) commute + preparation before report [min]
    inflight_quality: FloatArray  #: (D,) q of sleep in this duty (reference §5.2)
    start_zone: IntArray  #: (D,) index into ``zones``
    end_zone: IntArray  #: (D,) index into ``zones``
    rest_ptr: IntArray  #: (D + 1,)
    rest_start: FloatArray  #: (W,) [epoch h]
    rest_end: FloatArray  #: (W,)
    rest_sleep_start: FloatArray  #: (W,) where sleep may start [epoch h]
    rest_sleep_end: FloatArray  #: (W,)
    rest_quality: FloatArray  #: (W,) q per hour of sleep
    rest_inflight: BoolArray  #: (W,) in-flight rest (else split-duty break)
    zones: tuple[str, ...]  #: IANA names
    home_zone: IntArray  #: (n,) base zone (first HomeBase of the first duty)
    home_base: tuple[tuple[Airport, ...], ...]  #: (n,) HomeBase list of the first duty
    warmup: tuple[datetime, ...]  #: (n,) warm-up start, reference §9.4
    activities: tuple[tuple[Activity, ...], ...]  #: (n,)
    sleep: tuple[Sequence[SleepRecord], ...]  #: (n,) given SleepData
    schedules: Callable[[IntArray], Sequence[Schedule]]  #: crew members as domain objects
    #: (n,) held times in bed [epoch h] (a laboratory protocol's, :func:`with_held_beds`);
    #: empty for rosters (the contract has no such input)
    held_beds: tuple[tuple[tuple[float, float], ...], ...] = ()

    @property
    def n_crew(self) -> int:
        return len(self.references)

    @property
    def crew(self) -> IntArray:
        """(D,) crew member of each duty."""
        return np.arange(self.n_crew).repeat(self.offsets[1:] - self.offsets[:-1])

    @property
    def last_event(self) -> FloatArray:
        """(n,) latest instant of duties, given sleep and activities [epoch h]."""
        last = np.maximum.reduceat(self.off, self.offsets[:-1]) if self.on.size else np.zeros(0)
        extra = [
            (i, max(filter(None, (last_end(sleep), *(a.end for a in acts)))))
            for i, (sleep, acts) in enumerate(zip(self.sleep, self.activities, strict=True))
            if sleep or acts
        ]
        for i, instant in extra:
            last[i] = max(last[i], grid.epoch_hours(instant))
        out: FloatArray = last
        return out


def plan_columns(
    columns: DutyColumns,
    params: Parameters,
    sleep_params: SleepParameters,
    sleep: Mapping[str, Sequence[SleepRecord]] | None = None,
    activities: Mapping[str, Sequence[Activity]] | None = None,
) -> CrewPlan:
    """:class:`CrewPlan` of a roster's duty columns, by array passes over all crew.

    ``sleep`` and ``activities`` are the given SleepData and ActivityData by Reference.
    """
    sleep, activities = sleep or {}, activities or {}
    refs = columns.references

    def schedules(crew: IntArray) -> Sequence[Schedule]:
        return columns.take(crew).schedules(sleep, activities)

    return _plan(
        columns,
        params,
        sleep_params,
        tuple(sleep.get(r, ()) for r in refs),
        tuple(tuple(activities.get(r, ())) for r in refs),
        schedules,
    )


def plan_schedules(
    schedules: Sequence[Schedule], params: Parameters, sleep_params: SleepParameters
) -> CrewPlan:
    """:class:`CrewPlan` of domain-object schedules, through their duty columns.

    Each schedule keeps its own given sleep and activities, even when two share a
    Reference (the planner scores candidates of one crew member side by side).

    Raises
    ------
    ValueError
        For a schedule without duties, or an instant that is not a whole minute.
    """
    return _plan(
        DutyColumns.from_schedules(schedules),
        params,
        sleep_params,
        tuple(s.sleep for s in schedules),
        tuple(s.activities for s in schedules),
        lambda crew: [schedules[i] for i in crew.tolist()],
    )


def _plan(
    columns: DutyColumns,
    params: Parameters,
    sleep_params: SleepParameters,
    crew_sleep: tuple[Sequence[SleepRecord], ...],
    crew_acts: tuple[tuple[Activity, ...], ...],
    schedules: Callable[[IntArray], Sequence[Schedule]],
) -> CrewPlan:
    """:class:`CrewPlan` of ``columns`` with each crew member's sleep and activities."""
    firsts = columns.offsets[:-1]
    on_instant, off_instant = _instants(columns.on_duty), _instants(columns.off_duty)
    zones = _Zones()
    airport_zone = np.array([zones.id(a.tz) for a in columns.airports] or [0], dtype=np.int64)
    base_zone = np.array([zones.id(h[0].tz) for h in columns.home_bases] or [0], dtype=np.int64)
    lead, lag, away = _commutes(columns, params)
    rest = _column_rest(columns, params, sleep_params)
    home_zone = base_zone[columns.home_base[firsts]] if columns.n_duties else np.zeros(0, np.int64)
    warmup = _warmups(
        [zones.names[z] for z in home_zone.tolist()],
        [on_instant[k] for k in firsts.tolist()],
        crew_sleep,
        crew_acts,
    )
    return CrewPlan(
        references=columns.references,
        offsets=columns.offsets,
        on=_hours(columns.on_duty),
        off=_hours(columns.off_duty),
        on_instant=on_instant,
        off_instant=off_instant,
        count=columns.interval_counts,
        sectors=columns.sectors.astype(np.float64),
        workload=columns.workload.astype(np.float64),
        cabin=columns.crew_composition == _CABIN_CREW,
        lead=lead,
        lag=lag,
        away=away,
        ready_minutes=columns.commute_minutes + columns.crew_prep_minutes,
        inflight_quality=inflight_quality(columns, params),
        start_zone=airport_zone[columns.start_airport],
        end_zone=airport_zone[columns.end_airport],
        **rest,
        zones=tuple(zones.names),
        home_zone=home_zone,
        home_base=tuple(columns.home_bases[h] for h in columns.home_base[firsts].tolist()),
        warmup=warmup,
        activities=crew_acts,
        sleep=crew_sleep,
        schedules=schedules,
    )


def _commutes(
    columns: DutyColumns, params: Parameters
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Lead, lag and away flag of each duty (:func:`_lead_lag`) from whether it starts and
    ends at home.

    At home: the airport is one of the duty's HomeBase codes, else the crew member's first
    HomeBase codes when the duty's own have none (reference §4.1).
    """
    offsets = columns.offsets
    n_duty = columns.n_duties
    codes = [_codes(a) for a in columns.airports]
    homes = [_home_codes(h) for h in columns.home_bases]
    crew_home = np.repeat(columns.home_base[offsets[:-1]], offsets[1:] - offsets[:-1])
    no_codes = np.array([not h for h in homes] or [False])[columns.home_base]
    home_of_duty = np.where(no_codes, crew_home, columns.home_base)
    # both ends of every duty in one pass: each distinct (airport, HomeBase) pair once
    ends = np.concatenate([columns.start_airport, columns.end_airport])
    pairs = ends * len(homes) + np.concatenate([home_of_duty, home_of_duty])
    at_home = _each_distinct(pairs, lambda k: bool(codes[k // len(homes)] & homes[k % len(homes)]))
    return _lead_lag(
        at_home[:n_duty],
        at_home[n_duty:],
        columns.commute_minutes,
        columns.crew_prep_minutes,
        params,
    )


#: below this many keys a dictionary finds the distinct ones faster than sorting
_FEW_KEYS = 256


def _each_distinct(keys: IntArray, value: Callable[[int], bool]) -> BoolArray:
    """``value`` of each key, called once per distinct key."""
    if keys.size < _FEW_KEYS:  # a few crew members: a dictionary, no sort
        seen: dict[int, bool] = {}
        found = [seen[k] if k in seen else seen.setdefault(k, value(k)) for k in keys.tolist()]
        return np.array(found, dtype=bool).reshape(keys.size)
    distinct, inverse = np.unique(keys, return_inverse=True)
    out: BoolArray = np.array([value(k) for k in distinct.tolist()], dtype=bool)
    return out[inverse.reshape(-1)]


def _codes(airport: Airport) -> frozenset[str]:
    return frozenset({airport.code, airport.icao, airport.iata} - {""})


def _home_codes(home_base: Sequence[Airport]) -> frozenset[str]:
    return frozenset().union(*(_codes(a) for a in home_base))


class _Zones:
    """IANA zone names met so far, each with its index."""

    def __init__(self) -> None:
        self.names: list[str] = []
        self._index: dict[str, int] = {}

    def id(self, name: str) -> int:
        found = self._index.get(name)
        if found is None:
            found = self._index[name] = len(self.names)
            self.names.append(name)
        return found


def _lead_lag(
    start_home: BoolArray,
    end_home: BoolArray,
    commute_minutes: IntArray,
    prep_minutes: IntArray,
    p: Parameters,
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Lead, lag and away flag of each duty (reference §4.1).

    Latest wake = report - (commute, or the hotel transfer away from base, + preparation);
    earliest sleep = off + (commute or transfer + wind-down).
    """
    commute = commute_minutes / 60.0
    before = np.where(start_home, commute, p.transfer_away)
    after = np.where(end_home, commute, p.transfer_away)
    lead: FloatArray = before + prep_minutes / 60.0
    lag: FloatArray = after + p.wind_down
    return lead, lag, (~end_home).astype(np.float64)


def _column_rest(
    columns: DutyColumns, params: Parameters, sleep_params: SleepParameters
) -> _RestFields:
    """Every duty's own rest windows as the ``rest_*`` CSR fields (reference §5.1, §7).

    Array passes (:mod:`vigil.scoring.rest`): in-flight rest, then split-duty breaks.
    """

    def hours(us: IntArray) -> FloatArray:
        out: FloatArray = us / 1e6 / 3600.0  # µs -> epoch h, as timestamp()/3600
        return out

    rows: list[tuple[npt.NDArray[Any], ...]] = []
    split = split_duties(columns)
    may_rest = _may_rest(columns, split)  # the common short-haul roster: none, both skipped
    split_rest = may_rest & split
    if (may_rest > split).any():  # may rest, not split
        inflight = inflight_rest(columns, params)
        duty, slot = np.nonzero(inflight.present)  # duty order, then window order
        start, end = hours(inflight.start[duty, slot]), hours(inflight.end[duty, slot])
        quality = inflight_quality(columns, params)[duty]
        rows.append((duty, start, end, start, end, quality, np.ones(duty.size, dtype=bool)))
    if split_rest.any():
        index = np.flatnonzero(split_rest)
        breaks = split_breaks(columns, index, sleep_params)
        has = breaks.present
        start, end, sleep_start, sleep_end = hours(
            np.array((breaks.start, breaks.end, breaks.sleep_start, breaks.sleep_end))[:, has]
        )
        rows.append(
            (
                index[has],
                start,
                end,
                sleep_start,
                sleep_end,
                breaks.quality[has],
                np.zeros(int(has.sum()), dtype=bool),
            )
        )
    if len(rows) < 2:  # one pass or none: its windows are in duty order already
        return _rest_csr(columns.n_duties, *(rows[0] if rows else _NO_WINDOWS), ordered=True)
    return _rest_csr(
        columns.n_duties, *(np.concatenate(parts) for parts in zip(*rows, strict=True))
    )


#: no rest windows, as the ``_rest_csr`` arguments
_NO_WINDOWS: tuple[npt.NDArray[Any], ...] = (
    np.zeros(0, dtype=np.int64),
    *(np.zeros(0) for _ in range(5)),
    np.zeros(0, dtype=bool),
)


def _may_rest(columns: DutyColumns, split: BoolArray) -> BoolArray:
    """Duties that can have rest of their own: given FirstRest or SecondRest, a split
    duty (``split``, :func:`split_duties`), or a relief crew with sleep to share out
    (reference §5.1, §7); never standby."""
    given = (columns.period_start[1:] != NO_TIME).any(axis=0)
    relief = (columns.sleep_count > 0) & (columns.crew_composition != _TWO_PILOTS)
    out: BoolArray = (columns.duty_type != _STANDBY) & (given | relief | split)
    return out


class _RestFields(TypedDict):
    """The ``rest_*`` fields of :class:`CrewPlan`."""

    rest_ptr: IntArray
    rest_start: FloatArray
    rest_end: FloatArray
    rest_sleep_start: FloatArray
    rest_sleep_end: FloatArray
    rest_quality: FloatArray
    rest_inflight: BoolArray


def _rest_csr(
    n_duty: int, duty: IntArray, *fields: npt.NDArray[Any], ordered: bool = False
) -> _RestFields:
    """Windows of duties ``duty`` → the ``rest_*`` CSR fields (stable by duty; windows
    already grouped by duty in duty order when ``ordered``)."""
    ptr = np.zeros(n_duty + 1, dtype=np.int64)
    np.cumsum(np.bincount(duty, minlength=n_duty), out=ptr[1:])
    if not ordered:
        order = np.argsort(duty, kind="stable")
        fields = tuple(f[order] for f in fields)
    start, end, sleep_start, sleep_end, quality, inflight = fields
    return _RestFields(  # no copies: the plan's arrays are read, never written
        rest_ptr=ptr,
        rest_start=np.asarray(start, dtype=np.float64),
        rest_end=np.asarray(end, dtype=np.float64),
        rest_sleep_start=np.asarray(sleep_start, dtype=np.float64),
        rest_sleep_end=np.asarray(sleep_end, dtype=np.float64),
        rest_quality=np.asarray(quality, dtype=np.float64),
        rest_inflight=np.asarray(inflight, dtype=bool),
    )


def _hours(minutes: IntArray) -> FloatArray:
    """Whole minutes since the epoch → epoch hours, as :func:`grid.epoch_hours` rounds."""
    out: FloatArray = (minutes * 60).astype(np.float64) / 3600.0
    return out


def _instants(minutes: IntArray) -> list[datetime]:
    """Whole minutes since the epoch → aware UTC datetimes (one object per distinct value)."""
    table: dict[int, datetime] = {}
    out = []
    for m in minutes.tolist():
        found = table.get(m)
        if found is None:
            found = table[m] = _EPOCH + _MINUTE * m  # exact: whole minutes
        out.append(found)
    return out


def _warmups(
    zones: Sequence[str],
    first_duty: Sequence[datetime],
    sleep: Sequence[Sequence[SleepRecord]],
    activities: Sequence[Sequence[Activity]],
) -> tuple[datetime, ...]:
    """Warm-up start of each crew member (:func:`grid.warmup_from`, cached per input)."""
    out = []
    for zone, first, records, acts in zip(zones, first_duty, sleep, activities, strict=True):
        if records or acts:
            first = min(filter(None, (first, first_start(records), *(a.start for a in acts))))
        out.append(grid.warmup_from(zone, first))
    return tuple(out)


def with_held_beds(
    plan: CrewPlan, beds: Mapping[str, Sequence[tuple[datetime, datetime]]]
) -> CrewPlan:
    """``plan`` with held times in bed (reference -> ``(start, end)`` instants).

    A held bed is a time in bed the person keeps to its end, asleep or not, as in a
    laboratory protocol; the sleep predictor applies the held-bed rule inside it
    (:func:`vigil.model.sleep_windows.held`, docs/model.md). Not part of the contract:
    the validation's laboratory scenarios declare them.
    """
    if not beds:
        return plan
    held = tuple(
        tuple((grid.epoch_hours(a), grid.epoch_hours(b)) for a, b in beds.get(ref, ()))
        for ref in plan.references
    )
    return replace(plan, held_beds=held)
