"""The retired row reader of RosterData, kept as an independent reference.

Production reads RosterData a column at a time (:mod:`vigil.roster.columnar`: cells
decoded through tables over their unique texts, rules as array comparisons, messages
only for the rows that break one). This module reads the same contract (§3.1, §8) one
row at a time with ``datetime`` arithmetic and :class:`~vigil.domain.Duty` objects, with
its own cross-field rules (:mod:`tests.reference.roster_checks`), so the tests can hold
the production reader to an encoding written another way: the same duties, the same
errors in the same order, the same References and row count
(``tests/roster/test_columnar.py``). The header, SleepData and ActivityData are read
by production's own functions: they are not what the reference is for.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from functools import lru_cache
from operator import itemgetter
from typing import Any

from reference import roster_checks as checks
from vigil import tz
from vigil.domain import (
    Airport,
    CrewComposition,
    DateFormat,
    Duty,
    DutyType,
    Period,
    Schedule,
    SleepClass,
    TimeReference,
)
from vigil.gc_pause import cyclic_gc_paused
from vigil.roster._text import (
    DATE_PATTERN,
    CsvSyntaxError,
    instant,
    lines,
    parse_date,
    parse_int,
    parse_number,
    parse_time,
    split_fields,
)
from vigil.roster.arrays import DutyColumns
from vigil.roster.cells import _clean_header as clean_header
from vigil.roster.cells import header_mapping, looks_like_header
from vigil.roster.columns import (
    COLUMNS,
    FULL_WIDTH,
    MAX_YEAR,
    MIN_YEAR,
    REQUIRED,
    SHORT_WIDTH,
    Column,
    Kind,
)
from vigil.roster.errors import RowError, make_error
from vigil.roster.parse import ParsedRoster, as_date_format
from vigil.roster.parse import _blank_positions as blank_positions
from vigil.roster.parse import _extras as extras

__all__ = ["parse_request_rows"]

# 0-based cell positions in the seed's column order (seed §2.2)
(
    _REF, _ON_D, _ON_T, _START, _OFF_D, _OFF_T, _END, _SECTORS, _CREW, _SLEEP_COUNT,
    _SLEEP_ORDER, _SLEEP_CLASS, _HOME, _TIME_REF,
) = range(14)  # fmt: skip
_AUG, _REST1, _REST2 = 14, 18, 22  # first of each group of 4 date/time cells
_SPLIT, _DUTY_TYPE, _FLEET, _RANK, _WORKLOAD, _PREP, _COMMUTE, _CCSP = range(26, 34)

_REQUIRED_POSITIONS: tuple[int, ...] = tuple(c.number - 1 for c in REQUIRED)
_PERIOD_NAMES = {_AUG: "Partial augmentation", _REST1: "First rest", _REST2: "Second rest"}
_IDENTITY = list(range(FULL_WIDTH))
# shared, never mutated; typed Any as it stands for three list types (no cast per row)
_NO_PERIODS: list[Any] = [None, None, None]
_Wall = tuple[date, int, int]  # a local wall time: day, hour, minute
#: First rows up to this long go through the header cache (all 34 names: about 500)
_HEADER_CACHE_CHARS = 1024


def _fast_ints(column: Column) -> dict[str, int]:
    """Valid texts of a whole-number column → value: a dict lookup instead of parsing."""
    values = column.allowed if column.allowed is not None else range(column.minimum or 0, 1441)
    table = {str(v): v for v in values}
    if not column.required:
        table[""] = int(column.default or 0)
    return table


#: Fast path for whole-number cells; anything else goes through :meth:`_Reader._int`.
_FAST_INT: dict[int, dict[str, int]] = {
    c.number - 1: _fast_ints(c) for c in COLUMNS if c.kind is Kind.INT
}
_FAST_INT_ITEMS: tuple[tuple[int, dict[str, int]], ...] = tuple(
    (position, _FAST_INT[position])
    for position in (
        _TIME_REF, _SECTORS, _CREW, _SLEEP_COUNT, _SLEEP_ORDER, _SLEEP_CLASS, _SPLIT,
        _DUTY_TYPE, _PREP, _COMMUTE, _CCSP,
    )
)  # fmt: skip
#: The cells of :data:`_FAST_INT_ITEMS` of a row, as a tuple in that order.
_INT_CELLS = itemgetter(*(position for position, _ in _FAST_INT_ITEMS))
_CREW_ENUM = {c.value: c for c in CrewComposition}
_SLEEP_CLASS_ENUM = {c.value: c for c in SleepClass}
_DUTY_TYPE_ENUM = {c.value: c for c in DutyType}
_TIME_REF_ENUM = {c.value: c for c in TimeReference}


@dataclass(slots=True)
class _Reader:
    """State of one RosterData read."""

    date_format: DateFormat
    errors: list[RowError] = field(default_factory=list)
    duties: dict[str, list[Duty]] = field(default_factory=dict)
    written: dict[int, checks.Written] = field(default_factory=dict)
    references: dict[str, None] = field(default_factory=dict)  # ordered set
    home_bases: dict[str, Airport] = field(default_factory=dict)
    rows: int = 0
    #: cell position -> value of a blank cell, where the operator's default replaces ours
    blank: dict[int, int] = field(default_factory=dict)
    # per-read cache of valid cells: HomeBase text -> airports
    _homes: dict[str, list[Airport]] = field(default_factory=dict)

    # ----------------------------------------------------------------- header and rows

    def read(self, text: str) -> None:
        mapping: list[int] | None = None  # cell position of each field, from a header
        first = True
        for row, line in lines(text):
            try:
                fields = split_fields(line)
            except CsvSyntaxError as exc:
                first = False
                self.rows += 1
                self.errors.append(make_error("bad-quoting", row, detail=str(exc)))
                continue
            if first:
                first = False
                known = clean_header(tuple(fields)) if len(line) <= _HEADER_CACHE_CHARS else None
                if known is not None:
                    mapping = list(known)
                    continue
                if looks_like_header(fields):
                    mapping = self._header(row, fields)
                    if mapping is None:
                        return  # without a usable header no row can be read
                    continue
            self.rows += 1
            cells = self._cells(row, fields, mapping)
            if cells is not None:
                self._row(row, cells)

    def _header(self, row: int, fields: list[str]) -> list[int] | None:
        """A header row → cell position per field, or ``None`` after header errors."""
        mapping, errors = header_mapping(row, fields)
        self.errors.extend(errors)
        return None if errors else mapping

    def _cells(self, row: int, fields: list[str], mapping: list[int] | None) -> list[str] | None:
        """Fields → 34 cells in the seed's order, or ``None`` after a column-count error."""
        width = len(fields)
        if mapping is not None:
            if width != len(mapping):
                ref_pos = mapping.index(_REF)
                reference = fields[ref_pos] if ref_pos < width else ""
                self.errors.append(
                    make_error(
                        "header-column-count", row, reference, count=width, expected=len(mapping)
                    )
                )
                return None
            if mapping == _IDENTITY:
                return fields
            cells = [""] * FULL_WIDTH
            for value, position in zip(fields, mapping, strict=True):
                cells[position] = value
            return cells
        if width == FULL_WIDTH:
            return fields
        if width == SHORT_WIDTH:
            cells = [""] * FULL_WIDTH
            for value, position in zip(fields, _REQUIRED_POSITIONS, strict=True):
                cells[position] = value
            return cells
        self.errors.append(
            make_error(
                "column-count", row, fields[0], count=width, short=SHORT_WIDTH, full=FULL_WIDTH
            )
        )
        return None

    # ---------------------------------------------------------------------------- cells

    def _int(self, row: int, ref: str, cells: list[str], position: int) -> int | None:
        text = cells[position]
        value = _FAST_INT[position].get(text)
        if value is not None:
            return value
        column = COLUMNS[position]
        if not text:
            if column.required:
                self.errors.append(make_error("blank-required", row, ref, column=column.name))
                return None
            return int(column.default or 0)
        parsed = parse_int(text)
        if parsed is None:
            self.errors.append(make_error("bad-integer", row, ref, column=column.name, value=text))
            return None
        if not _allowed(column, parsed):
            self.errors.append(
                make_error(
                    "out-of-range",
                    row,
                    ref,
                    column=column.name,
                    value=parsed,
                    allowed=column.describe_allowed(),
                )
            )
            return None
        return parsed

    def _wall(
        self, row: int, ref: str, cells: list[str], position: int
    ) -> tuple[date, int, int] | None:
        """Date cell ``position`` and time cell ``position + 1`` → wall time parts."""
        date_text, time_text = cells[position], cells[position + 1]
        wall = _valid_wall(date_text, time_text, self.date_format)
        if wall is not None:  # the common case first: both cells valid
            return wall
        ok = True
        day: date | str | None = None
        for text, column in ((date_text, COLUMNS[position]), (time_text, COLUMNS[position + 1])):
            if not text:
                self.errors.append(make_error("blank-required", row, ref, column=column.name))
                ok = False
        if date_text:
            day = parse_date(date_text, self.date_format)
            if day == "bad-date":
                self.errors.append(
                    make_error(
                        "bad-date",
                        row,
                        ref,
                        column=COLUMNS[position].name,
                        value=date_text,
                        pattern=DATE_PATTERN[self.date_format],
                    )
                )
                ok = False
            elif day == "date-out-of-range":
                self.errors.append(
                    make_error(
                        "date-out-of-range",
                        row,
                        ref,
                        column=COLUMNS[position].name,
                        value=date_text,
                        min_year=MIN_YEAR,
                        max_year=MAX_YEAR,
                    )
                )
                ok = False
        hm = parse_time(time_text) if time_text else None
        if time_text and hm is None:
            self.errors.append(
                make_error("bad-time", row, ref, column=COLUMNS[position + 1].name, value=time_text)
            )
            ok = False
        if not ok or hm is None or not isinstance(day, date):
            return None
        return day, hm[0], hm[1]

    def _airport(self, row: int, ref: str, code: str, column: str) -> Airport | None:
        found = tz.airport(code)
        if found is None:
            self.errors.append(make_error("unknown-airport", row, ref, code=code, column=column))
        return found

    def _period_walls(
        self, row: int, ref: str, cells: list[str], position: int
    ) -> tuple[tuple[date, int, int] | None, tuple[date, int, int] | None] | None:
        """One optional group of 4 cells (start date/time, end date/time)."""
        group = cells[position : position + 4]
        if not any(group):
            return None
        if not all(group):
            names = ", ".join(c.name for c in COLUMNS[position : position + 4])
            self.errors.append(
                make_error(
                    "incomplete-period", row, ref, what=_PERIOD_NAMES[position], fields=names
                )
            )
            return None
        return self._wall(row, ref, cells, position), self._wall(row, ref, cells, position + 2)

    # ------------------------------------------------------------------------------ row

    def _row(self, row: int, cells: list[str]) -> None:
        n_errors = len(self.errors)
        ref = cells[_REF]
        if not ref:
            self.errors.append(make_error("blank-required", row, column="Reference"))
        else:
            self.references[ref] = None
            if "|" in ref:
                self.errors.append(make_error("reference-pipe", row, ref, value=ref))

        fmt = self.date_format
        on_wall = _valid_wall(cells[_ON_D], cells[_ON_T], fmt) or self._wall(row, ref, cells, _ON_D)
        off_wall = _valid_wall(cells[_OFF_D], cells[_OFF_T], fmt) or self._wall(
            row, ref, cells, _OFF_D
        )
        start = end = None
        for position in (_START, _END):
            code = cells[position]
            if not code:
                self.errors.append(
                    make_error("blank-required", row, ref, column=COLUMNS[position].name)
                )
            elif position == _START:
                start = tz.airport(code) or self._airport(row, ref, code, "StartAirport")
            else:
                end = tz.airport(code) or self._airport(row, ref, code, "EndAirport")

        home: list[Airport] | None = self._homes.get(cells[_HOME]) if cells[_HOME] else None
        home_ok = True
        if home is not None:
            pass  # seen before and valid
        elif cells[_HOME]:
            home = []
            for code in cells[_HOME].split("/"):
                code = code.strip()
                if code:
                    found = self._airport(row, ref, code, "HomeBase")
                    home_ok &= found is not None
                    if found is not None:
                        home.append(found)
            if not home and home_ok:  # only separators: "/"
                self.errors.append(make_error("blank-required", row, ref, column="HomeBase"))
                home_ok = False
            if home_ok:
                self._homes[cells[_HOME]] = home
        elif start is not None:
            home = [start]  # HomeBase blank -> StartAirport (contract §3.1)
        else:
            home = []
        if home and home_ok and ref:
            self.home_bases.setdefault(ref, home[0])

        ints: Sequence[int | None] | None = _common_ints(_INT_CELLS(cells))
        if ints is None:  # not the common values: read each cell, reporting errors
            ints = [self._int(row, ref, cells, position) for position, _ in _FAST_INT_ITEMS]
        (
            time_ref, sectors, crew, sleep_count, sleep_order, sleep_class, split, duty_type,
            prep, commute, pattern,
        ) = ints  # fmt: skip
        if self.blank:  # operator defaults for blank cells
            ints = [
                self.blank.get(position, value) if not cells[position] else value
                for (position, _), value in zip(_FAST_INT_ITEMS, ints, strict=True)
            ]
            (
                time_ref, sectors, crew, sleep_count, sleep_order, sleep_class, split,
                duty_type, prep, commute, pattern,
            ) = ints  # fmt: skip
        workload_text = cells[_WORKLOAD]
        workload: float | None = 0.0
        if workload_text:
            workload = parse_number(workload_text)
            if workload is None:
                self.errors.append(
                    make_error("bad-number", row, ref, column="Workload", value=workload_text)
                )

        if "".join(cells[_AUG:_SPLIT]):
            periods = [
                self._period_walls(row, ref, cells, p) if any(cells[p : p + 4]) else None
                for p in (_AUG, _REST1, _REST2)
            ]
        else:
            periods = _NO_PERIODS

        if len(self.errors) != n_errors:
            return
        # Every cell is readable: convert to UTC and check across fields.
        assert on_wall is not None and off_wall is not None and start is not None
        assert end is not None and time_ref is not None
        if time_ref == TimeReference.UTC:
            on_zone = off_zone = "UTC"
        elif time_ref == TimeReference.HOME_BASE:
            on_zone = off_zone = home[0].tz
        else:  # LOCAL: on-duty at StartAirport, off-duty at EndAirport
            on_zone, off_zone = start.tz, end.tz
        # rest and augmentation: HomeBase zone for 1, StartAirport zone for 2 (contract §3.1)

        on_written = f"{cells[_ON_D]} {cells[_ON_T]}"
        off_written = f"{cells[_OFF_D]} {cells[_OFF_T]}"
        # the cached conversion first; the method again only to report a gap
        on_duty = instant(on_wall[0], on_wall[1], on_wall[2], on_zone) or self._instant(
            row, ref, on_wall, on_zone, "On-duty", on_written
        )
        off_duty = instant(off_wall[0], off_wall[1], off_wall[2], off_zone) or self._instant(
            row, ref, off_wall, off_zone, "Off-duty", off_written
        )
        if periods is _NO_PERIODS:
            utc_periods: list[Period | None] = _NO_PERIODS
            period_texts: list[tuple[str, str] | None] = _NO_PERIODS
        else:
            utc_periods, period_texts = self._utc_periods(row, ref, cells, periods, on_zone)
        if on_duty is None or off_duty is None or len(self.errors) != n_errors:
            return

        assert sectors is not None and crew is not None and sleep_count is not None
        assert sleep_order is not None and sleep_class is not None and split is not None
        assert duty_type is not None and prep is not None and commute is not None
        assert pattern is not None and workload is not None
        duty = Duty(
            row=row,
            reference=ref,
            on_duty=on_duty,
            off_duty=off_duty,
            start_airport=start,
            end_airport=end,
            home_base=tuple(home),
            time_reference=_TIME_REF_ENUM[time_ref],
            sectors=sectors,
            crew_composition=_CREW_ENUM[crew],
            sleep_count=sleep_count,
            sleep_order=sleep_order,
            sleep_class=_SLEEP_CLASS_ENUM[sleep_class],
            partial_augment=utc_periods[0],
            first_rest=utc_periods[1],
            second_rest=utc_periods[2],
            split_shift=split == 0,  # seed §2.2 col 27: 0 means True
            duty_type=_DUTY_TYPE_ENUM[duty_type],
            fleet=cells[_FLEET],
            rank=cells[_RANK],
            workload=workload,
            crew_prep_minutes=prep,
            commute_minutes=commute,
            cabin_crew_sleep_pattern=0 if pattern == 4 else pattern,  # contract §3.1
        )
        written = checks.Written(on_written, off_written, *period_texts)
        self.errors.extend(checks.check_duty_times(duty, written))
        if written.partial_augment or written.first_rest or written.second_rest:
            self.errors.extend(checks.check_periods(duty, written))
        if sleep_count:
            self.errors.extend(checks.check_sleep_count(duty))
        if workload:
            self.errors.extend(checks.check_workload(duty, workload_text))
        if len(self.errors) == n_errors:
            self.duties.setdefault(ref, []).append(duty)
            self.written[row] = written

    def _utc_periods(
        self,
        row: int,
        ref: str,
        cells: list[str],
        periods: list[tuple[_Wall | None, _Wall | None] | None],
        zone_name: str,
    ) -> tuple[list[Period | None], list[tuple[str, str] | None]]:
        """Augmentation and rest periods in UTC, with their texts as written."""
        utc_periods: list[Period | None] = []
        texts: list[tuple[str, str] | None] = []
        for position, walls in zip((_AUG, _REST1, _REST2), periods, strict=True):
            if walls is None:
                utc_periods.append(None)
                texts.append(None)
                continue
            start_text = f"{cells[position]} {cells[position + 1]}"
            end_text = f"{cells[position + 2]} {cells[position + 3]}"
            what = _PERIOD_NAMES[position]
            assert walls[0] is not None and walls[1] is not None
            start = self._instant(row, ref, walls[0], zone_name, f"{what} start", start_text)
            end = self._instant(row, ref, walls[1], zone_name, f"{what} end", end_text)
            utc_periods.append(
                Period(start, end) if start is not None and end is not None else None
            )
            texts.append((start_text, end_text))
        return utc_periods, texts

    def _instant(
        self,
        row: int,
        ref: str,
        wall: tuple[date, int, int],
        zone_name: str,
        what: str,
        written: str,
    ) -> datetime | None:
        result = instant(wall[0], wall[1], wall[2], zone_name)
        if result is None:
            self.errors.append(
                make_error("nonexistent-time", row, ref, what=what, written=written, zone=zone_name)
            )
        return result


@lru_cache(maxsize=1 << 14)
def _valid_wall(date_text: str, time_text: str, date_format: DateFormat) -> _Wall | None:
    """A date cell and a time cell → wall time parts, or ``None`` unless both are valid
    (:meth:`_Reader._wall` then reports why). Cached: rosters repeat their dates and times."""
    day, hm = parse_date(date_text, date_format), parse_time(time_text)
    if hm is None or not isinstance(day, date):
        return None
    return day, hm[0], hm[1]


@lru_cache(maxsize=1 << 12)
def _common_ints(texts: tuple[str, ...]) -> tuple[int, ...] | None:
    """The whole-number cells of a row (:func:`_INT_CELLS`) when each holds a common
    value (:data:`_FAST_INT`), else ``None``. Cached: rows repeat these cells."""
    values = []
    for (_, table), text in zip(_FAST_INT_ITEMS, texts, strict=True):
        value = table.get(text)
        if value is None:
            return None
        values.append(value)
    return tuple(values)


def _allowed(column: Column, value: int) -> bool:
    if column.allowed is not None:
        return value in column.allowed
    return column.minimum is None or value >= column.minimum


def parse_request_rows(
    roster_text: str,
    date_format: DateFormat | str,
    *,
    sleep_data: Sequence[Mapping[str, object]] = (),
    activity_text: str = "",
    airports: Mapping[str, Airport] | None = None,
    blank_defaults: Mapping[str, int] | None = None,
) -> ParsedRoster:
    """:func:`parse_request` by the row reader alone, one row at a time.

    The reference implementation: the columnar reader hands it every bad row, and the
    tests check that both give the same duties and errors (``tests/roster``).
    """
    fmt = as_date_format(date_format)
    blank = blank_positions(blank_defaults)
    with cyclic_gc_paused(), tz.operator_airports(airports):
        return _parse_request(fmt, roster_text, sleep_data, activity_text, blank)


def _parse_request(
    fmt: DateFormat,
    roster_text: str,
    sleep_data: Sequence[Mapping[str, object]],
    activity_text: str,
    blank: dict[int, int] | None = None,
) -> ParsedRoster:
    reader = _Reader(fmt, blank=blank or {})
    reader.read(roster_text)

    schedules_duties: dict[str, list[Duty]] = {}
    for ref, duties in reader.duties.items():
        ordered = checks.chronological(duties)
        reader.errors.extend(checks.check_overlaps(ordered, reader.written))
        reader.errors.extend(checks.check_span(ordered, reader.written))
        schedules_duties[ref] = ordered
    roster_errors = sorted(reader.errors, key=_row_key)
    activities, activity_errors, sleep, sleep_errors = extras(
        fmt, activity_text, sleep_data, lambda: reader.home_bases, tuple(reader.references)
    )

    errors = (*roster_errors, *activity_errors, *sleep_errors)
    failed = {e.reference for e in errors}
    schedules = tuple(
        Schedule(
            reference=ref,
            duties=tuple(duties),
            sleep=tuple(sleep.get(ref, ())),
            activities=tuple(activities.get(ref, ())),
        )
        for ref, duties in schedules_duties.items()
        if ref not in failed
    )
    parsed = ParsedRoster(
        errors,
        tuple(reader.references),
        reader.rows,
        DutyColumns.from_schedules(schedules),
        sleep=sleep,
        activities=activities,
    )
    parsed.__dict__["schedules"] = schedules  # the reader's own objects, not the columns'
    return parsed


def _row_key(error: RowError) -> int:
    return error.row
