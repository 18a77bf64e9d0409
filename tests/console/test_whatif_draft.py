"""What-if drafts (``vigil.web.console.whatif_draft``): rows written back read as the same
duties, a few schedules' rows found without a full parse, the crew of an augmented duty."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

import pytest

from vigil.domain import DateFormat, Duty, Period
from vigil.roster import parse_request
from vigil.web.console.whatif_draft import (
    HEADER,
    Draft,
    crew_of,
    draft_of,
    roster_text,
    rows_of,
    sleep_data,
)

#: every TimeReference, partial augmentation, given rest, split duty, cabin crew, workload,
#: two home bases, a quoted Reference with a comma; no header columns in the seed's order
MIXED = (
    "Reference,OnDutyDate,OnDutyTime,StartAirport,OffDutyDate,OffDutyTime,EndAirport,HomeBase,"
    "TimeReference,Sectors,CrewComposition,SleepCount,SleepOrder,SleepClass,OnPartialAugmentDate,"
    "OnPartialAugmentTime,OffPartialAugmentDate,OffPartialAugmentTime,FirstRestStartDate,"
    "FirstRestStartTime,FirstRestEndDate,FirstRestEndTime,SplitShift,DutyType,Fleet,Rank,"
    "Workload,CrewPrepTime,DutyCommuteTime,CabinCrewSleepPattern\r\n"
    "P1,01/07/2026,06:00,LHR,01/07/2026,14:30,JFK,LHR,2,1,4,1,2,2,01/07/2026,08:00,01/07/2026,"
    "13:00,01/07/2026,09:00,01/07/2026,11:30,,,B777,CPT,12.5,75,45,\r\n"
    "P1,03/07/2026,18:00,JFK,04/07/2026,06:30,LHR,LHR/LGW,2,2,2,,,,,,,,,,,,0,2,,,-3.25,,,\r\n"
    "P1,06/07/2026,22:10,SYD,07/07/2026,07:00,SYD,SYD,1,,9,1,1,,,,,,,,,,,,,,,,,4\r\n"
    '"P,2",02/07/2026,05:45,MAN,02/07/2026,13:10,MAN,MAN,1,,,,,,,,,,,,,,,3,,,,,,\r\n'
)


def _comparable(duty: Duty) -> Duty:
    return replace(duty, row=0, time_reference=0)


@pytest.mark.parametrize("fmt", ["dmy", "mdy"])
def test_written_rows_read_back_as_the_same_duties(fmt: str) -> None:
    original = parse_request(MIXED, "dmy")
    assert original.errors == () and len(original.schedules) == 2
    text = roster_text([draft_of(s) for s in original.schedules], DateFormat(fmt))
    again = parse_request(text, fmt)
    assert again.errors == ()
    assert [s.reference for s in again.schedules] == ["P1", "P,2"]
    for a, b in zip(original.schedules, again.schedules, strict=True):
        assert [_comparable(d) for d in a.duties] == [_comparable(d) for d in b.duties]
    lines = text.split("\r\n")
    assert lines[0].split(",") == list(HEADER) and len(HEADER) == 34
    assert all(line.split(",")[HEADER.index("TimeReference")] == "0" for line in lines[1:3])
    # TimeReference 1 at SYD (UTC+10 in July): 22:10 local is 12:10 UTC
    assert lines[3].split(",")[1:3] == (
        ["06/07/2026", "12:10"] if fmt == "dmy" else ["07/06/2026", "12:10"]
    )
    assert lines[4].startswith('"P,2",')


def test_given_sleep_round_trips_as_sleep_data() -> None:
    sleep = [
        {
            "ScheduleName": "P,2",
            "SleepStart": "2026-07-01T21:30:00Z",
            "SleepEnd": "2026-07-02T04:15:30Z",
        }
    ]
    parsed = parse_request(MIXED, "dmy", sleep_data=sleep)
    drafts = [draft_of(s) for s in parsed.schedules]
    assert drafts[0].sleep is None  # P1: predicted
    assert sleep_data(drafts) == sleep


def test_sleep_data_of_an_edited_draft() -> None:
    t = datetime(2026, 7, 1, 22, 0, tzinfo=UTC)
    draft = Draft("P1", (), (Period(t, t.replace(hour=23)),))
    assert sleep_data([draft]) == [
        {
            "ScheduleName": "P1",
            "SleepStart": "2026-07-01T22:00:00Z",
            "SleepEnd": "2026-07-01T23:00:00Z",
        }
    ]


def test_rows_of_a_few_references() -> None:
    header, lines = rows_of(MIXED, ["P,2"])
    assert header is not None and header.startswith("Reference,")
    assert lines == ['"P,2",02/07/2026,05:45,MAN,02/07/2026,13:10,MAN,MAN,1,,,,,,,,,,,,,,,3,,,,,,']
    assert len(rows_of(MIXED, ["P1"])[1]) == 3
    assert rows_of(MIXED, ["P"])[1] == []  # a Reference is a whole cell, not a prefix
    # no header: the first column; the Reference column wherever a header puts it
    bare = "\n".join(MIXED.split("\r\n")[1:])
    assert rows_of(bare, ["P1"])[0] is None and len(rows_of(bare, ["P1"])[1]) == 3
    moved = "OnDutyDate,Reference\r\n01/07/2026,P1\r\n01/07/2026,P3\r\n"
    assert rows_of(moved, ["P1"]) == ("OnDutyDate,Reference", ["01/07/2026,P1"])
    assert rows_of("", ["P1"]) == (None, [])


def test_crew_of_an_augmented_duty() -> None:
    head = (
        "Reference,OnDutyDate,OnDutyTime,StartAirport,OffDutyDate,OffDutyTime,EndAirport,"
        "HomeBase,TimeReference,CrewComposition"
    )
    rows = [
        "B,09/03/2026,20:00,LHR,10/03/2026,10:30,SIN,LHR,0,4",
        "A,09/03/2026,20:00,LHR,10/03/2026,10:30,SIN,LHR,0,4",
        "A,01/03/2026,07:00,LHR,01/03/2026,15:00,CDG,LHR,0,2",
        "C,09/03/2026,20:00,LHR,10/03/2026,10:30,SIN,LHR,0,4",
        "D,09/03/2026,20:00,LHR,10/03/2026,11:30,SIN,LHR,0,4",  # other off time: other flight
        "E,09/03/2026,20:00,LHR,10/03/2026,10:30,SYD,LHR,0,4",  # other destination
        "F,01/03/2026,07:00,LHR,01/03/2026,15:00,CDG,LHR,0,2",
    ]
    parsed = parse_request("\r\n".join([head, *rows]), "dmy")
    assert parsed.errors == ()
    # A's duties in time order: the short-haul one (index 0) is not augmented
    assert crew_of(parsed.schedules, "A") == {1: ["B", "A", "C"]}
    assert crew_of(parsed.schedules, "F") == {}
    assert crew_of(parsed.schedules, "nobody") == {}
