"""Scenario rosters of the validation report, built in code as RosterData CSV (seed §2.2).

Every scenario is a realistic roster a user could send: all 34 columns, times in UTC
(TimeReference 0), dates ``dd/mm/yyyy``. Home bases are on zones without daylight saving
(ACC = UTC+0, HKG = UTC+8, DOH = UTC+3) so that local clock hours are fixed.
The scenarios start on a Monday in January 2026 (no DST anywhere on the routes used).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from vigil.roster.synthetic import SyntheticDuty, render_roster

#: First day of every scenario (a Monday; 00:00 UTC). Warm-up runs before it.
DAY0 = datetime(2026, 1, 12, tzinfo=UTC)


def at(day: int, hour: float) -> datetime:
    """UTC instant ``hour`` hours after midnight of scenario day ``day``."""
    return DAY0 + timedelta(days=day, hours=hour)


def duty(
    reference: str, on: datetime, off: datetime, start: str, end: str, home: str, **extra: Any
) -> SyntheticDuty:
    """One roster row (seed §2.2; times UTC, TimeReference 0), written by the roster's own
    CSV writer :func:`vigil.roster.synthetic.render_roster`."""
    fleet = "B788" if extra.get("crew_composition", 2) > 2 else "A320"
    return SyntheticDuty(reference, on, off, start, end, home, fleet=fleet, rank="CPT", **extra)


def ground_shift(reference: str, on: datetime, off: datetime) -> SyntheticDuty:
    """A ground work period at ACC (no sectors, no preparation, a 30-min commute): the
    shift-work studies' shifts."""
    return duty(reference, on, off, "ACC", "ACC", "ACC", sectors=0, crew_prep_minutes=0,
                commute_minutes=30)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Scenario:
    """A roster (and optional SleepData) plus what the report reads from it."""

    name: str
    rows: tuple[SyntheticDuty, ...]
    sleep: tuple[dict[str, str], ...] = field(default=())
    #: held times in bed (a laboratory protocol's, kept to their end asleep or not)
    beds: tuple[tuple[datetime, datetime], ...] = field(default=())


def held_beds(scenarios: Sequence[Scenario]) -> dict[str, tuple[tuple[datetime, datetime], ...]]:
    """Reference -> held times in bed, of the scenarios that declare any."""
    return {s.name: s.beds for s in scenarios if s.beds}


def roster_text(scenarios: Sequence[Scenario]) -> str:
    """RosterData CSV (34 columns, header, CRLF rows) holding every scenario's rows."""
    return render_roster([row for s in scenarios for row in s.rows])


def zulu(instant: datetime) -> str:
    """SleepData time format (contract §3.2, ISO 8601 Zulu)."""
    return instant.strftime("%Y-%m-%dT%H:%M:%SZ")


def sleep_record(reference: str, start: datetime, end: datetime) -> dict[str, str]:
    """One SleepData record (seed §2.3)."""
    return {"ScheduleName": reference, "SleepStart": zulu(start), "SleepEnd": zulu(end)}


def report_time_rows(hours: Sequence[float], length: float = 8.0) -> tuple[SyntheticDuty, ...]:
    """Roach et al. 2012: one isolated short-haul duty per schedule, reported at ``hours``.

    Each schedule is an ACC-based pilot with days off before, one 2-sector duty of
    ``length`` hours on day 3, reported at the given local (= UTC) hour.
    """
    return tuple(
        duty(f"R{h:05.2f}", at(3, h), at(3, h + length), "ACC", "ACC", "ACC", sectors=2)
        for h in hours
    )


def block_rows(
    reference: str, report_hour: float, length: float, *, days: int = 4, sectors: int = 3
) -> tuple[SyntheticDuty, ...]:
    """A block of ``days`` identical ACC duties from day 3, reported at ``report_hour``.

    Arsintescu et al. 2021 flew blocks of four early-starting or four late-finishing
    duties; a week of early starts is five.
    """
    return tuple(
        duty(
            reference,
            at(3 + k, report_hour),
            at(3 + k, report_hour + length),
            "ACC",
            "ACC",
            "ACC",
            sectors=sectors,
        )
        for k in range(days)
    )


def break_rows(reference: str, first_off: float, gap: float) -> tuple[SyntheticDuty, ...]:
    """Roach et al. 2016: two 8-h duties separated by a ``gap``-hour break.

    The first duty ends at ``first_off`` hours after day 3's midnight.
    """
    first = duty(reference, at(3, first_off - 8.0), at(3, first_off), "ACC", "ACC", "ACC")
    second_on = at(3, first_off + gap)
    second = duty(reference, second_on, second_on + timedelta(hours=8), "ACC", "ACC", "ACC")
    return (first, second)


def long_range_row(
    reference: str, flight_hours: float, departure_hour: float, sleep_order: int = 1
) -> SyntheticDuty:
    """Gander et al. 2013: one augmented flight (4 pilots, 2 rests each, bunk), ACC based.

    Report 1 h before departure, off 30 min after landing (reference §5.1); the person
    belongs to the crew resting first (SleepOrder 1) or second (2).
    """
    on = at(3, departure_hour - 1.0)
    off = on + timedelta(hours=flight_hours + 1.5)
    return duty(
        reference,
        on,
        off,
        "ACC",
        "JNB",
        "ACC",
        crew_composition=4,
        sleep_count=2,
        sleep_order=sleep_order,
    )


def layover_rows(
    reference: str, home: str, away: str, out_on: datetime, flight: float, layover: float
) -> tuple[SyntheticDuty, ...]:
    """A there-and-back trip: outbound flight, ``layover`` hours off away, return flight."""
    out_off = out_on + timedelta(hours=flight + 1.5)
    back_on = out_off + timedelta(hours=layover)
    back_off = back_on + timedelta(hours=flight + 1.5)
    return (
        duty(reference, out_on, out_off, home, away, home, crew_composition=3, sleep_count=1),
        duty(reference, back_on, back_off, away, home, home, crew_composition=3, sleep_count=1),
    )
