"""Domain -> model arrays (vigil.scoring.grid)."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from reference import grid_rows
from vigil import tz
from vigil.domain import Airport, CrewComposition, Duty, Schedule, SleepClass, SleepRecord
from vigil.scoring import grid


def duty_sample_times(
    duties: Iterable[Duty], per_interval: int = grid.SAMPLES_PER_INTERVAL
) -> np.ndarray:
    """:func:`interval_samples` of every interval of ``duties``, in duty order."""
    starts: list[float] = []
    offs: list[float] = []
    for duty in duties:
        on, off = grid.epoch_hours(duty.on_duty), grid.epoch_hours(duty.off_duty)
        starts.extend(on + grid.INTERVAL_HOURS * k for k in range(duty.interval_count))
        offs.extend([off] * duty.interval_count)
    return grid.interval_samples(
        np.asarray(starts, dtype=np.float64), np.asarray(offs), per_interval
    )


def airport(code: str) -> Airport:
    found = tz.airport(code)
    assert found is not None, code
    return found


def duty(
    on: datetime,
    off: datetime,
    start: str = "LHR",
    end: str = "LHR",
    home: str = "LHR",
    **kwargs: object,
) -> Duty:
    return Duty(
        row=2,
        reference="P1",
        on_duty=on,
        off_duty=off,
        start_airport=airport(start),
        end_airport=airport(end),
        home_base=(airport(home),),
        **kwargs,  # type: ignore[arg-type]
    )


def test_sample_grid_has_minute_midpoints_and_a_short_last_interval() -> None:
    # contract §4: ceil(40 min / 15 min) = 3 intervals, the last covering 10 minutes
    on = datetime(2026, 3, 1, 6, 0, tzinfo=UTC)
    d = duty(on, on + timedelta(minutes=40))
    samples = duty_sample_times([d])
    assert samples.shape == (3, grid.SAMPLES_PER_INTERVAL)
    assert np.isfinite(samples[:2]).all()
    assert np.isfinite(samples[2]).sum() == 10
    first = grid.epoch_hours(on)
    assert samples[0, 0] == pytest.approx(first + 0.5 / 60)
    assert samples[1, 14] == pytest.approx(first + 29.5 / 60)
    assert np.nanmax(samples[2]) == pytest.approx(first + 39.5 / 60)


def test_intervals_of_several_duties_are_concatenated_in_duty_order() -> None:
    on = datetime(2026, 3, 1, 6, 0, tzinfo=UTC)
    a = duty(on, on + timedelta(hours=1))
    b = duty(on + timedelta(days=1), on + timedelta(days=1, minutes=50))
    samples = duty_sample_times([a, b])
    assert samples.shape[0] == a.interval_count + b.interval_count == 4 + 4
    assert samples[4, 0] == pytest.approx(grid.epoch_hours(b.on_duty) + 0.5 / 60)


def test_warmup_starts_at_seven_local_at_least_72_hours_before_first_event() -> None:
    # reference §9.4: 72 h before the earliest roster event, at 07:00 home-base local time
    on = datetime(2026, 7, 10, 9, 0, tzinfo=UTC)  # 10:00 BST
    schedule = Schedule("P1", (duty(on, on + timedelta(hours=8)),))
    start = grid_rows.warmup_start(schedule)
    assert on - start >= timedelta(hours=72)
    assert on - start < timedelta(hours=96)
    assert tz.utc_to_local(start, "Europe/London").hour == 7


def test_habitual_nights_are_23_to_07_local_and_cut_at_the_limit() -> None:
    start = datetime(2026, 1, 5, 7, 0, tzinfo=UTC)
    limit = datetime(2026, 1, 8, 4, 0, tzinfo=UTC)
    nights = grid.habitual_nights("Europe/London", start, limit)
    assert [(a.hour, b.hour) for a, b in nights] == [(23, 7), (23, 7), (23, 4)]


def test_zone_timeline_follows_the_person_and_daylight_saving() -> None:
    # reference §3: target = start airport from report, end airport from off-duty; DST moves it
    on = datetime(2026, 3, 27, 10, 0, tzinfo=UTC)
    d = duty(on, on + timedelta(hours=8), start="LHR", end="JFK")
    schedule = Schedule("P1", (d,))
    start = grid_rows.warmup_start(schedule)
    end = grid.epoch_hours(on + timedelta(days=3))
    points = grid_rows.zone_timeline(grid_rows.location_spans(schedule, start), end)
    offsets = [off for _, off in points]
    # London GMT (0) until off-duty at JFK (EDT -4); London's 29 March change is not reached
    # because the person is in New York by then.
    assert offsets == [0.0, -4.0]
    assert points[1][0] == pytest.approx(grid.epoch_hours(d.off_duty))


def test_zone_timeline_includes_a_dst_change_while_at_home() -> None:
    on = datetime(2026, 3, 30, 10, 0, tzinfo=UTC)  # London moves to BST on 29 March 01:00Z
    schedule = Schedule("P1", (duty(on, on + timedelta(hours=8)),))
    start = grid_rows.warmup_start(schedule)
    points = grid_rows.zone_timeline(
        grid_rows.location_spans(schedule, start), grid.epoch_hours(on)
    )
    change = datetime(2026, 3, 29, 1, 0, tzinfo=UTC)
    assert points == [
        (pytest.approx(grid.epoch_hours(start)), 0.0),
        (grid.epoch_hours(change), 1.0),
    ]


def test_given_sleep_in_flight_takes_the_quality_of_its_sleep_class() -> None:
    # reference §5.2: q = 0.70 * r_k; bunk 0.70, economy seat 0.14
    on = datetime(2026, 3, 1, 20, 0, tzinfo=UTC)
    d = duty(
        on,
        on + timedelta(hours=13),
        start="LHR",
        end="SIN",
        crew_composition=CrewComposition.FOUR_PILOTS,
        sleep_class=SleepClass.ECONOMY_SEAT,
    )
    sleeps = (
        SleepRecord("P1", on - timedelta(hours=12), on - timedelta(hours=4), 0),
        SleepRecord("P1", on + timedelta(hours=4), on + timedelta(hours=7), 1),
    )
    schedule = Schedule("P1", (d,), sleep=sleeps)
    episodes = grid_rows.given_sleep_episodes(schedule, grid_rows.warmup_start(schedule))
    given = [e for e in episodes if e.source == "given"]
    assert [(e.kind, e.quality) for e in given] == [
        ("main", 1.0),
        ("inflight", pytest.approx(0.14)),
    ]
    warmup = [e for e in episodes if e.source != "given"]
    assert len(warmup) == 3 and all(e.end <= given[0].start for e in warmup)


def test_zone_timeline_agrees_with_zoneinfo_hour_by_hour() -> None:
    # the table-driven timeline must give zoneinfo's offset at every instant of every span
    from vigil.roster import parse_request
    from vigil.roster.synthetic import generate_roster

    for schedule in parse_request(generate_roster(12, 40, seed=7), "dmy").schedules:
        start = grid_rows.warmup_start(schedule)
        spans = grid_rows.location_spans(schedule, start)
        end = grid.epoch_hours(schedule.duties[-1].off_duty) + 24.0
        points = grid_rows.zone_timeline(spans, end)
        times = np.array([p[0] for p in points])
        for i, (t0, zone) in enumerate(spans):
            t1 = spans[i + 1][0] if i + 1 < len(spans) else end
            for t in np.arange(t0, t1, 1.0):
                got = points[int(np.searchsorted(times, t, side="right")) - 1][1]
                assert got == tz.utc_offset_hours(zone, grid.from_epoch_hours(t)), (zone, t)


@pytest.mark.parametrize(
    "zones",
    [("Australia/Sydney", "Europe/London"), ("America/Santiago", "UTC", "America/New_York")],
)
def test_zone_timeline_across_years_agrees_with_zoneinfo(zones: tuple[str, ...]) -> None:
    # stays of months to two years, crossing New Year (the per-year tables join), back-to-back
    # spans at the same instant (skipped) and a timeline ending before its last span starts
    t = grid.epoch_hours(datetime(2023, 11, 30, 22, tzinfo=UTC))
    spans: list[tuple[float, str]] = []
    for i, stay in enumerate((0.0, 24.0 * 40, 24.0 * 700.5, 5.0, 24.0 * 90)):
        spans.append((t, zones[i % len(zones)]))
        t += stay
    for end in (t + 24.0 * 400, t - 1.0):
        points = grid_rows.zone_timeline(spans, end)
        offsets = [p[1] for p in points]
        assert all(a != b for a, b in zip(offsets, offsets[1:], strict=False))  # merged
        times = np.array([p[0] for p in points])
        for i, (t0, zone) in enumerate(spans):
            t1 = spans[i + 1][0] if i + 1 < len(spans) else end
            for h in np.arange(t0, t1, 6.0):
                got = points[int(np.searchsorted(times, h, side="right")) - 1][1]
                assert got == tz.utc_offset_hours(zone, grid.from_epoch_hours(h)), (zone, h)


def test_duty_containing_finds_the_duty_holding_most_of_a_sleep() -> None:
    on = datetime(2026, 3, 1, 20, 0, tzinfo=UTC)
    duties = [duty(on + timedelta(days=k), on + timedelta(days=k, hours=12)) for k in range(5)]
    inside = grid_rows.duty_containing(
        duties, on + timedelta(days=3, hours=4), on + timedelta(days=3, hours=7)
    )
    assert inside is duties[3]
    # mostly after duty 2 ends: sleep on the ground
    assert (
        grid_rows.duty_containing(
            duties, on + timedelta(days=2, hours=11), on + timedelta(days=2, hours=16)
        )
        is None
    )
    # more than half inside duty 1, though it starts before it
    assert (
        grid_rows.duty_containing(
            duties, on + timedelta(days=1, hours=-1), on + timedelta(days=1, hours=3)
        )
        is duties[1]
    )
    assert (
        grid_rows.duty_containing(duties, on - timedelta(hours=9), on - timedelta(hours=1)) is None
    )


@pytest.mark.parametrize(
    "zone",
    ["Europe/London", "America/New_York", "Australia/Sydney", "Australia/Lord_Howe",
     "Asia/Tehran", "America/Santiago", "Pacific/Chatham", "Africa/Casablanca", "Asia/Dubai"],
)  # fmt: skip
@pytest.mark.parametrize("year", [1985, 2026])
def test_zone_year_transitions_equal_the_hourly_scan(zone: str, year: int) -> None:
    """Probing days first finds exactly the transitions of the hourly scan."""
    start, end = datetime(year, 1, 1, tzinfo=UTC), datetime(year + 1, 1, 1, tzinfo=UTC)
    scan = tz.offset_transitions(zone, start, end)
    assert grid._zone_year_transitions(zone, year) == tuple(
        (grid.epoch_hours(t), offset) for t, offset in scan
    )


@pytest.mark.parametrize("per_interval", [15, 4, 1])
def test_interval_samples_match_their_array_statement(per_interval: int) -> None:
    # the compiled kernel against the NumPy statement it replaced, short intervals and
    # off-duty instants a hair either side of a sub-step included
    rng = np.random.default_rng(3)
    on = 490_000.0 + np.round(rng.uniform(0, 1000, 400) * 60) / 60
    k = rng.integers(0, 40, on.size)
    start = on + 0.25 * k
    off = start + rng.choice([0.25, 0.1, 1 / 60, 0.25 - 1e-7, 0.05 + 1e-10, 3.0], on.size)
    step = 0.25 / per_interval
    expected = start[:, None] + ((np.arange(per_interval) + 0.5) * step)[None, :]
    short = np.flatnonzero(start + 0.25 > off - 1e-6)
    rows = expected[short]
    rows[rows - step / 2 >= off[short, None] - 1e-9] = np.nan
    expected[short] = rows
    np.testing.assert_array_equal(grid.interval_samples(start, off, per_interval), expected)
