"""The one RosterData reader agrees with the retired row reader, kept as a reference.

:func:`vigil.roster.parse_request` reads RosterData a column at a time, its cells split
in Python or by Polars; :func:`reference.roster_rows.parse_request_rows` reads every row
on its own with ``datetime`` arithmetic and its own rules. On generated rosters, valid
and damaged, each splitter must give the reference's duties, errors (text and order),
References and row count.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hardening._fuzz import roster_texts
from reference.roster_rows import parse_request_rows
from vigil.roster import ParsedRoster, parse_request
from vigil.roster.arrays import NO_TIME
from vigil.roster.cells import POLARS_MIN_LINES
from vigil.roster.columns import COLUMNS
from vigil.roster.synthetic import generate_airline_duties, generate_duties, render_roster

_SETTINGS = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])

#: Cell values that break one rule each, by column kind (contract §3.1, §8)
_DAMAGE = {
    "date": ["", "31/02/2026", "1/1/1899", "2026-03-01", "08/03/2026", "29/03/2026", "x"],
    "time": ["", "24:00", "2:30", "02:30", "1:5", "12:60", "01:30", " 06:00"],
    "airport": ["", "ZZZ", "lhr", " JFK", "KJFK", "LHR/"],
    "airports": ["", "/", "LHR/ZZZZ", "JFK/LHR", "EGLL", " LHR "],
    "int": ["", "-1", "5", "9", "1.0", "0", "2", "3", "4", "99999"],
    "number": ["", "abc", "-60", "120", "55", "1e2", "nan", "-0"],
    "text": ["", "A|B", '"q,uoted"', "  spaced  ", "\u00e9t\u00e9"],
}


#: cells whose values meet in cross-field rules: times, Sectors/CrewComposition/
#: SleepCount, rest times, Workload (0-based positions, seed §2.2)
_CROSS_FIELD = [2, 5, 7, 8, 9, 13, 19, 21, 23, 25, 30]
#: date and time cells of the duty and its periods
_TIMES = [1, 2, 4, 5, *range(14, 26)]


def _kind(position: int) -> str:
    return COLUMNS[position].kind.value


@st.composite
def _damaged_airline_roster(draw: st.DrawFn) -> tuple[str, str]:
    """An airline roster (all 34 columns), then cells, rows and lines damaged."""
    seed = draw(st.integers(0, 2**31))
    make = draw(st.sampled_from([generate_airline_duties, generate_duties]))
    duties = make(draw(st.integers(1, 4)), draw(st.integers(1, 10)), seed)
    fmt = draw(st.sampled_from(["dmy", "mdy"]))
    text = render_roster(
        duties,
        date_format=fmt,
        header=draw(st.booleans()),
        pad=draw(st.booleans()),
        newline=draw(st.sampled_from(["\r\n", "\n"])),
    )
    lines = text.split("\r\n" if "\r\n" in text else "\n")
    for _ in range(draw(st.integers(0, 4))):
        i = draw(st.integers(0, max(len(lines) - 2, 0)))
        actions = ["cell", "mix", "mix", "rule", "rest", "rest", "gap", "copy", "swap"]
        actions += ["blank", "cut"]
        action = draw(st.sampled_from(actions))
        cells = lines[i].split(",")
        full_row = len(cells) == len(COLUMNS) and not lines[i].startswith("Reference")
        if action == "mix" and full_row:  # a date or time from another row or cell
            other = lines[draw(st.integers(0, len(lines) - 1))].split(",")
            filled = [p for p in _TIMES if cells[p]]
            j = draw(st.sampled_from(filled))
            k = draw(st.sampled_from(filled))
            source = other if len(other) == len(COLUMNS) and draw(st.booleans()) else cells
            if _kind(j) == _kind(k) and source[k]:  # date for date, time for time
                cells[j] = source[k]
            lines[i] = ",".join(cells)
        elif action == "rule" and full_row:  # Sectors, crew, SleepCount, Workload rules
            j = draw(st.sampled_from([7, 8, 9, 30, 30]))
            cells[j] = draw(
                st.sampled_from(
                    {7: ["0", "1"], 8: ["2"], 9: ["1", "2"]}.get(
                        j, ["-60", "120", "55", "100", "-50"]
                    )
                )
            )
            lines[i] = ",".join(cells)
        elif action == "rest" and full_row:  # rest periods at and across their limits
            on, off = cells[1:3], cells[4:6]
            first = cells[18:22] if cells[18] else [*on, *off]  # exactly the duty
            how = draw(st.sampled_from(["reverse", "second-copy", "midnight", "duty", "aug"]))
            if how == "reverse":
                first = [*first[2:], *first[:2]]
            elif how == "midnight":
                first = [first[0], "00:00", *first[2:]]
            cells[18:22] = first
            if how == "second-copy":
                cells[22:26] = first
            elif how == "aug":
                cells[14:18] = [*on, *off[:1], draw(st.sampled_from(_DAMAGE["time"][1:]))]
            lines[i] = ",".join(cells)
        elif action == "gap" and full_row:  # New York, 8 March 2026 02:30: no such time
            day = "08/03/2026" if fmt == "dmy" else "03/08/2026"
            cells[1:8] = [day, "02:30", "JFK", day, "09:00", "JFK", cells[7]]
            cells[13] = draw(st.sampled_from(["1", "2"]))
            cells[12] = "JFK"
            lines[i] = ",".join(cells)
        elif action == "copy":  # a duty twice: an overlap
            lines.insert(i, lines[i])
        elif action == "swap" and i + 1 < len(lines):  # rows out of order
            lines[i], lines[i + 1] = lines[i + 1], lines[i]
        elif action == "blank":
            lines.insert(i, draw(st.sampled_from(["", "  ", "\t"])))
        elif action == "cut":  # a row of the wrong width
            lines[i] = ",".join(lines[i].split(",")[: draw(st.integers(1, 33))])
        elif action == "cell":
            if full_row:
                j = draw(st.integers(0, len(cells) - 1) | st.sampled_from(_CROSS_FIELD))
                value = draw(st.sampled_from(_DAMAGE[_kind(j)]))
                if _kind(j) == "date" and cells[j] and draw(st.booleans()):
                    value = cells[j]  # keep the date: the time decides (DST, order)
                cells[j] = value
                lines[i] = ",".join(cells)
    return "\r\n".join(lines), fmt


def _assert_same(text: str, fmt: str) -> ParsedRoster:
    rows = parse_request_rows(text, fmt)
    for polars in (False, True):
        parsed = parse_request(text, fmt, polars=polars)
        assert parsed.error_strings() == rows.error_strings()
        assert parsed.schedules == rows.schedules
        assert parsed.references == rows.references
        assert parsed.rows == rows.rows
        assert parsed.duty_count == rows.duty_count
        assert parsed.interval_count == rows.interval_count
    return parsed


@_SETTINGS
@given(_damaged_airline_roster())
def test_reader_and_reference_agree_on_damaged_airline_rosters(
    case: tuple[str, str],
) -> None:
    _assert_same(*case)


@_SETTINGS
@given(roster_texts())
def test_reader_and_reference_agree_on_hostile_cells(case: tuple[str, str]) -> None:
    _assert_same(*case)


def test_valid_airline_month_columns_match_the_duties() -> None:
    duties = generate_airline_duties(60, 28, 5)
    parsed = _assert_same(render_roster(duties), "dmy")
    assert parsed.errors == () and parsed.columns is not None
    columns = parsed.columns
    assert columns.n_duties == len(duties) == parsed.duty_count
    epoch = datetime(1970, 1, 1, tzinfo=UTC)
    flat = [d for s in parsed.schedules for d in s.duties]
    assert [epoch + timedelta(minutes=m) for m in columns.on_duty.tolist()] == [
        d.on_duty for d in flat
    ]
    rests = columns.period_start[1]
    assert [None if m == NO_TIME else epoch + timedelta(minutes=m) for m in rests.tolist()] == [
        d.first_rest.start if d.first_rest else None for d in flat
    ]
    assert np.diff(columns.offsets).tolist() == [len(s.duties) for s in parsed.schedules]
    assert [columns.airports[i].code for i in columns.start_airport.tolist()] == [
        d.start_airport.code for d in flat
    ]
    assert set(columns.crew_composition.tolist()) == {2, 3, 4, 9}
    assert (columns.period_start[2] != NO_TIME).any()  # second rests are given
    assert (columns.period_start[0] != NO_TIME).any()  # partial augmentation too


def test_dst_gap_and_fold_as_the_reference() -> None:
    """New York: 8 March 2026 02:30 does not exist; 1 November 01:30 happens twice."""
    text = "\r\n".join(
        [
            "G1,08/03/2026,02:30,JFK,08/03/2026,09:00,JFK,JFK,2",
            "F1,01/11/2026,01:30,JFK,01/11/2026,09:00,JFK,JFK,2",
        ]
    )
    parsed = _assert_same(text, "dmy")
    assert parsed.error_strings() == [
        "1|G1|On-duty 08/03/2026 02:30 does not exist in America/New_York: the clocks go "
        "forward then (daylight saving)"
    ]
    (fold,) = parsed.schedules
    assert fold.duties[0].on_duty == datetime(2026, 11, 1, 5, 30, tzinfo=UTC)  # EDT, earlier


def test_small_and_large_rosters_give_the_same_columns_by_either_splitter() -> None:
    """Polars splits from ``POLARS_MIN_LINES`` lines, Python below; the columns are the
    same whichever splits, on either side of the threshold."""
    small = render_roster(generate_airline_duties(2, 28, 5))
    large = render_roster(generate_airline_duties(120, 28, 5))
    assert small.count("\n") < POLARS_MIN_LINES <= large.count("\n")
    for text in (small, large):
        by_python = parse_request(text, "dmy", polars=False)
        by_polars = parse_request(text, "dmy", polars=True)
        chosen = parse_request(text, "dmy")
        assert by_python.schedules == by_polars.schedules == chosen.schedules
        assert by_python.columns.references == by_polars.columns.references
        for name in ("offsets", "row", "on_duty", "off_duty", "period_start", "sectors"):
            np.testing.assert_array_equal(
                getattr(by_python.columns, name), getattr(by_polars.columns, name)
            )


def test_text_polars_cannot_hold_is_split_in_python() -> None:
    """A lone surrogate is not UTF-8: Polars refuses it, the Python splitter reads it."""
    text = "A\ud800,01/03/2026,06:00,LHR,01/03/2026,14:00,LHR,LHR,0\r\n" * 3
    parsed = parse_request(text, "dmy", polars=True)
    assert parsed.references == ("A\ud800",) and parsed.rows == 3
    assert parsed.error_strings() == parse_request_rows(text, "dmy").error_strings()
