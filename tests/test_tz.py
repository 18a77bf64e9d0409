"""vigil.tz: airport resolution (contract §3.1) and local time ↔ UTC with IANA DST rules.

Expected instants come from the 2026 EU rule (clocks change at 01:00 UTC on the last
Sundays of March and October) and the US rule (2:00 local on the second Sunday of March
and the first Sunday of November), as encoded in tzdata.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest

from vigil import tz


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)


@pytest.mark.parametrize(
    ("code", "zone", "icao"),
    [
        ("LHR", "Europe/London", "EGLL"),  # IATA
        ("EGLL", "Europe/London", "EGLL"),  # ICAO
        ("jfk", "America/New_York", "KJFK"),  # case-insensitive
        (" SYD ", "Australia/Sydney", "YSSY"),  # whitespace trimmed
        ("00C", "America/Denver", "K00C"),  # FAA LID with digits, no IATA code
        ("AAA", "Pacific/Tahiti", "NTGA"),  # IATA Anaa wins over LID AAA (Illinois)
    ],
)
def test_airport_resolution(code: str, zone: str, icao: str) -> None:
    found = tz.airport(code)
    assert found is not None
    assert (found.tz, found.icao, found.code) == (zone, icao, code.strip().upper())


@pytest.mark.parametrize(
    "code", ["\u017ffo", "\u0131st", "\ufb02l", "\uff2c\uff28\uff32", "LH\u0280"]
)
def test_non_ascii_look_alikes_are_unknown(code: str) -> None:
    """``str.upper`` maps these onto SFO, IST, FLL, LHR; only ASCII is a code."""
    assert tz.airport(code) is None


def test_four_character_lid_is_found_after_icao() -> None:
    # 37AK is an FAA LID (Alaska) that is no ICAO code
    found = tz.airport("37AK")
    assert found is not None and found.tz == "America/Anchorage"


@pytest.mark.parametrize("code", ["XYZ", "", "LH", "EGLLX", "ÄÖÜ", "12\x00"])
def test_unknown_codes_give_none(code: str) -> None:
    assert tz.airport(code) is None


def test_utc_fast_path_and_plain_local_conversion() -> None:
    assert tz.local_to_utc(datetime(2026, 1, 5, 6, 0), "UTC") == utc(2026, 1, 5, 6)
    assert tz.local_to_utc(datetime(2026, 1, 5, 6, 0), "Asia/Kolkata") == utc(2026, 1, 5, 0, 30)


@pytest.mark.parametrize(
    ("wall", "zone"),
    [
        (datetime(2026, 3, 29, 1, 0), "Europe/London"),
        (datetime(2026, 3, 29, 1, 59), "Europe/London"),
        (datetime(2026, 3, 8, 2, 30), "America/New_York"),
    ],
)
def test_spring_forward_gap_does_not_exist(wall: datetime, zone: str) -> None:
    assert tz.local_to_utc(wall, zone) is None


def test_edges_of_the_gap_exist() -> None:
    assert tz.local_to_utc(datetime(2026, 3, 29, 0, 59), "Europe/London") == utc(2026, 3, 29, 0, 59)
    assert tz.local_to_utc(datetime(2026, 3, 29, 2, 0), "Europe/London") == utc(2026, 3, 29, 1, 0)


@pytest.mark.parametrize(
    ("wall", "zone", "expected"),
    [
        (datetime(2026, 10, 25, 1, 30), "Europe/London", utc(2026, 10, 25, 0, 30)),
        (datetime(2026, 11, 1, 1, 30), "America/New_York", utc(2026, 11, 1, 5, 30)),
    ],
)
def test_fall_back_ambiguity_takes_the_earlier_instant(
    wall: datetime, zone: str, expected: datetime
) -> None:
    assert tz.local_to_utc(wall, zone) == expected
    assert tz.utc_to_local(expected, zone) == wall


def test_fixed_offset_is_none_on_change_days_only() -> None:
    assert tz.fixed_offset_on("Europe/London", date(2026, 3, 29)) is None
    assert tz.fixed_offset_on("Europe/London", date(2026, 7, 1)) == timedelta(hours=1)
    assert tz.fixed_offset_on("America/New_York", date(2026, 1, 1)) == timedelta(hours=-5)


def test_utc_offset_hours() -> None:
    assert tz.utc_offset_hours("Europe/London", utc(2026, 7, 1)) == 1.0
    assert tz.utc_offset_hours("America/New_York", utc(2026, 1, 1)) == -5.0
    assert tz.utc_offset_hours("Asia/Kathmandu", utc(2026, 1, 1)) == 5.75


def test_offset_transitions_in_2026() -> None:
    year = (utc(2026, 1, 1), utc(2027, 1, 1))
    assert tz.offset_transitions("Europe/London", *year) == [
        (utc(2026, 3, 29, 1), 1.0),
        (utc(2026, 10, 25, 1), 0.0),
    ]
    assert tz.offset_transitions("America/New_York", *year) == [
        (utc(2026, 3, 8, 7), -4.0),
        (utc(2026, 11, 1, 6), -5.0),
    ]
    assert tz.offset_transitions("Asia/Tokyo", *year) == []


def test_offset_transitions_range_is_half_open() -> None:
    change = utc(2026, 3, 29, 1)
    assert tz.offset_transitions("Europe/London", change, change + timedelta(days=1)) == []
    assert tz.offset_transitions("Europe/London", change - timedelta(seconds=1), change) == [
        (change, 1.0)
    ]


def test_zone_validity() -> None:
    assert tz.is_valid_zone("Europe/London")
    assert not tz.is_valid_zone("Mars/Olympus_Mons")
