"""Crew observations and actual sleep as CSV (docs/calibration.md "File format").

Observations: a header ``Reference,Timestamp,Instrument,Value`` (any case, any order),
then one rating per line: the roster's Reference, the UTC instant it was given (ISO 8601
with ``Z`` or an offset), ``KSS`` (Karolinska Sleepiness Scale, 1–9) or ``SP``
(Samn-Perelli, 1–7), and the rating. Actual sleep: ``Reference,SleepStart,SleepEnd``
(UTC, ISO 8601), from sleep diaries or actigraphy.

Bad lines never raise: they become ``row|Reference|message`` strings like the roster's
data errors (contract §4), and the report says how many lines it used.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from datetime import UTC, datetime

__all__ = [
    "INSTRUMENTS",
    "Observation",
    "ObservationsError",
    "SleepPeriod",
    "parse_observations",
    "parse_sleep_periods",
]

#: instrument -> (lowest, highest) rating
INSTRUMENTS: dict[str, tuple[float, float]] = {"KSS": (1.0, 9.0), "SP": (1.0, 7.0)}
OBSERVATION_COLUMNS = ("reference", "timestamp", "instrument", "value")
SLEEP_COLUMNS = ("reference", "sleepstart", "sleepend")
#: longest sleep period accepted [h] (contract §3.2's limit for a single sleep)
MAX_SLEEP_HOURS = 24.0


class ObservationsError(ValueError):
    """A file that cannot be read at all (no header, wrong columns): a 400."""


@dataclass(frozen=True, slots=True)
class Observation:
    """One rating by one crew member."""

    row: int  #: 1-based line in the file (header counted)
    reference: str
    at: datetime  #: aware UTC
    instrument: str  #: "KSS" or "SP"
    value: float


@dataclass(frozen=True, slots=True)
class SleepPeriod:
    """One period of actual sleep of one crew member."""

    row: int
    reference: str
    start: datetime
    end: datetime

    def sleep_data(self) -> dict[str, object]:
        """As a contract §3.2 SleepData record."""
        return {
            "ScheduleName": self.reference,
            "SleepStart": self.start.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "SleepEnd": self.end.strftime("%Y-%m-%dT%H:%M:%SZ"),
        }


def _instant(text: str) -> datetime | None:
    value = text.strip()
    if value.endswith(("Z", "z")):
        value = value[:-1] + "+00:00"
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        return None
    if parsed.tzinfo is None or "T" not in value.upper():
        return None
    return parsed.astimezone(UTC)


def _rows(text: str, columns: tuple[str, ...], what: str) -> list[tuple[int, dict[str, str]]]:
    lines = list(csv.reader(io.StringIO(text.lstrip("\ufeff"))))
    header_at = next((i for i, line in enumerate(lines) if any(c.strip() for c in line)), None)
    if header_at is None:
        raise ObservationsError(f"{what} is empty: give a header line and at least one row")
    header = [c.strip().lower() for c in lines[header_at]]
    missing = [c for c in columns if c not in header]
    if missing:
        expected = ",".join(c.title() for c in columns)
        raise ObservationsError(
            f"{what}: the header lacks {', '.join(missing)}; expected columns {expected}"
        )
    out: list[tuple[int, dict[str, str]]] = []
    for number, line in enumerate(lines[header_at + 1 :], start=header_at + 2):
        if not any(c.strip() for c in line):
            continue
        cells = {name: (line[i].strip() if i < len(line) else "") for i, name in enumerate(header)}
        out.append((number, cells))
    return out


def parse_observations(text: str) -> tuple[list[Observation], list[str]]:
    """Read an observations CSV; returns the good rows and ``row|Reference|message`` errors.

    Raises
    ------
    ObservationsError
        The file has no header with the four columns.
    """
    good: list[Observation] = []
    errors: list[str] = []
    for row, cells in _rows(text, OBSERVATION_COLUMNS, "Observations"):
        ref = cells["reference"].replace("|", "/")
        at = _instant(cells["timestamp"])
        instrument = cells["instrument"].upper()
        if not ref:
            errors.append(f"{row}||Reference is blank")
        elif at is None:
            errors.append(
                f"{row}|{ref}|Timestamp {cells['timestamp']!r} is not an ISO 8601 date-time "
                "with a zone (e.g. 2026-03-01T06:30:00Z)"
            )
        elif instrument not in INSTRUMENTS:
            errors.append(f"{row}|{ref}|Instrument {cells['instrument']!r} is not KSS or SP")
        else:
            low, high = INSTRUMENTS[instrument]
            try:
                value = float(cells["value"])
            except ValueError:
                value = float("nan")
            if not low <= value <= high:
                errors.append(
                    f"{row}|{ref}|Value {cells['value']!r} is not a {instrument} rating "
                    f"({low:g} to {high:g})"
                )
            else:
                good.append(Observation(row, ref, at, instrument, value))
    return good, errors


def parse_sleep_periods(text: str) -> tuple[list[SleepPeriod], list[str]]:
    """Read an actual-sleep CSV; an empty text has no periods."""
    if not text.strip():
        return [], []
    good: list[SleepPeriod] = []
    errors: list[str] = []
    for row, cells in _rows(text, SLEEP_COLUMNS, "Sleep"):
        ref = cells["reference"].replace("|", "/")
        start, end = _instant(cells["sleepstart"]), _instant(cells["sleepend"])
        where = f"Sleep:{row}|{ref}"
        if not ref:
            errors.append(f"Sleep:{row}||Reference is blank")
        elif start is None or end is None:
            errors.append(f"{where}|SleepStart and SleepEnd must be ISO 8601 with a zone")
        elif not start < end:
            errors.append(f"{where}|SleepEnd is not after SleepStart")
        elif (end - start).total_seconds() > MAX_SLEEP_HOURS * 3600:
            errors.append(f"{where}|a sleep period longer than {MAX_SLEEP_HOURS:g} h")
        else:
            good.append(SleepPeriod(row, ref, start, end))
    return good, errors


@dataclass(frozen=True, slots=True)
class Matched:
    """One rating with the model's prediction for it."""

    observation: Observation
    predicted: float
    time_of_day: str
    duty_type: str
    hours_on_duty: str

    @property
    def residual(self) -> float:
        return self.observation.value - self.predicted
