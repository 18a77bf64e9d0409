"""Cross-field and schedule rules of contract §3.1/§8, each a generator of :class:`RowError`.

A check looks at values already read and converted to UTC, and yields one error per
broken rule; it never raises (STYLE §3.6, frictionless ``validate_row``). Messages
show date-times *as written in the row* (contract §4: the 30-hour error names both),
so the planner can find them in the source file; comparisons use UTC instants.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from vigil.domain import CrewComposition, Duty
from vigil.roster.columns import (
    MAX_DUTY_HOURS,
    MAX_SPAN_DAYS,
    WORKLOAD_RANGE_NO_SECTORS,
    WORKLOAD_RANGE_WITH_SECTORS,
)
from vigil.roster.errors import RowError, make_error

_MAX_DUTY = timedelta(hours=MAX_DUTY_HOURS)
_MAX_SPAN = timedelta(days=MAX_SPAN_DAYS)


@dataclass(frozen=True, slots=True)
class Written:
    """Date-times of one row as written (``"01/01/2026 06:00"``), for messages."""

    on: str
    off: str
    partial_augment: tuple[str, str] | None = None
    first_rest: tuple[str, str] | None = None
    second_rest: tuple[str, str] | None = None


def format_length(length: timedelta) -> str:
    """A duration as ``"32 h 30 min"`` (whole minutes)."""
    minutes = int(length.total_seconds() // 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes} min" if minutes else f"{hours} h"


def check_duty_times(duty: Duty, written: Written) -> Iterator[RowError]:
    """Off-duty after on-duty and at most 30 hours after it (seed §8, contract §3.1)."""
    if duty.off_duty <= duty.on_duty:
        yield make_error(
            "off-not-after-on", duty.row, duty.reference, off=written.off, on=written.on
        )
    elif duty.off_duty - duty.on_duty > _MAX_DUTY:
        yield make_error(
            "duty-too-long",
            duty.row,
            duty.reference,
            off=written.off,
            on=written.on,
            max_hours=MAX_DUTY_HOURS,
            length=format_length(duty.off_duty - duty.on_duty),
        )


def check_periods(duty: Duty, written: Written) -> Iterator[RowError]:
    """Rest and augmentation periods start before they end and lie inside the duty;
    a second rest starts no earlier than the first ends (contract §3.1)."""
    duty_ok = duty.on_duty < duty.off_duty
    for what, period, text in (
        ("Partial augmentation", duty.partial_augment, written.partial_augment),
        ("First rest", duty.first_rest, written.first_rest),
        ("Second rest", duty.second_rest, written.second_rest),
    ):
        if period is None or text is None:
            continue
        if period.end <= period.start:
            yield make_error(
                "period-order", duty.row, duty.reference, what=what, start=text[0], end=text[1]
            )
        elif duty_ok and (period.start < duty.on_duty or period.end > duty.off_duty):
            yield make_error(
                "period-outside-duty",
                duty.row,
                duty.reference,
                what=what,
                start=text[0],
                end=text[1],
                on=written.on,
                off=written.off,
            )
    first, second = duty.first_rest, duty.second_rest
    if (
        first is not None
        and second is not None
        and written.first_rest is not None
        and written.second_rest is not None
        and second.start < first.end
    ):
        yield make_error(
            "rest-order",
            duty.row,
            duty.reference,
            second=written.second_rest[0],
            first=written.first_rest[1],
        )


def check_sleep_count(duty: Duty) -> Iterator[RowError]:
    """SleepCount > 0 needs its rest periods when CrewComposition is 2 (contract §8).

    For 3, 4 and 9 crew the model places the rest itself (reference §5.1).
    """
    if duty.sleep_count == 0 or duty.crew_composition is not CrewComposition.TWO_PILOTS:
        return
    if duty.first_rest is None:
        needed = "the FirstRest dates and times"
        if duty.sleep_count == 2:
            needed = "the FirstRest and SecondRest dates and times"
    elif duty.sleep_count == 2 and duty.second_rest is None:
        needed = "the SecondRest dates and times"
    else:
        return
    yield make_error(
        "missing-rest", duty.row, duty.reference, count=duty.sleep_count, needed=needed
    )


def check_workload(duty: Duty, written_value: str) -> Iterator[RowError]:
    """Workload lies in 0..50 when Sectors is 0, else in -50..100 (contract §8)."""
    if duty.sectors == 0:
        (low, high), case = WORKLOAD_RANGE_NO_SECTORS, "0"
    else:
        (low, high), case = WORKLOAD_RANGE_WITH_SECTORS, "above 0"
    if not low <= duty.workload <= high:
        yield make_error(
            "workload-range",
            duty.row,
            duty.reference,
            value=written_value,
            low=f"{low:g}",
            high=f"{high:g}",
            sectors_case=case,
        )


def check_overlaps(duties: Sequence[Duty], written: Mapping[int, Written]) -> Iterator[RowError]:
    """Duties of one schedule must not overlap (contract §3.1).

    ``duties`` are one schedule's duties in chronological order. A duty may start at
    the instant the previous one ends. The error goes to the later-starting duty and
    names the earlier one it overlaps.
    """
    latest: Duty | None = None  # the duty ending latest so far
    for duty in duties:
        if latest is not None and duty.on_duty < latest.off_duty:
            mine, other = written[duty.row], written[latest.row]
            yield make_error(
                "duty-overlap",
                duty.row,
                duty.reference,
                on=mine.on,
                off=mine.off,
                other_row=latest.row,
                other_on=other.on,
                other_off=other.off,
            )
        if latest is None or duty.off_duty > latest.off_duty:
            latest = duty


def check_span(duties: Sequence[Duty], written: Mapping[int, Written]) -> Iterator[RowError]:
    """A schedule spans at most :data:`MAX_SPAN_DAYS` days, first on-duty to last off-duty.

    ``duties`` are one schedule's duties in chronological order. The error goes to the
    first duty ending past the limit and names the first duty; one error per schedule
    is enough to leave the schedule out (contract §4).
    """
    if not duties:
        return
    first = duties[0]
    for duty in duties:
        if duty.off_duty - first.on_duty > _MAX_SPAN:
            yield make_error(
                "schedule-span",
                duty.row,
                duty.reference,
                on=written[duty.row].on,
                off=written[duty.row].off,
                days=f"{(duty.off_duty - first.on_duty).total_seconds() / 86400:.1f}",
                first_row=first.row,
                first_on=written[first.row].on,
                max_days=MAX_SPAN_DAYS,
            )
            return


def chronological(duties: Sequence[Duty]) -> list[Duty]:
    """Duties sorted by on-duty, then off-duty, then row (contract §3.1)."""
    return sorted(duties, key=_duty_key)


def _duty_key(duty: Duty) -> tuple[datetime, datetime, int]:
    return (duty.on_duty, duty.off_duty, duty.row)
