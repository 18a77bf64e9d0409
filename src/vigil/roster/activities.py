"""ActivityData CSV → :class:`~vigil.domain.Activity` objects, or errors (contract §5.1).

Columns, in this order, header optional: Reference, StartDate, StartTime, EndDate,
EndTime, Location, ActivityType, TimeReference. CSV, dates, times and airports are
read exactly as in RosterData; errors use the row part ``ActivityData:<line>``.

Ours, where the contract is silent:

* All 8 columns are required; ActivityType matches in any case.
* TimeReference 0 = UTC; 1 = the HomeBase (first code) of the same Reference in
  RosterData; 2 = local to Location.
* End must be after start; an activity has no maximum length; activities may overlap
  each other and duties (the sleep model decides what they mean).
* A Reference that appears nowhere in RosterData is an error, as for SleepData.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from datetime import date

from vigil import tz
from vigil.domain import Activity, ActivityType, Airport, DateFormat, TimeReference
from vigil.roster._text import (
    DATE_PATTERN,
    CsvSyntaxError,
    instant,
    lines,
    parse_date,
    parse_int,
    parse_time,
    split_fields,
)
from vigil.roster.columns import ACTIVITY_COLUMNS, MAX_YEAR, MIN_YEAR
from vigil.roster.errors import RowError, Source, make_error

__all__ = ["parse_activities"]

_LOWER = [name.lower() for name in ACTIVITY_COLUMNS]
_TYPES = ", ".join(t.value for t in ActivityType)


def _error(code: str, row: int, ref: str = "", /, **fields: object) -> RowError:
    return make_error(code, row, ref, source=Source.ACTIVITY, **fields)


def _wall(
    row: int, ref: str, cells: list[str], i: int, fmt: DateFormat, errors: list[RowError]
) -> tuple[date, int, int] | None:
    ok = True
    date_name, time_name = ACTIVITY_COLUMNS[i], ACTIVITY_COLUMNS[i + 1]
    day = parse_date(cells[i], fmt) if cells[i] else None
    if isinstance(day, str):
        if day == "bad-date":
            errors.append(
                _error(
                    "bad-date",
                    row,
                    ref,
                    column=date_name,
                    value=cells[i],
                    pattern=DATE_PATTERN[fmt],
                )
            )
        else:
            errors.append(
                _error(
                    "date-out-of-range",
                    row,
                    ref,
                    column=date_name,
                    value=cells[i],
                    min_year=MIN_YEAR,
                    max_year=MAX_YEAR,
                )
            )
        ok = False
    hm = parse_time(cells[i + 1]) if cells[i + 1] else None
    if cells[i + 1] and hm is None:
        errors.append(_error("bad-time", row, ref, column=time_name, value=cells[i + 1]))
        ok = False
    if not ok or not isinstance(day, date) or hm is None:
        return None
    return day, hm[0], hm[1]


def parse_activities(
    text: str,
    date_format: DateFormat,
    *,
    home_bases: Mapping[str, Airport],
    references: Collection[str],
) -> tuple[dict[str, list[Activity]], list[RowError]]:
    """Read ActivityData (contract §5.1).

    Parameters
    ----------
    text : str
        ActivityData CSV.
    date_format : DateFormat
        The request's DateFormat.
    home_bases : mapping of str to Airport
        The base airport of each Reference, for TimeReference 1.
    references : collection of str
        Every Reference in RosterData.

    Returns
    -------
    dict of str to list of Activity, list of RowError
        Valid activities by Reference, sorted by start; errors in line order.
    """
    errors: list[RowError] = []
    out: dict[str, list[Activity]] = {}
    first = True
    for row, line in lines(text):
        try:
            cells = split_fields(line)
        except CsvSyntaxError as exc:
            errors.append(_error("bad-quoting", row, detail=str(exc)))
            first = False
            continue
        if first:
            first = False
            lowered = [c.lower() for c in cells]
            if lowered == _LOWER:
                continue
            if "reference" in lowered:
                errors.extend(_header_errors(row, cells))
                return {}, errors
        activity = _row(row, cells, date_format, home_bases, references, errors)
        if activity is not None:
            out.setdefault(activity.reference, []).append(activity)
    for activities in out.values():
        activities.sort(key=lambda a: (a.start, a.end, a.row))
    errors.sort(key=lambda e: e.row)
    return out, errors


def _header_errors(row: int, cells: list[str]) -> list[RowError]:
    """Why a first row naming Reference is not the ActivityData header."""
    lowered = [c.lower() for c in cells]
    errors = [_error("unknown-column", row, name=c) for c in cells if c.lower() not in _LOWER]
    errors += [
        _error("missing-column", row, name=name)
        for name in ACTIVITY_COLUMNS
        if name.lower() not in lowered
    ]
    errors += [
        _error("duplicate-column", row, name=name)
        for name in ACTIVITY_COLUMNS
        if lowered.count(name.lower()) > 1
    ]
    return errors or [_error("activity-header-order", row, names=", ".join(ACTIVITY_COLUMNS))]


def _row(
    row: int,
    cells: list[str],
    fmt: DateFormat,
    home_bases: Mapping[str, Airport],
    references: Collection[str],
    errors: list[RowError],
) -> Activity | None:
    if len(cells) != len(ACTIVITY_COLUMNS):
        errors.append(
            _error(
                "activity-column-count",
                row,
                cells[0],
                count=len(cells),
                expected=len(ACTIVITY_COLUMNS),
            )
        )
        return None
    n_errors = len(errors)
    read = _cells(row, cells, fmt, references, errors)
    if read is None or len(errors) != n_errors:
        return None
    return _activity(row, cells, read, home_bases, errors)


#: An activity row's readable cells: start and end wall times, Location, type, TimeReference
_Cells = tuple[tuple[date, int, int], tuple[date, int, int], Airport, ActivityType, int]


def _cells(
    row: int,
    cells: list[str],
    fmt: DateFormat,
    references: Collection[str],
    errors: list[RowError],
) -> _Cells | None:
    """The row's cells read, or ``None`` with their errors in ``errors``."""
    ref = cells[0]
    for name, value in zip(ACTIVITY_COLUMNS, cells, strict=True):
        if not value:
            errors.append(_error("blank-required", row, ref, column=name))
    if ref and "|" in ref:
        errors.append(_error("reference-pipe", row, ref, value=ref))
    if ref and ref not in references:
        errors.append(_error("activity-unknown-schedule", row, ref, name=ref))
    start_wall = _wall(row, ref, cells, 1, fmt, errors)
    end_wall = _wall(row, ref, cells, 3, fmt, errors)
    location = tz.airport(cells[5]) if cells[5] else None
    if cells[5] and location is None:
        errors.append(_error("unknown-airport", row, ref, code=cells[5], column="Location"))
    kind: ActivityType | None = None
    if cells[6]:
        try:
            kind = ActivityType(cells[6].upper())
        except ValueError:
            errors.append(_error("activity-type", row, ref, value=cells[6], allowed=_TYPES))
    time_ref = parse_int(cells[7]) if cells[7] else None
    if cells[7] and time_ref not in (0, 1, 2):
        allowed = "0, 1 or 2"
        errors.append(
            _error(
                "out-of-range", row, ref, column="TimeReference", value=cells[7], allowed=allowed
            )
        )
    if not (start_wall and end_wall and location and kind) or time_ref not in (0, 1, 2):
        return None
    assert time_ref is not None
    return start_wall, end_wall, location, kind, time_ref


def _activity(
    row: int,
    cells: list[str],
    read: _Cells,
    home_bases: Mapping[str, Airport],
    errors: list[RowError],
) -> Activity | None:
    """A readable row in UTC (TimeReference 0 UTC, 1 HomeBase, 2 Location), or ``None``
    with its errors in ``errors``."""
    ref = cells[0]
    start_wall, end_wall, location, kind, time_ref = read
    if time_ref == TimeReference.UTC:
        zone = "UTC"
    elif time_ref == TimeReference.LOCAL:
        zone = location.tz
    else:
        base = home_bases.get(ref)
        if base is None:
            errors.append(_error("activity-no-home-base", row, ref, name=ref))
            return None
        zone = base.tz
    start_text = f"{cells[1]} {cells[2]}"
    end_text = f"{cells[3]} {cells[4]}"
    start = instant(*start_wall, zone)
    end = instant(*end_wall, zone)
    for moment, what, written in ((start, "Start", start_text), (end, "End", end_text)):
        if moment is None:
            errors.append(
                _error("nonexistent-time", row, ref, what=what, written=written, zone=zone)
            )
    if start is None or end is None:
        return None
    if end <= start:
        errors.append(_error("activity-order", row, ref, start=start_text, end=end_text))
        return None
    return Activity(row, ref, start, end, location, kind, TimeReference(time_ref))
