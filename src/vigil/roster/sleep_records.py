"""SleepData records → :class:`~vigil.domain.SleepRecord` objects, or errors (contract §3.2).

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

from vigil.domain import SleepRecord
from vigil.roster.checks import format_length
from vigil.roster.columns import MAX_YEAR, MIN_YEAR
from vigil.roster.errors import RowError, Source, make_error

__all__ = ["SLEEP_FIELDS", "SleepDataShapeError", "check_sleep_data_shape", "parse_sleep_data"]

#: The fields of a sleep record (seed §2.3), in their canonical spelling.
SLEEP_FIELDS: tuple[str, ...] = ("ScheduleName", "SleepStart", "SleepEnd")
_MAX_SLEEP = timedelta(hours=24)


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


def _parse_instant(
    index: int, name: str, field: str, text: str, errors: list[RowError]
) -> datetime | None:
    text = text.strip()
    try:
        value = datetime.fromisoformat(text)
    except ValueError:
        code = "sleep-bad-datetime"
    else:
        if len(text) <= 10 or not any(c in text for c in "Tt "):
            code = "sleep-no-time"  # a date alone: fromisoformat reads it as midnight
        elif value.utcoffset() is None:
            code = "sleep-no-zone"
        elif not MIN_YEAR <= value.year <= MAX_YEAR:
            # as RosterData dates; year 1 or 9999 also overflowed datetime arithmetic
            # (OverflowError, a 500) once converted or padded
            errors.append(
                make_error(
                    "sleep-out-of-range",
                    index,
                    name,
                    source=Source.SLEEP,
                    field=field,
                    value=text,
                    min_year=MIN_YEAR,
                    max_year=MAX_YEAR,
                )
            )
            return None
        else:
            return value.astimezone(UTC)
    errors.append(make_error(code, index, name, source=Source.SLEEP, field=field, value=text))
    return None


def _stamp(value: datetime) -> str:
    return value.strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_sleep_data(
    records: Sequence[Mapping[str, object]], *, references: Collection[str]
) -> tuple[dict[str, list[SleepRecord]], list[RowError]]:
    """Read SleepData (contract §3.2).

    Parameters
    ----------
    records : sequence of mapping
        The SleepData array.
    references : collection of str
        Every Reference in RosterData; a ScheduleName must be one of them.

    Returns
    -------
    dict of str to list of SleepRecord, list of RowError
        Valid records by schedule, sorted by start; and the errors in index order.
    """
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
    if end <= start:
        errors.append(
            make_error(
                "sleep-order",
                index,
                name,
                source=Source.SLEEP,
                start=_stamp(start),
                end=_stamp(end),
            )
        )
    elif end - start > _MAX_SLEEP:
        errors.append(
            make_error(
                "sleep-too-long",
                index,
                name,
                source=Source.SLEEP,
                start=_stamp(start),
                end=_stamp(end),
                length=format_length(end - start),
            )
        )
    elif len(errors) == n_errors:
        return SleepRecord(name, start, end, index)
    return None


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
