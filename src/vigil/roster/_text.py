"""Reading CSV text and single cells, shared by RosterData and ActivityData.

CSV (contract §3.1): rows end with ``\\r\\n`` or ``\\n``; blank rows are skipped but
counted; fields follow RFC 4180 quoting on one line; whitespace around a value is
trimmed. Cells: dates ``D/M/YYYY`` in the request's order with optional leading
zeros, times ``H:MM``/``HH:MM``, whole and decimal numbers. Every reader is cached by
the cell's text (bounded caches), since rosters repeat the same dates, times and numbers many times.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from datetime import UTC, date, datetime
from functools import lru_cache

from vigil import tz
from vigil.domain import DateFormat
from vigil.roster.columns import MAX_YEAR, MIN_YEAR

#: The date pattern of each DateFormat, as shown in error messages.
DATE_PATTERN = {DateFormat.DMY: "DD/MM/YYYY", DateFormat.MDY: "MM/DD/YYYY"}

_DIGITS = frozenset("0123456789")
_NUMBER_CHARS = frozenset("0123456789+-.eE")
_ascii_space = re.compile(r"[ \t\r\x0b\x0c]").search


def lines(text: str) -> Iterator[tuple[int, str]]:
    """Non-blank physical lines with their 1-based numbers (contract §3.1, §8).

    A leading byte-order mark is dropped (ours: spreadsheet exports often start with one).
    Only ``\\n`` ends a line; a ``\\r`` before it is dropped.
    """
    if text.startswith("\ufeff"):
        text = text[1:]
    for number, line in enumerate(text.split("\n"), start=1):
        if line.endswith("\r"):
            line = line[:-1]
        if line and not line.isspace():
            yield number, line


class CsvSyntaxError(ValueError):
    """A line that is not valid RFC 4180 CSV; the message says why."""


def split_fields(line: str) -> list[str]:
    """The trimmed fields of one CSV line (RFC 4180 quoting, one line per record).

    Raises
    ------
    CsvSyntaxError
        For an unclosed quote, text after a closing quote, or a quote inside an
        unquoted field. A quoted field cannot span lines (ours: row numbers are
        physical lines, and a stray quote must not swallow the rest of the roster).
    """
    if '"' not in line:
        plain = line.split(",")
        if line.isascii() and _ascii_space(line) is None:
            return plain  # nothing to trim
        return [field.strip() for field in plain]
    fields: list[str] = []
    n = len(line)
    j = 0
    while True:
        while j < n and line[j] in " \t":
            j += 1
        if j < n and line[j] == '"':
            value, j = _quoted(line, j + 1)
        else:
            k = line.find(",", j)
            end = n if k < 0 else k
            value = line[j:end]
            if '"' in value:
                raise CsvSyntaxError("a quote appears inside an unquoted field")
            j = end
        fields.append(value.strip())
        if j >= n:
            return fields
        j += 1  # the comma


def _quoted(line: str, j: int) -> tuple[str, int]:
    """The quoted field whose text starts at ``j`` (after its opening quote), and the
    position of the comma (or end) after it; ``""`` inside is one quote (RFC 4180)."""
    n = len(line)
    parts: list[str] = []
    while True:
        k = line.find('"', j)
        if k < 0:
            raise CsvSyntaxError("a quoted field is not closed")
        parts.append(line[j:k])
        if line.startswith('"', k + 1):
            parts.append('"')
            j = k + 2
            continue
        j = k + 1
        break
    while j < n and line[j] in " \t":
        j += 1
    if j < n and line[j] != ",":
        raise CsvSyntaxError("text follows a closing quote")
    return "".join(parts), j


def _is_digits(text: str) -> bool:
    return bool(text) and _DIGITS.issuperset(text)


@lru_cache(maxsize=1 << 14)
def parse_date(text: str, date_format: DateFormat) -> date | str:
    """A date cell → :class:`datetime.date`, or an error code (``bad-date``,
    ``date-out-of-range``)."""
    parts = text.split("/")
    if len(parts) != 3:
        return "bad-date"
    first, second, year = parts
    if not (
        0 < len(first) <= 2
        and 0 < len(second) <= 2
        and len(year) == 4
        and _is_digits(first)
        and _is_digits(second)
        and _is_digits(year)
    ):
        return "bad-date"
    day, month = (first, second) if date_format is DateFormat.DMY else (second, first)
    y = int(year)
    if not MIN_YEAR <= y <= MAX_YEAR:
        # still a syntax check: 31/02/1800 is a bad date rather than out of range
        try:
            date(2000, int(month), int(day))
        except ValueError:
            return "bad-date"
        return "date-out-of-range"
    try:
        return date(y, int(month), int(day))
    except ValueError:
        return "bad-date"


@lru_cache(maxsize=1 << 14)
def parse_time(text: str) -> tuple[int, int] | None:
    """``H:MM`` or ``HH:MM`` (00:00-23:59) → (hour, minute), else ``None``."""
    if len(text) not in (4, 5) or text[-3] != ":":
        return None
    hours, minutes = text[:-3], text[-2:]
    if not (_is_digits(hours) and _is_digits(minutes)):
        return None
    h, m = int(hours), int(minutes)
    if h > 23 or m > 59:
        return None
    return h, m


@lru_cache(maxsize=1 << 14)
def parse_int(text: str) -> int | None:
    """A whole number (optional leading ``-``), else ``None``."""
    body = text[1:] if text.startswith("-") else text
    if not _is_digits(body) or len(body) > 12:
        return None
    return int(text)


@lru_cache(maxsize=1 << 14)
def parse_number(text: str) -> float | None:
    """A finite decimal number, else ``None``."""
    if not text or not _NUMBER_CHARS.issuperset(text):
        return None
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


@lru_cache(maxsize=1 << 18)
def instant(day: date, hour: int, minute: int, zone_name: str) -> datetime | None:
    """Wall time in ``zone_name`` → UTC; ``None`` in a spring-forward gap (contract §3.1)."""
    if zone_name == "UTC":
        return datetime(day.year, day.month, day.day, hour, minute, tzinfo=UTC)
    offset = tz.fixed_offset_on(zone_name, day)
    if offset is not None:  # no clock change that day: plain subtraction
        return datetime(day.year, day.month, day.day, hour, minute, tzinfo=UTC) - offset
    return tz.local_to_utc(datetime(day.year, day.month, day.day, hour, minute), zone_name)
