"""Builders for small RosterData texts used by the roster tests."""

from __future__ import annotations

from vigil.roster import parse_request
from vigil.roster.columns import COLUMNS, REQUIRED

HEADER_9 = ",".join(c.name for c in REQUIRED)
HEADER_34 = ",".join(c.name for c in COLUMNS)

#: A valid duty: LHR 06:00 UTC to JFK 14:30 UTC, TimeReference 0.
BASE = {
    "Reference": "P1",
    "OnDutyDate": "01/03/2026",
    "OnDutyTime": "06:00",
    "StartAirport": "LHR",
    "OffDutyDate": "01/03/2026",
    "OffDutyTime": "14:30",
    "EndAirport": "JFK",
    "HomeBase": "LHR",
    "TimeReference": "0",
}


def _cell(value: str) -> str:
    if "," in value or '"' in value:
        return '"' + value.replace('"', '""') + '"'
    return value


def row34(**values: str) -> str:
    """A 34-column row: :data:`BASE` updated with ``values``, other columns blank."""
    cells = {**BASE, **values}
    return ",".join(_cell(cells.get(c.name, "")) for c in COLUMNS)


def row9(**values: str) -> str:
    """A 9-column row (required columns only)."""
    cells = {**BASE, **values}
    return ",".join(_cell(cells[c.name]) for c in REQUIRED)


def triples(text: str, date_format: str = "dmy", **kwargs: object) -> list[tuple[str, ...]]:
    """The errors of a request as ``(row, schedule, message)`` triples."""
    parsed = parse_request(text, date_format, **kwargs)  # type: ignore[arg-type]
    return [tuple(s.split("|", 2)) for s in parsed.error_strings()]
