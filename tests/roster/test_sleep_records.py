"""SleepData rules of contract §3.2 and §8: one test per failure mode."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from vigil.domain import SleepRecord
from vigil.roster import SleepDataShapeError, check_sleep_data_shape, parse_request

from .helpers import row9, triples

ROSTER = "\r\n".join([row9(), row9(Reference="P2")])


def sleep(name: str = "P1", start: str = "2026-02-28T22:00:00Z", end: str = "2026-03-01T05:00:00Z"):
    return {"ScheduleName": name, "SleepStart": start, "SleepEnd": end}


def test_given_sleep_is_attached_to_its_schedule_sorted() -> None:
    records = [sleep(start="2026-03-01T20:00:00Z", end="2026-03-02T04:00:00Z"), sleep()]
    parsed = parse_request(ROSTER, "dmy", sleep_data=records)
    assert parsed.errors == ()
    p1, p2 = parsed.schedules
    assert p1.sleep == (
        SleepRecord(
            "P1", datetime(2026, 2, 28, 22, tzinfo=UTC), datetime(2026, 3, 1, 5, tzinfo=UTC), 1
        ),
        SleepRecord(
            "P1", datetime(2026, 3, 1, 20, tzinfo=UTC), datetime(2026, 3, 2, 4, tzinfo=UTC), 0
        ),
    )
    assert p2.sleep == ()  # P2 gets predicted sleep


def test_field_names_match_in_any_case() -> None:
    record = {
        "schedulename": "P1",
        "SLEEPSTART": "2026-02-28T22:00:00Z",
        "sleepEnd": "2026-03-01T05:00:00Z",
    }
    assert parse_request(ROSTER, "dmy", sleep_data=[record]).schedules[0].sleep[0].index == 0


def test_plus_zero_offset_and_other_offsets_are_converted_to_utc() -> None:
    records = [sleep(start="2026-02-28T23:00:00+01:00", end="2026-03-01T05:00:00+00:00")]
    (record,) = parse_request(ROSTER, "dmy", sleep_data=records).schedules[0].sleep
    assert (record.start, record.end) == (
        datetime(2026, 2, 28, 22, tzinfo=UTC),
        datetime(2026, 3, 1, 5, tzinfo=UTC),
    )


def test_time_without_zone_designator_is_an_error() -> None:
    assert triples(ROSTER, sleep_data=[sleep(start="2026-02-28T22:00:00")]) == [
        (
            "SleepData[0]",
            "P1",
            "SleepStart '2026-02-28T22:00:00' has no time zone; end it with Z for UTC",
        )
    ]


def test_date_without_time_is_an_error() -> None:
    assert triples(ROSTER, sleep_data=[sleep(end="2026-03-01")]) == [
        ("SleepData[0]", "P1", "SleepEnd '2026-03-01' has a date but no time")
    ]


def test_text_that_is_not_iso_8601_is_an_error() -> None:
    assert triples(ROSTER, sleep_data=[sleep(), sleep(end="1/3/2026 05:00")]) == [
        (
            "SleepData[1]",
            "P1",
            "SleepEnd '1/3/2026 05:00' is not an ISO 8601 date-time, e.g. 2026-03-01T22:00:00Z",
        )
    ]


@pytest.mark.parametrize("end", ["2026-02-28T22:00:00Z", "2026-02-28T21:00:00Z"])
def test_end_must_be_after_start(end: str) -> None:
    assert triples(ROSTER, sleep_data=[sleep(end=end)]) == [
        ("SleepData[0]", "P1", f"SleepEnd {end} is not after SleepStart 2026-02-28T22:00:00Z")
    ]


def test_a_sleep_over_24_hours_is_an_error_24_exactly_is_not() -> None:
    assert triples(ROSTER, sleep_data=[sleep(end="2026-03-01T22:00:00Z")]) == []
    assert triples(ROSTER, sleep_data=[sleep(end="2026-03-01T22:01:00Z")]) == [
        (
            "SleepData[0]",
            "P1",
            "Sleep from 2026-02-28T22:00:00Z to 2026-03-01T22:01:00Z lasts 24 h 1 min, "
            "more than 24 hours",
        )
    ]


def test_overlapping_records_of_one_schedule() -> None:
    records = [
        sleep(),
        sleep(name="P2"),  # another schedule may overlap
        sleep(start="2026-03-01T04:00:00Z", end="2026-03-01T06:00:00Z"),
        sleep(start="2026-03-01T06:00:00Z", end="2026-03-01T07:00:00Z"),  # touching is fine
    ]
    assert triples(ROSTER, sleep_data=records) == [
        (
            "SleepData[2]",
            "P1",
            "Sleep from 2026-03-01T04:00:00Z to 2026-03-01T06:00:00Z overlaps SleepData[0] "
            "(2026-02-28T22:00:00Z to 2026-03-01T05:00:00Z)",
        )
    ]
    assert [s.reference for s in parse_request(ROSTER, "dmy", sleep_data=records).schedules] == [
        "P2"
    ]


def test_schedule_name_matching_no_reference() -> None:
    assert triples(ROSTER, sleep_data=[sleep(name="P3")]) == [
        ("SleepData[0]", "P3", "ScheduleName 'P3' matches no Reference in RosterData")
    ]


def test_missing_field_is_a_data_error_in_parse_request() -> None:
    record = {"ScheduleName": "P1", "SleepStart": "2026-02-28T22:00:00Z"}
    assert triples(ROSTER, sleep_data=[record, 7]) == [  # type: ignore[list-item]
        ("SleepData[0]", "P1", "Sleep record lacks SleepEnd"),
        (
            "SleepData[1]",
            "",
            "Sleep record is not an object with ScheduleName, SleepStart, SleepEnd",
        ),
    ]


def test_shape_check_names_each_offending_property_for_a_400() -> None:
    records = [
        sleep(),
        {"ScheduleName": "P1", "sleepstart": 5},
        "not a record",
    ]
    problems = check_sleep_data_shape(records)
    assert problems == (
        SleepDataShapeError(1, "SleepStart", "not-a-string"),
        SleepDataShapeError(1, "SleepEnd", "missing"),
        SleepDataShapeError(2, "", "not-an-object"),
    )
    assert [p.message for p in problems] == [
        "SleepData[1].SleepStart must be a string",
        "SleepData[1].SleepEnd is missing",
        "SleepData[2] must be an object with ScheduleName, SleepStart, SleepEnd",
    ]
    assert check_sleep_data_shape([sleep()]) == ()
    assert check_sleep_data_shape([]) == ()


def test_sleep_errors_come_after_roster_errors() -> None:
    roster = "\r\n".join([row9(), row9(Reference="P2", StartAirport="QQQ")])
    assert [t[0] for t in triples(roster, sleep_data=[sleep(name="P9")])] == ["2", "SleepData[0]"]
