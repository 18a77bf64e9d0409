"""Where every duty and interval of a chunk of crew sits, and each crew member's timeline.

:func:`build_layout` turns schedules into flat per-duty and per-interval arrays
(:class:`Layout`); :func:`build_timeline` gives the model's :class:`~vigil.model.CrewTimeline`
(warm-up start, body-clock target, sleep episodes); :func:`to_crew_rows` scatters
per-interval rows into the model's crew-row layout (``docs/architecture.md``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

import numpy as np
import numpy.typing as npt

from vigil import model
from vigil.domain import CrewComposition, Schedule
from vigil.scoring import grid
from vigil.scoring.grid import FloatArray, SleepEpisode
from vigil.scoring.rest import rest_windows

__all__ = ["Layout", "build_layout", "build_timeline", "to_crew_rows"]


@dataclass(frozen=True, slots=True)
class Layout:
    """Where every duty and interval of a chunk sits, as flat arrays.

    Duties (``D`` of them) are indexed in crew order then duty order; intervals (``T``)
    in duty order. Crew rows of the model arrays hold each crew member's intervals back
    to back, ``spi`` samples each (the layout of :func:`vigil.model.interval_means`).
    """

    n_crew: int
    crew: npt.NDArray[np.int64]  # (D,) crew row of each duty
    on: FloatArray  # (D,) report [epoch h]
    off: FloatArray  # (D,) off duty [epoch h]
    count: npt.NDArray[np.int64]  # (D,) intervals per duty
    slot: npt.NDArray[np.int64]  # (D,) duty position within its crew member
    sectors: FloatArray  # (D,)
    workload: FloatArray  # (D,)
    cabin: npt.NDArray[np.bool_]  # (D,)
    rest_start: FloatArray  # (D, r) own rest windows (in-flight and split breaks), NaN pad
    rest_end: FloatArray  # (D, r)
    inflight: npt.NDArray[np.bool_]  # (D, r) which windows are in-flight rest
    duty: npt.NDArray[np.int64]  # (T,) duty of each interval
    position: npt.NDArray[np.int64]  # (T,) interval index within its duty
    column: npt.NDArray[np.int64]  # (T,) interval index within its crew row
    start: FloatArray  # (T,) interval start [epoch h]
    width: int  # most intervals of any crew member

    @property
    def interval_crew(self) -> npt.NDArray[np.int64]:
        return self.crew[self.duty]


def build_layout(schedules: Sequence[Schedule]) -> Layout:
    """Every duty and interval of ``schedules`` as the flat arrays of :class:`Layout`."""
    crew: list[int] = []
    on: list[float] = []
    off: list[float] = []
    count: list[int] = []
    slot: list[int] = []
    sectors: list[float] = []
    workload: list[float] = []
    cabin: list[bool] = []
    rests: list[list[tuple[float, float, bool]]] = []
    for i, schedule in enumerate(schedules):
        for j, duty in enumerate(schedule.duties):
            crew.append(i)
            on.append(grid.epoch_hours(duty.on_duty))
            off.append(grid.epoch_hours(duty.off_duty))
            count.append(duty.interval_count)
            slot.append(j)
            sectors.append(float(duty.sectors))
            workload.append(float(duty.workload))
            cabin.append(duty.crew_composition == CrewComposition.CABIN_CREW)
            rests.append(
                [
                    (grid.epoch_hours(w.start), grid.epoch_hours(w.end), w.kind == "inflight")
                    for w in rest_windows(duty)
                ]
            )
    crew_a = np.asarray(crew, dtype=np.int64)
    count_a = np.asarray(count, dtype=np.int64)
    on_a = np.asarray(on, dtype=np.float64)
    n_duty = count_a.size
    duty_idx = np.repeat(np.arange(n_duty), count_a)
    duty_first = np.cumsum(count_a) - count_a
    position = np.arange(duty_idx.size) - duty_first[duty_idx]
    # first interval column of each duty within its crew row
    crew_first = np.zeros(n_duty, dtype=np.int64)
    per_crew = np.bincount(crew_a, weights=count_a, minlength=len(schedules)).astype(np.int64)
    crew_offset = np.cumsum(per_crew) - per_crew
    if n_duty:
        crew_first = duty_first - crew_offset[crew_a]
    return Layout(
        n_crew=len(schedules),
        crew=crew_a,
        on=on_a,
        off=np.asarray(off, dtype=np.float64),
        count=count_a,
        slot=np.asarray(slot, dtype=np.int64),
        sectors=np.asarray(sectors, dtype=np.float64),
        workload=np.asarray(workload, dtype=np.float64),
        cabin=np.asarray(cabin, dtype=bool),
        rest_start=grid.pad_rows([[r[0] for r in rows] for rows in rests]),
        rest_end=grid.pad_rows([[r[1] for r in rows] for rows in rests]),
        inflight=grid.pad_rows([[float(r[2]) for r in rows] for rows in rests], 0.0) > 0,
        duty=duty_idx,
        position=position,
        column=crew_first[duty_idx] + position,
        start=on_a[duty_idx] + 0.25 * position,
        width=int(per_crew.max()) if per_crew.size else 0,
    )


def build_timeline(
    schedules: Sequence[Schedule],
    sleeps: Sequence[Sequence[SleepEpisode]],
    warmups: Sequence[datetime],
) -> model.CrewTimeline:
    """Warm-up start, body-clock target and sleep episodes of each crew member."""
    starts: list[float] = []
    phase: list[float] = []
    zone_t: list[list[float]] = []
    zone_o: list[list[float]] = []
    for schedule, episodes, start in zip(schedules, sleeps, warmups, strict=True):
        t0 = grid.epoch_hours(start)
        if episodes and episodes[0].start < t0:
            t0 = episodes[0].start
            start = grid.from_epoch_hours(t0)
        starts.append(t0)
        end = grid.epoch_hours(grid.last_event(schedule)) + 1.0
        points = grid.zone_timeline(grid.location_spans(schedule, start), end)
        phase.append(points[0][1])
        zone_t.append([p[0] for p in points])
        zone_o.append([p[1] for p in points])
    return model.CrewTimeline(
        start=np.asarray(starts, dtype=np.float64),
        s_start=np.full(len(schedules), grid.S_AT_WAKING),
        phase_start=np.asarray(phase, dtype=np.float64),
        sleep_start=grid.pad_rows([[e.start for e in ep] for ep in sleeps]),
        sleep_end=grid.pad_rows([[e.end for e in ep] for ep in sleeps]),
        sleep_quality=grid.pad_rows([[e.quality for e in ep] for ep in sleeps], 1.0),
        zone_time=grid.pad_rows(zone_t),
        zone_offset=grid.pad_rows(zone_o),
    )


def to_crew_rows(layout: Layout, per_interval: FloatArray, fill: float) -> FloatArray:
    """Scatter ``(T, spi)`` interval rows into ``(n_crew, width * spi)`` crew rows."""
    spi = per_interval.shape[1]
    out = np.full((layout.n_crew, max(layout.width, 1), spi), fill)
    out[layout.interval_crew, layout.column] = per_interval
    return out.reshape(layout.n_crew, -1)
