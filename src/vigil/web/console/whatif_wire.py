"""The what-if page's draft on the wire: JSON models and their checks.

The page sends a draft as times in milliseconds since the epoch (what JavaScript's ``Date``
holds), UTC; :func:`to_draft` turns it into a :class:`~.whatif_draft.Draft` or raises
:class:`DraftError` naming the offending field (answered 400 problem+json), and
:func:`draft_json` is its inverse for the page's starting point.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

from vigil.domain import CrewComposition, Period
from vigil.model import DEFAULT
from vigil.web.console.whatif_draft import CELL_COLUMNS, Draft, DraftDuty

__all__ = ["DraftError", "DraftIn", "DutyIn", "PlanIn", "draft_json", "epoch_ms", "to_draft"]

#: most duties and sleeps one draft may hold (a 28-day schedule has ~25 and ~40)
MAX_DUTIES = 1000
MAX_SLEEPS = 2000
_MINUTE_MS = 60_000
#: instants a draft may name: years 1900-2100 (contract §8) [ms since the epoch]
_EARLIEST_MS = int(datetime(1900, 1, 1, tzinfo=UTC).timestamp() * 1000)
_LATEST_MS = int(datetime(2101, 1, 1, tzinfo=UTC).timestamp() * 1000)

Span = Annotated[list[int], Field(min_length=2, max_length=2)]


class DutyIn(BaseModel):
    """One duty of a draft (times in ms since the epoch, UTC, whole minutes)."""

    model_config = ConfigDict(extra="forbid")

    on: int
    off: int
    rests: list[Span] = Field(default_factory=list, max_length=2)
    augment: Span | None = None
    cells: dict[str, str] = Field(default_factory=dict)


class DraftIn(BaseModel):
    """A schedule's draft as the page sends it."""

    model_config = ConfigDict(extra="forbid")

    schedule: str = Field(min_length=1, max_length=200)
    scale: str = "KSS"
    duties: list[DutyIn] = Field(min_length=1, max_length=MAX_DUTIES)
    #: given sleep as [start, end] ms; null means predicted by the service
    sleep: list[Span] | None = Field(default=None, max_length=MAX_SLEEPS)


class PlanIn(BaseModel):
    """Plan the rest of one duty of a draft."""

    model_config = ConfigDict(extra="forbid")

    draft: DraftIn
    duty: int = Field(ge=0, description="Index of the duty in the draft.")
    references: list[str] = Field(min_length=1, max_length=4)
    landing: list[str] = Field(min_length=1, max_length=2)
    placeholders: list[str] = Field(
        default_factory=list,
        max_length=3,
        description="References of ``references`` not in the roster, planned as placeholders.",
    )


class DraftError(ValueError):
    """A draft that cannot be turned into roster rows; ``prop`` names the field."""

    def __init__(self, prop: str, message: str) -> None:
        super().__init__(message)
        self.prop = prop


def _instant(ms: int, prop: str, *, minutes: bool) -> datetime:
    if not _EARLIEST_MS <= ms < _LATEST_MS:
        raise DraftError(prop, f"{prop} is outside the years 1900-2100")
    if ms % (_MINUTE_MS if minutes else 1000):
        unit = "minute" if minutes else "second"
        raise DraftError(prop, f"{prop} must be a whole {unit}")
    return datetime.fromtimestamp(ms / 1000, UTC)


def _period(span: Sequence[int], prop: str, *, minutes: bool) -> Period:
    start = _instant(span[0], f"{prop}[0]", minutes=minutes)
    end = _instant(span[1], f"{prop}[1]", minutes=minutes)
    if end <= start:
        raise DraftError(prop, f"{prop} must end after it starts")
    return Period(start, end)


def to_draft(body: DraftIn) -> Draft:
    """The wire draft as a :class:`Draft` (raises :class:`DraftError` naming the field)."""
    duties = []
    for i, d in enumerate(body.duties):
        prop = f"duties[{i}]"
        unknown = sorted(set(d.cells) - set(CELL_COLUMNS))
        if unknown:
            raise DraftError(f"{prop}.cells", f"{prop}.cells has unknown column {unknown[0]!r}")
        for name, value in d.cells.items():
            if len(value) > 100 or "\n" in value or "\r" in value:
                raise DraftError(f"{prop}.cells.{name}", f"{prop}.cells.{name} is not one cell")
        duties.append(
            DraftDuty(
                on=_instant(d.on, f"{prop}.on", minutes=True),
                off=_instant(d.off, f"{prop}.off", minutes=True),
                rests=tuple(
                    _period(r, f"{prop}.rests[{k}]", minutes=True) for k, r in enumerate(d.rests)
                ),
                augment=None
                if d.augment is None
                else _period(d.augment, f"{prop}.augment", minutes=True),
                cells=dict(d.cells),
            )
        )
    for i, duty in enumerate(duties):
        _check_rests(duty, f"duties[{i}]")
    sleep = None
    if body.sleep is not None:
        sleep = tuple(_period(s, f"sleep[{k}]", minutes=False) for k, s in enumerate(body.sleep))
        for k, period in enumerate(sleep):
            _check_sleep(period, duties, f"sleep[{k}]")
    return Draft(body.schedule, tuple(duties), sleep)


def _flight(duty: DraftDuty) -> tuple[datetime, datetime]:
    """The duty's flight: take-off (report + 60 min) to landing (off duty - 30 min), the
    reference's §6 flight period (``report_to_takeoff``, ``landing_to_off``)."""
    return (
        duty.on + timedelta(hours=DEFAULT.report_to_takeoff),
        duty.off - timedelta(hours=DEFAULT.landing_to_off),
    )


def _hhmm(instant: datetime) -> str:
    return f"{instant:%Y-%m-%d %H:%M}Z"


def _check_rests(duty: DraftDuty, prop: str) -> None:
    """In-flight rest happens in flight: every rest break lies between take-off and landing."""
    takeoff, landing = _flight(duty)
    for k, rest in enumerate(duty.rests):
        if rest.start < takeoff or rest.end > landing:
            raise DraftError(
                f"{prop}.rests[{k}]",
                f"{prop}.rests[{k}] ({_hhmm(rest.start)}-{_hhmm(rest.end)}) is outside the "
                f"flight, {_hhmm(takeoff)} (take-off) to {_hhmm(landing)} (landing): move it "
                "into the flight",
            )


def _check_sleep(period: Period, duties: Sequence[DraftDuty], prop: str) -> None:
    """Sleep during a duty is in-flight rest: it must lie inside one of that duty's rest
    breaks, or, for an augmented duty whose breaks the roster leaves to the model
    (reference §5.1), inside its flight."""
    for i, duty in enumerate(duties):
        if period.end <= duty.on or period.start >= duty.off:
            continue
        windows = [(r.start, r.end) for r in duty.rests]
        if not windows and _augmented(duty):
            windows = [_flight(duty)]
        if any(a <= period.start and period.end <= b for a, b in windows):
            continue
        where = "its rest breaks" if duty.rests else "a rest break"
        raise DraftError(
            prop,
            f"{prop} ({_hhmm(period.start)}-{_hhmm(period.end)}) overlaps duty {i + 1} "
            f"({_hhmm(duty.on)}-{_hhmm(duty.off)}) outside {where}: a crew member sleeps on "
            "duty only in in-flight rest",
        )


def _augmented(duty: DraftDuty) -> bool:
    text = duty.cells.get("CrewComposition", "").strip()
    return text.isdigit() and int(text) != CrewComposition.TWO_PILOTS


def epoch_ms(instant: datetime) -> int:
    """Milliseconds since the epoch of an aware instant."""
    return int(instant.timestamp() * 1000)


def draft_json(draft: Draft) -> dict[str, Any]:
    """A :class:`Draft` in the page's wire form (the inverse of :func:`to_draft`)."""
    return {
        "schedule": draft.schedule,
        "duties": [
            {
                "on": epoch_ms(d.on),
                "off": epoch_ms(d.off),
                "rests": [[epoch_ms(p.start), epoch_ms(p.end)] for p in d.rests],
                "augment": None
                if d.augment is None
                else [epoch_ms(d.augment.start), epoch_ms(d.augment.end)],
                "cells": dict(d.cells),
            }
            for d in draft.duties
        ],
        "sleep": None
        if draft.sleep is None
        else [[epoch_ms(p.start), epoch_ms(p.end)] for p in draft.sleep],
    }
