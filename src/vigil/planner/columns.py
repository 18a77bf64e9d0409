"""A planned split as RosterData cells: FirstRest/SecondRest columns and a rewritten roster.

Rest times are written the way the row's TimeReference reads them (contract §3.1): UTC for
0, the HomeBase zone for 1, the StartAirport zone for 2, dates in the request's DateFormat.
SecondRest is cleared: a plan gives each pilot one break.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping
from datetime import datetime

from vigil import tz
from vigil.domain import DateFormat, Duty, TimeReference
from vigil.roster.columns import COLUMNS, FULL_WIDTH, SHORT_WIDTH

__all__ = ["REST_COLUMNS", "rest_cells", "apply_to_roster"]

#: The eight rest columns of seed §2.2 (19-26), in order.
REST_COLUMNS: tuple[str, ...] = tuple(c.name for c in COLUMNS[18:26])


def _zone(duty: Duty) -> str:
    if duty.time_reference == TimeReference.UTC:
        return "UTC"
    if duty.time_reference == TimeReference.HOME_BASE:
        return duty.home.tz
    return duty.start_airport.tz


def _wall(instant: datetime, zone: str, date_format: DateFormat) -> tuple[str, str]:
    local = tz.utc_to_local(instant, zone)
    pattern = "%d/%m/%Y" if date_format == DateFormat.DMY else "%m/%d/%Y"
    return local.strftime(pattern), local.strftime("%H:%M")


def rest_cells(
    duty: Duty, start: datetime, end: datetime, date_format: DateFormat
) -> dict[str, str]:
    """The eight rest cells of ``duty``'s row for one break ``[start, end)`` (UTC)."""
    zone = _zone(duty)
    values = (*_wall(start, zone, date_format), *_wall(end, zone, date_format), "", "", "", "")
    return dict(zip(REST_COLUMNS, values, strict=True))


def _line(fields: list[str]) -> str:
    out = io.StringIO()
    csv.writer(out, lineterminator="").writerow(fields)
    return out.getvalue()


def apply_to_roster(roster_text: str, cells_by_row: Mapping[int, Mapping[str, str]]) -> str:
    """``roster_text`` with the rest cells of the given physical rows (1-based) replaced.

    A header without the rest columns gets them appended (every row padded); a 9-column row
    without a header is widened to the full 34 columns (contract §3.1).
    """
    newline = "\r\n" if "\r\n" in roster_text else "\n"
    physical = roster_text.split("\n")
    rows = [line[:-1] if line.endswith("\r") else line for line in physical]
    first = next((i for i, line in enumerate(rows) if line.strip()), None)
    if first is None:
        return roster_text
    head = [f.strip() for f in next(csv.reader([rows[first].lstrip("\ufeff")]))]
    lower = [h.lower() for h in head]
    has_header = "reference" in lower
    position: dict[str, int] = {}
    extra: list[str] = []
    if has_header:
        for name in REST_COLUMNS:
            if name.lower() in lower:
                position[name] = lower.index(name.lower())
            else:
                position[name] = len(head) + len(extra)
                extra.append(name)
    else:
        position = {name: 18 + k for k, name in enumerate(REST_COLUMNS)}
    out: list[str] = []
    for i, line in enumerate(rows):
        number = i + 1
        if not line.strip():
            out.append(line)
            continue
        if has_header and i == first:
            out.append(line + ("," + ",".join(extra) if extra else ""))
            continue
        cells = cells_by_row.get(number)
        if cells is None and not extra:
            out.append(line)
            continue
        fields = next(csv.reader([line]))
        if has_header:
            fields += [""] * len(extra)
        elif cells is not None and len(fields) == SHORT_WIDTH:
            fields += [""] * (FULL_WIDTH - SHORT_WIDTH)
        for name, value in (cells or {}).items():
            fields[position[name]] = value
        out.append(_line(fields))
    return newline.join(out)
