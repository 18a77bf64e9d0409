"""A schedule spans at most ``MAX_SPAN_DAYS`` days (docs/scoring.md): longer is a row error.

Found by an attack (two 6-h duties 199 years apart per Reference made a 63-row roster cost
9 s of CPU): the cost of a schedule grows with the days it covers, so the span is bounded
like a duty's length (30 h, seed §8). The reader, by either splitter, gives the reference's error.
"""

from __future__ import annotations

from functools import partial

import pytest

from reference.roster_rows import parse_request_rows
from vigil.roster import parse_request
from vigil.roster.columns import MAX_SPAN_DAYS

READERS = [
    parse_request_rows,
    partial(parse_request, polars=False),
    partial(parse_request, polars=True),
]


def _roster(second_date: str) -> str:
    return "\r\n".join(
        [
            "A,01/01/2026,06:00,LHR,01/01/2026,12:00,LHR,LHR,0",
            "B,02/01/2026,06:00,LHR,02/01/2026,12:00,LHR,LHR,0",
            f"A,{second_date},06:00,LHR,{second_date},12:00,LHR,LHR,0",
        ]
    )


@pytest.mark.parametrize("read", READERS)
def test_a_schedule_longer_than_the_limit_is_a_row_error(read) -> None:  # noqa: ANN001
    assert MAX_SPAN_DAYS == 400
    parsed = read(_roster("05/02/2027"), "dmy")  # 400 days and 6 h after the first on-duty
    assert parsed.errors and len(parsed.errors) == 1
    (error,) = parsed.errors
    assert (error.row, error.reference) == (3, "A")
    assert error.message == (
        "Duty 05/02/2027 06:00 to 05/02/2027 12:00 ends 400.2 days after the schedule's first "
        "duty in row 1 (on-duty 01/01/2026 06:00); a schedule may span at most 400 days"
    )
    assert [s.reference for s in parsed.schedules] == ["B"]


@pytest.mark.parametrize("read", READERS)
def test_a_schedule_within_the_limit_is_read(read) -> None:  # noqa: ANN001
    parsed = read(_roster("04/02/2027"), "dmy")  # 399 days and 6 h
    assert parsed.errors == ()
    assert sorted(s.reference for s in parsed.schedules) == ["A", "B"]


@pytest.mark.parametrize("read", READERS)
def test_199_years_apart_is_one_error_per_schedule(read) -> None:  # noqa: ANN001
    rows = []
    for i in range(31):
        rows.append(f"R{i},01/01/1901,06:00,LHR,01/01/1901,12:00,LHR,LHR,0")
        rows.append(f"R{i},01/01/2100,06:00,LHR,01/01/2100,12:00,LHR,LHR,0")
    parsed = read("\r\n".join(rows), "dmy")
    assert len(parsed.errors) == 31
    assert {e.row for e in parsed.errors} == set(range(2, 63, 2))
    assert parsed.schedules == ()
