"""Predicted sleep for schedules without SleepData (seed §1, contract §3.2, reference §4, §5, §7).

The batch entry point :func:`predict_sleep` packs every schedule's sleep opportunities into
CSR arrays once (:func:`pack_schedules`) and runs one Numba kernel over all crew members
(:func:`vigil.model.sleep.predict_packed`). Per schedule the packed inputs are:

* the warm-up start (:func:`vigil.scoring.grid.warmup_start`, reference §9.4: 07:00 home
  time at least 72 h before the first event, awake with S = 13.82, φ = home offset) and the
  horizon, the last off-duty + 24 h;
* the body-clock target θ(t) from :func:`~vigil.scoring.grid.location_spans` and
  :func:`~vigil.scoring.grid.zone_timeline` (reference §3): the same timeline the scorer
  gives the simulator, so the gates see the same body clock as the scores;
* busy intervals: duties, and GROUND/SIMULATOR/TRAINING/POSITIONING activities (contract
  §5.1), each with its lead (latest wake = start - commute or 30-min hotel transfer - prep)
  and lag (earliest sleep = end + commute or transfer + 30-min wind-down), reference §4.1;
* in-duty sleep windows from :func:`vigil.scoring.rest.rest_windows` (in-flight rest §5,
  split-duty breaks §7);
* home standby activities (q = 0.9 for sleep windows overlapping them, §4.3.6).

DAYOFF, LEAVE and SICK activities need nothing: they are free time, where the gates alone
decide (reference §4.3.5). Standby duty rows (DutyType 3) are busy, awake throughout (§7).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np

from vigil.domain import Activity, ActivityType, Airport, Schedule
from vigil.model.parameters import DEFAULT, Parameters
from vigil.model.sleep import (
    DEFAULT_SLEEP,
    KIND_INFLIGHT,
    KIND_MAIN,
    KIND_NAP,
    WINDOW_INFLIGHT,
    WINDOW_SPLIT,
    PackedSleepInput,
    SleepParameters,
    predict_packed,
)

from . import grid
from .grid import S_AT_WAKING, SleepEpisode, epoch_hours
from .rest import rest_windows

__all__ = ["pack_schedules", "predict_sleep", "predict_sleep_arrays", "prediction_horizon"]

_KIND_NAMES = {KIND_MAIN: "main", KIND_NAP: "nap", KIND_INFLIGHT: "inflight"}


def prediction_horizon(schedule: Schedule, sleep_params: SleepParameters = DEFAULT_SLEEP) -> float:
    """End of prediction [epoch h]: the last off-duty + 24 h (covers the last duty fully)."""
    last_off = max(d.off_duty for d in schedule.duties)
    return epoch_hours(last_off) + sleep_params.horizon_after_last


def predict_sleep(
    schedules: Sequence[Schedule],
    params: Parameters = DEFAULT,
    sleep_params: SleepParameters = DEFAULT_SLEEP,
) -> list[list[SleepEpisode]]:
    """Predict the sleep of each schedule (reference §4, §5, §7; warm-up §9.4).

    Parameters
    ----------
    schedules : sequence of Schedule
        Schedules with at least one duty. Any SleepData they carry is ignored here (the
        caller uses given sleep instead, contract §3.2).
    params : Parameters
        Model constants (gates, limits, in-flight efficiency, flight timing, body clock).
    sleep_params : SleepParameters
        Remaining rule constants of the sleep predictor.

    Returns
    -------
    list of list of SleepEpisode
        For each schedule, its episodes from the warm-up start to the last off-duty + 24 h:
        sorted, non-overlapping, never inside a duty or awake activity except in the
        person's own in-flight rest windows and split-duty breaks; ``source="predicted"``,
        ``kind`` "main", "nap" or "inflight" (contract §4), times in epoch hours.
    """
    ptr, start, end, quality, kind = predict_sleep_arrays(schedules, params, sleep_params)
    start_l, end_l, q_l, k_l = start.tolist(), end.tolist(), quality.tolist(), kind.tolist()
    names = [_KIND_NAMES[k] for k in range(3)]
    out: list[list[SleepEpisode]] = []
    bounds = ptr.tolist()
    for i in range(len(schedules)):
        out.append(
            [
                SleepEpisode(start_l[j], end_l[j], q_l[j], "predicted", names[k_l[j]])
                for j in range(bounds[i], bounds[i + 1])
            ]
        )
    return out


def predict_sleep_arrays(
    schedules: Sequence[Schedule],
    params: Parameters = DEFAULT,
    sleep_params: SleepParameters = DEFAULT_SLEEP,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """As :func:`predict_sleep`, as CSR arrays ``(ptr, start, end, quality, kind)``.

    Schedule i's episodes are rows ``ptr[i]:ptr[i + 1]``; ``kind`` holds
    :data:`~vigil.model.sleep.KIND_MAIN` / ``KIND_NAP`` / ``KIND_INFLIGHT``. Feeding these
    straight into the simulator's padded arrays avoids building episode objects.
    """
    packed = pack_schedules(schedules, params, sleep_params)
    return predict_packed(packed, params, sleep_params)


@functools.lru_cache(maxsize=4096)
def _home_codes(home_base: tuple[Airport, ...]) -> frozenset[str]:
    codes = {a.code for a in home_base} | {a.icao for a in home_base} | {a.iata for a in home_base}
    codes.discard("")
    return frozenset(codes)


def _at_home(airport: Airport, home: frozenset[str]) -> bool:
    """Whether ``airport`` is one of the HomeBase codes (reference §4.1, as Duty.away_from_base)."""
    return bool(({airport.code, airport.icao, airport.iata} - {""}) & home)


def _without(
    windows: list[tuple[float, float, int, float]], busy: list[tuple[float, float]]
) -> list[tuple[float, float, int, float]]:
    """Windows with every busy interval cut out (the longer remaining piece is kept)."""
    out = []
    for a, b, kind, q in windows:
        for c, d in busy:
            if c < b and a < d:
                a, b = (a, c) if c - a >= b - d else (d, b)
        if b > a:
            out.append((a, b, kind, q))
    return out


class _Builder:
    """Accumulates the CSR arrays of :class:`PackedSleepInput`, one schedule at a time."""

    def __init__(self, params: Parameters, sleep_params: SleepParameters) -> None:
        self.p, self.sp = params, sleep_params
        self.start: list[float] = []
        self.end: list[float] = []
        self.phase: list[float] = []
        self.zone_ptr = [0]
        self.zone_time: list[float] = []
        self.zone_offset: list[float] = []
        self.busy_ptr = [0]
        self.busy: list[tuple[float, float, float, float, float, float]] = []
        self.win_ptr = [0]
        self.windows: list[tuple[float, float, int, float]] = []
        self.sb_ptr = [0]
        self.standby: list[tuple[float, float]] = []

    def add(self, schedule: Schedule) -> None:
        p, sp = self.p, self.sp
        warm = grid.warmup_start(schedule)
        t0 = epoch_hours(warm)
        home_zone = grid.home_zone(schedule)
        home = _home_codes(schedule.duties[0].home_base)
        # location spans as grid.location_spans (ref §3 target), built alongside the busy list
        spans: list[tuple[float, str]] = [(t0, home_zone)]
        busy, windows = self.busy, self.windows
        for duty in schedule.duties:
            on, off = duty.on_duty.timestamp() / 3600.0, duty.off_duty.timestamp() / 3600.0
            spans.append((on, duty.start_airport.tz))
            spans.append((off, duty.end_airport.tz))
            duty_home = _home_codes(duty.home_base) or home
            commute = duty.commute_minutes / 60.0
            before = commute if _at_home(duty.start_airport, duty_home) else p.transfer_away
            away = not _at_home(duty.end_airport, duty_home)
            after = p.transfer_away if away else commute
            lead = before + duty.crew_prep_minutes / 60.0  # latest wake = report - lead, §4.1
            lag = after + p.wind_down  # earliest sleep = off + lag, §4.1
            busy.append((on, off, lead, lag, float(away), 1.0))
            for rest in rest_windows(duty, p, sp):
                if rest.quality <= 0.0 or rest.sleep_end <= rest.sleep_start:
                    continue
                kind = WINDOW_INFLIGHT if rest.kind == "inflight" else WINDOW_SPLIT
                a, b = epoch_hours(rest.sleep_start), epoch_hours(rest.sleep_end)
                windows.append((a, b, kind, rest.quality))
        t_end = max(b for _, b, *_ in busy[self.busy_ptr[-1] :]) + sp.horizon_after_last
        for activity in schedule.activities:
            self._add_activity(activity, home)
        work = [
            (epoch_hours(a.start), epoch_hours(a.end))
            for a in schedule.activities
            if a.activity_type.awake_at_work
        ]
        if work:  # awake-at-work activities also close in-duty rest (contract §5.1)
            first = self.win_ptr[-1]
            windows[first:] = _without(windows[first:], work)
        self.start.append(t0)
        self.end.append(t_end)
        self.phase.append(grid.zone_offset(home_zone, t0))
        for when, offset in grid.zone_timeline(spans, t_end):
            self.zone_time.append(when)
            self.zone_offset.append(offset)
        self.zone_ptr.append(len(self.zone_time))
        self.busy_ptr.append(len(busy))
        self.win_ptr.append(len(windows))
        self.sb_ptr.append(len(self.standby))

    def _add_activity(self, activity: Activity, home: frozenset[str]) -> None:
        p, sp = self.p, self.sp
        a, b = epoch_hours(activity.start), epoch_hours(activity.end)
        if activity.activity_type.awake_at_work:  # contract §5.1: awake, bounds windows
            at_home = _at_home(activity.location, home)
            travel = sp.activity_commute if at_home else p.transfer_away
            self.busy.append(
                (a, b, travel + sp.activity_prep, travel + p.wind_down, float(not at_home), 0.0)
            )
        elif activity.activity_type == ActivityType.STANDBY:  # home standby: free, q = 0.9
            self.standby.append((a, b))

    def build(self) -> PackedSleepInput:
        n = len(self.start)
        busy = np.array(self.busy, dtype=np.float64).reshape(-1, 6)
        win = np.array(self.windows, dtype=np.float64).reshape(-1, 4)
        sb = np.array(self.standby, dtype=np.float64).reshape(-1, 2)
        return PackedSleepInput(
            start=np.array(self.start),
            end=np.array(self.end),
            s_start=np.full(n, S_AT_WAKING),
            phase_start=np.array(self.phase),
            zone_ptr=np.array(self.zone_ptr, dtype=np.int64),
            zone_time=np.array(self.zone_time),
            zone_offset=np.array(self.zone_offset),
            busy_ptr=np.array(self.busy_ptr, dtype=np.int64),
            busy_start=busy[:, 0].copy(),
            busy_end=busy[:, 1].copy(),
            busy_lead=busy[:, 2].copy(),
            busy_lag=busy[:, 3].copy(),
            busy_away=busy[:, 4].copy(),
            busy_nap=busy[:, 5].copy(),
            window_ptr=np.array(self.win_ptr, dtype=np.int64),
            window_start=win[:, 0].copy(),
            window_end=win[:, 1].copy(),
            window_kind=win[:, 2].astype(np.int64),
            window_quality=win[:, 3].copy(),
            standby_ptr=np.array(self.sb_ptr, dtype=np.int64),
            standby_start=sb[:, 0].copy(),
            standby_end=sb[:, 1].copy(),
        )


def pack_schedules(
    schedules: Sequence[Schedule],
    params: Parameters = DEFAULT,
    sleep_params: SleepParameters = DEFAULT_SLEEP,
) -> PackedSleepInput:
    """Turn schedules into the packed arrays of :class:`~vigil.model.sleep.PackedSleepInput`."""
    builder = _Builder(params, sleep_params)
    for schedule in schedules:
        if not schedule.duties:
            raise ValueError(f"schedule {schedule.reference!r} has no duties")
        builder.add(schedule)
    return builder.build()
