"""The crew plan by column passes equals the plan of the retired per-duty builder.

:func:`vigil.scoring.plan.plan_columns` computes rest windows, lead/lag, warm-up and
zone timelines by array passes; the reference builder (``tests/reference/plan_rows.py``)
by per-duty functions (``tests/reference/rest_rows.py``,
:func:`vigil.scoring.grid_rows.zone_timeline`, :func:`vigil.scoring.grid_rows.warmup_start`).
Both must agree exactly, on a realistic month and on rosters drawn to hit every in-flight
rest rule (odd minutes, every crew complement, cabin pattern, augmentation and given rest).
"""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest
from tests.roster.helpers import HEADER_34, row34

from reference import grid_rows
from reference.plan_rows import plan_schedules as plan_rows
from reference.rest_rows import rest_windows as reference_rest_windows
from vigil.domain import DutyType
from vigil.model import PRESETS
from vigil.model.sleep import DEFAULT_SLEEP
from vigil.roster.parse import parse_request
from vigil.roster.synthetic import generate_airline_roster
from vigil.scoring import grid
from vigil.scoring.plan import CrewPlan, plan_columns, plan_schedules
from vigil.scoring.predict import horizons, predict_sleep
from vigil.scoring.rest import rest_windows, split_breaks, split_duties
from vigil.scoring.sleep_given import given_sleep
from vigil.scoring.zones import VECTOR_MIN_CREW, crew_zone_timelines

_ARRAYS = (
    "offsets", "on", "off", "count", "sectors", "workload", "cabin", "lead", "lag", "away",
    "rest_ptr", "rest_start", "rest_end", "rest_sleep_start", "rest_sleep_end",
    "rest_quality", "rest_inflight",
)  # fmt: skip
_AIRPORTS = ("LHR", "JFK", "SIN", "DXB", "SYD", "EGCC", "CDG", "LAX")


def _stamp(t: datetime) -> tuple[str, str]:
    return t.strftime("%d/%m/%Y"), t.strftime("%H:%M")


def _drawn_roster(
    seed: int, crew: int = 120, start: datetime = datetime(2026, 3, 1, tzinfo=UTC)
) -> str:
    """Duties in UTC drawn to exercise every rest rule; the reader drops invalid ones."""
    rng = random.Random(seed)
    rows = [HEADER_34]
    for c in range(crew):
        t = start + timedelta(minutes=rng.randrange(0, 2000))
        home = rng.choice(_AIRPORTS)
        for _ in range(10):
            on = t
            off = on + timedelta(minutes=rng.randrange(120, 17 * 60))
            duration = int((off - on).total_seconds() // 60)
            crew_comp = rng.choice((2, 3, 4, 9))
            cells = {
                "Reference": f"C{c}",
                "StartAirport": rng.choice(_AIRPORTS),
                "EndAirport": rng.choice(_AIRPORTS),
                "HomeBase": home,
                "Sectors": str(rng.randrange(1, 5)),
                "CrewComposition": str(crew_comp),
                "SleepCount": "0" if crew_comp == 2 else str(rng.randrange(0, 3)),
                "SleepOrder": str(rng.randrange(1, 4)),
                "SleepClass": str(rng.randrange(1, 6)),
                "CabinCrewSleepPattern": str(rng.randrange(0, 5)),
                "DutyType": rng.choice(("1", "1", "1", "1", "2", "3")),
                "SplitShift": rng.choice(("1", "1", "1", "1", "1", "0", "")),
                "CrewPrepTime": str(rng.randrange(0, 120)),
                "DutyCommuteTime": str(rng.randrange(0, 120)),
            }
            cells["OnDutyDate"], cells["OnDutyTime"] = _stamp(on)
            cells["OffDutyDate"], cells["OffDutyTime"] = _stamp(off)
            if rng.random() < 0.3:  # partial augmentation
                a = on + timedelta(minutes=rng.randrange(0, duration))
                b = a + timedelta(minutes=rng.randrange(1, duration))
                for key, value in zip(
                    ("OnPartialAugment", "OffPartialAugment"), (a, min(b, off)), strict=True
                ):
                    cells[f"{key}Date"], cells[f"{key}Time"] = _stamp(value)
            if rng.random() < 0.25:  # given rest, one or two
                a = on + timedelta(minutes=rng.randrange(0, duration // 2))
                b = a + timedelta(minutes=rng.randrange(1, duration // 3 + 2))
                cells["FirstRestStartDate"], cells["FirstRestStartTime"] = _stamp(a)
                cells["FirstRestEndDate"], cells["FirstRestEndTime"] = _stamp(min(b, off))
                if rng.random() < 0.5 and b < off:
                    e = b + timedelta(
                        minutes=rng.randrange(1, max(2, int((off - b).seconds // 60)))
                    )
                    cells["SecondRestStartDate"], cells["SecondRestStartTime"] = _stamp(b)
                    cells["SecondRestEndDate"], cells["SecondRestEndTime"] = _stamp(min(e, off))
            rows.append(row34(**cells))
            t = off + timedelta(minutes=rng.randrange(600, 3000))
    return "\r\n".join(rows)


def _assert_same(a: CrewPlan, b: CrewPlan) -> None:
    for name in _ARRAYS:
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)
    assert a.warmup == b.warmup
    assert list(a.on_instant) == list(b.on_instant)
    assert list(a.off_instant) == list(b.off_instant)
    assert [a.zones[z] for z in a.start_zone] == [b.zones[z] for z in b.start_zone]
    assert [a.zones[z] for z in a.home_zone] == [b.zones[z] for z in b.home_zone]
    for plan in (a, b):  # zone timelines by array passes equal the per-crew reference
        start = np.array([grid.epoch_hours(w) for w in plan.warmup])
        end = horizons(plan)
        ptr, time, offset = crew_zone_timelines(plan, start, end)
        for i, schedule in enumerate(plan.schedules(np.arange(plan.n_crew))):
            spans = grid_rows.location_spans(schedule, plan.warmup[i])
            expected = grid_rows.zone_timeline(spans, float(end[i]))
            got = list(zip(time[ptr[i] : ptr[i + 1]], offset[ptr[i] : ptr[i + 1]], strict=True))
            assert got == expected


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_plan_of_drawn_rosters_matches_duty_objects(preset: str) -> None:
    parsed = parse_request(_drawn_roster(seed=len(preset)), "dmy")
    assert parsed.columns is not None
    inflight = parsed.columns.crew_composition != 2
    assert parsed.columns.n_duties > 600 and inflight.sum() > 300  # enough rules hit
    params = PRESETS[preset]
    from_columns = plan_columns(parsed.columns, params, DEFAULT_SLEEP)
    from_objects = plan_rows(parsed.schedules, params, DEFAULT_SLEEP)
    assert from_columns.rest_ptr[-1] > 200  # many duties have own rest
    _assert_same(from_columns, from_objects)
    _assert_same(plan_schedules(parsed.schedules, params, DEFAULT_SLEEP), from_objects)


def test_zone_timelines_of_a_few_crew_equal_those_of_many() -> None:
    """Below :data:`VECTOR_MIN_CREW` the per-crew loop builds the same arrays."""
    parsed = parse_request(generate_airline_roster(VECTOR_MIN_CREW + 2, 28, seed=2), "dmy")
    assert parsed.columns is not None
    plan = plan_columns(parsed.columns, PRESETS["ingre2014_5c"], DEFAULT_SLEEP)
    start = np.array([grid.epoch_hours(w) for w in plan.warmup])
    end = horizons(plan)
    many = crew_zone_timelines(plan, start, end)
    for i in range(0, plan.n_crew, 7):
        few = plan_schedules(plan.schedules(np.array([i])), PRESETS["ingre2014_5c"], DEFAULT_SLEEP)
        assert few.n_crew < VECTOR_MIN_CREW <= plan.n_crew
        ptr, time, offset = crew_zone_timelines(few, start[i : i + 1], end[i : i + 1])
        lo, hi = many[0][i], many[0][i + 1]
        np.testing.assert_array_equal(time, many[1][lo:hi])
        np.testing.assert_array_equal(offset, many[2][lo:hi])
        assert ptr.tolist() == [0, hi - lo]


@pytest.mark.parametrize(
    ("start", "years", "dst"),
    [(datetime(2026, 3, 20, tzinfo=UTC), 1, True), (datetime(2026, 12, 24, tzinfo=UTC), 2, False)],
    ids=["spring-dst", "new-year"],
)
def test_zone_timelines_of_a_request_match_the_reference(
    start: datetime, years: int, dst: bool
) -> None:
    """Below :data:`VECTOR_MIN_CREW` (a request's path) each crew member's timeline equals
    :func:`grid_rows.zone_timeline` of its location spans, across DST changes and a New Year."""
    parsed = parse_request(_drawn_roster(seed=5, crew=12, start=start), "dmy")
    plan = plan_schedules(parsed.schedules, PRESETS["ingre2014_5c"], DEFAULT_SLEEP)
    assert 0 < plan.n_crew < VECTOR_MIN_CREW
    begin = np.array([grid.epoch_hours(w) for w in plan.warmup])
    end = horizons(plan)
    ptr, time, offset = crew_zone_timelines(plan, begin, end)
    dst_changes = 0
    for i, schedule in enumerate(parsed.schedules):
        spans = grid_rows.location_spans(schedule, plan.warmup[i])
        expected = grid_rows.zone_timeline(spans, float(end[i]))
        rows = slice(ptr[i], ptr[i + 1])
        got = list(zip(time[rows].tolist(), offset[rows].tolist(), strict=True))
        assert got == expected
        dst_changes += len(set(expected) - {(t, grid.zone_offset(z, t)) for t, z in spans})
    assert (dst_changes > 0) == dst  # some timelines change offset inside a span
    assert grid.year_of(float(end.max())) - grid.year_of(float(begin.min())) + 1 == years


def test_plan_of_an_airline_month_matches_duty_objects() -> None:
    parsed = parse_request(generate_airline_roster(150, 28, seed=4), "dmy")
    assert parsed.columns is not None
    params = PRESETS["ingre2014_5c"]
    _assert_same(
        plan_columns(parsed.columns, params, DEFAULT_SLEEP),
        plan_rows(parsed.schedules, params, DEFAULT_SLEEP),
    )


def test_given_sleep_from_the_plan_matches_duty_objects() -> None:
    """SleepData read against the plan's arrays equals the per-schedule reference,
    in-flight records (inside a duty) included."""
    roster = generate_airline_roster(60, 28, seed=9)
    parsed = parse_request(roster, "dmy")
    assert parsed.columns is not None
    params = PRESETS["ingre2014_5c"]
    predicted = predict_sleep(parsed.schedules, params)
    stamp = "%Y-%m-%dT%H:%M:%SZ"
    records = [
        {
            "ScheduleName": schedule.reference,
            "SleepStart": grid.from_epoch_hours(e.start).strftime(stamp),
            "SleepEnd": grid.from_epoch_hours(e.end).strftime(stamp),
        }
        for schedule, episodes in zip(parsed.schedules, predicted, strict=True)
        for e in episodes[3:]  # after the warm-up nights
    ]
    given = parse_request(roster, "dmy", sleep_data=records)
    assert given.columns is not None and not given.errors
    plan = plan_columns(given.columns, params, DEFAULT_SLEEP, given.sleep, given.activities)
    crew = np.arange(plan.n_crew)
    got = given_sleep(plan, crew, params).episodes()
    expected = [
        grid_rows.given_sleep_episodes(s, plan.warmup[i], params)
        for i, s in enumerate(given.schedules)
    ]
    assert got == expected
    assert any(e.kind == "inflight" for episodes in got for e in episodes)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_split_breaks_match_rest_windows(seed: int) -> None:
    """Every split duty's break by array passes equals :func:`rest_windows` to the µs, and
    the drawn duties reach each quality rule of reference §7 (WOCL alone included)."""
    parsed = parse_request(_drawn_roster(seed=seed), "dmy")
    assert parsed.columns is not None
    columns = parsed.columns
    split = np.flatnonzero(split_duties(columns) & (columns.duty_type != DutyType.STANDBY))
    breaks = split_breaks(columns, split, DEFAULT_SLEEP)
    us = timedelta(microseconds=1)
    rules = set()
    for k, duty in enumerate(columns.duties(split)):
        expected = reference_rest_windows(duty, PRESETS["ingre2014_5c"], DEFAULT_SLEEP)
        assert bool(breaks.present[k]) == bool(expected)
        if not expected:
            continue
        (window,) = expected
        epoch = datetime(1970, 1, 1, tzinfo=UTC)
        got = [int(getattr(breaks, f)[k]) for f in ("start", "end", "sleep_start", "sleep_end")]
        assert got == [
            (window.start - epoch) // us,
            (window.end - epoch) // us,
            (window.sleep_start - epoch) // us,
            (window.sleep_end - epoch) // us,
        ]
        assert breaks.quality[k] == window.quality
        rules.add((window.quality, window.hours >= DEFAULT_SLEEP.split_accommodation_hours))
    assert {(0.9, True), (0.9, False), (0.75, False), (0.0, False)} <= rules


@pytest.mark.parametrize("seed", [1, 4])
def test_one_duty_rest_windows_match_the_reference(seed: int) -> None:
    """:func:`vigil.scoring.rest.rest_windows` (the column passes on one duty, for pages
    and the planner) equals the per-duty reference on every drawn duty, windows or none."""
    parsed = parse_request(_drawn_roster(seed=seed, crew=40), "dmy")
    params = PRESETS["ingre2014_5c"]
    kinds: set[str] = set()
    for schedule in parsed.schedules:
        for duty in schedule.duties:
            got = rest_windows(duty, params, DEFAULT_SLEEP)
            expected = reference_rest_windows(duty, params, DEFAULT_SLEEP)
            assert [_fields(w) for w in got] == [_fields(w) for w in expected]
            kinds.update(w.kind for w in got)
    assert kinds == {"inflight", "split"}


def _fields(window: object) -> tuple[object, ...]:
    names = ("start", "end", "kind", "quality", "sleep_start", "sleep_end")
    return tuple(getattr(window, name) for name in names)
