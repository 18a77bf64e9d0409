"""RosterData CSV → :class:`~vigil.roster.arrays.DutyColumns` with Polars.

The same rules as the row reader (:mod:`vigil.roster.parse`, contract §3.1), read a
column at a time:

1. **Lines.** A line of printable ASCII without spaces or quotes (nearly all of them)
   is split by Polars (``str.split_exact``); any other line, and any line of an
   unexpected width, is split by the row reader's own :func:`split_fields` and
   ``_cells``, which also report quoting and column-count errors.
2. **Cells.** Each column is decoded through a table over its *unique* texts, built
   with the row reader's own cell functions (:func:`parse_date`, :func:`parse_time`,
   the integer rules of :mod:`vigil.roster.columns`, :func:`vigil.tz.airport`), so a
   text is read exactly as before and only once: a month has ~30 dates, ≤ 1,440
   times and a few hundred airports. A text the table rejects marks its row bad.
3. **UTC.** Wall times become UTC per (zone, local day) group: a day without a clock
   change subtracts that day's offset from every wall time in it at once; on a
   change day each distinct wall time goes through :func:`instant` (a DST gap is a
   bad row, a fall-back time takes the earlier instant, as before).
4. **Checks.** The cross-field rules of :mod:`vigil.roster.checks` as array
   comparisons; duty overlaps by a running maximum per schedule, the span limit by
   each schedule's first on-duty.
5. **Diagnosis.** Only bad rows (and schedules with an overlap) go through the row
   reader, one by one, which writes every error with its exact text and order.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any, TypeVar

import numpy as np
import polars as pl

from vigil import tz
from vigil.domain import Airport, DateFormat
from vigil.roster import checks
from vigil.roster._text import (
    CsvSyntaxError,
    instant,
    parse_date,
    parse_int,
    parse_number,
    parse_time,
    split_fields,
)
from vigil.roster.arrays import NO_TIME, BoolArray, DutyColumns, FloatArray, IntArray
from vigil.roster.columns import (
    COLUMNS,
    FULL_WIDTH,
    MAX_DUTY_HOURS,
    MAX_SPAN_DAYS,
    REQUIRED,
    SHORT_WIDTH,
    WORKLOAD_RANGE_NO_SECTORS,
    WORKLOAD_RANGE_WITH_SECTORS,
    Kind,
)
from vigil.roster.errors import make_error

__all__ = ["ColumnarRead", "read_columns"]

_BAD = NO_TIME  # a cell that does not decode
_EPOCH_ORDINAL = date(1970, 1, 1).toordinal()
_SIMPLE_LINE = r"^[\x21\x23-\x7e]+$"  # printable ASCII, no space, no quote: nothing to trim
_REQUIRED_POSITIONS = [c.number - 1 for c in REQUIRED]
_INT_POSITIONS = [c.number - 1 for c in COLUMNS if c.kind is Kind.INT]
(_REF, _ON_D, _ON_T, _START, _OFF_D, _OFF_T, _END) = range(7)
_HOME, _TIME_REF, _FLEET, _RANK, _WORKLOAD = 12, 13, 28, 29, 30
_PERIOD_POSITIONS = (14, 18, 22)  # first cell of each 4-cell period group
_MAX_DUTY_MINUTES = MAX_DUTY_HOURS * 60
_MAX_SPAN_MINUTES = MAX_SPAN_DAYS * 24 * 60
_T = TypeVar("_T")


@dataclass
class ColumnarRead:
    """What :func:`read_columns` found; the errors are in the row reader's ``errors``.

    ``columns`` holds every row without a row error (schedules with an error included;
    the caller drops them), ``home_rows`` each Reference's first readable HomeBase.
    """

    columns: DutyColumns | None
    references: tuple[str, ...] = ()
    rows: int = 0
    home_rows: dict[str, tuple[int, Airport]] = field(default_factory=dict)


def read_columns(
    text: str, reader: Any, looks_like_header: Callable[[list[str]], bool]
) -> ColumnarRead | None:
    """Read RosterData into columns; see the module docstring.

    ``reader`` is a fresh row reader (:class:`vigil.roster.parse._Reader`): its
    ``_header``, ``_cells`` and ``_row`` diagnose what needs it, into its ``errors``.
    ``None`` when the row reader accepts a row this reader flagged, or when the text is
    not valid UTF-8 (lone surrogates): the caller then reads the whole roster row by
    row (the two readers are tested to agree).
    """
    if text.startswith("\ufeff"):
        text = text[1:]
    try:
        lines = pl.Series("line", text.split("\n"), dtype=pl.String).str.strip_suffix("\r")
    except UnicodeEncodeError:  # lone surrogates: Polars holds UTF-8 only
        return None
    first = _first_nonblank(lines)
    mapping: list[int] | None = None
    skip = -1
    if first is not None:
        try:
            fields = split_fields(lines[first])
        except CsvSyntaxError:
            fields = None
        if fields is not None and looks_like_header(fields):
            skip = first
            mapping = reader._header(first + 1, fields)
            if mapping is None:
                return ColumnarRead(None)
    frame, rows = _cells(lines, skip, mapping, reader)
    return _decode(frame, rows, reader, reader.date_format)


def _first_nonblank(lines: pl.Series) -> int | None:
    for i, line in enumerate(lines):
        if line and not line.isspace():
            return i
    return None


def _cells(
    lines: pl.Series, skip: int, mapping: list[int] | None, reader: Any
) -> tuple[pl.DataFrame, int]:
    """Every data row as 34 string columns ``c0``..``c33`` plus ``row``, in row order."""
    table = pl.DataFrame({"line": lines}).with_row_index("row", offset=1)
    if skip >= 0:
        table = table.filter(pl.col("row") != skip + 1)
    widths = {len(mapping): mapping} if mapping else {FULL_WIDTH: None, SHORT_WIDTH: None}
    simple = pl.col("line").str.contains(_SIMPLE_LINE)
    width = pl.col("line").str.count_matches(",", literal=True) + 1
    # the width of a simple line of an expected width, else 0 (split by the row reader)
    table = table.with_columns(
        width=pl.when(simple & width.is_in(list(widths))).then(width).otherwise(0)
    )
    parts: list[pl.DataFrame] = []
    for n, positions in widths.items():
        if positions is None:
            positions = list(range(FULL_WIDTH)) if n == FULL_WIDTH else _REQUIRED_POSITIONS
        chunk = table.filter(pl.col("width") == n)
        split = chunk["line"].str.split_exact(",", n - 1).struct.unnest()
        split.columns = [f"c{p}" for p in positions]
        parts.append(pl.concat([chunk.select("row"), split], how="horizontal"))
    others = table.filter(pl.col("width") == 0)
    n_rows = table.height - others.height
    odd_rows: list[list[str]] = []
    odd_numbers: list[int] = []
    for row, line in others.select("row", "line").iter_rows():
        if not line or line.isspace():
            continue
        n_rows += 1
        try:
            fields = split_fields(line)
        except CsvSyntaxError as exc:
            reader.errors.append(make_error("bad-quoting", row, detail=str(exc)))
            continue
        cells = reader._cells(row, fields, mapping)
        if cells is not None:
            odd_rows.append(list(cells))
            odd_numbers.append(row)
    if odd_rows:
        odd = pl.DataFrame(
            {f"c{p}": [r[p] for r in odd_rows] for p in range(FULL_WIDTH)}
            | {"row": pl.Series(odd_numbers, dtype=pl.UInt32)}
        )
        parts.append(odd)
    names = ["row", *(f"c{p}" for p in range(FULL_WIDTH))]
    full = [
        p.with_columns(*(pl.lit("").alias(n) for n in names if n not in p.columns)).select(names)
        for p in parts
    ]
    frame = pl.concat(full).sort("row")
    return frame, n_rows


def _lookup(column: pl.Series, decode: Callable[[str], int | None]) -> IntArray:
    """``decode`` over the column's unique texts, mapped back; ``_BAD`` where it fails."""
    uniques = column.unique()
    codes = [decode(t) for t in uniques.to_list()]
    values = pl.Series([_BAD if c is None else c for c in codes], dtype=pl.Int64)
    out = column.replace_strict(uniques, values, return_dtype=pl.Int64).to_numpy()
    return np.asarray(out, dtype=np.int64)


def _int_decoder(position: int, blank: int | None = None) -> Callable[[str], int | None]:
    """The row reader's whole-number rule for one column: blank → default (``blank``
    when the operator set one), range."""
    column = COLUMNS[position]

    def decode(text: str) -> int | None:
        if not text:
            if blank is not None:
                return blank
            return None if column.required else int(column.default or 0)
        value = parse_int(text)
        if value is None:
            return None
        if column.allowed is not None:
            return value if value in column.allowed else None
        return value if column.minimum is None or value >= column.minimum else None

    return decode


def _day(fmt: DateFormat) -> Callable[[str], int | None]:
    def decode(text: str) -> int | None:
        found = parse_date(text, fmt) if text else None
        return found.toordinal() - _EPOCH_ORDINAL if isinstance(found, date) else None

    return decode


def _minute(text: str) -> int | None:
    found = parse_time(text) if text else None
    return found[0] * 60 + found[1] if found is not None else None


def _walls(frame: pl.DataFrame, position: int, fmt: DateFormat) -> IntArray:
    """Date cell ``position`` and time cell ``position + 1`` → local wall minutes."""
    day = _lookup(frame[f"c{position}"], _day(fmt))
    minute = _lookup(frame[f"c{position + 1}"], _minute)
    ok = (day != _BAD) & (minute != _BAD)
    return np.where(ok, day * 1440 + np.where(ok, minute, 0), _BAD)


def _to_utc(zone: IntArray, wall: IntArray, zones: Sequence[str]) -> IntArray:
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
    keys, inverse = np.unique((zone_ok << 20) | (wall_ok // 1440 + (1 << 19)), return_inverse=True)
    offsets = np.array(
        [_day_offset(zones[k >> 20], (k & 0xFFFFF) - (1 << 19)) for k in keys.tolist()],
        dtype=np.int64,
    )
    offset = offsets[inverse.reshape(-1)]
    converted = wall_ok - np.where(offset != _BAD, offset, 0)
    change = offset == _BAD
    if change.any():  # a clock change that day: wall time by wall time (minutes span ±2^27)
        pairs, back = np.unique(
            (zone_ok[change] << 30) | (wall_ok[change] + (1 << 29)), return_inverse=True
        )
        exact = np.array(
            [_exact(zones[k >> 30], (k & 0x3FFFFFFF) - (1 << 29)) for k in pairs.tolist()],
            dtype=np.int64,
        )
        converted[change] = exact[back.reshape(-1)]
    out[ok] = converted
    return out


def _day_offset(zone_name: str, day: int) -> int:
    if zone_name == "UTC":
        return 0
    offset = tz.fixed_offset_on(zone_name, date.fromordinal(day + _EPOCH_ORDINAL))
    return _BAD if offset is None else int(offset.total_seconds() // 60)


def _exact(zone_name: str, wall: int) -> int:
    day, minute = divmod(wall, 1440)
    found = instant(date.fromordinal(day + _EPOCH_ORDINAL), minute // 60, minute % 60, zone_name)
    if found is None:
        return _BAD
    return int(found.timestamp()) // 60


@dataclass
class _Tables:
    """Airports and HomeBase lists met so far, as indices."""

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


def _home_bases(text: str) -> tuple[Airport, ...] | None:
    """A HomeBase cell → its airports, ``None`` if any code is unknown or none is given."""
    found = [tz.airport(code.strip()) for code in text.split("/") if code.strip()]
    if not found or any(a is None for a in found):
        return None
    return tuple(a for a in found if a is not None)


def _decode(frame: pl.DataFrame, n_rows: int, reader: Any, fmt: DateFormat) -> ColumnarRead | None:
    tables = _Tables()
    col = frame.get_column
    refs = col("c0")
    bad = np.array((refs == "") | refs.str.contains("|", literal=True), dtype=np.bool_)

    def airport_of(text: str) -> int | None:
        found = tz.airport(text) if text else None
        return None if found is None else tables.airport(found)

    start = _lookup(col(f"c{_START}"), airport_of)
    end = _lookup(col(f"c{_END}"), airport_of)

    def home_of(text: str) -> int | None:
        found = _home_bases(text) if text else None
        return None if found is None else tables.home(found)

    home_text = col(f"c{_HOME}")
    home = _lookup(home_text, home_of)
    blank_home = np.array(home_text == "", dtype=np.bool_)
    start_homes = np.array(
        [tables.home((a,)) for a in list(tables.airports)] or [0], dtype=np.int64
    )
    home = np.where(blank_home & (start != _BAD), start_homes[np.maximum(start, 0)], home)
    home_ok = home != _BAD
    bad |= (start == _BAD) | (end == _BAD) | ~home_ok

    ints = {p: _lookup(col(f"c{p}"), _int_decoder(p, reader.blank.get(p))) for p in _INT_POSITIONS}
    for values in ints.values():
        bad |= values == _BAD
    workload_text = col(f"c{_WORKLOAD}")
    workload = _lookup_float(workload_text)
    bad |= np.isnan(workload)

    on_wall = _walls(frame, _ON_D, fmt)
    off_wall = _walls(frame, _OFF_D, fmt)
    bad |= (on_wall == _BAD) | (off_wall == _BAD)
    period_walls: list[tuple[BoolArray, IntArray, IntArray]] = []
    for p in _PERIOD_POSITIONS:
        blank = np.stack([np.array(col(f"c{q}") == "", dtype=np.bool_) for q in range(p, p + 4)])
        present: BoolArray = np.logical_not(blank.any(axis=0))
        bad |= ~present & ~blank.all(axis=0)  # incomplete
        s, e = _walls(frame, p, fmt), _walls(frame, p + 2, fmt)
        bad |= present & ((s == _BAD) | (e == _BAD))
        period_walls.append((present, s, e))

    # zones: TimeReference 0 UTC, 1 HomeBase, 2 StartAirport / EndAirport (contract §3.1)
    time_ref = ints[_TIME_REF]
    airport_zone, home_zone = tables.airport_zones(), tables.home_zones()
    safe = ~bad
    z_start = np.where(safe, airport_zone[np.where(safe, start, 0)], -1)
    z_end = np.where(safe, airport_zone[np.where(safe, end, 0)], -1)
    z_home = np.where(safe, home_zone[np.where(safe, home, 0)], -1)
    on_zone = np.select([time_ref == 0, time_ref == 1], [0, z_home], z_start)
    off_zone = np.select([time_ref == 0, time_ref == 1], [0, z_home], z_end)
    on_zone, off_zone = np.where(safe, on_zone, -1), np.where(safe, off_zone, -1)
    zones = tables.zones
    on = _to_utc(on_zone, on_wall, zones)
    off = _to_utc(off_zone, off_wall, zones)
    bad |= safe & ((on == _BAD) | (off == _BAD))
    period_start = np.full((3, frame.height), NO_TIME, dtype=np.int64)
    period_end = period_start.copy()
    for k, (present, s, e) in enumerate(period_walls):
        zone_k = np.where(present, on_zone, -1)
        ps, pe = _to_utc(zone_k, s, zones), _to_utc(zone_k, e, zones)
        bad |= present & safe & ((ps == _BAD) | (pe == _BAD))
        period_start[k] = np.where(present, ps, NO_TIME)
        period_end[k] = np.where(present, pe, NO_TIME)

    bad |= _cross_field_errors(on, off, period_start, period_end, ints, workload) & ~bad
    return _finish(
        frame, n_rows, reader, tables, bad, home,
        dict(on=on, off=off, start=start, end=end, workload=workload,
             period_start=period_start, period_end=period_end, ints=ints),
    )  # fmt: skip


def _lookup_float(column: pl.Series) -> FloatArray:
    """Workload texts → numbers (blank → 0, contract §3.1); NaN where unreadable."""
    uniques = column.unique()
    values = []
    for text in uniques.to_list():
        found = parse_number(text) if text else 0.0
        values.append(np.nan if found is None else found)
    out = column.replace_strict(
        uniques, pl.Series(values, dtype=pl.Float64), return_dtype=pl.Float64
    ).to_numpy()
    return np.asarray(out, dtype=np.float64)


def _cross_field_errors(
    on: IntArray,
    off: IntArray,
    period_start: IntArray,
    period_end: IntArray,
    ints: Mapping[int, IntArray],
    workload: FloatArray,
) -> BoolArray:
    """Rows breaking a rule of :mod:`vigil.roster.checks` (same rules, as arrays)."""
    length = off - on
    duty_ok = length > 0
    bad = ~duty_ok | (length > _MAX_DUTY_MINUTES)  # check_duty_times
    present = period_start != NO_TIME  # check_periods
    order_ok = period_end > period_start
    bad |= (present & ~order_ok).any(axis=0)
    outside = (period_start < on) | (period_end > off)
    bad |= (present & order_ok & duty_ok & outside).any(axis=0)
    bad |= present[1] & present[2] & (period_start[2] < period_end[1])
    count, crew, sectors = ints[9], ints[8], ints[7]  # check_sleep_count
    bad |= (count > 0) & (crew == 2) & (~present[1] | ((count == 2) & ~present[2]))
    no_sectors = sectors == 0  # check_workload
    low = np.where(no_sectors, WORKLOAD_RANGE_NO_SECTORS[0], WORKLOAD_RANGE_WITH_SECTORS[0])
    high = np.where(no_sectors, WORKLOAD_RANGE_NO_SECTORS[1], WORKLOAD_RANGE_WITH_SECTORS[1])
    bad |= (workload != 0) & ((workload < low) | (workload > high))
    out: BoolArray = bad
    return out


def _finish(
    frame: pl.DataFrame,
    n_rows: int,
    reader: Any,
    tables: _Tables,
    bad: BoolArray,
    home: IntArray,
    values: dict[str, Any],
) -> ColumnarRead | None:
    row = np.asarray(frame["row"].to_numpy(), dtype=np.int64)
    cell_names = [f"c{p}" for p in range(FULL_WIDTH)]
    bad_index = np.flatnonzero(bad)
    if bad_index.size:
        for number, *cells in frame[bad_index].select("row", *cell_names).iter_rows():
            reader._row(number, cells)
        if reader.duties:  # the row reader accepts a row flagged bad: it is the judge
            return None
    refs = frame["c0"]
    references = tuple(r for r in refs.unique(maintain_order=True).to_list() if r)
    home_rows = _first_home_rows(refs, row, home, tables)

    ok = ~bad
    order_refs = refs.filter(pl.Series(ok)).unique(maintain_order=True)
    ref_id = np.asarray(
        refs.filter(pl.Series(ok))
        .replace_strict(order_refs, pl.Series(np.arange(len(order_refs))), return_dtype=pl.Int64)
        .to_numpy(),
        dtype=np.int64,
    )
    keep = np.flatnonzero(ok)
    on, off = values["on"][keep], values["off"][keep]
    order = np.lexsort((row[keep], off, on, ref_id))
    take = keep[order]
    counts = np.bincount(ref_id, minlength=len(order_refs))
    offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    ints = values["ints"]
    pattern = ints[33][take]
    columns = DutyColumns(
        references=tuple(order_refs.to_list()),
        offsets=offsets,
        row=row[take],
        on_duty=values["on"][take],
        off_duty=values["off"][take],
        start_airport=values["start"][take],
        end_airport=values["end"][take],
        home_base=home[take],
        time_reference=ints[13][take],
        sectors=ints[7][take],
        crew_composition=ints[8][take],
        sleep_count=ints[9][take],
        sleep_order=ints[10][take],
        sleep_class=ints[11][take],
        period_start=values["period_start"][:, take],
        period_end=values["period_end"][:, take],
        split_shift=ints[26][take],
        duty_type=ints[27][take],
        workload=values["workload"][take],
        crew_prep_minutes=ints[31][take],
        commute_minutes=ints[32][take],
        cabin_crew_sleep_pattern=np.where(pattern == 4, 0, pattern),  # contract §3.1
        fleet=tuple(frame[f"c{_FLEET}"].gather(take).to_list()),
        rank=tuple(frame[f"c{_RANK}"].gather(take).to_list()),
        airports=tuple(tables.airports),
        home_bases=tuple(tables.homes),
    )
    _check_schedules(columns, frame, reader)
    return ColumnarRead(columns, references, n_rows, home_rows)


def _first_home_rows(
    refs: pl.Series, row: IntArray, home: IntArray, tables: _Tables
) -> dict[str, tuple[int, Airport]]:
    """Each Reference's first row with a readable HomeBase: (row, base airport)."""
    found = pl.DataFrame({"ref": refs, "row": row, "home": home}).filter(
        (pl.col("ref") != "") & (pl.col("home") != _BAD)
    )
    first = found.group_by("ref", maintain_order=True).first()
    return {ref: (number, tables.homes[index][0]) for ref, number, index in first.iter_rows()}


def _check_schedules(columns: DutyColumns, frame: pl.DataFrame, reader: Any) -> None:
    """Duties of one schedule must not overlap (contract §3.1), and a schedule spans at
    most :data:`MAX_SPAN_DAYS` days.

    A running maximum of off-duty per schedule finds the schedules with an overlap, and
    the last off-duty against the first on-duty those too long; only those go through
    :func:`vigil.roster.checks.check_overlaps` and :func:`~vigil.roster.checks.check_span`
    for the messages.
    """
    if columns.n_duties == 0:
        return
    schedule = np.repeat(np.arange(len(columns.references)), np.diff(columns.offsets))
    latest = (
        pl.DataFrame({"s": schedule, "off": columns.off_duty})
        .select(pl.col("off").cum_max().shift(1).over("s").fill_null(NO_TIME))["off"]
        .to_numpy()
    )
    first_on = columns.on_duty[columns.offsets[:-1]][schedule]
    too_long = columns.off_duty - first_on > _MAX_SPAN_MINUTES
    flagged = np.unique(schedule[(columns.on_duty < latest) | too_long])
    if flagged.size == 0:
        return
    subset = columns.take(flagged)
    by_row = frame.select("row", *(f"c{p}" for p in (1, 2, 4, 5)))
    texts = by_row.filter(pl.col("row").is_in(subset.row.tolist()))
    written = {
        number: checks.Written(f"{a} {b}", f"{c} {d}") for number, a, b, c, d in texts.iter_rows()
    }
    for schedule_duties in subset.schedules():
        reader.errors.extend(checks.check_overlaps(schedule_duties.duties, written))
        reader.errors.extend(checks.check_span(schedule_duties.duties, written))
