"""``vigil score`` output tables, built as columns and written by Polars.

Three granularities (``--per``):

- ``interval``: one row per 15-minute score interval (a 10,000-crew month is 5.5 M rows,
  past a spreadsheet's 1,048,576-row limit: for programs);
- ``duty`` (the CSV default): one row per duty with its route, report and off-duty
  times local to the departure and arrival airports, its own rest intervals, peak, mean
  and top-of-descent score, time at or above the scale's warning level and the duty's risk;
- ``schedule``: one row per crew member.

Peaks, means, top of descent and time above the level count only the intervals at work
(:mod:`vigil.scoring.controls`: own in-flight rest and the wake-up allowance after it are
left out), through the same reducer as the roster summary and its exports.

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
from vigil.model.scales import scale_info
from vigil.scoring.controls import DutySummaries, duty_summaries, mask_from_ranges
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
        #: plain-word reasons of each duty's risk ("" where not explained)
        self.reasons = [
            "; ".join(d.drivers.reasons) if d.drivers is not None else "" for _, d in duties
        ]
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
        #: per interval: at work (own in-flight rest left out, :mod:`vigil.scoring.controls`)
        self.working = mask_from_ranges(self.count, [d.rest for _, d in duties])

    def summaries(self, level: float) -> DutySummaries:
        """Each duty's peak, mean, top of descent and time at or above ``level`` at work."""
        seconds = (self.end - self.start).astype(np.float64)
        return duty_summaries(self.scores, self.count, seconds, self.working, level)


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
    warning = scale_info(report.scale).warnings[0]
    summary = d.summaries(warning)
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
        "restIntervals": d.count
        - np.bincount(d.interval_duty, weights=d.working, minlength=d.on.size).astype(np.int64),
        f"peak{report.scale}": summary.peak,
        f"mean{report.scale}": summary.mean,
        f"topOfDescent{report.scale}": summary.tod,
        f"minutesAtOrAbove{warning:g}": np.round(summary.above_minutes).astype(np.int64),
    }
    if report.risk:
        columns["risk"] = d.risk
        if report.explain:  # --explain: what drives each duty's risk, in words
            columns["riskReasons"] = pl.Series(d.reasons, dtype=pl.String)
    return pl.DataFrame(columns)


def schedule_table(report: ScoreReport) -> pl.DataFrame:
    """One row per schedule: duties, intervals, mean, peak and when, time above the
    warning level, highest duty risk."""
    d = _Duties(report)
    warning = scale_info(report.scale).warnings[0]
    n = len(report.schedules)
    crew = d.schedule[d.interval_duty]
    counts = np.bincount(crew, minlength=n)
    # the schedule's figures are its duties' (at work), gathered per schedule
    summary = d.summaries(warning)
    working = np.bincount(d.schedule, weights=summary.working_minutes, minlength=n)
    weighted = np.bincount(
        d.schedule, weights=np.nan_to_num(summary.mean) * summary.working_minutes, minlength=n
    )
    peak_at = np.zeros(n, dtype=np.int64)
    peaks = np.full(n, np.nan)
    for j in np.flatnonzero(summary.peak_index >= 0)[::-1]:  # the earliest highest wins
        i = d.schedule[j]
        if not summary.peak[j] < peaks[i]:
            peaks[i], peak_at[i] = summary.peak[j], d.start[summary.peak_index[j]]
    columns: dict[str, object] = {
        "schedule": _safe([r.reference for r in report.schedules]),
        "duties": np.bincount(d.schedule, minlength=n),
        "intervals": counts,
        f"mean{report.scale}": np.where(working > 0, weighted / np.maximum(working, 1e-9), np.nan),
        f"peak{report.scale}": peaks,
        "peakAtUtc": _utc(peak_at),
        f"minutesAtOrAbove{warning:g}": np.round(
            np.bincount(d.schedule, weights=summary.above_minutes, minlength=n)
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
