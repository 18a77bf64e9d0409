"""``vigil score`` output tables, built as columns and written by Polars.

Three granularities (``--per``):

- ``interval``: one row per 15-minute score interval (a 10,000-crew month is 5.5 M rows,
  past a spreadsheet's 1,048,576-row limit: for programs);
- ``duty`` (the CSV default): one row per duty with its route, report and off-duty
  times local to the departure and arrival airports, its own rest intervals, peak, mean
  and top-of-descent score, time at or above the scale's warning level and the duty's risk;
- ``schedule``: one row per crew member.

The duty and schedule rows are the fleet's one per-duty table
(:func:`vigil.fleet.table.results_table`): peaks, means, top of descent and time at or
above the warning level (:func:`vigil.model.warning_level`) count only the intervals at
work (:mod:`vigil.scoring.controls`), exactly as the dashboard and its exports count them.

Every column is computed with NumPy over all intervals at once and written by Polars'
CSV or JSON writer (Rust), so writing 5.5 M rows takes seconds, not the minute the
Python ``csv`` writer took. Text that a spreadsheet would read as a formula is
neutralised (:func:`vigil.fleet.records.spreadsheet_safe`, the one the fleet exports use).
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum

import numpy as np
import numpy.typing as npt
import polars as pl

from vigil.contract import INTERVAL_SECONDS
from vigil.fleet.records import spreadsheet_safe
from vigil.fleet.table import DutyTable, results_facts, results_table
from vigil.model.scales import scale_info
from vigil.results.routes import route_facts_of_columns
from vigil.roster.arrays import DutyColumns
from vigil.scoring.service import ScoreReport

__all__ = ["Per", "duty_table", "interval_table", "schedule_table", "table"]

_ISO = "%Y-%m-%dT%H:%M:%SZ"


class Per(StrEnum):
    """Rows of a ``vigil score`` table."""

    INTERVAL = "interval"
    DUTY = "duty"
    SCHEDULE = "schedule"


def _safe(values: Sequence[str]) -> list[str]:
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


def _local(seconds: npt.NDArray[np.int64], offset_min: npt.NDArray[np.int64]) -> list[str]:
    """Wall times ``YYYY-MM-DD HH:MM`` at the given UTC offsets."""
    wall = (seconds + offset_min * 60).astype("datetime64[s]")
    return [text.replace("T", " ") for text in np.datetime_as_string(wall, unit="m").tolist()]


def _repeat(labels: Sequence[str], index: npt.NDArray[np.int64]) -> pl.Series:
    """``labels[index]`` as a categorical column (no copy of the text per row)."""
    return pl.Series(list(labels), dtype=pl.Categorical).gather(index.astype(np.uint32))


def _duties(report: ScoreReport, columns: DutyColumns | None = None) -> DutyTable:
    """The fleet's per-duty table of ``report`` on its scale; routes and local times from
    the parsed roster's ``columns`` when given."""
    facts = None
    if columns is not None:
        entries = [(r.reference, len(r.duties)) for r in report.schedules]
        facts = results_facts(report.schedules, route_facts_of_columns(entries, columns))
    return results_table(report.schedules, facts, report.scale)


def _level_name(t: DutyTable) -> str:
    """``minutesAtOrAbove<level>``, the level as shown (:func:`vigil.model.scale_info`:
    KSS 7, KP 39.2); the minutes count from its exact value (``t.level``)."""
    return f"minutesAtOrAbove{scale_info(t.scale).warnings[0]:g}"


def interval_table(report: ScoreReport) -> pl.DataFrame:
    """One row per interval: schedule, duty, interval, start, end (UTC), score[, risk]."""
    scale = report.scale
    duties = [(i, d) for i, r in enumerate(report.schedules) for d in r.duties]
    schedule = np.array([i for i, _ in duties], dtype=np.int64)
    number = np.concatenate(
        [np.arange(1, len(r.duties) + 1) for r in report.schedules] or [np.empty(0, int)]
    ).astype(np.int64)
    on = np.array([int(d.on_duty.timestamp()) for _, d in duties], dtype=np.int64)
    off = np.array([int(d.off_duty.timestamp()) for _, d in duties], dtype=np.int64)
    count = np.array([d.interval_count for _, d in duties], dtype=np.int64)
    scores = (
        np.concatenate([r.scores[scale] for r in report.schedules])
        if report.schedules
        else np.empty(0)
    )
    duty = np.repeat(np.arange(on.size), count)
    k = np.arange(scores.size) - np.repeat(np.cumsum(count) - count, count)
    start = on[duty] + k * INTERVAL_SECONDS
    columns: dict[str, pl.Series] = {
        "schedule": _repeat(_safe([r.reference for r in report.schedules]), schedule[duty]),
        "duty": pl.Series(number[duty]),
        "interval": pl.Series(k + 1),
        "start": _iso(start),
        "end": _iso(np.minimum(start + INTERVAL_SECONDS, off[duty])),
        scale: pl.Series(scores),
    }
    if report.risk:
        risk = np.array([np.nan if d.risk is None else d.risk for _, d in duties])
        columns["dutyRisk"] = pl.Series(risk[duty])
    return pl.DataFrame(columns)


def duty_table(report: ScoreReport, columns: DutyColumns) -> pl.DataFrame:
    """One row per duty: route, local and UTC times, peak, mean, minutes at or above the
    scale's warning level, risk. ``columns`` are the parsed roster's duty columns (the
    schedules the report scored, with their routes and airports)."""
    t = _duties(report, columns)
    codes = t.airports.code
    frame: dict[str, object] = {
        "schedule": _repeat(_safe(t.references), t.sched).cast(pl.String),
        "duty": t.number,
        "route": _safe([f"{codes[a]}-{codes[b]}" for a, b in zip(t.start, t.end, strict=True)]),
        "reportLocal": _local(t.on_s, t.start_offset),
        "offLocal": _local(t.off_s, t.end_offset),
        "reportUtc": _utc(t.on_s),
        "offUtc": _utc(t.off_s),
        "intervals": t.intervals,
        "restIntervals": t.rest_intervals,
        f"peak{t.scale}": t.peak,
        f"mean{t.scale}": t.mean,
        f"topOfDescent{t.scale}": t.tod,
        _level_name(t): np.round(t.above_minutes).astype(np.int64),
    }
    if report.risk:
        frame["risk"] = t.risk
        if report.explain:  # --explain: what drives each duty's risk, in words
            reasons = [
                "; ".join(d.drivers.reasons) if d.drivers is not None else ""
                for r in report.schedules
                for d in r.duties
            ]
            frame["riskReasons"] = pl.Series(reasons, dtype=pl.String)
    return pl.DataFrame(frame)


def schedule_table(report: ScoreReport) -> pl.DataFrame:
    """One row per schedule: duties, intervals, mean, peak and when, time above the
    warning level, highest duty risk (its duties' rows of the per-duty table)."""
    t = _duties(report)
    n = len(t.references)
    working = np.bincount(t.sched, weights=t.working_minutes, minlength=n)
    weighted = np.bincount(t.sched, weights=np.nan_to_num(t.mean) * t.working_minutes, minlength=n)
    peak_at = np.zeros(n, dtype=np.int64)
    peaks = np.full(n, np.nan)
    for j in np.flatnonzero(np.isfinite(t.peak))[::-1]:  # the earliest highest wins
        i = t.sched[j]
        if not t.peak[j] < peaks[i]:
            peaks[i], peak_at[i] = t.peak[j], t.peak_at_s[j]
    frame: dict[str, object] = {
        "schedule": _safe(t.references),
        "duties": np.bincount(t.sched, minlength=n),
        "intervals": np.bincount(t.sched, weights=t.intervals, minlength=n).astype(np.int64),
        f"mean{t.scale}": np.where(working > 0, weighted / np.maximum(working, 1e-9), np.nan),
        f"peak{t.scale}": peaks,
        "peakAtUtc": _utc(peak_at),
        _level_name(t): np.round(np.bincount(t.sched, weights=t.above_minutes, minlength=n)).astype(
            np.int64
        ),
    }
    if report.risk:
        risk = np.full(n, np.nan)
        np.fmax.at(risk, t.sched, t.risk)
        frame["maxRisk"] = risk
    return pl.DataFrame(frame)


def table(report: ScoreReport, per: Per, columns: DutyColumns | None) -> pl.DataFrame:
    """The table ``per`` asks for (``columns``: the parsed roster's, for ``duty``)."""
    if per is Per.INTERVAL:
        return interval_table(report)
    if per is Per.DUTY:
        if columns is None:
            raise ValueError("the per-duty table needs the roster's duty columns")
        return duty_table(report, columns)
    return schedule_table(report)


def write(frame: pl.DataFrame, path: str, *, csv: bool) -> None:
    """CSV (3 decimals, ISO UTC instants) or a JSON array of row objects."""
    if csv:
        frame.write_csv(path, float_precision=3, datetime_format=_ISO, null_value="")
        return
    rounded = frame.with_columns(pl.col(pl.Float64).round(3))
    rounded = rounded.with_columns(pl.col(pl.Datetime).dt.strftime(_ISO))
    rounded.write_json(path)
