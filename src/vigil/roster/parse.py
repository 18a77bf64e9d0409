"""RosterData CSV → validated duties in UTC, or row errors: the entry point of ``roster``.

Implements contract §3.1 (with §8) through one reader: :mod:`vigil.roster.cells` splits
the text into cells (header detection, 9-or-34 columns, RFC 4180 quoting), and
:mod:`vigil.roster.columnar` decodes them a column at a time (defaults, ranges, airport
resolution, TimeReference 0/1/2 with daylight saving), applies the cross-field rules of
:mod:`vigil.roster.checks` and groups the duties into schedules. :func:`parse_request`
also reads SleepData (§3.2) and ActivityData (§5.1) and attaches them to their
schedules. Nothing here raises on bad data (STYLE §3.6): each problem is a
:class:`~vigil.roster.errors.RowError`, and a schedule with any error is left out of
:attr:`ParsedRoster.schedules` while the others go on (contract §4).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import numpy as np

from vigil import tz
from vigil.domain import Activity, Airport, DateFormat, Schedule, SleepRecord
from vigil.gc_pause import cyclic_gc_paused
from vigil.roster.activities import parse_activities
from vigil.roster.arrays import DutyColumns
from vigil.roster.cells import read_cells
from vigil.roster.columnar import read_columns
from vigil.roster.columns import BY_LOWER_NAME, Kind
from vigil.roster.errors import RowError, format_error
from vigil.roster.sleep_records import parse_sleep_data

__all__ = [
    "ParsedRoster",
    "as_date_format",
    "parse_request",
    "parse_roster",
    "read_roster",
]


@dataclass(frozen=True, eq=False)
class ParsedRoster:
    """What :func:`parse_request` read.

    Attributes
    ----------
    errors : tuple of RowError
        Every data error: RosterData by row, then ActivityData by line, then SleepData
        by record index.
    references : tuple of str
        Every non-blank Reference in RosterData, in order of first appearance.
    rows : int
        Data rows read from RosterData (blank lines and the header not counted).
    columns : DutyColumns
        The duties of :attr:`schedules` as arrays: what scoring plans from.
    schedules : tuple of Schedule
        Schedules without any error, in order of first appearance in RosterData; each
        with its duties in chronological order and its given sleep and activities.
        Built from :attr:`columns` on first use.
    """

    errors: tuple[RowError, ...]
    references: tuple[str, ...] = ()
    rows: int = 0
    columns: DutyColumns = field(default_factory=lambda: DutyColumns.from_schedules(()))
    sleep: Mapping[str, Sequence[SleepRecord]] = field(default_factory=dict, repr=False)
    activities: Mapping[str, Sequence[Activity]] = field(default_factory=dict, repr=False)

    @cached_property
    def schedules(self) -> tuple[Schedule, ...]:
        return self.columns.schedules(self.sleep, self.activities)

    @property
    def ok(self) -> bool:
        return not self.errors

    @property
    def duty_count(self) -> int:
        """Duties in the schedules without errors."""
        return self.columns.n_duties

    @property
    def interval_count(self) -> int:
        """15-minute score intervals in the schedules without errors (contract §4)."""
        return int(self.columns.interval_counts.sum())

    def error_strings(self) -> list[str]:
        """The errors as ``row|schedule|message`` strings (contract §4)."""
        return [format_error(e) for e in self.errors]


def as_date_format(value: DateFormat | str) -> DateFormat:
    """``"dmy"``/``"MDY"``/:class:`DateFormat` → :class:`DateFormat` (any case, contract §3).

    Raises
    ------
    ValueError
        For anything else: a request-level problem (400), not a data error.
    """
    if isinstance(value, DateFormat):
        return value
    try:
        return DateFormat(str(value).strip().lower())
    except ValueError:
        raise ValueError(f"DateFormat must be 'dmy' or 'mdy', got {value!r}") from None


def parse_request(
    roster_text: str,
    date_format: DateFormat | str,
    *,
    sleep_data: Sequence[Mapping[str, object]] = (),
    activity_text: str = "",
    airports: Mapping[str, Airport] | None = None,
    blank_defaults: Mapping[str, int] | None = None,
    polars: bool | None = None,
) -> ParsedRoster:
    """Read a scoring or upload request's data (contract §3.1, §3.2, §5.1).

    Parameters
    ----------
    roster_text : str
        RosterData CSV.
    date_format : DateFormat or str
        ``dmy`` or ``mdy`` (any case) for RosterData and ActivityData dates.
    sleep_data : sequence of mapping
        SleepData records (field names in any case); a malformed one is a ``SleepData[i]``
        data error (the web layer answers 400 first: :func:`check_sleep_data_shape`).
    activity_text : str
        ActivityData CSV, may be empty.
    airports : mapping of str to Airport, optional
        The operator's airports (upper-case code → airport), before the public tables.
    blank_defaults : mapping of str to int, optional
        Value of a blank cell per optional whole-number column (``{"CrewPrepTime":
        90}``), replacing the contract §3.1 default (operator settings).
    polars : bool, optional
        Split the cells with Polars or in Python; by default Polars from
        :data:`vigil.roster.cells.POLARS_MIN_LINES` lines. The result is the same.

    Returns
    -------
    ParsedRoster
        Schedules without errors, and every error. Never raises on bad data: only
        ``ValueError`` for a ``date_format`` that is neither ``dmy`` nor ``mdy``.
    """
    fmt = as_date_format(date_format)
    blank = _blank_positions(blank_defaults)
    with cyclic_gc_paused(), tz.operator_airports(airports):
        read = read_columns(read_cells(roster_text, polars=polars), fmt, blank)
        extras = _extras(fmt, activity_text, sleep_data, read.home_bases, read.references)
    activities, activity_errors, sleep, sleep_errors = extras
    errors = (*read.errors, *activity_errors, *sleep_errors)
    columns = _without_failed(read.columns, errors)
    return ParsedRoster(
        errors, read.references, read.rows, columns, sleep=sleep, activities=activities
    )


def _without_failed(columns: DutyColumns, errors: Sequence[RowError]) -> DutyColumns:
    """The schedules without any error (contract §4)."""
    failed = {e.reference for e in errors}
    keep = [i for i, ref in enumerate(columns.references) if ref not in failed]
    if len(keep) == len(columns.references):
        return columns
    return columns.take(np.array(keep, dtype=np.int64))


def _blank_positions(blank_defaults: Mapping[str, int] | None) -> dict[int, int]:
    """``blank_defaults`` by cell position; only optional whole-number columns, in range."""
    out: dict[int, int] = {}
    for name, value in (blank_defaults or {}).items():
        column = BY_LOWER_NAME.get(name.lower())
        if column is None or column.kind is not Kind.INT or column.required:
            raise ValueError(f"{name!r} is not an optional whole-number column")
        if not _allowed(column.allowed, column.minimum, value):
            raise ValueError(f"{name} default {value} is not {column.describe_allowed()}")
        out[column.number - 1] = value
    return out


def _allowed(allowed: tuple[int, ...] | None, minimum: int | None, value: int) -> bool:
    if allowed is not None:
        return value in allowed
    return minimum is None or value >= minimum


def _extras(
    fmt: DateFormat,
    activity_text: str,
    sleep_data: Sequence[Mapping[str, object]],
    home_bases: Callable[[], Mapping[str, Airport]],
    references: Sequence[str],
) -> tuple[
    dict[str, list[Activity]], list[RowError], Mapping[str, Sequence[SleepRecord]], list[RowError]
]:
    """ActivityData and SleepData, read against the roster's References."""
    activities: dict[str, list[Activity]] = {}
    activity_errors: list[RowError] = []
    known = dict.fromkeys(references)
    if activity_text:
        activities, activity_errors = parse_activities(
            activity_text, fmt, home_bases=home_bases(), references=known
        )
    sleep: Mapping[str, Sequence[SleepRecord]] = {}
    sleep_errors: list[RowError] = []
    if sleep_data:
        sleep, sleep_errors = parse_sleep_data(sleep_data, references=known)
    return activities, activity_errors, sleep, sleep_errors


def parse_roster(text: str, date_format: DateFormat | str = DateFormat.DMY) -> ParsedRoster:
    """Read RosterData CSV text alone (contract §3.1); see :func:`parse_request`."""
    return parse_request(text, date_format)


def read_roster(path: str | Path, date_format: DateFormat | str = DateFormat.DMY) -> ParsedRoster:
    """Read a RosterData CSV file (UTF-8, byte-order mark allowed); see :func:`parse_request`.

    Raises
    ------
    OSError, UnicodeDecodeError
        When the file cannot be read as UTF-8 text.
    """
    text = Path(path).read_text(encoding="utf-8-sig")
    return parse_request(text, date_format)
