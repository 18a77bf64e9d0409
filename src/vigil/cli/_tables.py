"""``vigil score`` output tables, built as columns and written by Polars (issue 15).

Three granularities (``--per``):

- ``interval``: one row per 15-minute score interval (a 10,000-crew month is 5.5 M rows,
  past a spreadsheet's 1,048,576-row limit: for programs);
- ``duty`` (the CSV default): one row per duty with its route, report and off-duty
  times local to the departure and arrival airports, peak and mean score, time at or
  above the scale's warning level and the duty's risk;
- ``schedule``: one row per crew member.

Every column is computed with NumPy over all intervals at once and written by Polars'
CSV or JSON writer (Rust), so writing 5.5 M rows takes seconds, not the minute the
Python ``csv`` writer took. Text that a spreadsheet would read as a formula is
neutralised (:func:`vigil.fleet.records.spreadsheet_safe`, the one the fleet exports use).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from enum import StrEnum
from zoneinfo import ZoneInfo

import numpy as np
import numpy.typing as npt
import polars as pl

from vigil.domain import INTERVAL, Schedule
from vigil.model.scales import SCALE_INFO
from vigil.scoring.service import ScoreReport

__all__ = ["Per", "duty_table", "interval_table", "schedule_table", "table"]

_ISO = "%Y-%m-%dT%H:%M:%SZ"
_STEP = int(INTERVAL.total_seconds())


class Per(StrEnum):
    """Rows of a ``vigil score`` table."""

    INTERVAL = "interval"
    DUTY = "duty"
    SCHEDULE = "schedule"


def _safe(values: Sequence[str]) -> list[str]:
    from vigil.fleet.records import spreadsheet_safe

    return [spreadsheet_safe(v) for v in values]


def _utc(seconds: npt.NDArray[np.int64]) -> pl.Series:
    return pl.Series(seconds * 1_000_000, dtype=pl.Int64).cast(pl.Datetime("us", "UTC"))


def _iso(seconds: npt.NDArray[np.int64]) -> pl.Series:
    """ISO UTC text of many instants that repeat (a month has ~40,000 distinct minutes):
    each distinct one formatted once, the column a categorical over them."""
    if not seconds.size:
        return pl.Series([], dtype=pl.Categorical)
    low = int(seconds.min())
    present = np.zeros(int(seconds.max()) - low + 1, dtype=bool)
    present[seconds - low] = True  # a month is ~2.4 M seconds: a table beats sorting
    distinct = np.flatnonzero(present) + low
    where = (np.cumsum(present) - 1)[seconds - low]
    labels = np.char.add(np.datetime_as_string(distinct.astype("datetime64[s]"), unit="s"), "Z")
    return pl.Series(labels.tolist(), dtype=pl.Categorical).gather(where.astype(np.uint32))


def _repeat(labels: Sequence[str], index: npt.NDArray[np.int64]) -> pl.Series:
    """``labels[index]`` as a categorical column (no copy of the text per row)."""
    return pl.Series(list(labels), dtype=pl.Categorical).gather(index.astype(np.uint32))


class _Duties:
    """Per-duty arrays of a report (flat over all schedules, in order)."""

    def __init__(self, report: ScoreReport) -> None:
        scale = report.scale
        duties = [(i, d) for i, r in enumerate(report.schedules) for d in r.duties]
        self.schedule = np.array([i for i, _ in duties], dtype=np.int64)
        self.number = np.concatenate(
            [np.arange(1, len(r.duties) + 1) for r in report.schedules] or [np.empty(0, int)]
        ).astype(np.int64)
        self.on = np.array([int(d.on_duty.timestamp()) for _, d in duties], dtype=np.int64)
        self.off = np.array([int(d.off_duty.timestamp()) for _, d in duties], dtype=np.int64)
        self.count = np.array([d.interval_count for _, d in duties], dtype=np.int64)
        self.risk = np.array(
            [np.nan if d.risk is None else d.risk for _, d in duties], dtype=np.float64
        )
        self.scores = (
            np.concatenate([r.scores[scale] for r in report.schedules])
            if report.schedules
            else np.empty(0)
        )
        #: per interval: its duty, its number within the duty (0-based), start and end [s]
        self.interval_duty = np.repeat(np.arange(self.on.size), self.count)
        first = np.cumsum(self.count) - self.count
        self.k = np.arange(self.scores.size) - np.repeat(first, self.count)
        self.start = self.on[self.interval_duty] + self.k * _STEP
        self.end = np.minimum(self.start + _STEP, self.off[self.interval_duty])
        self.first = first


def interval_table(report: ScoreReport) -> pl.DataFrame:
    """One row per interval: schedule, duty, interval, start, end (UTC), score[, risk]."""
    d = _Duties(report)
    names = _safe([r.reference for r in report.schedules])
    columns: dict[str, pl.Series] = {
        "schedule": _repeat(names, d.schedule[d.interval_duty]),
        "duty": pl.Series(d.number[d.interval_duty]),
        "interval": pl.Series(d.k + 1),
        "start": _iso(d.start),
        "end": _iso(d.end),
        report.scale: pl.Series(d.scores),
    }
    if report.risk:
        columns["dutyRisk"] = pl.Series(d.risk[d.interval_duty])
    return pl.DataFrame(columns)


def _local(instants: Sequence[datetime], zones: Sequence[str]) -> list[str]:
    cache: dict[str, ZoneInfo] = {}
    out = []
    for instant, zone in zip(instants, zones, strict=True):
        tz = cache.get(zone) or cache.setdefault(zone, ZoneInfo(zone))
        out.append(instant.astimezone(tz).strftime("%Y-%m-%d %H:%M"))
    return out


def duty_table(report: ScoreReport, schedules: Sequence[Schedule]) -> pl.DataFrame:
    """One row per duty: route, local and UTC times, peak, mean, minutes at or above the
    scale's (first) warning level, risk. ``schedules`` are the parsed schedules the
    report scored, in the same order."""
    d = _Duties(report)
    warning = SCALE_INFO[report.scale].warnings[0]
    seconds = (d.end - d.start).astype(np.float64)
    above = np.bincount(
        d.interval_duty, weights=np.where(d.scores >= warning, seconds, 0.0), minlength=d.on.size
    )
    sums = np.bincount(d.interval_duty, weights=d.scores, minlength=d.on.size)
    peaks = np.maximum.reduceat(d.scores, d.first) if d.scores.size else np.empty(0)
    duties = [duty for s in schedules for duty in s.duties]
    if len(duties) != d.on.size:
        raise ValueError("the schedules are not those of the report")
    columns: dict[str, object] = {
        "schedule": _safe([s.reference for s in schedules for _ in s.duties]),
        "duty": d.number,
        "route": _safe([f"{x.start_airport.code}-{x.end_airport.code}" for x in duties]),
        "reportLocal": _local([x.on_duty for x in duties], [x.start_airport.tz for x in duties]),
        "offLocal": _local([x.off_duty for x in duties], [x.end_airport.tz for x in duties]),
        "reportUtc": _utc(d.on),
        "offUtc": _utc(d.off),
        "intervals": d.count,
        f"peak{report.scale}": peaks,
        f"mean{report.scale}": sums / np.maximum(d.count, 1),
        f"minutesAtOrAbove{warning:g}": np.round(above / 60.0).astype(np.int64),
    }
    if report.risk:
        columns["risk"] = d.risk
    return pl.DataFrame(columns)


def schedule_table(report: ScoreReport) -> pl.DataFrame:
    """One row per schedule: duties, intervals, mean, peak and when, time above the
    warning level, highest duty risk."""
    d = _Duties(report)
    warning = SCALE_INFO[report.scale].warnings[0]
    n = len(report.schedules)
    crew = d.schedule[d.interval_duty]
    seconds = (d.end - d.start).astype(np.float64)
    counts = np.bincount(crew, minlength=n)
    starts = np.cumsum(counts) - counts
    peak_at = np.zeros(n, dtype=np.int64)
    peaks = np.full(n, np.nan)
    for i in np.flatnonzero(counts):
        j = starts[i] + int(np.argmax(d.scores[starts[i] : starts[i] + counts[i]]))
        peak_at[i], peaks[i] = d.start[j], d.scores[j]
    columns: dict[str, object] = {
        "schedule": _safe([r.reference for r in report.schedules]),
        "duties": np.bincount(d.schedule, minlength=n),
        "intervals": counts,
        f"mean{report.scale}": np.bincount(crew, weights=d.scores, minlength=n)
        / np.maximum(counts, 1),
        f"peak{report.scale}": peaks,
        "peakAtUtc": _utc(peak_at),
        f"minutesAtOrAbove{warning:g}": np.round(
            np.bincount(crew, weights=np.where(d.scores >= warning, seconds, 0.0), minlength=n)
            / 60.0
        ).astype(np.int64),
    }
    if report.risk:
        risk = np.full(n, np.nan)
        np.fmax.at(risk, d.schedule, d.risk)
        columns["maxRisk"] = risk
    return pl.DataFrame(columns)


def table(report: ScoreReport, per: Per, schedules: Sequence[Schedule]) -> pl.DataFrame:
    """The table ``per`` asks for."""
    if per is Per.INTERVAL:
        return interval_table(report)
    if per is Per.DUTY:
        return duty_table(report, schedules)
    return schedule_table(report)


def write(frame: pl.DataFrame, path: str, *, csv: bool) -> None:
    """CSV (3 decimals, ISO UTC instants) or a JSON array of row objects."""
    if csv:
        frame.write_csv(path, float_precision=3, datetime_format=_ISO, null_value="")
        return
    rounded = frame.with_columns(pl.col(pl.Float64).round(3))
    rounded = rounded.with_columns(pl.col(pl.Datetime).dt.strftime(_ISO))
    rounded.write_json(path)
