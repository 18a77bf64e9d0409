"""SleepData read by column against the record-by-record reader it replaced."""

from __future__ import annotations

import pickle
import random
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime, timedelta

import numpy as np
import polars as pl
import pytest

from vigil.domain import SleepRecord
from vigil.roster.errors import RowError, format_error
from vigil.roster.sleep_columns import (
    SleepColumns,
    SleepSlice,
    first_start,
    last_end,
    record_arrays,
)
from vigil.roster.sleep_records import (
    _BAD,
    COLUMNAR_MIN_RECORDS,
    _check_overlaps,
    _instant,
    _microseconds,
    _parse_by_column,
    _parse_by_record,
    _read_record,
    parse_sleep_data,
)

REFERENCES = dict.fromkeys(["P1", "P2", "P3", "Crew, 4"])


def _one_by_one(
    records: Sequence[object],
) -> tuple[dict[str, list[SleepRecord]], list[RowError]]:
    """The former reader: every record through :func:`_read_record`, then the overlaps."""
    errors: list[RowError] = []
    by_schedule: dict[str, list[SleepRecord]] = {}
    for index, record in enumerate(records):
        sleep = _read_record(index, record, {}, REFERENCES, errors)
        if sleep is not None:
            by_schedule.setdefault(sleep.schedule_name, []).append(sleep)
    _check_overlaps(by_schedule, errors)
    errors.sort(key=lambda e: e.row)
    return by_schedule, errors


def _text(rng: random.Random, at: datetime) -> object:
    """An instant as SleepData might write it, now and then wrong."""
    roll = rng.random()
    if roll < 0.75:
        return at.strftime("%Y-%m-%dT%H:%M:%SZ")
    return rng.choice(
        [
            at.astimezone(UTC).isoformat(),  # +00:00
            (at + timedelta(hours=2)).strftime("%Y-%m-%dT%H:%M:%S+02:00"),
            at.strftime("%Y-%m-%dt%H:%M:%S.123456Z"),
            f" {at.strftime('%Y-%m-%dT%H:%M:%SZ')} ",
            at.strftime("%Y-%m-%dT%H:%M:%S"),  # no zone
            at.strftime("%Y-%m-%d"),  # no time
            "1/3/2026 05:00",
            "0999-03-01T05:00:00Z",  # out of range
            "2026-02-30T05:00:00Z",
            "2026-03-01T24:00:00Z",
            "2026-03-01T23:59:60Z",
            "2028-02-29T05:00:00Z",
            "2101-01-01T05:00:00Z",
            "2026-3-1T05:00:00Z",
            17,
            None,
        ]
    )


def _records(rng: random.Random, n: int) -> list[object]:
    base = datetime(2026, 3, 1, tzinfo=UTC)
    out: list[object] = []
    for _ in range(n):
        start = base + timedelta(minutes=rng.randrange(0, 20 * 24 * 60, 15))
        end = start + timedelta(minutes=rng.choice([-60, 0, 15, 300, 480, 24 * 60, 24 * 60 + 1]))
        name: object = rng.choice(["P1", "P2", "P3", " P2 ", "Crew, 4", "P9", 5])
        record: dict[str, object] = {
            "ScheduleName": name,
            "SleepStart": _text(rng, start),
            "SleepEnd": _text(rng, end),
        }
        roll = rng.random()
        if roll < 0.04:
            record = {k.upper(): v for k, v in record.items()}
        elif roll < 0.06:
            del record["SleepEnd"]
        elif roll < 0.07:
            record["Extra"] = 1
        out.append(record if rng.random() > 0.01 else ["not", "an", "object"])
    return out


@pytest.mark.parametrize("reader", [_parse_by_column, _parse_by_record])
@pytest.mark.parametrize("seed", range(12))
def test_columns_give_the_records_and_errors_of_the_one_by_one_reader(
    seed: int, reader: Callable[..., tuple[Mapping[str, Sequence[SleepRecord]], list[RowError]]]
) -> None:
    """Both readers against :func:`_read_record` on every record (the former reader)."""
    records = _records(random.Random(seed), 400)
    columns, errors = reader(records, REFERENCES)
    expected, expected_errors = _one_by_one(records)
    assert [format_error(e) for e in errors] == [format_error(e) for e in expected_errors]
    assert errors == expected_errors
    assert list(columns) == list(expected)  # schedules in order of their first record
    assert {k: list(v) for k, v in columns.items()} == expected


def test_large_sleep_data_is_read_by_column_small_by_record() -> None:
    record = {
        "ScheduleName": "P1",
        "SleepStart": "2026-03-01T22:00:00Z",
        "SleepEnd": "2026-03-02T06:00:00Z",
    }
    for n, kind in ((COLUMNAR_MIN_RECORDS - 1, dict), (COLUMNAR_MIN_RECORDS, SleepColumns)):
        found, errors = parse_sleep_data([record] * n, references=REFERENCES)
        assert isinstance(found, kind)
        assert len(errors) == n - 1  # each copy overlaps the first
        assert [len(v) for v in found.values()] == [n]


def test_usual_records_without_errors_are_read_by_column_alone() -> None:
    records = [
        {
            "ScheduleName": "P1",
            "SleepStart": "2026-03-02T22:00:00Z",
            "SleepEnd": "2026-03-03T06:00:00Z",
        },
        {
            "ScheduleName": "P2",
            "SleepStart": "2026-03-01T22:00:00Z",
            "SleepEnd": "2026-03-02T06:00:00Z",
        },
        {
            "ScheduleName": "P1",
            "SleepStart": "2026-03-01T22:00:00Z",
            "SleepEnd": "2026-03-02T22:00:00Z",
        },
    ]
    columns, errors = _parse_by_column(records, REFERENCES)
    assert errors == []
    assert columns.names == ("P1", "P2")
    assert columns.offsets.tolist() == [0, 2, 3]
    assert columns.index.tolist() == [2, 0, 1]  # P1 sorted by start
    assert columns["P1"][0] == SleepRecord(
        "P1", datetime(2026, 3, 1, 22, tzinfo=UTC), datetime(2026, 3, 2, 22, tzinfo=UTC), 2
    )  # exactly 24 h is allowed


def test_overlap_with_an_earlier_longer_record_names_that_record() -> None:
    records = [
        {
            "ScheduleName": "P1",
            "SleepStart": "2026-03-01T20:00:00Z",
            "SleepEnd": "2026-03-02T10:00:00Z",
        },
        {
            "ScheduleName": "P1",
            "SleepStart": "2026-03-01T21:00:00Z",
            "SleepEnd": "2026-03-01T22:00:00Z",
        },
        {
            "ScheduleName": "P1",
            "SleepStart": "2026-03-02T09:00:00Z",
            "SleepEnd": "2026-03-02T12:00:00Z",
        },
        {
            "ScheduleName": "P2",
            "SleepStart": "2026-03-02T09:00:00Z",
            "SleepEnd": "2026-03-02T12:00:00Z",
        },
    ]
    _, errors = _parse_by_column(records, REFERENCES)
    assert [(e.row, e.reference) for e in errors] == [(1, "P1"), (2, "P1")]
    assert errors == _one_by_one(records)[1]
    assert "SleepData[0]" in errors[1].message


def test_empty_sleep_data() -> None:
    for reader in (_parse_by_column, _parse_by_record):
        columns, errors = reader([], REFERENCES)
        assert (len(columns), errors, columns.get("P1")) == (0, [], None)


def _month() -> SleepColumns:
    rng = random.Random(3)
    records = [r for r in _records(rng, 300) if isinstance(r, dict)]
    columns, _ = _parse_by_column(records, REFERENCES)  # type: ignore[arg-type]
    return columns


def test_a_slice_reads_as_the_tuple_of_its_records() -> None:
    columns = _month()
    for name in columns:
        records = columns[name]
        assert isinstance(records, SleepSlice)
        objects = tuple(records)
        assert len(records) == len(objects) and records == objects and records == list(objects)
        assert records[-1] == objects[-1] and records[1:3] == objects[1:3]
        assert [r.start for r in objects] == sorted(r.start for r in objects)
        assert first_start(records) == min(r.start for r in objects) == first_start(objects)
        assert last_end(records) == max(r.end for r in objects) == last_end(objects)
    assert "P9" not in columns and columns.get("P9") is None
    with pytest.raises(KeyError):
        columns["P9"]
    assert first_start(()) is None and last_end(()) is None


def test_record_arrays_of_slices_equal_those_of_record_objects() -> None:
    columns = _month()
    names = ["P3", "P1", "P2", "P1"]
    per_crew: list[Sequence[SleepRecord]] = [columns.get(n, ()) for n in names]
    per_crew.insert(2, ())
    counts, start, end = record_arrays(per_crew)
    as_objects = record_arrays([tuple(records) for records in per_crew])
    assert counts.tolist() == as_objects[0].tolist() == [len(r) for r in per_crew]
    np.testing.assert_array_equal(start, as_objects[1])
    np.testing.assert_array_equal(end, as_objects[2])
    epoch = datetime(1970, 1, 1, tzinfo=UTC)
    first = per_crew[0][0]
    assert start[0] == (first.start - epoch) // timedelta(microseconds=1)


def test_columns_are_a_mapping_of_schedule_to_records() -> None:
    columns = _month()
    assert isinstance(columns, Mapping)
    assert dict(columns) == {name: columns[name] for name in columns.names}


def test_columns_and_slices_survive_pickling() -> None:
    """Parsed requests travel to Dask workers as pickles (``vigil.worker.dask``)."""
    columns = _month()
    name = columns.names[0]
    copy, piece = pickle.loads(pickle.dumps(columns)), pickle.loads(pickle.dumps(columns[name]))
    assert {k: tuple(v) for k, v in copy.items()} == {k: tuple(v) for k, v in columns.items()}
    assert piece == columns[name]


def test_instants_read_by_polars_equal_those_read_by_fromisoformat() -> None:
    """The usual spelling read by Polars gives :func:`_instant`'s instant, and every text
    it must not read (impossible dates, hour 24, a leap second, years out of range)
    falls to :func:`_instant`."""
    texts = [
        f"{y:04d}-{m:02d}-{d:02d}T{h:02d}:{mi:02d}:{s:02d}Z"
        for y in (999, 1000, 1900, 1969, 1970, 2026, 2028, 2100, 2101, 9999)
        for m, d in ((1, 1), (2, 28), (2, 29), (2, 30), (4, 31), (12, 31), (13, 1), (0, 1))
        for h, mi, s in ((0, 0, 0), (23, 59, 59), (24, 0, 0), (23, 59, 60), (12, 60, 0))
    ] + ["2026-03-01T22:00:00+01:00", "2026-3-01T22:00:00Z", "2026-03-01 22:00:00Z"]
    epoch = datetime(1970, 1, 1, tzinfo=UTC)
    expected = []
    for text in texts:
        value = _instant(text)
        expected.append(
            (value - epoch) // timedelta(microseconds=1) if isinstance(value, datetime) else _BAD
        )
    got = _microseconds(pl.Series(texts, dtype=pl.String))
    assert got == expected
    assert 0 < expected.count(_BAD) < len(texts)


@pytest.mark.parametrize("field", ["ScheduleName", "SleepEnd"])
def test_a_lone_surrogate_sends_large_sleep_data_to_the_record_reader(field: str) -> None:
    """Polars holds UTF-8 only; ``json.loads`` lets ``"\\ud800"`` through."""
    records: list[dict[str, object]] = [
        {
            "ScheduleName": "P1",
            "SleepStart": f"2026-03-01T{h:02d}:00:00Z",
            "SleepEnd": f"2026-03-01T{h:02d}:30:00Z",
        }
        for h in range(24)
    ] * (COLUMNAR_MIN_RECORDS // 24 + 1)
    records[5] = dict(records[5], **{field: "P1\ud800"})
    found, errors = parse_sleep_data(records, references=REFERENCES)  # type: ignore[arg-type]
    expected, expected_errors = _one_by_one(records)
    assert isinstance(found, dict) and found == expected
    assert [format_error(e) for e in errors] == [format_error(e) for e in expected_errors]
