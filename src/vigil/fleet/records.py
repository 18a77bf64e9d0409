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

from vigil.fleet.bands import risk_band
from vigil.fleet.table import DUTY_KINDS, DutyTable

__all__ = [
    "SCHEDULE_HEADER",
    "duty_header",
    "duty_records",
    "local_text",
    "schedule_records",
    "spreadsheet_safe",
    "utc_text",
]

#: a cell starting with one of these is read as a formula by spreadsheets
_FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r", "\n")


def spreadsheet_safe(value: str) -> str:
    """Text a spreadsheet shows as text: a leading formula character gets a ``'``."""
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
        "Minutes at/above warning",
        "Risk",
        "Band",
        "Rest before (h)",
    ]


def _num(value: float, digits: int) -> float | None:
    return round(float(value), digits) if math.isfinite(float(value)) else None


def duty_records(t: DutyTable, airport_style: str = "iata") -> Iterator[list[Any]]:
    """One row per duty (:func:`duty_header` order); numbers stay numbers."""
    label = t.airports.label
    for i in range(len(t)):
        s, e = int(t.start[i]), int(t.end[i])
        sched = int(t.sched[i])
        on, off = int(t.on_s[i]), int(t.off_s[i])
        risk = _num(t.risk[i], 3)
        band = risk_band(risk)
        yield [
            spreadsheet_safe(t.references[sched]),
            int(t.number[i]),
            spreadsheet_safe(t.fleet[sched]),
            spreadsheet_safe(t.rank[sched]),
            label(s, airport_style) if s >= 0 else "",
            label(e, airport_style) if e >= 0 else "",
            int(t.sectors[i]),
            DUTY_KINDS[int(t.kind[i])],
            utc_text(on),
            utc_text(off),
            local_text(on, int(t.start_offset[i])),
            local_text(off, int(t.end_offset[i])),
            round(float(t.minutes[i]) / 60.0, 2),
            _num(t.peak[i], 3),
            _num(t.mean[i], 3),
            _num(t.above_minutes[i], 1),
            risk,
            band.words if band else "",
            _num(t.rest_before_h[i], 2),
        ]


SCHEDULE_HEADER = [
    "Reference",
    "Fleet",
    "Rank",
    "Duties",
    "Peak",
    "Highest risk",
    "Minutes at/above warning",
    "Share of duty time at/above warning",
    "Rests < 12 h",
    "Runs of 3+ early starts",
    "Runs of 3+ nights",
]


def schedule_records(rows: dict[str, list[Any]]) -> Iterator[list[Any]]:
    """One row per schedule (:data:`SCHEDULE_HEADER` order) from the stored columns."""
    for i, reference in enumerate(rows["reference"]):
        yield [
            spreadsheet_safe(reference),
            spreadsheet_safe(rows["fleet"][i]),
            spreadsheet_safe(rows["rank"][i]),
            rows["duties"][i],
            rows["peak"][i],
            rows["maxRisk"][i],
            rows["aboveMinutes"][i],
            rows["aboveShare"][i],
            rows["shortRests"][i],
            rows["earlyRuns"][i],
            rows["nightRuns"][i],
        ]
