"""Predicted sleep for schedules without SleepData (seed §1, contract §3.2, reference §4, §5, §7).

The batch entry point :func:`predict_sleep` packs every schedule's sleep opportunities into
CSR arrays once (:func:`pack_schedules`) and runs one Numba kernel over all crew members
(:func:`vigil.model.sleep.predict_packed`). Per schedule the packed inputs are:

* the warm-up start (reference §9.4: 07:00 home
  time at least 72 h before the first event, awake with S = 13.82, φ = home offset) and the
  horizon, the last off-duty + 24 h;
* the body-clock target θ(t) of :mod:`vigil.scoring.zones` (reference §3): the same
  timeline the scorer gives the simulator, so the gates see the same body clock as the
  scores;
* busy intervals: duties, and GROUND/SIMULATOR/TRAINING/POSITIONING activities (contract
  §5.1), each with its lead (latest wake = start - commute or 30-min hotel transfer - prep)
  and lag (earliest sleep = end + commute or transfer + 30-min wind-down), reference §4.1;
* in-duty sleep windows of :mod:`vigil.scoring.rest` (in-flight rest §5,
  split-duty breaks §7);
* home standby activities (q = 0.9 for sleep windows overlapping them, §4.3.6).

DAYOFF, LEAVE and SICK activities need nothing: they are free time, where the gates alone
decide (reference §4.3.5). Standby duty rows (DutyType 3) are busy, awake throughout (§7).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from datetime import datetime

import numpy as np

from vigil.domain import ActivityType, Airport, Schedule
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

from .grid import S_AT_WAKING, FloatArray, IntArray, SleepEpisode, epoch_hours
from .plan import CrewPlan, plan_schedules, with_held_beds
from .zones import crew_zone_timelines

__all__ = [
    "horizons",
    "pack_plan",
    "pack_schedules",
    "predict_sleep",
    "predict_sleep_arrays",
]

#: Rows of a table: indices, or every row as it stands.
Rows = IntArray | slice

_KIND_NAMES = {KIND_MAIN: "main", KIND_NAP: "nap", KIND_INFLIGHT: "inflight"}


def predict_sleep(
    schedules: Sequence[Schedule],
    params: Parameters = DEFAULT,
    sleep_params: SleepParameters = DEFAULT_SLEEP,
    held_beds: Mapping[str, Sequence[tuple[datetime, datetime]]] | None = None,
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
    held_beds : mapping, optional
        Reference -> held times in bed (laboratory protocols only,
        :func:`vigil.scoring.plan.with_held_beds`).

    Returns
    -------
    list of list of SleepEpisode
        For each schedule, its episodes from the warm-up start to the last off-duty + 24 h:
        sorted, non-overlapping, never inside a duty or awake activity except in the
        person's own in-flight rest windows and split-duty breaks; ``source="predicted"``,
        ``kind`` "main", "nap" or "inflight" (contract §4), times in epoch hours.
    """
    ptr, start, end, quality, kind = predict_sleep_arrays(
        schedules, params, sleep_params, held_beds
    )
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
    held_beds: Mapping[str, Sequence[tuple[datetime, datetime]]] | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """As :func:`predict_sleep`, as CSR arrays ``(ptr, start, end, quality, kind)``.

    Schedule i's episodes are rows ``ptr[i]:ptr[i + 1]``; ``kind`` holds
    :data:`~vigil.model.sleep.KIND_MAIN` / ``KIND_NAP`` / ``KIND_INFLIGHT``. Feeding these
    straight into the simulator's padded arrays avoids building episode objects.
    """
    packed = pack_schedules(schedules, params, sleep_params, held_beds)
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


def pack_schedules(
    schedules: Sequence[Schedule],
    params: Parameters = DEFAULT,
    sleep_params: SleepParameters = DEFAULT_SLEEP,
    held_beds: Mapping[str, Sequence[tuple[datetime, datetime]]] | None = None,
) -> PackedSleepInput:
    """Turn schedules into the packed arrays of :class:`~vigil.model.sleep.PackedSleepInput`."""
    plan = with_held_beds(plan_schedules(schedules, params, sleep_params), held_beds or {})
    start = np.array([epoch_hours(w) for w in plan.warmup])
    end = horizons(plan, sleep_params)
    zones = crew_zone_timelines(plan, start, end)
    return pack_plan(plan, start, end, zones, params, sleep_params)


def horizons(plan: CrewPlan, sleep_params: SleepParameters = DEFAULT_SLEEP) -> FloatArray:
    """End of prediction of each crew member [epoch h]: the last off-duty + 24 h."""
    end = np.maximum.reduceat(plan.off, plan.offsets[:-1]) if plan.off.size else np.zeros(0)
    out: FloatArray = end + sleep_params.horizon_after_last
    return out


def _duty_busy(plan: CrewPlan) -> dict[str, list[FloatArray]]:
    """Every duty as a busy interval, one list of arrays per column (crew member, start,
    end, commute lead and lag, away from home, nap allowed) that activities add to."""
    return {
        k: [v] for k, v in zip(
            ("crew", "start", "end", "lead", "lag", "away", "nap"),
            (plan.crew.astype(np.float64), plan.on, plan.off, plan.lead, plan.lag, plan.away,
             np.ones(plan.on.size)),
            strict=True,
        )
    }  # fmt: skip


def _rest_windows(plan: CrewPlan) -> dict[str, FloatArray]:
    """The in-duty rest windows where sleep is possible (quality > 0, not empty): in-flight
    bunk rest or split-duty rest, with each window's crew member and quality."""
    w_crew = plan.crew.repeat(plan.rest_ptr[1:] - plan.rest_ptr[:-1])  # each window's crew
    ok = (plan.rest_quality > 0.0) & (plan.rest_sleep_end > plan.rest_sleep_start)
    return {
        "crew": w_crew[ok].astype(np.float64),
        "start": plan.rest_sleep_start[ok],
        "end": plan.rest_sleep_end[ok],
        "kind": np.where(plan.rest_inflight[ok], WINDOW_INFLIGHT, WINDOW_SPLIT).astype(np.float64),
        "quality": plan.rest_quality[ok],
    }


def _gathered(
    plan: CrewPlan, chosen: IntArray, p: Parameters, sp: SleepParameters
) -> tuple[dict[str, FloatArray], dict[str, FloatArray], FloatArray, FloatArray]:
    """Busy intervals, rest windows, home standby and held beds (rows of crew member,
    start, end) of the ``chosen`` crew members' duties and activities, in any order."""
    busy, windows = _duty_busy(plan), _rest_windows(plan)
    standby: list[tuple[float, float, float]] = []
    beds: list[tuple[float, float, float]] = []
    for i in chosen.tolist():
        if plan.activities[i]:
            _add_activities(i, plan, busy, windows, standby, p, sp)
        if plan.held_beds and plan.held_beds[i]:
            beds += [(float(i), a, b) for a, b in plan.held_beds[i]]
    b = {k: v[0] if len(v) == 1 else np.concatenate(v) for k, v in busy.items()}
    sb = np.array(standby, dtype=np.float64).reshape(-1, 3)
    return b, windows, sb, np.array(beds, dtype=np.float64).reshape(-1, 3)


def _chosen_zones(
    zones: tuple[IntArray, FloatArray, FloatArray], chosen: IntArray
) -> tuple[FloatArray, IntArray, FloatArray, FloatArray]:
    """The ``chosen`` crew members' body-clock offset at their start, and their target
    timelines (CSR: pointer, times and offsets)."""
    z_ptr, z_time, z_offset = zones
    ptr, rows = _csr_rows(z_ptr, chosen)
    return z_offset[z_ptr[chosen]], ptr, z_time[rows], z_offset[rows]


def pack_plan(
    plan: CrewPlan,
    start: FloatArray,
    end: FloatArray,
    zones: tuple[IntArray, FloatArray, FloatArray],
    params: Parameters = DEFAULT,
    sleep_params: SleepParameters = DEFAULT_SLEEP,
    crew: IntArray | None = None,
) -> PackedSleepInput:
    """The sleep predictor's packed input for crew members ``crew`` (default: all) of ``plan``.

    ``start``/``end`` are every crew member's warm-up start and horizon, ``zones`` their
    body-clock target timelines (:func:`vigil.scoring.zones.crew_zone_timelines`).
    """
    chosen = np.arange(plan.n_crew) if crew is None else crew
    pick = np.full(plan.n_crew, -1, dtype=np.int64)
    pick[chosen] = np.arange(chosen.size)
    b, windows, sb, bd = _gathered(plan, chosen, params, sleep_params)
    b_ptr, b_rows = _rows_of(b["crew"], pick, chosen.size)
    w_ptr, w_rows = _rows_of(windows["crew"], pick, chosen.size)
    s_ptr, s_rows = _rows_of(sb[:, 0], pick, chosen.size)
    h_ptr, h_rows = _rows_of(bd[:, 0], pick, chosen.size)
    phase_start, z_ptr, z_time, z_offset = _chosen_zones(zones, chosen)
    return PackedSleepInput(
        start=start[chosen],
        end=end[chosen],
        s_start=np.full(chosen.size, S_AT_WAKING),
        phase_start=phase_start,
        zone_ptr=z_ptr,
        zone_time=z_time,
        zone_offset=z_offset,
        busy_ptr=b_ptr,
        busy_start=b["start"][b_rows],
        busy_end=b["end"][b_rows],
        busy_lead=b["lead"][b_rows],
        busy_lag=b["lag"][b_rows],
        busy_away=b["away"][b_rows],
        busy_nap=b["nap"][b_rows],
        window_ptr=w_ptr,
        window_start=windows["start"][w_rows],
        window_end=windows["end"][w_rows],
        window_kind=windows["kind"][w_rows].astype(np.int64),
        window_quality=windows["quality"][w_rows],
        standby_ptr=s_ptr,
        standby_start=sb[s_rows, 1],
        standby_end=sb[s_rows, 2],
        bed_ptr=h_ptr,
        bed_start=bd[h_rows, 1],
        bed_end=bd[h_rows, 2],
    )


def _rows_of(row_crew: FloatArray, pick: IntArray, n: int) -> tuple[IntArray, Rows]:
    """CSR pointer and row order of the rows of picked crew, by pick order then row order
    (every row, as they stand, when all are picked and already in pick order)."""
    owner = pick[row_crew.astype(np.int64)] if row_crew.size else np.zeros(0, np.int64)
    ptr = np.zeros(n + 1, dtype=np.int64)
    if owner.size == 0 or (owner[0] >= 0 and bool((owner[1:] >= owner[:-1]).all())):
        np.bincount(owner, minlength=n).cumsum(out=ptr[1:])
        return ptr, slice(None)
    rows = np.flatnonzero(owner >= 0)
    rows = rows[np.argsort(owner[rows], kind="stable")]
    np.cumsum(np.bincount(owner[rows], minlength=n), out=ptr[1:])
    return ptr, rows


def _csr_rows(ptr: IntArray, chosen: IntArray) -> tuple[IntArray, Rows]:
    """CSR pointer and rows of the groups ``chosen`` of CSR ``ptr``, in that order."""
    if chosen.size == ptr.size - 1 and bool((chosen == np.arange(chosen.size)).all()):
        return ptr.astype(np.int64), slice(None)  # every group, in order
    count = np.diff(ptr)[chosen]
    first = np.repeat(ptr[chosen] - np.cumsum(count) + count, count)
    rows: IntArray = first + np.arange(int(count.sum()))
    return np.concatenate([[0], np.cumsum(count)]).astype(np.int64), rows


def _add_activities(
    i: int,
    plan: CrewPlan,
    busy: dict[str, list[FloatArray]],
    windows: dict[str, FloatArray],
    standby: list[tuple[float, float, float]],
    p: Parameters,
    sp: SleepParameters,
) -> None:
    """Crew member ``i``'s activities: awake-at-work ones are busy and close in-duty rest
    (contract §5.1); home standby gives q = 0.9 windows (§4.3.6)."""
    home = _home_codes(plan.home_base[i])
    rows: list[tuple[float, ...]] = []
    work: list[tuple[float, float]] = []
    for activity in plan.activities[i]:
        a, b = epoch_hours(activity.start), epoch_hours(activity.end)
        if activity.activity_type.awake_at_work:
            at_home = _at_home(activity.location, home)
            travel = sp.activity_commute if at_home else p.transfer_away
            rows.append(
                (i, a, b, travel + sp.activity_prep, travel + p.wind_down, float(not at_home), 0.0)
            )
            work.append((a, b))
        elif activity.activity_type == ActivityType.STANDBY:
            standby.append((i, a, b))
    if rows:
        table = np.array(rows, dtype=np.float64)
        for k, name in enumerate(busy):
            busy[name].append(table[:, k])
    if work:
        mine = windows["crew"] == i
        own = list(zip(windows["start"][mine].tolist(), windows["end"][mine].tolist(),
                       windows["kind"][mine].astype(int).tolist(),
                       windows["quality"][mine].tolist(), strict=True))  # fmt: skip
        cut = np.array(_without(own, work), dtype=np.float64).reshape(-1, 4)
        windows["crew"] = np.concatenate([windows["crew"][~mine], np.full(len(cut), float(i))])
        for k, name in enumerate(("start", "end", "kind", "quality")):
            windows[name] = np.concatenate([windows[name][~mine], cut[:, k]])
