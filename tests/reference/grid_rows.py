"""The retired per-schedule timeline functions, kept as independent references.

Production builds every crew member's warm-up start, body-clock target timeline and given
sleep by array passes over all crew at once (:mod:`vigil.scoring.plan`,
:mod:`vigil.scoring.zones`, :mod:`vigil.scoring.sleep_given`). These functions do the same
for one :class:`~vigil.domain.Schedule` at a time with ``datetime`` arithmetic, so the
tests can hold the array passes to an encoding written another way.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from datetime import datetime, timedelta

from vigil.domain import Duty, Schedule
from vigil.model.parameters import DEFAULT, Parameters
from vigil.scoring.grid import (
    SleepEpisode,
    _year,
    epoch_hours,
    habitual_nights,
    warmup_from,
    year_table,
)
from vigil.scoring.rest import duty_inflight_quality


def first_event(schedule: Schedule) -> datetime:
    """Earliest instant of the schedule: duty, given sleep or activity."""
    candidates = [d.on_duty for d in schedule.duties]
    candidates += [s.start for s in schedule.sleep]
    candidates += [a.start for a in schedule.activities]
    return min(candidates)


def last_event(schedule: Schedule) -> datetime:
    """Latest instant of the schedule: duty, given sleep or activity."""
    candidates = [d.off_duty for d in schedule.duties]
    candidates += [s.end for s in schedule.sleep]
    candidates += [a.end for a in schedule.activities]
    return max(candidates)


def home_zone(schedule: Schedule) -> str:
    """The base time zone: the first HomeBase code of the first duty (contract §3.1)."""
    return schedule.duties[0].home.tz


def warmup_start(schedule: Schedule) -> datetime:
    """07:00 home-base local time, at least 72 h before the earliest event (reference §9.4)."""
    return warmup_from(home_zone(schedule), first_event(schedule))


def zone_timeline(spans: Sequence[tuple[float, str]], end: float) -> list[tuple[float, float]]:
    """Piecewise-constant body-clock target theta(t) (reference §3).

    Parameters
    ----------
    spans : sequence of (float, str)
        (start [epoch h], IANA zone) where the person is from ``start`` until the next
        span's start; sorted by start.
    end : float
        End of the timeline [epoch h].

    Returns
    -------
    list of (float, float)
        (instant [epoch h], UTC offset [h]) change points, DST changes included, with
        consecutive equal offsets merged. Offsets come from per-zone-year tables of the
        IANA transitions, so 10,000 schedules need no datetime arithmetic.
    """
    merged: list[tuple[float, float]] = []
    n = len(spans)
    for i, (t0, zone) in enumerate(spans):
        t1 = spans[i + 1][0] if i + 1 < n else end
        if i + 1 < n and t1 <= t0:
            continue
        year = _year(t0)
        times, offsets, start_offset = year_table(zone, year)
        j = bisect_right(times, t0)  # the changes after t0 (those up to t0 give its offset)
        _merge(merged, t0, offsets[j - 1] if j else start_offset)
        last_year = _year(t1) if t1 > t0 else year
        while True:
            for k in range(j, bisect_left(times, t1)):  # the changes inside (t0, t1)
                _merge(merged, times[k], offsets[k])
            if year == last_year:
                break
            year += 1
            times, offsets, _ = year_table(zone, year)
            j = bisect_right(times, t0)
    return merged


def _merge(points: list[tuple[float, float]], t: float, offset: float) -> None:
    """Append change point ``(t, offset)`` unless the offset is already in effect."""
    if not points or points[-1][1] != offset:
        points.append((t, offset))


def location_spans(schedule: Schedule, start: datetime) -> list[tuple[float, str]]:
    """Where the person is (reference §3 target): home until the first report, the start
    airport from report to off-duty, the end airport from off-duty onward."""
    spans: list[tuple[float, str]] = [(epoch_hours(start), home_zone(schedule))]
    for duty in schedule.duties:
        spans.append((epoch_hours(duty.on_duty), duty.start_airport.tz))
        spans.append((epoch_hours(duty.off_duty), duty.end_airport.tz))
    return spans


def duty_containing(
    duties: Sequence[Duty],
    start: datetime,
    end: datetime,
    on_times: Sequence[datetime] | None = None,
) -> Duty | None:
    """The duty a sleep lies in (more than half of it), or None for sleep on the ground.

    ``duties`` are chronological and non-overlapping (roster checks), so only the duty
    starting last before the sleep's end can hold most of it; ``on_times`` (their
    on-duty instants) may be passed to save rebuilding it for every sleep.
    """
    if on_times is None:
        on_times = [d.on_duty for d in duties]
    found = containing(on_times, [d.off_duty for d in duties], start, end)
    return None if found is None else duties[found]


def containing(
    on: Sequence[datetime], off: Sequence[datetime], start: datetime, end: datetime
) -> int | None:
    """Index of the duty ``[on[k], off[k])`` holding more than half of ``[start, end)``.

    Duties are chronological and non-overlapping, so only the two starting last before
    ``end`` can; None for sleep on the ground.
    """
    i = bisect_left(on, end) - 1
    for k in range(max(i - 1, 0), i + 1):
        overlap = min(end, off[k]) - max(start, on[k])
        if overlap > (end - start) / 2:
            return k
    return None


def given_sleep_episodes(
    schedule: Schedule, start: datetime, params: Parameters = DEFAULT
) -> list[SleepEpisode]:
    """Given sleep (SleepData) plus habitual warm-up nights before the first record.

    Reference §4.4: records are used exactly as given; a record inside a duty is
    in-flight sleep whose quality comes from that duty's SleepClass (§5.2); before the
    first record the warm-up of §9.4 runs, here as habitual 23:00-07:00 home-base sleep.
    """
    records = sorted(schedule.sleep, key=lambda r: r.start)
    first = records[0].start
    first_duty = schedule.duties[0]
    limit = min(
        first,
        first_duty.on_duty
        - timedelta(minutes=first_duty.commute_minutes + first_duty.crew_prep_minutes),
    )
    episodes = [
        SleepEpisode(epoch_hours(a), epoch_hours(b), 1.0, "predicted", "main")
        for a, b in habitual_nights(home_zone(schedule), start, limit)
    ]
    on_times = [d.on_duty for d in schedule.duties]
    for record in records:
        duty = duty_containing(schedule.duties, record.start, record.end, on_times)
        if duty is None:
            quality, kind = 1.0, "main"
        else:
            quality, kind = duty_inflight_quality(duty, params), "inflight"
        episodes.append(
            SleepEpisode(epoch_hours(record.start), epoch_hours(record.end), quality, "given", kind)
        )
    return episodes
