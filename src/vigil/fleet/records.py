"""Per-duty and per-schedule rows shared by the CSV, XLSX and PDF reports.

Times are written ISO 8601 in UTC (``2026-03-01T06:00Z``) and local wall time at the
airport (report at the start airport, off duty at the end airport), so a sheet reads like
the roster it came from. Text cells are neutralised against spreadsheet formula injection
(OWASP "CSV injection"), as ``vigil score``'s CSV does.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np
import numpy.typing as npt

from vigil.fleet import drivers
from vigil.fleet.table import DUTY_KINDS, DutyTable, FloatArray, IntArray

__all__ = [
    "SCHEDULE_HEADER",
    "duty_columns",
    "duty_header",
    "duty_records",
    "schedule_columns",
    "local_text",
    "spreadsheet_safe",
    "utc_text",
]

#: a cell starting with one of these is read as a formula by spreadsheets
_FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r", "\n")


def spreadsheet_safe(value: str) -> str:
    """Text a spreadsheet shows as text: a leading formula character gets a ``'`` (OWASP
    CSV injection); the one neutraliser of every CSV and XLSX Vigil writes."""
    return "'" + value if value.startswith(_FORMULA_PREFIXES) else value


def utc_text(epoch_s: int) -> str:
    return datetime.fromtimestamp(epoch_s, UTC).strftime("%Y-%m-%dT%H:%MZ")


def local_text(epoch_s: int, offset_min: int) -> str:
    """Wall time at UTC offset ``offset_min`` with the offset, e.g. ``2026-03-01 07:00 +01:00``."""
    local = datetime.fromtimestamp(epoch_s, UTC) + timedelta(minutes=offset_min)
    sign = "+" if offset_min >= 0 else "-"
    h, m = divmod(abs(offset_min), 60)
    return f"{local:%Y-%m-%d %H:%M} {sign}{h:02d}:{m:02d}"


def duty_header(scale: str) -> list[str]:
    """Column names of :func:`duty_records` on ``scale``."""
    return [
        "Reference",
        "Duty",
        "Fleet",
        "Rank",
        "Start",
        "End",
        "Sectors",
        "Kind",
        "Report UTC",
        "Off UTC",
        "Report local",
        "Off local",
        "Hours",
        f"Peak {scale}",
        f"Mean {scale}",
        f"Top of descent {scale}",
        "Minutes at/above warning",
        "Risk",
        "Band",
        "Rest before (h)",
        "Crew",
        "What drives the risk",
    ]


def _minutes_text(epoch_s: IntArray) -> npt.NDArray[np.str_]:
    """``YYYY-MM-DD?HH:MM`` of each instant (vectorised)."""
    return np.datetime_as_string(epoch_s.astype("datetime64[s]"), unit="m")


def _offset_text(offset_min: int) -> str:
    sign = "+" if offset_min >= 0 else "-"
    h, m = divmod(abs(offset_min), 60)
    return f"{sign}{h:02d}:{m:02d}"


def _local_column(epoch_s: IntArray, offset_min: IntArray) -> list[str]:
    wall = np.char.replace(_minutes_text(epoch_s + offset_min * 60), "T", " ").tolist()
    offsets = {o: _offset_text(o) for o in set(offset_min.tolist())}
    return [f"{w} {offsets[o]}" for w, o in zip(wall, offset_min.tolist(), strict=True)]


#: Excel's day number of 1970-01-01 (its epoch is 1899-12-30)
EXCEL_EPOCH_DAYS = 25569


def _serial(epoch_s: IntArray) -> FloatArray:
    """Spreadsheet date-time serials (days since 1899-12-30), to the second."""
    return np.round(epoch_s / 86400.0 + EXCEL_EPOCH_DAYS, 8)


def _time_columns(t: DutyTable, serial_times: bool) -> list[npt.NDArray[Any] | list[Any]]:
    """On and off duty in UTC, then in local wall time: text (``2026-03-01T06:00Z``,
    ``2026-03-01 07:00 +01:00``), or with ``serial_times`` spreadsheet date-time numbers."""
    if serial_times:
        return [
            _serial(t.on_s),
            _serial(t.off_s),
            _serial(t.on_s + t.start_offset * 60),
            _serial(t.off_s + t.end_offset * 60),
        ]
    return [
        [f"{x}Z" for x in _minutes_text(t.on_s).tolist()],
        [f"{x}Z" for x in _minutes_text(t.off_s).tolist()],
        _local_column(t.on_s, t.start_offset),
        _local_column(t.off_s, t.end_offset),
    ]


def _band_words(t: DutyTable) -> npt.NDArray[Any]:
    """The words of each duty's risk band (``""`` where the duty has no R)."""
    uppers = np.asarray([b.upper for b in t.bands])
    words = np.asarray([b.words for b in t.bands] + [""], dtype=object)
    finite = np.isfinite(t.risk)
    band = np.where(finite, np.searchsorted(uppers, np.where(finite, t.risk, 0.0), "right"), -1)
    out: npt.NDArray[Any] = words[band]
    return out


def duty_columns(
    t: DutyTable, airport_style: str = "iata", *, serial_times: bool = False
) -> list[npt.NDArray[Any] | list[Any]]:
    """The :func:`duty_header` columns, built vectorised (numpy), one entry per duty.

    Text columns are object arrays of formula-safe strings (``""`` when unknown), numbers
    are int arrays or float arrays rounded for display (NaN where there is no value).
    Times are text (``2026-03-01T06:00Z``, ``2026-03-01 07:00 +01:00``), or with
    ``serial_times`` spreadsheet date-time numbers (UTC, and local wall time).
    """
    refs = np.asarray([spreadsheet_safe(r) for r in t.references] + [""], dtype=object)
    fleet = np.asarray([spreadsheet_safe(f) for f in t.fleet] + [""], dtype=object)
    rank = np.asarray([spreadsheet_safe(r) for r in t.rank] + [""], dtype=object)
    codes = [t.airports.label(i, airport_style) for i in range(len(t.airports.code))]
    airports = np.asarray([*codes, ""], dtype=object)
    kinds = np.asarray(DUTY_KINDS, dtype=object)
    return [
        refs[t.sched],
        t.number,
        fleet[t.sched],
        rank[t.sched],
        airports[t.start],  # -1 (unknown) picks the blank last entry
        airports[t.end],
        t.sectors,
        kinds[t.kind],
        *_time_columns(t, serial_times),
        np.round(t.minutes / 60.0, 2),
        np.round(t.peak, 3),
        np.round(t.mean, 3),
        np.round(t.tod, 3),
        np.round(t.above_minutes, 1),
        np.round(t.risk, 3),
        _band_words(t),
        np.round(t.rest_before_h, 2),
        _crew_column(t),
        drivers.reasons_text(t),  # the API's riskReasons; "" where not stored
    ]


def _crew_column(t: DutyTable) -> npt.NDArray[Any]:
    """Each duty's crew composition in words (:data:`vigil.fleet.drivers.CREW_WORDS`)."""
    crew = t.crew if t.crew is not None else np.zeros(len(t), dtype=np.int64)
    codes = sorted({*drivers.CREW_WORDS, *np.unique(crew).tolist()})
    words = np.asarray([drivers.CREW_WORDS.get(c, str(c)) for c in codes], dtype=object)
    return words[np.searchsorted(codes, crew)]


def _plain(column: npt.NDArray[Any] | list[Any]) -> list[Any]:
    """Python values of a column; ``None`` for a float that is not finite."""
    if isinstance(column, list):
        return column
    if column.dtype.kind == "f":
        return [v if math.isfinite(v) else None for v in column.tolist()]
    values: list[Any] = column.tolist()
    return values


def duty_records(
    t: DutyTable, airport_style: str = "iata", *, serial_times: bool = False
) -> Iterator[list[Any]]:
    """One row per duty (:func:`duty_header` order); numbers stay numbers, ``None`` if absent.

    Rows of :func:`duty_columns`, zipped: 136,000 duties in well under a second.
    """
    columns = [_plain(c) for c in duty_columns(t, airport_style, serial_times=serial_times)]
    for row in zip(*columns, strict=True):
        yield list(row)


SCHEDULE_HEADER = [
    "Reference",
    "Fleet",
    "Rank",
    "Duties",
    "Peak",
    "Highest risk",
    "Minutes at/above warning",
    "Share of time at work at/above warning",
    "Rests < 12 h",
    "Runs of 3+ early starts",
    "Runs of 3+ nights",
]


def schedule_columns(rows: dict[str, list[Any]]) -> list[list[Any]]:
    """The :data:`SCHEDULE_HEADER` columns from the stored columns (text formula-safe)."""
    return [
        [spreadsheet_safe(r) for r in rows["reference"]],
        [spreadsheet_safe(f) for f in rows["fleet"]],
        [spreadsheet_safe(r) for r in rows["rank"]],
        *(
            rows[key]
            for key in (
                "duties",
                "peak",
                "maxRisk",
                "aboveMinutes",
                "aboveShare",
                "shortRests",
                "earlyRuns",
                "nightRuns",
            )
        ),
    ]
