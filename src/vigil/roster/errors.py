"""Data errors as values: :class:`RowError`, its message catalogue and the one formatter.

Bad data never raises (STYLE §3.6). Every problem becomes a :class:`RowError` with a
stable ``code`` and a message built from :data:`TEMPLATES`; :func:`format_error` is the
only place that writes the ``row|schedule|message`` string of seed §7.1 and contract §4.

What "row" means (contract §8): the 1-based number of the physical line in
RosterData or ActivityData, counting blank lines and the header. The row part of the
string is that number for RosterData, ``ActivityData:<line>`` for ActivityData
(contract §5.1) and ``SleepData[i]`` (0-based record index) for SleepData (contract
§3.2). Errors that belong to no schedule (header problems, unreadable rows) have an
empty schedule part; a Reference holding ``|`` is shown with ``/`` (contract §8).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from typing import Any


class Source(IntEnum):
    """Which part of a request an error is in; the value orders errors."""

    ROSTER = 0
    ACTIVITY = 1
    SLEEP = 2


#: Message templates by error code. Placeholders are filled by :func:`make_error`.
TEMPLATES: dict[str, str] = {
    # header and row shape
    "unknown-column": "Unknown column '{name}'",
    "duplicate-column": "Column '{name}' appears more than once in the header",
    "missing-column": "The header lacks the required column '{name}'",
    "column-count": (
        "Row has {count} columns; a row without a header needs the {short} required "
        "columns or all {full}"
    ),
    "header-column-count": "Row has {count} columns; the header names {expected}",
    "bad-quoting": "Row cannot be read as CSV ({detail}); a field holding a comma or quote "
    'must be wrapped in double quotes, with quotes inside it doubled ("")',
    # single cells
    "blank-required": "{column} is blank; it is required",
    "bad-date": "{column} '{value}' is not a valid date; expected {pattern}",
    "date-out-of-range": "{column} '{value}' is outside the years {min_year}-{max_year}",
    "bad-time": "{column} '{value}' is not a valid time; expected H:MM or HH:MM, 00:00-23:59",
    "bad-integer": "{column} '{value}' is not a whole number",
    "bad-number": "{column} '{value}' is not a number",
    "out-of-range": "{column} {value} is not allowed; use {allowed}",
    "workload-range": (
        "Workload {value} is outside {low} to {high}, the range when Sectors is {sectors_case}"
    ),
    "unknown-airport": "Unknown airport code '{code}' in {column}",
    "reference-pipe": (
        "Reference '{value}' contains a vertical bar, which a Reference cannot hold "
        "(it separates the parts of an error)"
    ),
    "nonexistent-time": (
        "{what} {written} does not exist in {zone}: the clocks go forward then (daylight saving)"
    ),
    "incomplete-period": ("{what} is incomplete: give all of {fields} or leave them all blank"),
    # cross-field
    "off-not-after-on": "Off-duty {off} is not after on-duty {on}",
    "duty-too-long": (
        "Off-duty {off} is more than {max_hours} hours after on-duty {on} ({length})"
    ),
    "period-order": "{what} end {end} is not after its start {start}",
    "period-outside-duty": (
        "{what} {start} to {end} is not inside the duty (on-duty {on} to off-duty {off})"
    ),
    "rest-order": "Second rest starts at {second}, before the first rest ends at {first}",
    "missing-rest": (
        "SleepCount {count} needs {needed} when CrewComposition is 2 "
        "(only 3, 4 or 9 crew let the model place the rest)"
    ),
    "duty-overlap": (
        "Duty {on} to {off} overlaps the duty in row {other_row} ({other_on} to {other_off})"
    ),
    "schedule-span": (
        "Duty {on} to {off} ends {days} days after the schedule's first duty in row "
        "{first_row} (on-duty {first_on}); a schedule may span at most {max_days} days"
    ),
    # SleepData (contract §3.2)
    "sleep-not-object": "Sleep record is not an object with ScheduleName, SleepStart, SleepEnd",
    "sleep-missing-field": "Sleep record lacks {field}",
    "sleep-bad-type": "{field} must be a string",
    "sleep-bad-datetime": (
        "{field} '{value}' is not an ISO 8601 date-time, e.g. 2026-03-01T22:00:00Z"
    ),
    "sleep-no-time": "{field} '{value}' has a date but no time",
    "sleep-no-zone": "{field} '{value}' has no time zone; end it with Z for UTC",
    "sleep-out-of-range": "{field} '{value}' is outside the years {min_year}-{max_year}",
    "sleep-order": "SleepEnd {end} is not after SleepStart {start}",
    "sleep-too-long": "Sleep from {start} to {end} lasts {length}, more than 24 hours",
    "sleep-unknown-schedule": "ScheduleName '{name}' matches no Reference in RosterData",
    "sleep-overlap": (
        "Sleep from {start} to {end} overlaps SleepData[{other}] ({o_start} to {o_end})"
    ),
    # ActivityData (contract §5.1)
    "activity-column-count": "Row has {count} columns; ActivityData rows have {expected}",
    "activity-header-order": "ActivityData columns must come in the order {names}",
    "activity-type": "ActivityType '{value}' is not one of {allowed}",
    "activity-order": "End {end} is not after start {start}",
    "activity-unknown-schedule": "Reference '{name}' matches no Reference in RosterData",
    "activity-no-home-base": (
        "TimeReference 1 needs the HomeBase of '{name}', which no readable RosterData row gives"
    ),
}


@dataclass(frozen=True, slots=True)
class RowError:
    """One data error (seed §7.1): where, for which schedule, what.

    Attributes
    ----------
    row : int
        Physical line (RosterData, ActivityData; 1-based, header and blank lines
        counted) or 0-based record index (SleepData).
    reference : str
        The schedule (Reference) the error belongs to, ``""`` for none.
    code : str
        Stable error code, a key of :data:`TEMPLATES`.
    message : str
        Text for a crew planner.
    source : Source
        Which input the error is in.
    """

    row: int
    reference: str
    code: str
    message: str
    source: Source = Source.ROSTER

    @property
    def row_label(self) -> str:
        """The row part of the error string (contract §3.2, §4, §5.1)."""
        if self.source is Source.SLEEP:
            return f"SleepData[{self.row}]"
        if self.source is Source.ACTIVITY:
            return f"ActivityData:{self.row}"
        return str(self.row)

    def __str__(self) -> str:
        return format_error(self)


def make_error(
    code: str,
    row: int,
    reference: str = "",
    /,
    *,
    source: Source = Source.ROSTER,
    **fields: Any,
) -> RowError:
    """Build a :class:`RowError` from the template of ``code``."""
    return RowError(row, reference, code, TEMPLATES[code].format(**fields), source)


def format_error(error: RowError) -> str:
    """The ``row|schedule|message`` string (seed §7.1, contract §4, §8).

    ``|`` in the schedule part is shown as ``/`` so the string always has three parts;
    ``|`` in a message (quoting a bad value) is shown as ``/`` for the same reason.
    Control characters (a SleepData value may hold a line break) are shown escaped
    (``\\n``, ``\\x00``), so one error is always one line of a log or terminal.
    """
    reference = error.reference.replace("|", "/").translate(_CONTROL)
    message = error.message.replace("|", "/").translate(_CONTROL)
    return f"{error.row_label}|{reference}|{message}"


#: C0 controls and DEL as visible escapes (``\n``, ``\r``, ``\t``, else ``\xNN``)
_CONTROL: dict[int, str] = {
    c: {"\n": "\\n", "\r": "\\r", "\t": "\\t"}.get(chr(c), f"\\x{c:02x}") for c in (*range(32), 127)
}
