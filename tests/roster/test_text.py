"""CSV lines, RFC 4180 fields and cell readers (contract §3.1)."""

from __future__ import annotations

from datetime import date

import pytest

from vigil.domain import DateFormat
from vigil.roster._text import (
    CsvSyntaxError,
    lines,
    parse_date,
    parse_int,
    parse_number,
    parse_time,
    split_fields,
)


def test_lines_counts_blank_lines_and_strips_cr() -> None:
    assert list(lines("\ufeffa\r\n\r\n  \nb\nc\r")) == [(1, "a"), (4, "b"), (5, "c")]


@pytest.mark.parametrize(
    ("line", "fields"),
    [
        ("a,b,,c", ["a", "b", "", "c"]),
        (" a , b ", ["a", "b"]),
        ('"a,b",c', ["a,b", "c"]),
        ('"say ""hi""", x', ['say "hi"', "x"]),
        (' "a" ,b', ["a", "b"]),
        ('a,""', ["a", ""]),
        ("a,", ["a", ""]),
        ("a\x00b,é", ["a\x00b", "é"]),
    ],
)
def test_split_fields(line: str, fields: list[str]) -> None:
    assert split_fields(line) == fields


@pytest.mark.parametrize(
    ("line", "why"),
    [
        ('"abc', "a quoted field is not closed"),
        ('"a"b,c', "text follows a closing quote"),
        ('ab"c,d', "a quote appears inside an unquoted field"),
    ],
)
def test_split_fields_errors(line: str, why: str) -> None:
    with pytest.raises(CsvSyntaxError, match=why):
        split_fields(line)


def test_parse_date() -> None:
    assert parse_date("1/3/2026", DateFormat.DMY) == date(2026, 3, 1)
    assert parse_date("1/3/2026", DateFormat.MDY) == date(2026, 1, 3)
    assert parse_date("29/02/2028", DateFormat.DMY) == date(2028, 2, 29)
    assert parse_date("29/02/2026", DateFormat.DMY) == "bad-date"
    assert parse_date("01/01/1899", DateFormat.DMY) == "date-out-of-range"
    assert parse_date("31/02/1899", DateFormat.DMY) == "bad-date"
    assert parse_date("001/01/2026", DateFormat.DMY) == "bad-date"


def test_parse_time_int_number() -> None:
    assert parse_time("0:00") == (0, 0) and parse_time("23:59") == (23, 59)
    assert parse_time("7:5") is None and parse_time("²3:00") is None
    assert parse_int("-3") == -3 and parse_int("3.0") is None and parse_int("٣") is None
    assert parse_number("-12.5") == -12.5 and parse_number("1_0") is None
    assert parse_number("nan") is None and parse_number("1e400") is None
