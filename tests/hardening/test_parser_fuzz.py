"""Fuzzing of the RosterData, SleepData and ActivityData parsers, bounded.

Two promises: bad data never raises (it becomes ``row|schedule|message`` errors,
contract §3–§5, STYLE §3.6), and reading time grows linearly with input size. The same
strategies run for minutes in ``benchmarks/bench_fuzz.py``; here each property gets a
few dozen examples so the suite stays fast. The end-to-end properties go through
:func:`vigil.scoring.service.score`, the path the API, worker and CLI share, so damage
that slips past the parser (e.g. a year-9999 sleep) is exercised in the model too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from vigil.roster import parse_request

from . import _fuzz

_FAST = settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
_SCORED = settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@_FAST
@given(_fuzz.roster_texts())
def test_damaged_rosters_never_raise(case: tuple[str, str]) -> None:
    roster, fmt = case
    _fuzz.check_parse(roster, fmt)


@_FAST
@given(_fuzz.sleep_requests())
def test_damaged_sleep_data_never_raises(case: tuple[str, list[Any]]) -> None:
    roster, records = case
    _fuzz.check_parse(roster, "dmy", sleep_data=records)


@_FAST
@given(_fuzz.activity_requests())
def test_damaged_activity_data_never_raises(case: tuple[str, str]) -> None:
    roster, activities = case
    _fuzz.check_parse(roster, "dmy", activity_text=activities)


@_FAST
@given(st.binary(max_size=300), st.sampled_from(["dmy", "mdy"]))
def test_decoded_random_bytes_never_raise(data: bytes, fmt: str) -> None:
    text = data.decode("utf-8", errors="surrogateescape")  # lone surrogates included
    parsed = parse_request(text, fmt, activity_text=text)
    assert all(e.message for e in parsed.errors)


@_SCORED
@given(_fuzz.roster_texts(max_crew=2, max_days=4))
def test_damaged_rosters_score_end_to_end(case: tuple[str, str]) -> None:
    roster, fmt = case
    _fuzz.check_score(roster, fmt)


@_SCORED
@given(_fuzz.sleep_requests())
def test_damaged_sleep_data_scores_end_to_end(case: tuple[str, list[Any]]) -> None:
    roster, records = case
    _fuzz.check_score(roster, "dmy", sleep_data=records)


@_SCORED
@given(_fuzz.activity_requests())
def test_damaged_activity_data_scores_end_to_end(case: tuple[str, str]) -> None:
    roster, activities = case
    _fuzz.check_score(roster, "dmy", activity_text=activities)


def _roster(make: Callable[[int], str]) -> Callable[[int], Callable[[], object]]:
    def build(n: int) -> Callable[[], object]:
        text = make(n)
        return lambda: parse_request(text, "dmy")

    return build


def _activities(n: int) -> Callable[[], object]:
    roster, activities = _fuzz.activities_of_rows(n)
    return lambda: parse_request(roster, "dmy", activity_text=activities)


#: 8x the input may take at most 20x the time: linear is ~8x, quadratic would be ~64x;
#: the slack absorbs a shared 2-core machine and the fixed per-call cost at 1k rows (the
#: ratios too noisy for that, SleepData records and one huge line, are printed by
#: benchmarks/bench_parse_scaling.py)
LINEAR_FACTOR = 20.0


@pytest.mark.parametrize(
    "make",
    [
        pytest.param(_roster(_fuzz.roster_of_rows), id="valid-rows"),
        pytest.param(_roster(_fuzz.bad_roster_of_rows), id="error-rows"),
        pytest.param(_roster(_fuzz.quoted_roster_of_rows), id="quoted-rows"),
        pytest.param(_activities, id="activity-rows"),
    ],
)
def test_reading_time_is_linear(make: Callable[[int], Callable[[], object]]) -> None:
    ratio = _fuzz.scaling_ratio(make, 1000, 8000)
    assert ratio < LINEAR_FACTOR, f"8x input took {ratio:.1f}x the time"


def test_control_characters_in_errors_are_escaped() -> None:
    """A SleepData value with a line break must not forge a second error line (log/CLI)."""
    roster = "P1,01/03/2026,06:00,LHR,01/03/2026,14:30,JFK,LHR,0"
    forged = "x\r\n2|P1|forged\x00"
    record = {"ScheduleName": "P1", "SleepStart": forged, "SleepEnd": "2026-03-01T05:00:00Z"}
    (line,) = parse_request(roster, "dmy", sleep_data=[record]).error_strings()
    assert "\n" not in line and "\r" not in line and "\x00" not in line
    assert "x\\r\\n2/P1/forged\\x00" in line


@pytest.mark.parametrize(
    "instant",
    [
        "0001-01-01T00:00:00+14:00",
        "0001-01-02T00:00:00Z",
        "9999-12-30T00:00:00Z",
        "1899-12-31T23:00:00Z",
    ],
)
def test_sleep_outside_the_years_is_an_error_not_an_overflow(instant: str) -> None:
    """Year 1 or 9999 overflowed datetime arithmetic (OverflowError: a 500) before the fix."""
    roster = "P1,01/03/2026,06:00,LHR,01/03/2026,14:30,JFK,LHR,0"
    record = {"ScheduleName": "P1", "SleepStart": instant, "SleepEnd": "2026-03-01T05:00:00Z"}
    (line,) = parse_request(roster, "dmy", sleep_data=[record]).error_strings()
    assert line.startswith("SleepData[0]|P1|SleepStart") and "1900-2100" in line
    _fuzz.check_score(roster, "dmy", sleep_data=[record])
