"""RosterData cells → :class:`~vigil.roster.arrays.DutyColumns` and row errors: the one reader.

Contract §3.1 and §8, a column at a time, whatever the roster's size (the cells come from
:mod:`vigil.roster.cells`, split in Python or by Polars):

1. **Cells.** Each column has one rule (:func:`_rules`, driven by the column table of
   :mod:`vigil.roster.columns`): a text → its value, or the problems that make it
   unreadable (error code and template fields). A column is decoded through its
   *unique* texts (:func:`vigil.roster.cells.codes`), so each text is read once.
2. **UTC.** Wall times become UTC per (zone, local day): a day without a clock change
   subtracts that day's offset from every wall time in it at once; on a change day each
   distinct wall time goes through :func:`instant` (a DST gap is a row error, a fall-back
   time takes the earlier instant).
3. **Rules.** The cross-field rules of :mod:`vigil.roster.checks`, as arrays.
4. **Messages.** Only the rows that break something are looked at one by one: the same
   rules say why, in the order a planner reads the row (cells left to right, then the
   clock changes, then the cross-field rules), and :func:`make_error` writes the text.
   Duty overlaps and the schedule span come last, per schedule.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from functools import lru_cache, partial
from itertools import chain
from typing import Any, TypeVar

import numpy as np

from vigil import tz
from vigil.domain import Airport, DateFormat
from vigil.roster import checks
from vigil.roster._text import (
    DATE_PATTERN,
    instant,
    parse_date,
    parse_int,
    parse_number,
    parse_time,
)
from vigil.roster.arrays import NO_TIME, BoolArray, DutyColumns, FloatArray, IntArray
from vigil.roster.cells import CellTable, blanks, codes, gather, in_order
from vigil.roster.columns import COLUMNS, MAX_YEAR, MIN_YEAR, Column, Kind
from vigil.roster.errors import RowError, make_error

__all__ = ["ColumnarRead", "read_columns"]

#: Why a cell cannot be read: (error code, template fields) per problem.
Problems = tuple[tuple[str, dict[str, Any]], ...]
_Rule = Callable[[str], "int | float | Problems"]

_BAD = NO_TIME  # a cell that does not decode
_BLANK_HOME = -1  # a blank HomeBase: the StartAirport's (contract §3.1)
_EPOCH_ORDINAL = date(1970, 1, 1).toordinal()
(_REF, _ON_D, _ON_T, _START, _OFF_D, _OFF_T, _END) = range(7)
_HOME, _TIME_REF, _FLEET, _RANK, _WORKLOAD = 12, 13, 28, 29, 30
_PERIOD_POSITIONS = (14, 18, 22)  # first cell of each 4-cell period group
_PERIOD_NAMES = ("Partial augmentation", "First rest", "Second rest")
#: Whole-number cells in the order their problems are reported
_INT_ORDER = (13, 7, 8, 9, 10, 11, 26, 27, 31, 32, 33)
_T = TypeVar("_T")


@dataclass
class ColumnarRead:
    """What :func:`read_columns` found.

    ``columns`` holds every row without a row error, schedules with an overlap included
    (the caller drops schedules with any error); ``home_bases()`` each Reference's first
    readable HomeBase; ``errors`` every RosterData error, by row.
    """

    columns: DutyColumns
    references: tuple[str, ...] = ()
    rows: int = 0
    home_bases: Callable[[], dict[str, Airport]] = dict  # only ActivityData needs them
    errors: list[RowError] = field(default_factory=list)


# ------------------------------------------------------------------------ cell rules


def _int_rule(column: Column, blank: int | None) -> _Rule:
    """A whole-number cell: blank → default (``blank`` when the operator set one)."""

    def rule(text: str) -> int | Problems:
        if not text:
            if blank is not None:
                return blank
            if column.required:
                return (("blank-required", dict(column=column.name)),)
            return int(column.default or 0)
        value = parse_int(text)
        if value is None:
            return (("bad-integer", dict(column=column.name, value=text)),)
        allowed = (
            value in column.allowed
            if column.allowed is not None
            else column.minimum is None or value >= column.minimum
        )
        if not allowed:
            fields = dict(column=column.name, value=value, allowed=column.describe_allowed())
            return (("out-of-range", fields),)
        return value

    return rule


def _date_rule(column: Column, fmt: DateFormat) -> _Rule:
    """A date cell → days since 1970-01-01."""

    def rule(text: str) -> int | Problems:
        if not text:
            return (("blank-required", dict(column=column.name)),)
        found = parse_date(text, fmt)
        if isinstance(found, date):
            return found.toordinal() - _EPOCH_ORDINAL
        if found == "bad-date":
            return ((found, dict(column=column.name, value=text, pattern=DATE_PATTERN[fmt])),)
        years = dict(min_year=MIN_YEAR, max_year=MAX_YEAR)
        return ((found, dict(column=column.name, value=text, **years)),)

    return rule


def _time_rule(column: Column) -> _Rule:
    """A time cell → minutes after midnight."""

    def rule(text: str) -> int | Problems:
        if not text:
            return (("blank-required", dict(column=column.name)),)
        found = parse_time(text)
        if found is None:
            return (("bad-time", dict(column=column.name, value=text)),)
        return found[0] * 60 + found[1]

    return rule


def _airport_rule(column: Column, tables: _Tables) -> _Rule:
    """An airport cell → its index in ``tables``."""

    def rule(text: str) -> int | Problems:
        if not text:
            return (("blank-required", dict(column=column.name)),)
        found = tz.airport(text)
        if found is None:
            return (("unknown-airport", dict(code=text, column=column.name)),)
        return tables.airport(found)

    return rule


def _home_rule(tables: _Tables) -> _Rule:
    """A HomeBase cell (codes separated by ``/``) → its index in ``tables``."""

    def rule(text: str) -> int | Problems:
        if not text:
            return _BLANK_HOME
        codes_ = [code.strip() for code in text.split("/") if code.strip()]
        found = [tz.airport(code) for code in codes_]
        problems = tuple(
            ("unknown-airport", dict(code=code, column="HomeBase"))
            for code, airport in zip(codes_, found, strict=True)
            if airport is None
        )
        if problems:
            return problems
        if not found:  # only separators: "/"
            return (("blank-required", dict(column="HomeBase")),)
        return tables.home(tuple(a for a in found if a is not None))

    return rule


def _number_rule(column: Column) -> _Rule:
    def rule(text: str) -> float | Problems:
        found = parse_number(text) if text else float(column.default or 0)
        if found is None:
            return (("bad-number", dict(column=column.name, value=text)),)
        return found

    return rule


@lru_cache(maxsize=1 << 10)
def _workload(text: str) -> float:
    """A Workload cell's value, NaN where unreadable."""
    found = _number_rule(COLUMNS[_WORKLOAD])(text)
    return np.nan if isinstance(found, tuple) else float(found)


def _reference_rule(text: str) -> int | Problems:
    if not text:
        return (("blank-required", dict(column="Reference")),)
    if "|" in text:
        return (("reference-pipe", dict(value=text)),)
    return 0


def _rules(fmt: DateFormat, blank: dict[int, int], tables: _Tables) -> dict[int, _Rule]:
    """The rule of every column but Fleet and Rank (free text), by cell position."""
    by_kind: dict[Kind, Callable[[Column], _Rule]] = {
        Kind.DATE: lambda c: _date_rule(c, fmt),
        Kind.TIME: _time_rule,
        Kind.INT: lambda c: _int_rule(c, blank.get(c.number - 1)),
        Kind.AIRPORT: lambda c: _airport_rule(c, tables),
        Kind.AIRPORTS: lambda c: _home_rule(tables),
        Kind.NUMBER: _number_rule,
    }
    rules = {c.number - 1: by_kind[c.kind](c) for c in COLUMNS if c.kind in by_kind}
    rules[_REF] = _reference_rule
    return rules


@lru_cache(maxsize=64)
def _fixed(
    fmt: DateFormat, blank: tuple[tuple[int, int], ...]
) -> tuple[dict[int, _Rule], dict[int, Callable[[str], int]]]:
    """The rules, and the value functions of the columns whose rule depends on the text
    alone, shared by every read with the same DateFormat and blank defaults (rosters
    repeat texts). The airport rules of one read replace these (operator airports)."""
    rules = _rules(fmt, dict(blank), _Tables())
    fixed = (Kind.DATE, Kind.TIME, Kind.INT)
    values: dict[int, Callable[[str], int]] = {
        p: lru_cache(maxsize=1 << 12)(_value_of(rules[p]))
        for p in rules
        if p == _REF or COLUMNS[p].kind in fixed
    }
    return rules, values


def _value_of(rule: _Rule) -> Callable[[str], int]:
    """``rule`` as a value, ``_BAD`` where it finds problems."""

    def value(text: str) -> int:
        found = rule(text)
        return _BAD if isinstance(found, tuple) else int(found)

    return value


def _problems(rule: _Rule, text: str) -> Problems:
    found = rule(text)
    return found if isinstance(found, tuple) else ()


# ---------------------------------------------------------------------- zones and UTC


@dataclass
class _Tables:
    """Airports, HomeBase lists and time zones met so far, as indices."""

    zones: list[str] = field(default_factory=lambda: ["UTC"])
    zone_index: dict[str, int] = field(default_factory=lambda: {"UTC": 0})
    airports: list[Airport] = field(default_factory=list)
    airport_index: dict[Airport, int] = field(default_factory=dict)
    homes: list[tuple[Airport, ...]] = field(default_factory=list)
    home_index: dict[tuple[Airport, ...], int] = field(default_factory=dict)

    def airport(self, found: Airport) -> int:
        return _index_of(found, self.airports, self.airport_index)

    def home(self, bases: tuple[Airport, ...]) -> int:
        return _index_of(bases, self.homes, self.home_index)

    def zone(self, name: str) -> int:
        return _index_of(name, self.zones, self.zone_index)

    def airport_zones(self) -> IntArray:
        return np.array([self.zone(a.tz) for a in self.airports] or [0], dtype=np.int64)

    def home_zones(self) -> IntArray:
        return np.array([self.zone(h[0].tz) for h in self.homes] or [0], dtype=np.int64)


def _index_of(value: _T, values: list[_T], index: dict[_T, int]) -> int:
    """The position of ``value`` in ``values``, appending it the first time."""
    found = index.get(value)
    if found is None:
        found = index[value] = len(values)
        values.append(value)
    return found


def _to_utc(zone: IntArray, wall: IntArray, zones: list[str]) -> IntArray:
    """Local wall minutes in ``zones[zone]`` → UTC minutes; ``_BAD`` for a gap.

    Per (zone, local day): one offset for the whole day when the zone's offset does
    not change on it (:func:`vigil.tz.fixed_offset_on`), else each distinct wall time
    through :func:`instant` (DST gap → bad; fall-back → the earlier instant).
    """
    out = np.full(wall.shape, _BAD, dtype=np.int64)
    ok = (wall != _BAD) & (zone >= 0)
    if not ok.any():
        return out
    zone_ok, wall_ok = zone[ok], wall[ok]
    # one int64 key per (zone, local day): zone in the high bits (days span ±2^17)
    keys, inverse = _distinct((zone_ok << 20) | (wall_ok // 1440 + (1 << 19)))
    offsets = np.array(
        [_day_offset(zones[k >> 20], (k & 0xFFFFF) - (1 << 19)) for k in keys.tolist()],
        dtype=np.int64,
    )
    offset = offsets[inverse]
    converted = wall_ok - np.where(offset != _BAD, offset, 0)
    change = offset == _BAD
    if change.any():  # a clock change that day: wall time by wall time (minutes span ±2^27)
        pairs, back = _distinct((zone_ok[change] << 30) | (wall_ok[change] + (1 << 29)))
        exact = np.array(
            [_exact(zones[k >> 30], (k & 0x3FFFFFFF) - (1 << 29)) for k in pairs.tolist()],
            dtype=np.int64,
        )
        converted[change] = exact[back]
    out[ok] = converted
    return out


def _distinct(values: IntArray) -> tuple[IntArray, IntArray]:
    """The distinct values, and where each value is among them (``np.unique``'s
    ``return_inverse``). A dict below 256 values: NumPy's sort costs more there."""
    if values.size > 256:
        keys, inverse = np.unique(values, return_inverse=True)
        return keys, inverse.reshape(-1)
    index: dict[int, int] = {}
    inverse_list = [index.setdefault(v, len(index)) for v in values.tolist()]
    return np.array(list(index), dtype=np.int64), np.array(inverse_list, dtype=np.int64)


@lru_cache(maxsize=1 << 14)
def _day_offset(zone_name: str, day: int) -> int:
    if zone_name == "UTC":
        return 0
    offset = tz.fixed_offset_on(zone_name, date.fromordinal(day + _EPOCH_ORDINAL))
    return _BAD if offset is None else int(offset.total_seconds() // 60)


@lru_cache(maxsize=1 << 12)
def _exact(zone_name: str, wall: int) -> int:
    day, minute = divmod(wall, 1440)
    found = instant(date.fromordinal(day + _EPOCH_ORDINAL), minute // 60, minute % 60, zone_name)
    if found is None:
        return _BAD
    return int(found.timestamp()) // 60


# ----------------------------------------------------------------------------- reading


@dataclass
class _Rows:
    """Every row's decoded values (``_BAD`` where unreadable) and what is wrong with it."""

    table: CellTable
    rules: dict[int, _Rule]
    tables: _Tables
    values: dict[int, IntArray]  # by cell position: days, minutes, indices, codes
    workload: FloatArray
    #: (3, n) each: a period given in full, a period given in part
    present: BoolArray
    partial: BoolArray
    cell_bad: BoolArray
    zone_names: list[str] = field(default_factory=list)
    on_zone: IntArray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    off_zone: IntArray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    utc: dict[str, IntArray] = field(default_factory=dict)
    gap: BoolArray = field(default_factory=lambda: np.zeros(0, dtype=np.bool_))
    duty: checks.DutyValues | None = None
    broken: BoolArray = field(default_factory=lambda: np.zeros((0, 0), dtype=np.bool_))


def read_columns(table: CellTable, fmt: DateFormat, blank: dict[int, int]) -> ColumnarRead:
    """Decode, convert and check every row of ``table``; see the module docstring.

    ``blank``: the operator's value of a blank cell by position (contract §3.1 defaults
    otherwise).
    """
    errors = list(table.errors)
    if not table.usable:
        return ColumnarRead(DutyColumns.from_schedules(()), errors=errors)
    tables = _Tables()
    rules, values = _fixed(fmt, tuple(sorted(blank.items())))
    rules = rules | {
        _START: _airport_rule(COLUMNS[_START], tables),
        _END: _airport_rule(COLUMNS[_END], tables),
        _HOME: _home_rule(tables),
    }
    values = values | {
        p: lru_cache(maxsize=None)(_value_of(rules[p])) for p in (_START, _END, _HOME)
    }
    rows = _decode(table, rules, values, tables)
    _convert(rows)
    _check(rows)
    bad = rows.cell_bad | rows.gap | rows.broken.any(axis=0)
    errors += _row_errors(rows, np.flatnonzero(bad))
    refs = table.cells[_REF]
    order = in_order(refs)
    ids = codes(refs, {ref: k for k, ref in enumerate(order)}.__getitem__)
    columns = _columns(rows, ids, order, np.flatnonzero(~bad))
    lines = table.row  # ascending: a line's row by bisection
    errors += checks.schedule_errors(
        columns, lambda line: _written(rows, int(np.searchsorted(lines, line)))
    )
    errors.sort(key=_row_of)
    references = tuple(ref for ref in order if ref)
    home_bases = partial(_home_bases, rows, ids, order)
    return ColumnarRead(columns, references, table.rows, home_bases, errors)


def _row_of(error: RowError) -> int:
    return error.row


def _decode(
    table: CellTable,
    rules: dict[int, _Rule],
    value_of: dict[int, Callable[[str], int]],
    tables: _Tables,
) -> _Rows:
    """Every cell through its column's rule; ``cell_bad`` marks the rows with a problem."""
    n = table.height
    given = [k for k, p in enumerate(_PERIOD_POSITIONS) if any(map(any, table.cells[p : p + 4]))]
    blank = np.zeros((3, 4, n), dtype=np.bool_)
    for k in given:  # periods no row gives stay blank
        p = _PERIOD_POSITIONS[k]
        blank[k] = np.stack([blanks(table.cells[q]) for q in range(p, p + 4)])
    blank[[k for k in range(3) if k not in given]] = True
    present: BoolArray = np.logical_not(np.any(blank, axis=1))
    partial: BoolArray = np.logical_not(present | np.all(blank, axis=1))
    positions = [p for p in rules if p != _WORKLOAD and (p < 14 or p > 25)]
    positions += [q for k in given for q in range(_PERIOD_POSITIONS[k], _PERIOD_POSITIONS[k] + 4)]
    matrix = _matrix(table, value_of, positions)
    for k in given:  # a period's cells are read where it is given in full (else blank, 0)
        i = positions.index(_PERIOD_POSITIONS[k])
        matrix[i : i + 4, ~present[k]] = 0
    values = dict(zip(positions, matrix, strict=True))
    workload = codes(table.cells[_WORKLOAD], _workload, float)
    bad = np.isnan(workload) | (matrix == _BAD).any(axis=0) | partial.any(axis=0)
    return _Rows(table, rules, tables, values, workload, present, partial, bad)


def _matrix(
    table: CellTable, value_of: dict[int, Callable[[str], int]], positions: list[int]
) -> IntArray:
    """``(len(positions), n)``: the values of those columns, one row each."""
    if not positions:
        return np.zeros((0, table.height), dtype=np.int64)
    if not isinstance(table.cells[0], list):
        return np.stack([codes(table.cells[p], value_of[p]) for p in positions])
    # plain lists: one pass over every cell (``value_of`` remembers its texts)
    cells = chain.from_iterable(map(value_of[p], table.cells[p]) for p in positions)
    shape = (len(positions), table.height)
    return np.fromiter(cells, dtype=np.int64, count=shape[0] * shape[1]).reshape(shape)


def _walls(rows: _Rows, dates: list[int]) -> IntArray:
    """``(len(dates), n)``: each date cell and the time cell after it → local wall
    minutes, ``_BAD`` where either is unreadable."""
    day = np.stack([rows.values[p] for p in dates])
    minute = np.stack([rows.values[p + 1] for p in dates])
    ok = (day != _BAD) & (minute != _BAD)
    return np.where(ok, day * 1440 + minute, _BAD)  # wraps where bad: not kept


def _zones(rows: _Rows) -> None:
    """Each readable row's on-duty and off-duty zone: TimeReference 0 UTC, 1 HomeBase
    (blank: the StartAirport), 2 StartAirport / EndAirport (contract §3.1)."""
    v, tables, safe = rows.values, rows.tables, ~rows.cell_bad
    start, end, home = v[_START], v[_END], v[_HOME]
    blank_home = home == _BLANK_HOME
    if blank_home.any():
        start_homes = np.array([tables.home((a,)) for a in list(tables.airports)] or [0])
        start_home = np.where(start != _BAD, start_homes[np.maximum(start, 0)], _BAD)
        v[_HOME] = home = np.where(blank_home, start_home, home)
    airport_zone, home_zone = tables.airport_zones(), tables.home_zones()
    time_ref = np.where(safe, v[_TIME_REF], -1)
    at_home = home_zone[np.where(safe, home, 0)]
    on = np.where(time_ref == 1, at_home, airport_zone[np.where(safe, start, 0)])
    off = np.where(time_ref == 1, at_home, airport_zone[np.where(safe, end, 0)])
    in_utc = time_ref == 0
    rows.on_zone = np.where(safe, np.where(in_utc, 0, on), -1)
    rows.off_zone = np.where(safe, np.where(in_utc, 0, off), -1)
    rows.zone_names = tables.zones


def _convert(rows: _Rows) -> None:
    """Wall times to UTC in their zones (periods in the on-duty zone, contract §3.1),
    all in one pass; ``gap`` marks a row with a time in a DST gap."""
    _zones(rows)
    n, safe = rows.table.height, ~rows.cell_bad
    given = [k for k in range(3) if rows.present[k].any()]
    zones = [rows.on_zone, rows.off_zone]
    dates = [_ON_D, _OFF_D]
    for k in given:
        zone = np.where(rows.present[k], rows.on_zone, -1)
        zones += [zone, zone]
        dates += [_PERIOD_POSITIONS[k], _PERIOD_POSITIONS[k] + 2]
    walls = _walls(rows, dates)
    utc = _to_utc(np.concatenate(zones), walls.reshape(-1), rows.tables.zones)
    utc = utc.reshape(len(dates), n)
    starts, ends = np.full((2, 3, n), NO_TIME, dtype=np.int64)
    starts[given], ends[given] = utc[2::2], utc[3::2]
    rows.utc = {"on": utc[0], "off": utc[1], "period_start": starts, "period_end": ends}
    present = rows.present[given]
    gap = (utc[:2] == _BAD).any(axis=0)
    gap |= (present & ((utc[2::2] == _BAD) | (utc[3::2] == _BAD))).any(axis=0)
    rows.gap = safe & gap


def _check(rows: _Rows) -> None:
    """The cross-field rules on the rows readable so far."""
    v = rows.values
    rows.duty = checks.DutyValues(
        on=rows.utc["on"],
        off=rows.utc["off"],
        period_start=rows.utc["period_start"],
        period_end=rows.utc["period_end"],
        sectors=v[7],
        crew=v[8],
        sleep_count=v[9],
        workload=rows.workload,
    )
    readable = ~(rows.cell_bad | rows.gap)
    rows.broken = checks.broken_rules(rows.duty) & readable


# ---------------------------------------------------------------------------- messages


def _written(rows: _Rows, i: int) -> checks.Written:
    """Row ``i``'s date-times and Workload as written, for messages."""
    cells = rows.table.cells

    def at(p: int) -> str:
        return f"{cells[p][i]} {cells[p + 1][i]}"

    periods = tuple(
        (at(p), at(p + 2)) if rows.present[k, i] else None for k, p in enumerate(_PERIOD_POSITIONS)
    )
    return checks.Written(at(_ON_D), at(_OFF_D), periods, cells[_WORKLOAD][i])


def _row_errors(rows: _Rows, bad: IntArray) -> list[RowError]:
    """The errors of each bad row: its cells' problems, else its times in a DST gap,
    else the cross-field rules it breaks."""
    errors: list[RowError] = []
    cells, line = rows.table.cells, rows.table.row
    for i in bad.tolist():
        row, ref = int(line[i]), cells[_REF][i]
        if rows.cell_bad[i]:
            found = [make_error(code, row, ref, **f) for code, f in _cell_problems(rows, i)]
        elif rows.gap[i]:
            found = _gap_errors(rows, i, row, ref)
        else:
            assert rows.duty is not None
            found = checks.rule_errors(row, ref, rows.broken[:, i], rows.duty, i, _written(rows, i))
        if not found:  # every rule that marks a row bad says why: this is a bug
            raise AssertionError(f"row {row} is rejected without a message")
        errors += found
    return errors


def _cell_problems(rows: _Rows, i: int) -> list[tuple[str, dict[str, Any]]]:
    """Row ``i``'s unreadable cells, left to right as a planner reads the row."""
    cells, rules = rows.table.cells, rows.rules
    found = list(_problems(rules[_REF], cells[_REF][i]))
    found += _wall_problems(rows, i, _ON_D) + _wall_problems(rows, i, _OFF_D)
    for p in (_START, _END, _HOME, *_INT_ORDER, _WORKLOAD):
        found += _problems(rules[p], cells[p][i])
    for k, p in enumerate(_PERIOD_POSITIONS):
        if rows.partial[k, i]:
            names = ", ".join(c.name for c in COLUMNS[p : p + 4])
            found.append(("incomplete-period", dict(what=_PERIOD_NAMES[k], fields=names)))
        elif rows.present[k, i]:
            found += _wall_problems(rows, i, p) + _wall_problems(rows, i, p + 2)
    return found


def _wall_problems(rows: _Rows, i: int, position: int) -> list[tuple[str, dict[str, Any]]]:
    """A date and time pair's problems: blank cells first, then unreadable ones."""
    found = [
        *_problems(rows.rules[position], rows.table.cells[position][i]),
        *_problems(rows.rules[position + 1], rows.table.cells[position + 1][i]),
    ]
    return sorted(found, key=lambda problem: problem[0] != "blank-required")


def _gap_errors(rows: _Rows, i: int, row: int, ref: str) -> list[RowError]:
    """Row ``i``'s local times that do not exist (spring forward), in reading order."""
    written = _written(rows, i)
    names = rows.zone_names
    on_zone, off_zone = names[rows.on_zone[i]], names[rows.off_zone[i]]
    times = [("On-duty", rows.utc["on"][i], written.on, on_zone)]
    times.append(("Off-duty", rows.utc["off"][i], written.off, off_zone))
    for k, texts in enumerate(written.periods):
        if texts is not None:
            times.append(
                (f"{_PERIOD_NAMES[k]} start", rows.utc["period_start"][k, i], texts[0], on_zone)
            )
            times.append(
                (f"{_PERIOD_NAMES[k]} end", rows.utc["period_end"][k, i], texts[1], on_zone)
            )
    return [
        make_error("nonexistent-time", row, ref, what=what, written=text, zone=zone)
        for what, value, text, zone in times
        if value == _BAD
    ]


# ----------------------------------------------------------------------------- output


def _home_bases(rows: _Rows, ids: IntArray, order: list[str]) -> dict[str, Airport]:
    """Each Reference's first row with a readable HomeBase: its base airport."""
    home = rows.values[_HOME]
    blank_ref = {ref: k for k, ref in enumerate(order)}.get("", -1)
    candidates = np.flatnonzero((home != _BAD) & (ids != blank_ref))
    found, first = np.unique(ids[candidates], return_index=True)
    homes = rows.tables.homes
    return {
        order[k]: homes[home[candidates[j]]][0]
        for k, j in zip(found.tolist(), first.tolist(), strict=True)
    }


def _columns(rows: _Rows, ids: IntArray, order: list[str], keep: IntArray) -> DutyColumns:
    """The rows at ``keep`` as duty columns, schedules in order of first appearance and
    duties in chronological order (on-duty, off-duty, row)."""
    v, utc, line = rows.values, rows.utc, rows.table.row
    kept_ids = ids[keep]
    by_appearance = np.array(list(dict.fromkeys(kept_ids.tolist())), dtype=np.int64)
    renumber = np.zeros(len(order), dtype=np.int64)
    renumber[by_appearance] = np.arange(by_appearance.size)
    schedule = renumber[kept_ids]
    order_index = keep[np.lexsort((line[keep], utc["off"][keep], utc["on"][keep], schedule))]
    take: IntArray | slice = order_index
    counts = np.bincount(schedule, minlength=by_appearance.size)
    if order_index.size == rows.table.height and (order_index[1:] > order_index[:-1]).all():
        take = slice(None)  # every row kept, already in order: views, no copies
    pattern = v[33][take]
    return DutyColumns(
        references=tuple(order[k] for k in by_appearance.tolist()),
        offsets=np.concatenate([[0], np.cumsum(counts)]).astype(np.int64),
        row=line[take],
        on_duty=utc["on"][take],
        off_duty=utc["off"][take],
        start_airport=v[_START][take],
        end_airport=v[_END][take],
        home_base=v[_HOME][take],
        time_reference=v[_TIME_REF][take],
        sectors=v[7][take],
        crew_composition=v[8][take],
        sleep_count=v[9][take],
        sleep_order=v[10][take],
        sleep_class=v[11][take],
        period_start=utc["period_start"][:, take],
        period_end=utc["period_end"][:, take],
        split_shift=v[26][take],
        duty_type=v[27][take],
        workload=rows.workload[take],
        crew_prep_minutes=v[31][take],
        commute_minutes=v[32][take],
        cabin_crew_sleep_pattern=np.where(pattern == 4, 0, pattern),  # contract §3.1
        fleet=tuple(gather(rows.table.cells[_FLEET], order_index)),
        rank=tuple(gather(rows.table.cells[_RANK], order_index)),
        airports=tuple(rows.tables.airports),
        home_bases=tuple(rows.tables.homes),
    )
