"""ActivityData rules of contract §5.1: one test per failure mode."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from vigil.domain import ActivityType, TimeReference
from vigil.roster import parse_request

from .helpers import row9, triples

ROSTER = "\r\n".join([row9(HomeBase="JFK"), row9(Reference="P2")])
HEADER = "Reference,StartDate,StartTime,EndDate,EndTime,Location,ActivityType,TimeReference"


def activity(**values: str) -> str:
    base = {
        "Reference": "P1", "StartDate": "02/03/2026", "StartTime": "09:00",
        "EndDate": "02/03/2026", "EndTime": "17:00", "Location": "LHR",
        "ActivityType": "SIMULATOR", "TimeReference": "0",
    }  # fmt: skip
    base.update(values)
    return ",".join(base.values())


def test_activities_with_header_are_attached_to_their_schedule() -> None:
    later = activity(StartDate="03/03/2026", EndDate="03/03/2026")
    text = f"{HEADER}\r\n{later}\r\n{activity(ActivityType='dayoff')}"
    parsed = parse_request(ROSTER, "dmy", activity_text=text)
    assert parsed.errors == ()
    first, second = parsed.schedules[0].activities
    assert (first.row, first.activity_type, first.start) == (
        3,
        ActivityType.DAYOFF,
        datetime(2026, 3, 2, 9, tzinfo=UTC),
    )
    assert (second.row, second.activity_type) == (2, ActivityType.SIMULATOR)
    assert not first.activity_type.awake_at_work and second.activity_type.awake_at_work
    assert parsed.schedules[1].activities == ()


def test_header_is_optional() -> None:
    parsed = parse_request(ROSTER, "dmy", activity_text=activity())
    assert parsed.errors == () and len(parsed.schedules[0].activities) == 1


def test_time_reference_1_is_the_schedules_home_base_and_2_the_location() -> None:
    local = activity(TimeReference="2", StartDate="03/03/2026", EndDate="03/03/2026")
    text = "\r\n".join([activity(TimeReference="1"), local])
    home, local = parse_request(ROSTER, "dmy", activity_text=text).schedules[0].activities
    assert home.start == datetime(2026, 3, 2, 14, tzinfo=UTC)  # 09:00 in New York (UTC-5)
    assert local.start == datetime(2026, 3, 3, 9, tzinfo=UTC)  # 09:00 in London (UTC+0)
    assert (home.time_reference, local.time_reference) == (
        TimeReference.HOME_BASE,
        TimeReference.LOCAL,
    )


def test_error_rows_use_the_activity_data_prefix() -> None:
    text = f"{HEADER}\r\n\r\n{activity(ActivityType='NAP')}"
    assert triples(ROSTER, activity_text=text) == [
        (
            "ActivityData:3",
            "P1",
            "ActivityType 'NAP' is not one of DAYOFF, LEAVE, SICK, GROUND, SIMULATOR, "
            "TRAINING, POSITIONING, STANDBY",
        )
    ]


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"EndTime": "09:00"}, "End 02/03/2026 09:00 is not after start 02/03/2026 09:00"),
        ({"Location": "QQQ"}, "Unknown airport code 'QQQ' in Location"),
        (
            {"StartDate": "30/02/2026"},
            "StartDate '30/02/2026' is not a valid date; expected DD/MM/YYYY",
        ),
        (
            {"EndTime": "25:00"},
            "EndTime '25:00' is not a valid time; expected H:MM or HH:MM, 00:00-23:59",
        ),
        ({"TimeReference": "5"}, "TimeReference 5 is not allowed; use 0, 1 or 2"),
        ({"ActivityType": ""}, "ActivityType is blank; it is required"),
    ],
)
def test_activity_row_errors(values: dict[str, str], message: str) -> None:
    assert triples(ROSTER, activity_text=activity(**values)) == [("ActivityData:1", "P1", message)]


def test_reference_matching_no_roster_reference() -> None:
    assert triples(ROSTER, activity_text=activity(Reference="P7")) == [
        ("ActivityData:1", "P7", "Reference 'P7' matches no Reference in RosterData")
    ]


def test_time_reference_1_without_a_readable_home_base() -> None:
    roster = "\r\n".join([row9(), row9(Reference="P3", StartAirport="QQQ", HomeBase="")])
    assert triples(roster, activity_text=activity(Reference="P3", TimeReference="1")) == [
        ("2", "P3", "Unknown airport code 'QQQ' in StartAirport"),
        (
            "ActivityData:1",
            "P3",
            "TimeReference 1 needs the HomeBase of 'P3', which no readable RosterData row gives",
        ),
    ]


def test_wrong_column_count() -> None:
    assert triples(ROSTER, activity_text=activity() + ",extra") == [
        ("ActivityData:1", "P1", "Row has 9 columns; ActivityData rows have 8")
    ]


def test_header_errors() -> None:
    assert triples(ROSTER, activity_text=HEADER.replace("Location", "Place")) == [
        ("ActivityData:1", "", "Unknown column 'Place'"),
        ("ActivityData:1", "", "The header lacks the required column 'Location'"),
    ]
    reordered = HEADER.replace("StartDate,StartTime", "StartTime,StartDate")
    assert triples(ROSTER, activity_text=reordered) == [
        (
            "ActivityData:1",
            "",
            "ActivityData columns must come in the order Reference, StartDate, StartTime, "
            "EndDate, EndTime, Location, ActivityType, TimeReference",
        )
    ]


def test_activity_error_leaves_the_schedule_out() -> None:
    parsed = parse_request(ROSTER, "dmy", activity_text=activity(Location="QQQ"))
    assert [s.reference for s in parsed.schedules] == ["P2"]


def test_gap_in_activity_local_time() -> None:
    text = activity(
        StartDate="29/03/2026", StartTime="01:15", EndDate="29/03/2026", TimeReference="2"
    )
    assert triples(ROSTER, activity_text=text) == [
        (
            "ActivityData:1",
            "P1",
            "Start 29/03/2026 01:15 does not exist in Europe/London: the clocks go forward then "
            "(daylight saving)",
        )
    ]
