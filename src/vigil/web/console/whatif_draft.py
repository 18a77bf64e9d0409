"""What-if drafts: one schedule's duties and sleep as editable data, and back.

A draft starts from the stored roster's rows of one schedule (re-parsed, as the chart page
does) and is edited in the browser; the server turns it into what the API takes, RosterData
CSV and SleepData records, and scores that through the service's own path. The stored upload
is never modified.

The draft writes every row in **UTC** (TimeReference 0, contract §3.1) with all 34 columns
of seed §2.2, dates in the upload's DateFormat. A parsed duty written this way and parsed
again is the same duty (tested), so an unedited draft scores as the upload did (unless the
upload has ActivityData, which the scoring API does not take: see ``docs/console.md``).
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

from vigil.domain import CrewComposition, DateFormat, Duty, Period, Schedule
from vigil.roster.columns import COLUMNS
from vigil.scoring.service import iso

__all__ = [
    "CELL_COLUMNS",
    "Draft",
    "DraftDuty",
    "HEADER",
    "crew_of",
    "draft_of",
    "duty_cells",
    "references_of",
    "rows_of",
    "roster_text",
    "sleep_data",
]

#: The 34 column names of seed §2.2, the draft's header.
HEADER: tuple[str, ...] = tuple(c.name for c in COLUMNS)
#: Columns a draft keeps as text cells (all but Reference and the date/time columns).
CELL_COLUMNS: tuple[str, ...] = (
    "StartAirport",
    "EndAirport",
    "Sectors",
    "CrewComposition",
    "SleepCount",
    "SleepOrder",
    "SleepClass",
    "HomeBase",
    "SplitShift",
    "DutyType",
    "Fleet",
    "Rank",
    "Workload",
    "CrewPrepTime",
    "DutyCommuteTime",
    "CabinCrewSleepPattern",
)
_LINE_BREAK = re.compile(r"\r\n|\n|\r")


@dataclass(frozen=True, slots=True)
class DraftDuty:
    """One duty of a draft: its times (UTC) and its other cells as roster text."""

    on: datetime
    off: datetime
    rests: tuple[Period, ...] = ()  #: FirstRest, then SecondRest (at most two)
    augment: Period | None = None  #: the PartialAugment period
    cells: Mapping[str, str] = field(default_factory=dict)  #: CELL_COLUMNS → text


@dataclass(frozen=True, slots=True)
class Draft:
    """A schedule's draft: its duties and its sleep (``None``: predicted by the service)."""

    schedule: str
    duties: tuple[DraftDuty, ...]
    sleep: tuple[Period, ...] | None = None


def duty_cells(duty: Duty) -> dict[str, str]:
    """The roster cells (``CELL_COLUMNS``) that read back as ``duty``'s values."""
    return {
        "StartAirport": duty.start_airport.code,
        "EndAirport": duty.end_airport.code,
        "Sectors": str(duty.sectors),
        "CrewComposition": str(int(duty.crew_composition)),
        "SleepCount": str(duty.sleep_count),
        "SleepOrder": str(duty.sleep_order),
        "SleepClass": str(int(duty.sleep_class)),
        "HomeBase": "/".join(a.code for a in duty.home_base),
        "SplitShift": "0" if duty.split_shift else "1",  # seed §2.2 col 27: 0 means True
        "DutyType": str(int(duty.duty_type)),
        "Fleet": duty.fleet,
        "Rank": duty.rank,
        "Workload": repr(float(duty.workload)),
        "CrewPrepTime": str(duty.crew_prep_minutes),
        "DutyCommuteTime": str(duty.commute_minutes),
        "CabinCrewSleepPattern": str(duty.cabin_crew_sleep_pattern),
    }


def draft_of(schedule: Schedule) -> Draft:
    """A parsed schedule as a draft: its duties, and its given sleep (else predicted)."""
    duties = tuple(
        DraftDuty(
            on=d.on_duty,
            off=d.off_duty,
            rests=tuple(p for p in (d.first_rest, d.second_rest) if p is not None),
            augment=d.partial_augment,
            cells=duty_cells(d),
        )
        for d in schedule.duties
    )
    sleep = tuple(Period(r.start, r.end) for r in schedule.sleep) if schedule.sleep else None
    return Draft(schedule.reference, duties, sleep)


def _date_time(instant: datetime, date_format: DateFormat) -> tuple[str, str]:
    utc = instant.astimezone(UTC)
    pattern = "%d/%m/%Y" if date_format == DateFormat.DMY else "%m/%d/%Y"
    return utc.strftime(pattern), utc.strftime("%H:%M")


def _period_cells(period: Period | None, date_format: DateFormat) -> list[str]:
    if period is None:
        return ["", "", "", ""]
    return [*_date_time(period.start, date_format), *_date_time(period.end, date_format)]


def _row(reference: str, duty: DraftDuty, date_format: DateFormat) -> list[str]:
    values = {name: duty.cells.get(name, "") for name in CELL_COLUMNS}
    on_date, on_time = _date_time(duty.on, date_format)
    off_date, off_time = _date_time(duty.off, date_format)
    rests = [*duty.rests[:2], None, None][:2]
    times = {
        "OnDutyDate": on_date,
        "OnDutyTime": on_time,
        "OffDutyDate": off_date,
        "OffDutyTime": off_time,
        "TimeReference": "0",
        **dict(zip(HEADER[14:18], _period_cells(duty.augment, date_format), strict=True)),
        **dict(zip(HEADER[18:22], _period_cells(rests[0], date_format), strict=True)),
        **dict(zip(HEADER[22:26], _period_cells(rests[1], date_format), strict=True)),
    }
    return [
        reference if name == "Reference" else times.get(name, values.get(name, ""))
        for name in HEADER
    ]


def roster_text(drafts: Iterable[Draft], date_format: DateFormat) -> str:
    """RosterData CSV (header and one row per duty, ``\\r\\n``) of the drafts, in UTC."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(HEADER)
    for draft in drafts:
        for duty in draft.duties:
            writer.writerow(_row(draft.schedule, duty, date_format))
    return out.getvalue().removesuffix("\r\n")


def sleep_data(drafts: Iterable[Draft]) -> list[dict[str, str]]:
    """SleepData records (contract §3.2) of the drafts with given sleep."""
    return [
        {"ScheduleName": d.schedule, "SleepStart": iso(p.start), "SleepEnd": iso(p.end)}
        for d in drafts
        if d.sleep is not None
        for p in d.sleep
    ]


def rows_of(text: str, references: Sequence[str]) -> tuple[str | None, list[str]]:
    """The header line (``None`` without one) and the lines of ``references`` in RosterData.

    Lets a few schedules be read without parsing a whole large roster: only the lines in
    which a Reference occurs as text are read as CSV, and a line belongs to a Reference by
    its Reference cell (the header's ``Reference`` column, else the first).
    """
    first_at = len(text) - len(text.lstrip())
    head_end = _line_end(text, first_at)
    head_line = text[first_at:head_end].lstrip("\ufeff")
    if not head_line.strip():
        return None, []
    head = [f.strip().lower() for f in next(csv.reader([head_line]))]
    has_header = "reference" in head
    column = head.index("reference") if has_header else 0
    wanted = set(references)
    starts: set[int] = set()
    for ref in wanted:
        if not ref:
            continue
        at = text.find(ref)
        while at >= 0:  # once per line holding ref: go on from the line's end
            newline = text.rfind("\n", 0, at)
            starts.add(max(newline, text.rfind("\r", newline + 1, at)) + 1)
            at = text.find(ref, _line_end(text, at))
    kept: list[str] = []
    for start in sorted(starts):
        if has_header and start <= first_at:
            continue
        line = text[start : _line_end(text, start)]
        fields = next(csv.reader([line]), [])
        if len(fields) > column and fields[column].strip() in wanted:
            kept.append(line)
    return (head_line if has_header else None), kept


def _line_end(text: str, start: int) -> int:
    """Where the line holding ``start`` ends: its ``\\r`` or ``\\n``, or the end of the text."""
    newline = text.find("\n", start)
    stop = len(text) if newline < 0 else newline
    ret = text.find("\r", start, stop)
    return stop if ret < 0 else ret


def references_of(text: str) -> frozenset[str]:
    """Every Reference cell of RosterData (the header's ``Reference`` column, else the first)."""
    lines = [line for line in _LINE_BREAK.split(text) if line.strip()]
    if not lines:
        return frozenset()
    head = [f.strip().lower() for f in next(csv.reader([lines[0].lstrip("\ufeff")]))]
    has_header = "reference" in head
    column = head.index("reference") if has_header else 0
    rows = csv.reader(lines[1:] if has_header else lines)
    return frozenset(r[column].strip() for r in rows if len(r) > column)


def crew_of(schedules: Sequence[Schedule], reference: str) -> dict[int, list[str]]:
    """For each augmented duty (CrewComposition 3 or 4) of ``reference``, the schedules
    flying it: a duty with the same report and off-duty instants and the same airports.

    Keys are ``reference``'s duty indices; values References in roster order,
    ``reference`` included.
    """
    mine = next((s for s in schedules if s.reference == reference), None)
    if mine is None:
        return {}
    augmented = (CrewComposition.THREE_PILOTS, CrewComposition.FOUR_PILOTS)
    keys = {
        (d.on_duty, d.off_duty, d.start_airport.code, d.end_airport.code): i
        for i, d in enumerate(mine.duties)
        if d.crew_composition in augmented
    }
    out: dict[int, list[str]] = {i: [] for i in keys.values()}
    for schedule in schedules:
        for d in schedule.duties:
            index = keys.get((d.on_duty, d.off_duty, d.start_airport.code, d.end_airport.code))
            if index is not None and schedule.reference not in out[index]:
                out[index].append(schedule.reference)
    return out
