"""SleepData records → valid records by schedule, or errors (contract §3.2).

Two layers of problems:

* **Shape** (request-level, 400 in the API, contract §3): a record that is not an
  object, lacks ScheduleName/SleepStart/SleepEnd, or holds a non-string.
  :func:`check_sleep_data_shape` lists them as :class:`SleepDataShapeError` values so
  the web layer can name each offending property; :func:`parse_sleep_data` turns the
  same problems into ``SleepData[i]`` data errors instead of raising.
* **Data** (``SleepData[i]|schedule|message``): a time that is not ISO 8601, a date
  without a time, a time without a zone designator, end not after start, a sleep over
  24 h, overlapping records of one schedule, a ScheduleName matching no Reference.

Field names match in any case; ``Z`` and ``+00:00`` are UTC and any other offset is
converted to UTC.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np
import numpy.typing as npt
import polars as pl

from vigil.domain import SleepRecord
from vigil.roster.checks import format_length
from vigil.roster.columns import MAX_YEAR, MIN_YEAR
from vigil.roster.errors import RowError, Source, make_error
from vigil.roster.sleep_columns import SleepColumns, microseconds_of

__all__ = [
    "COLUMNAR_MIN_RECORDS",
    "SLEEP_FIELDS",
    "SleepDataShapeError",
    "check_sleep_data_shape",
    "parse_sleep_data",
]

#: The fields of a sleep record (seed §2.3), in their canonical spelling.
SLEEP_FIELDS: tuple[str, ...] = ("ScheduleName", "SleepStart", "SleepEnd")
_MAX_SLEEP = timedelta(hours=24)

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]


@dataclass(frozen=True, slots=True)
class SleepDataShapeError:
    """A request-level problem with one SleepData record (contract §3: answered with 400).

    ``field`` is ``""`` when the record itself is not an object.
    """

    index: int
    field: str
    problem: str  #: ``"not-an-object"``, ``"missing"`` or ``"not-a-string"``

    @property
    def pointer(self) -> str:
        """Where the problem is, e.g. ``SleepData[0].SleepEnd``."""
        base = f"SleepData[{self.index}]"
        return f"{base}.{self.field}" if self.field else base

    @property
    def message(self) -> str:
        if self.problem == "not-an-object":
            return f"{self.pointer} must be an object with {', '.join(SLEEP_FIELDS)}"
        if self.problem == "missing":
            return f"{self.pointer} is missing"
        return f"{self.pointer} must be a string"


_CANONICAL = {name.lower(): name for name in SLEEP_FIELDS}


def _fields(record: Mapping[Any, object]) -> Mapping[str, object]:
    """The record's values by canonical field name (names match in any case)."""
    if len(record) == len(SLEEP_FIELDS) and all(name in record for name in SLEEP_FIELDS):
        return record  # the usual spelling: nothing to map
    out: dict[str, object] = {}
    for key, value in record.items():
        name = _CANONICAL.get(str(key).lower())
        if name is not None and name not in out:
            out[name] = value
    return out


def check_sleep_data_shape(records: object) -> tuple[SleepDataShapeError, ...]:
    """Request-level problems of a SleepData array (empty tuple when its shape is right).

    Parameters
    ----------
    records : object
        The decoded SleepData value; each element should be an object with the three
        string fields of seed §2.3 (names in any case).
    """
    if not isinstance(records, Sequence) or isinstance(records, str | bytes):
        return (SleepDataShapeError(-1, "", "not-an-object"),)
    problems: list[SleepDataShapeError] = []
    for index, record in enumerate(records):
        if not isinstance(record, Mapping):
            problems.append(SleepDataShapeError(index, "", "not-an-object"))
            continue
        values = _fields(record)
        for name in SLEEP_FIELDS:
            if name not in values or values[name] is None:
                problems.append(SleepDataShapeError(index, name, "missing"))
            elif not isinstance(values[name], str):
                problems.append(SleepDataShapeError(index, name, "not-a-string"))
    return tuple(problems)


def _instant(text: str) -> datetime | str:
    """A SleepStart/SleepEnd text → the UTC instant, or the error code (contract §3.2)."""
    text = text.strip()
    try:
        value = datetime.fromisoformat(text)
    except ValueError:
        return "sleep-bad-datetime"
    if len(text) <= 10 or not any(c in text for c in "Tt "):
        return "sleep-no-time"  # a date alone: fromisoformat reads it as midnight
    if value.utcoffset() is None:
        return "sleep-no-zone"
    if not MIN_YEAR <= value.year <= MAX_YEAR:
        # as RosterData dates; year 1 or 9999 also overflowed datetime arithmetic
        # (OverflowError, a 500) once converted or padded
        return "sleep-out-of-range"
    return value.astimezone(UTC)


def _parse_instant(
    index: int, name: str, field: str, text: str, errors: list[RowError]
) -> datetime | None:
    value = _instant(text)
    if isinstance(value, datetime):
        return value
    years = {"min_year": MIN_YEAR, "max_year": MAX_YEAR} if value == "sleep-out-of-range" else {}
    errors.append(
        make_error(
            value, index, name, source=Source.SLEEP, field=field, value=text.strip(), **years
        )
    )
    return None


def _stamp(value: datetime) -> str:
    return value.strftime("%Y-%m-%dT%H:%M:%SZ")


#: From this many records on, SleepData is read by column (:func:`_parse_by_column`);
#: below, Polars' per-call cost exceeds the record reader's (32 records: 0.18 ms by
#: record, 1.9 ms by column; 366,054 records: 1.1 s by record, 0.4 s by column).
COLUMNAR_MIN_RECORDS = 1000


def parse_sleep_data(
    records: Sequence[Mapping[str, object]], *, references: Collection[str]
) -> tuple[Mapping[str, Sequence[SleepRecord]], list[RowError]]:
    """Read SleepData (contract §3.2).

    Parameters
    ----------
    records : sequence of mapping
        The SleepData array.
    references : collection of str
        Every Reference in RosterData; a ScheduleName must be one of them.

    Returns
    -------
    mapping of str to sequence of SleepRecord, list of RowError
        Valid records by schedule (in order of their first record), each sorted by
        start; and the errors in index order. From :data:`COLUMNAR_MIN_RECORDS`
        records on, the mapping is a :class:`SleepColumns`.
    """
    if len(records) >= COLUMNAR_MIN_RECORDS:
        try:
            return _parse_by_column(records, references)
        except UnicodeEncodeError:  # a lone surrogate: Polars holds UTF-8 only
            pass
    return _parse_by_record(records, references)


def _parse_by_record(
    records: Sequence[Mapping[str, object]], references: Collection[str]
) -> tuple[dict[str, list[SleepRecord]], list[RowError]]:
    """SleepData read record by record: the usual record by :func:`_plain_record`, any
    other (or one failing a check) by :func:`_read_record`, which writes its errors."""
    errors: list[RowError] = []
    by_schedule: dict[str, list[SleepRecord]] = {}
    parsed: dict[str, datetime] = {}
    for index, record in enumerate(records):
        sleep = _plain_record(index, record, parsed, references)
        if sleep is None:
            sleep = _read_record(index, record, parsed, references, errors)
        if sleep is not None:
            by_schedule.setdefault(sleep.schedule_name, []).append(sleep)
    _check_overlaps(by_schedule, errors)
    errors.sort(key=lambda e: e.row)
    return by_schedule, errors


def _parse_by_column(
    records: Sequence[Mapping[str, object]], references: Collection[str]
) -> tuple[SleepColumns, list[RowError]]:
    """SleepData read by column.

    The usual records (dicts of the three canonical fields, holding strings) are read
    by column: each distinct text is parsed once and the checks are array passes. Any
    record that is not usual or fails a check is read again by :func:`_read_record`,
    which writes its errors; overlaps are looked for by array pass and written, for
    the schedules that have one, by :func:`_check_overlaps`.
    """
    errors: list[RowError] = []
    if not records:
        return SleepColumns.empty(), errors
    usual = _usual_columns(records, references)
    ok = usual.ok
    parsed: dict[str, datetime] = {}
    extra: list[SleepRecord] = []
    for index in np.flatnonzero(~ok).tolist():
        sleep = _read_record(index, records[index], parsed, references, errors)
        if sleep is not None:
            extra.append(sleep)
    code = {name: k for k, name in enumerate(usual.names)}
    for record in extra:
        code.setdefault(record.schedule_name, len(code))
    columns = _group(
        list(code),
        np.concatenate([usual.name_code[ok], [code[r.schedule_name] for r in extra]]),
        np.concatenate([usual.start[ok], [microseconds_of(r.start) for r in extra]]),
        np.concatenate([usual.end[ok], [microseconds_of(r.end) for r in extra]]),
        np.concatenate([np.flatnonzero(ok), [r.index for r in extra]]),
    )
    overlapping = _overlapping_groups(columns)
    _check_overlaps(
        {columns.names[g]: list(columns[columns.names[g]]) for g in overlapping}, errors
    )
    errors.sort(key=lambda e: e.row)
    return columns, errors


_PLAIN_KEYS = frozenset(SLEEP_FIELDS)


def _plain_record(
    index: int, record: object, parsed: Mapping[str, datetime], references: Collection[str]
) -> SleepRecord | None:
    """The usual record, read without error checks: a dict of the three canonical fields,
    strings whose instants were already read, a known schedule and a sleep of (0, 24] h.
    None for anything else, which :func:`_read_record` then reads with every check."""
    if type(record) is not dict or record.keys() != _PLAIN_KEYS:
        return None
    name, start_text, end_text = record["ScheduleName"], record["SleepStart"], record["SleepEnd"]
    if type(name) is not str or type(start_text) is not str or type(end_text) is not str:
        return None
    start, end, name = parsed.get(start_text), parsed.get(end_text), name.strip()
    if start is None or end is None or name not in references:
        return None
    if not start < end or end - start > _MAX_SLEEP:
        return None
    return SleepRecord(name, start, end, index)


_MAX_SLEEP_US = _MAX_SLEEP // timedelta(microseconds=1)
_BAD = np.iinfo(np.int64).min  # an instant that did not parse


@dataclass(frozen=True)
class _UsualColumns:
    """The usual records of SleepData by column; ``ok`` is False where a record must be
    read again one by one (not usual, a bad text, an unknown schedule, a bad length)."""

    ok: BoolArray
    names: list[str]  #: distinct stripped ScheduleName values
    name_code: IntArray  #: index into ``names`` per record
    start: IntArray  #: [microseconds since the epoch]
    end: IntArray


def _usual_columns(
    records: Sequence[Mapping[str, object]], references: Collection[str]
) -> _UsualColumns:
    """The usual records read by column, each distinct text once; every check of
    :func:`_read_record` made as an array pass (a record failing one is not ``ok``)."""
    usual = np.array([type(r) is dict and r.keys() == _PLAIN_KEYS for r in records], dtype=bool)
    rows = records if usual.all() else [records[i] for i in np.flatnonzero(usual).tolist()]
    name, start, end = (_text_column([r[f] for r in rows]) for f in SLEEP_FIELDS)
    texts = pl.concat([start, end]).unique().drop_nulls()
    microseconds = _microseconds(texts)

    def instant_column(texts_of: pl.Series) -> IntArray:
        # a text not in ``texts`` is a null (a value that is not a string): _BAD too
        mapped = texts_of.replace_strict(texts, microseconds, default=_BAD, return_dtype=pl.Int64)
        out: IntArray = mapped.to_numpy().astype(np.int64)
        return out

    raw_names = name.unique().drop_nulls().to_list()
    stripped = [n.strip() for n in raw_names]
    distinct = list(dict.fromkeys(stripped))
    code = {n: k for k, n in enumerate(distinct)}
    known = np.array([n in references for n in distinct] or [False], dtype=bool)
    name_code = name.replace_strict(
        raw_names, [code[n] for n in stripped], default=-1, return_dtype=pl.Int64
    ).to_numpy()
    a, b = instant_column(start), instant_column(end)
    good = (name_code >= 0) & (a != _BAD) & (b != _BAD)
    good &= known[np.maximum(name_code, 0)] & (a < b) & (b - a <= _MAX_SLEEP_US)
    ok = usual.copy()
    ok[usual] = good
    return _UsualColumns(
        ok,
        distinct,
        _spread(name_code, usual, 0),
        _spread(a, usual, _BAD),
        _spread(b, usual, _BAD),
    )


#: The usual spelling of an instant, read by Polars; every other spelling by :func:`_instant`.
_USUAL_INSTANT = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]Z$"
_USUAL_FORMAT = "%Y-%m-%dT%H:%M:%SZ"


def _microseconds(texts: pl.Series) -> list[int]:
    """Distinct SleepStart/SleepEnd texts → microseconds since the epoch, ``_BAD`` where
    :func:`_instant` finds an error.

    Texts of the usual spelling (``2026-03-01T22:00:00Z``) that Polars reads as a date
    of the allowed years are read by Polars; the others (other spellings, offsets,
    fractions, impossible dates) one by one by :func:`_instant`.
    """
    text = pl.col("text")
    at = text.str.strptime(pl.Datetime("us", "UTC"), _USUAL_FORMAT, strict=False)
    usual = text.str.contains(_USUAL_INSTANT) & at.dt.year().is_between(MIN_YEAR, MAX_YEAR)
    fast = pl.DataFrame({"text": texts}).select(pl.when(usual).then(at.dt.epoch("us")))
    return [
        _microseconds_or_bad(t) if value is None else value
        for t, value in zip(texts.to_list(), fast.to_series().to_list(), strict=True)
    ]


def _microseconds_or_bad(text: str) -> int:
    value = _instant(text)
    return microseconds_of(value) if isinstance(value, datetime) else _BAD


def _text_column(values: list[object]) -> pl.Series:
    """One field of the usual records as strings; a value that is not a string is null."""
    try:
        return pl.Series(values, dtype=pl.String, strict=True)
    except (TypeError, pl.exceptions.PolarsError):
        return pl.Series([v if type(v) is str else None for v in values], dtype=pl.String)


def _spread(values: IntArray, where: BoolArray, fill: int) -> IntArray:
    """``values`` at the True positions of ``where``, ``fill`` elsewhere."""
    out = np.full(where.size, fill, dtype=np.int64)
    out[where] = values
    return out


def _group(
    names: list[str], code: IntArray, start: IntArray, end: IntArray, index: IntArray
) -> SleepColumns:
    """Records (schedule ``names[code]``) as :class:`SleepColumns`: schedules in order of
    their first record in SleepData, each sorted by start, end and index."""
    if not code.size:
        return SleepColumns.empty()
    code = code.astype(np.int64)
    used, first = np.unique(code[np.argsort(index, kind="stable")], return_index=True)
    ranked = used[np.argsort(first)]  # codes in order of their first record
    group_of = np.zeros(len(names), dtype=np.int64)
    group_of[ranked] = np.arange(ranked.size)
    group = group_of[code]
    by = {"group": group, "start": start, "end": end, "index": index}
    order = pl.DataFrame(by).select(pl.arg_sort_by(list(by))).to_series().to_numpy()
    return SleepColumns(
        tuple(names[k] for k in ranked.tolist()),
        np.concatenate([[0], np.cumsum(np.bincount(group))]).astype(np.int64),
        start[order].astype(np.int64),
        end[order].astype(np.int64),
        index[order].astype(np.int64),
    )


def _overlapping_groups(columns: SleepColumns) -> list[int]:
    """Schedules (group numbers) with a record starting before an earlier one ends."""
    n = columns.start.size
    if n == 0:
        return []
    group = np.repeat(np.arange(len(columns.names)), np.diff(columns.offsets))
    # the latest end among each record's predecessors in its schedule
    latest_end = (
        pl.DataFrame({"group": group, "end": columns.end})
        .select(pl.col("end").cum_max().shift(1).over("group"))
        .to_series()
        .fill_null(_BAD)
        .to_numpy()
    )
    overlap = columns.start < latest_end
    found: list[int] = np.unique(group[overlap]).tolist()
    return found


def _read_record(
    index: int,
    record: object,
    parsed: dict[str, datetime],
    references: Collection[str],
    errors: list[RowError],
) -> SleepRecord | None:
    """One SleepData record with every check: the record, or None with its errors added."""
    if not isinstance(record, Mapping):
        errors.append(make_error("sleep-not-object", index, source=Source.SLEEP))
        return None
    values = _fields(record)
    raw_name = values.get("ScheduleName")
    name = raw_name.strip() if isinstance(raw_name, str) else ""
    n_errors = len(errors)
    for field in SLEEP_FIELDS:
        value = values.get(field)
        if value is None:
            errors.append(
                make_error("sleep-missing-field", index, name, source=Source.SLEEP, field=field)
            )
        elif not isinstance(value, str):
            errors.append(
                make_error("sleep-bad-type", index, name, source=Source.SLEEP, field=field)
            )
    if len(errors) != n_errors:
        return None
    start_text, end_text = values["SleepStart"], values["SleepEnd"]
    assert isinstance(start_text, str) and isinstance(end_text, str)
    start = parsed.get(start_text) or _parse_instant(index, name, "SleepStart", start_text, errors)
    end = parsed.get(end_text) or _parse_instant(index, name, "SleepEnd", end_text, errors)
    if start is not None:  # a valid text always reads the same: read it once
        parsed[start_text] = start
    if end is not None:
        parsed[end_text] = end
    if name not in references:
        errors.append(
            make_error("sleep-unknown-schedule", index, name, source=Source.SLEEP, name=name)
        )
    if start is None or end is None:
        return None
    if _period_errors(index, name, start, end, errors) or len(errors) != n_errors:
        return None
    return SleepRecord(name, start, end, index)


def _period_errors(
    index: int, name: str, start: datetime, end: datetime, errors: list[RowError]
) -> bool:
    """Add the errors of a sleep period (end after start, at most 24 h); whether any."""
    if end <= start:
        errors.append(
            make_error(
                "sleep-order", index, name, source=Source.SLEEP,
                start=_stamp(start), end=_stamp(end),
            )
        )  # fmt: skip
        return True
    if end - start > _MAX_SLEEP:
        errors.append(
            make_error(
                "sleep-too-long", index, name, source=Source.SLEEP,
                start=_stamp(start), end=_stamp(end), length=format_length(end - start),
            )
        )  # fmt: skip
        return True
    return False


def _check_overlaps(by_schedule: Mapping[str, list[SleepRecord]], errors: list[RowError]) -> None:
    """Sort each schedule's records by start and add an error for each overlap."""
    for name, sleeps in by_schedule.items():
        sleeps.sort(key=lambda s: (s.start, s.end, s.index))
        latest: SleepRecord | None = None
        for sleep in sleeps:
            if latest is not None and sleep.start < latest.end:
                errors.append(
                    make_error(
                        "sleep-overlap",
                        sleep.index,
                        name,
                        source=Source.SLEEP,
                        start=_stamp(sleep.start),
                        end=_stamp(sleep.end),
                        other=latest.index,
                        o_start=_stamp(latest.start),
                        o_end=_stamp(latest.end),
                    )
                )
            if latest is None or sleep.end > latest.end:
                latest = sleep
