"""The retired per-duty plan builder, kept as an independent reference.

Production plans every roster by array passes (:func:`vigil.scoring.plan.plan_columns`,
rest windows by :mod:`vigil.scoring.rest_arrays`). This builder walks the ``Duty`` objects
one at a time and takes each duty's rest windows from the per-duty rules
(``reference.rest_rows.rest_windows``), so the tests can hold the array passes to an
encoding written another way (``tests/scoring/test_plan.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import accumulate

import numpy as np

from reference import grid_rows
from reference.rest_rows import RestWindow, rest_windows
from reference.rest_rows import inflight_quality as duty_quality
from vigil.domain import Airport, CrewComposition, Duty, Schedule
from vigil.model.parameters import Parameters
from vigil.model.sleep import SleepParameters
from vigil.scoring import grid
from vigil.scoring.grid import FloatArray
from vigil.scoring.plan import CrewPlan, _codes, _lead_lag, _RestFields, _Zones

__all__ = ["plan_schedules"]


def plan_schedules(
    schedules: Sequence[Schedule], params: Parameters, sleep_params: SleepParameters
) -> CrewPlan:
    """:class:`CrewPlan` of domain-object schedules (one pass over their duties)."""
    for schedule in schedules:
        if not schedule.duties:
            raise ValueError(f"schedule {schedule.reference!r} has no duties")
    duties = [d for s in schedules for d in s.duties]
    offsets = np.array([0, *accumulate(len(s.duties) for s in schedules)], dtype=np.int64)
    zones = _Zones()
    codes = _CodeCache()
    starts, ends, commute, prep = [], [], [], []
    for schedule in schedules:
        crew_codes = codes.home(schedule.duties[0].home_base)
        for duty in schedule.duties:
            home = codes.home(duty.home_base) or crew_codes
            starts.append(bool(codes.airport(duty.start_airport) & home))
            ends.append(bool(codes.airport(duty.end_airport) & home))
            commute.append(duty.commute_minutes)
            prep.append(duty.crew_prep_minutes)
    lead, lag, away = _lead_lag(
        np.array(starts, dtype=bool),
        np.array(ends, dtype=bool),
        np.array(commute, dtype=np.int64),
        np.array(prep, dtype=np.int64),
        params,
    )
    sleep = tuple(s.sleep for s in schedules)
    acts = tuple(s.activities for s in schedules)
    home_zone = np.array([zones.id(grid_rows.home_zone(s)) for s in schedules], dtype=np.int64)
    return CrewPlan(
        references=tuple(s.reference for s in schedules),
        offsets=offsets,
        on=np.array([grid.epoch_hours(d.on_duty) for d in duties], dtype=np.float64),
        off=np.array([grid.epoch_hours(d.off_duty) for d in duties], dtype=np.float64),
        on_instant=[d.on_duty for d in duties],
        off_instant=[d.off_duty for d in duties],
        count=np.array([d.interval_count for d in duties], dtype=np.int64),
        sectors=np.array([d.sectors for d in duties], dtype=np.float64),
        workload=np.array([d.workload for d in duties], dtype=np.float64),
        cabin=np.array([d.crew_composition == CrewComposition.CABIN_CREW for d in duties]),
        lead=lead,
        lag=lag,
        away=away,
        ready_minutes=np.array(
            [d.commute_minutes + d.crew_prep_minutes for d in duties], dtype=np.int64
        ),
        inflight_quality=np.array([duty_quality(d, params) for d in duties], dtype=np.float64),
        start_zone=np.array([zones.id(d.start_airport.tz) for d in duties], dtype=np.int64),
        end_zone=np.array([zones.id(d.end_airport.tz) for d in duties], dtype=np.int64),
        **_schedule_rest(duties, params, sleep_params),
        zones=tuple(zones.names),
        home_zone=home_zone,
        home_base=tuple(s.duties[0].home_base for s in schedules),
        warmup=tuple(grid_rows.warmup_start(s) for s in schedules),
        activities=acts,
        sleep=sleep,
        schedules=lambda crew: [schedules[i] for i in crew.tolist()],
    )


def _schedule_rest(
    duties: Sequence[Duty], params: Parameters, sleep_params: SleepParameters
) -> _RestFields:
    per_duty = [rest_windows(d, params, sleep_params) for d in duties]
    if not any(per_duty):  # the common short-haul month: no duty has rest of its own
        empty = np.zeros(0)
        return _RestFields(
            rest_ptr=np.zeros(len(duties) + 1, dtype=np.int64),
            rest_start=empty,
            rest_end=empty.copy(),
            rest_sleep_start=empty.copy(),
            rest_sleep_end=empty.copy(),
            rest_quality=empty.copy(),
            rest_inflight=np.zeros(0, dtype=bool),
        )
    ptr = np.zeros(len(duties) + 1, dtype=np.int64)
    np.cumsum([len(w) for w in per_duty], out=ptr[1:])
    start, end, sleep_start, sleep_end, quality, inflight = _window_fields(per_duty)
    return _RestFields(  # already grouped by duty, in duty order
        rest_ptr=ptr,
        rest_start=start,
        rest_end=end,
        rest_sleep_start=sleep_start,
        rest_sleep_end=sleep_end,
        rest_quality=quality,
        rest_inflight=inflight.astype(bool),
    )


class _CodeCache:
    """Codes of the airports and HomeBase lists met so far, by object identity (duties
    share these objects, alive for the whole call): :func:`_codes` once per object."""

    def __init__(self) -> None:
        self._airports: dict[int, frozenset[str]] = {}
        self._homes: dict[int | tuple[int, ...], frozenset[str]] = {}

    def airport(self, airport: Airport) -> frozenset[str]:
        found = self._airports.get(id(airport))
        if found is None:
            found = self._airports[id(airport)] = _codes(airport)
        return found

    def home(self, home_base: Sequence[Airport]) -> frozenset[str]:
        """The codes of a HomeBase list (:func:`_home_codes`)."""
        key = id(home_base[0]) if len(home_base) == 1 else tuple(map(id, home_base))
        found = self._homes.get(key)
        if found is None:
            found = self._homes[key] = frozenset().union(*map(self.airport, home_base))
        return found


def _window_fields(windows: Sequence[Sequence[RestWindow]]) -> tuple[FloatArray, ...]:
    """Start, end, sleep start, sleep end [epoch h], quality and in-flight flag of windows."""
    flat = [w for per_duty in windows for w in per_duty]

    def hours(name: str) -> FloatArray:
        return np.array([getattr(w, name).timestamp() / 3600.0 for w in flat], dtype=np.float64)

    return (
        hours("start"),
        hours("end"),
        hours("sleep_start"),
        hours("sleep_end"),
        np.array([w.quality for w in flat], dtype=np.float64),
        np.array([w.kind == "inflight" for w in flat], dtype=bool),
    )
