"""Cross-field and schedule rules of contract §3.1/§8, on arrays, with their messages.

Each rule is written once: :func:`broken_rules` decides, for every row at once, which
rules a duty breaks (comparisons of UTC minutes), and :func:`rule_errors` writes the
messages of one row from that decision. Messages show date-times *as written in the
row* (contract §4: the 30-hour error names both), so the planner can find them in the
source file. Nothing here raises on bad data (STYLE §3.6).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import numpy as np

from vigil.roster.arrays import NO_TIME, BoolArray, DutyColumns, FloatArray, IntArray
from vigil.roster.columns import (
    MAX_DUTY_HOURS,
    MAX_SPAN_DAYS,
    WORKLOAD_RANGE_NO_SECTORS,
    WORKLOAD_RANGE_WITH_SECTORS,
)
from vigil.roster.errors import RowError, make_error

__all__ = [
    "RULES",
    "DutyValues",
    "Written",
    "broken_rules",
    "format_length",
    "rule_errors",
    "schedule_errors",
]

_MAX_DUTY_MINUTES = MAX_DUTY_HOURS * 60
_MAX_SPAN_MINUTES = MAX_SPAN_DAYS * 24 * 60
_PERIOD_NAMES = ("Partial augmentation", "First rest", "Second rest")
#: The row rules in the order their messages are written (one row may break several).
RULES = (
    "off-not-after-on",
    "duty-too-long",
    *(f"{code}:{k}" for k in range(3) for code in ("period-order", "period-outside-duty")),
    "rest-order",
    "missing-rest",
    "workload-range",
)


@dataclass(frozen=True, slots=True)
class Written:
    """Date-times of one row as written (``"01/01/2026 06:00"``), for messages; each
    period as (start, end), ``None`` when the row gives none."""

    on: str
    off: str
    periods: tuple[tuple[str, str] | None, ...] = (None, None, None)
    workload: str = ""


@dataclass(frozen=True, slots=True)
class DutyValues:
    """The values the row rules compare, one element per row (UTC minutes)."""

    on: IntArray
    off: IntArray
    period_start: IntArray  #: (3, n), NO_TIME where a period is absent
    period_end: IntArray
    sectors: IntArray
    crew: IntArray
    sleep_count: IntArray
    workload: FloatArray


def format_length(length: timedelta) -> str:
    """A duration as ``"32 h 30 min"`` (whole minutes)."""
    hours, minutes = divmod(int(length.total_seconds() // 60), 60)
    return f"{hours} h {minutes} min" if minutes else f"{hours} h"


def broken_rules(v: DutyValues) -> BoolArray:
    """``(len(RULES), n)``: which rule each row breaks.

    Off-duty after on-duty and at most 30 hours after it (seed §8); each period starts
    before it ends and, when the duty is in order, lies inside it; a second rest starts
    no earlier than the first ends; SleepCount > 0 with CrewComposition 2 needs its rest
    periods (3, 4 and 9 crew let the model place them, reference §5.1); a Workload other
    than 0 lies in 0..50 when Sectors is 0, else in -50..100 (contract §3.1, §8).
    """
    length = v.off - v.on
    duty_ok = length > 0
    present = v.period_start != NO_TIME
    none = np.zeros(length.shape, dtype=np.bool_)
    periods = [none] * 6
    if present.any():  # the period rules can only break where a period is given
        order_ok = v.period_end > v.period_start
        outside = (v.period_start < v.on) | (v.period_end > v.off)
        for k in range(3):
            periods[2 * k] = present[k] & ~order_ok[k]
            periods[2 * k + 1] = present[k] & order_ok[k] & duty_ok & outside[k]
    no_sectors = v.sectors == 0
    low = np.where(no_sectors, WORKLOAD_RANGE_NO_SECTORS[0], WORKLOAD_RANGE_WITH_SECTORS[0])
    high = np.where(no_sectors, WORKLOAD_RANGE_NO_SECTORS[1], WORKLOAD_RANGE_WITH_SECTORS[1])
    needs_rest = (v.sleep_count > 0) & (v.crew == 2)
    return np.stack(
        [
            ~duty_ok,
            length > _MAX_DUTY_MINUTES,
            *periods,
            present[1] & present[2] & (v.period_start[2] < v.period_end[1]),
            needs_rest & (~present[1] | ((v.sleep_count == 2) & ~present[2])),
            (v.workload != 0) & ((v.workload < low) | (v.workload > high)),
        ]
    )


def rule_errors(
    row: int, ref: str, broken: BoolArray, v: DutyValues, i: int, written: Written
) -> list[RowError]:
    """The messages of row ``i`` (line ``row``), which breaks the rules ``broken``."""
    errors = []
    for code in (RULES[k] for k in np.flatnonzero(broken).tolist()):
        name, _, period = code.partition(":")
        fields: dict[str, Any]
        if period:
            k = int(period)
            start, end = written.periods[k] or ("", "")
            fields = dict(what=_PERIOD_NAMES[k], start=start, end=end)
            if name == "period-outside-duty":
                fields |= dict(on=written.on, off=written.off)
        else:
            fields = _row_fields(name, v, i, written)
        errors.append(make_error(name, row, ref, **fields))
    return errors


def _row_fields(code: str, v: DutyValues, i: int, written: Written) -> dict[str, Any]:
    """The template fields of a rule that is not about one period."""
    if code == "off-not-after-on":
        return dict(off=written.off, on=written.on)
    if code == "duty-too-long":
        length = format_length(timedelta(minutes=int(v.off[i] - v.on[i])))
        return dict(off=written.off, on=written.on, max_hours=MAX_DUTY_HOURS, length=length)
    if code == "rest-order":
        first, second = written.periods[1], written.periods[2]
        assert first is not None and second is not None
        return dict(second=second[0], first=first[1])
    if code == "missing-rest":
        count = int(v.sleep_count[i])
        if v.period_start[1, i] == NO_TIME:
            needed = "the FirstRest and SecondRest" if count == 2 else "the FirstRest"
        else:
            needed = "the SecondRest"
        return dict(count=count, needed=f"{needed} dates and times")
    (low, high), case = (
        (WORKLOAD_RANGE_NO_SECTORS, "0")
        if v.sectors[i] == 0
        else (WORKLOAD_RANGE_WITH_SECTORS, "above 0")
    )
    return dict(value=written.workload, low=f"{low:g}", high=f"{high:g}", sectors_case=case)


def schedule_errors(columns: DutyColumns, written: Callable[[int], Written]) -> list[RowError]:
    """Duties of one schedule must not overlap, and a schedule spans at most
    :data:`MAX_SPAN_DAYS` days (contract §3.1); ``written`` gives a duty's texts by line.

    ``columns`` holds each schedule's duties in chronological order. A duty may start at
    the instant the previous one ends; an overlap's error goes to the later-starting
    duty and names the earlier one ending latest. The span error goes to the first duty
    ending past the limit and names the schedule's first duty: one error per schedule is
    enough to leave it out (contract §4). A running maximum of off-duty finds the
    schedules to look at; only those are walked duty by duty for the messages.
    """
    if columns.n_duties == 0:
        return []
    on, off, offsets = columns.on_duty, columns.off_duty, columns.offsets
    schedule = np.repeat(np.arange(len(columns.references)), np.diff(offsets))
    shift = schedule << 31  # keeps each schedule's running maximum to itself
    latest = np.maximum.accumulate(off + shift) - shift
    overlap = np.zeros(on.shape, dtype=np.bool_)
    overlap[1:] = (on[1:] < latest[:-1]) & (schedule[1:] == schedule[:-1])
    too_long = off - on[offsets[:-1]][schedule] > _MAX_SPAN_MINUTES
    errors: list[RowError] = []
    for s in np.unique(schedule[overlap | too_long]).tolist():
        errors += _overlaps(columns, s, written)
        errors += _span(columns, s, written)
    return errors


def _overlaps(columns: DutyColumns, s: int, written: Callable[[int], Written]) -> list[RowError]:
    """The overlap errors of schedule ``s``."""
    lo, hi, ref = int(columns.offsets[s]), int(columns.offsets[s + 1]), columns.references[s]
    rows = columns.row[lo:hi].tolist()
    on, off = columns.on_duty[lo:hi].tolist(), columns.off_duty[lo:hi].tolist()
    errors = []
    latest = 0  # the duty ending latest so far
    for j in range(1, hi - lo):
        if on[j] < off[latest]:
            mine, other = written(rows[j]), written(rows[latest])
            errors.append(
                make_error(
                    "duty-overlap", rows[j], ref,
                    on=mine.on, off=mine.off, other_row=rows[latest],
                    other_on=other.on, other_off=other.off,
                )
            )  # fmt: skip
        if off[j] > off[latest]:
            latest = j
    return errors


def _span(columns: DutyColumns, s: int, written: Callable[[int], Written]) -> list[RowError]:
    """The span error of schedule ``s``, if it spans too long."""
    lo, hi, ref = int(columns.offsets[s]), int(columns.offsets[s + 1]), columns.references[s]
    first_on = int(columns.on_duty[lo])
    beyond = np.flatnonzero(columns.off_duty[lo:hi] - first_on > _MAX_SPAN_MINUTES)
    if beyond.size == 0:
        return []
    j = lo + int(beyond[0])
    row, first_row = int(columns.row[j]), int(columns.row[lo])
    days = (int(columns.off_duty[j]) - first_on) / 1440
    mine = written(row)
    return [
        make_error(
            "schedule-span", row, ref,
            on=mine.on, off=mine.off, days=f"{days:.1f}", first_row=first_row,
            first_on=written(first_row).on, max_days=MAX_SPAN_DAYS,
        )
    ]  # fmt: skip
