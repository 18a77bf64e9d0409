"""Frozen value objects shared by every layer: duties, schedules, sleep records, activities.

All instants are timezone-aware UTC :class:`datetime.datetime` values; naive datetimes
are rejected when an object is built (STYLE §3.4). Coded CSV values become enums here,
converted once at parse time (seed §2.2, contract §3.1).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from enum import IntEnum, StrEnum

from vigil.contract import INTERVAL_MINUTES

INTERVAL = timedelta(minutes=INTERVAL_MINUTES)  #: score interval (:mod:`vigil.contract`)


def _require_aware(name: str, value: datetime) -> None:
    if value.tzinfo is UTC:  # the common case, without the cost of utcoffset()
        return
    if value.utcoffset() is None:
        raise ValueError(f"{name} must be timezone-aware, got naive {value!r}")


class DateFormat(StrEnum):
    """Spec §2.1 DateFormat: order of day and month in RosterData dates."""

    DMY = "dmy"  #: DD/MM/YYYY
    MDY = "mdy"  #: MM/DD/YYYY


class TimeReference(IntEnum):
    """Spec §2.2 column 14; meaning fixed by contract §3.1."""

    UTC = 0  #: every time in the row is UTC
    HOME_BASE = 1  #: every time is local to the HomeBase airport
    LOCAL = 2  #: on-duty local to StartAirport, off-duty local to EndAirport


class CrewComposition(IntEnum):
    """Spec §2.2 column 9."""

    TWO_PILOTS = 2
    THREE_PILOTS = 3
    FOUR_PILOTS = 4
    CABIN_CREW = 9


class SleepClass(IntEnum):
    """Spec §2.2 column 12: where in-flight rest is taken."""

    BUNK = 1  #: bunk
    CABIN_SEAT = 2  #: cabin seat, recline 40 degrees or more
    FLIGHT_DECK_SEAT = 3  #: flight deck seat
    ECONOMY_SEAT = 4  #: economy seat, recline under 40 degrees
    JUMP_SEAT = 5  #: jump seat


class DutyType(IntEnum):
    """Spec §2.2 column 28."""

    ACTIVE = 1
    SPLIT_SHIFT = 2
    STANDBY = 3


class ActivityType(StrEnum):
    """Contract §5.1 ActivityType."""

    DAYOFF = "DAYOFF"
    LEAVE = "LEAVE"
    SICK = "SICK"
    GROUND = "GROUND"
    SIMULATOR = "SIMULATOR"
    TRAINING = "TRAINING"
    POSITIONING = "POSITIONING"
    STANDBY = "STANDBY"

    @property
    def awake_at_work(self) -> bool:
        """GROUND/SIMULATOR/TRAINING/POSITIONING are time awake at work (contract §5.1)."""
        return self in _AWAKE_ACTIVITIES


_AWAKE_ACTIVITIES = frozenset(
    {ActivityType.GROUND, ActivityType.SIMULATOR, ActivityType.TRAINING, ActivityType.POSITIONING}
)


@dataclass(frozen=True, slots=True)
class Period:
    """A half-open UTC interval ``[start, end)``."""

    start: datetime
    end: datetime

    def __post_init__(self) -> None:
        _require_aware("Period.start", self.start)
        _require_aware("Period.end", self.end)

    @property
    def duration(self) -> timedelta:
        return self.end - self.start


@dataclass(frozen=True, slots=True)
class Airport:
    """A resolved airport: the code as written and its IANA time zone."""

    code: str  #: the code as written in the roster (upper case)
    tz: str  #: IANA zone name, e.g. ``Europe/London``
    icao: str = ""
    iata: str = ""
    name: str = ""


@dataclass(frozen=True, slots=True)
class Duty:
    """One roster row, defaults applied and every time converted to UTC (spec §2.2)."""

    row: int  #: 1-based physical line number in RosterData (header counted)
    reference: str
    on_duty: datetime
    off_duty: datetime
    start_airport: Airport
    end_airport: Airport
    home_base: tuple[Airport, ...]  #: first entry sets the base time zone
    time_reference: TimeReference = TimeReference.UTC
    sectors: int = 1
    crew_composition: CrewComposition = CrewComposition.TWO_PILOTS
    sleep_count: int = 0
    sleep_order: int = 1
    sleep_class: SleepClass = SleepClass.BUNK  #: ours: blank means a bunk (class 1)
    partial_augment: Period | None = None
    first_rest: Period | None = None
    second_rest: Period | None = None
    split_shift: bool = False  #: CSV 0 means True (seed §2.2 col 27); blank means False
    duty_type: DutyType = DutyType.ACTIVE
    fleet: str = ""
    rank: str = ""
    workload: float = 0.0
    crew_prep_minutes: int = 60
    commute_minutes: int = 60
    cabin_crew_sleep_pattern: int = 0  #: 4 is accepted and stored as 0 (contract §3.1)

    def __post_init__(self) -> None:
        _require_aware("Duty.on_duty", self.on_duty)
        _require_aware("Duty.off_duty", self.off_duty)

    @property
    def home(self) -> Airport:
        return self.home_base[0]

    @property
    def duration(self) -> timedelta:
        return self.off_duty - self.on_duty

    @property
    def interval_count(self) -> int:
        """``ceil((off - on) / 15 min)`` (contract §4)."""
        return -(-(self.off_duty - self.on_duty) // INTERVAL)

    @property
    def away_from_base(self) -> bool:
        """The duty ends at an airport other than any HomeBase code (reference §4.1)."""
        home_codes = {a.code for a in self.home_base} | {a.icao for a in self.home_base}
        home_codes |= {a.iata for a in self.home_base}
        home_codes.discard("")
        end = self.end_airport
        return not ({end.code, end.icao, end.iata} - {""}) & home_codes

    def intervals(self) -> list[Period]:
        """The duty's 15-minute score intervals (contract §4)."""
        out: list[Period] = []
        t = self.on_duty
        while t < self.off_duty:
            out.append(Period(t, min(t + INTERVAL, self.off_duty)))
            t += INTERVAL
        return out


@dataclass(frozen=True, slots=True)
class SleepRecord:
    """A given sleep (seed §2.3); ``index`` is its 0-based position in SleepData."""

    schedule_name: str
    start: datetime
    end: datetime
    index: int = 0

    def __post_init__(self) -> None:
        _require_aware("SleepRecord.start", self.start)
        _require_aware("SleepRecord.end", self.end)


@dataclass(frozen=True, slots=True)
class Activity:
    """A non-flying activity from ActivityData (contract §5.1)."""

    row: int
    reference: str
    start: datetime
    end: datetime
    location: Airport
    activity_type: ActivityType
    time_reference: TimeReference = TimeReference.UTC

    def __post_init__(self) -> None:
        _require_aware("Activity.start", self.start)
        _require_aware("Activity.end", self.end)


@dataclass(frozen=True, slots=True)
class Schedule:
    """All duties of one Reference in chronological order, with its sleep and activities."""

    reference: str
    duties: tuple[Duty, ...]
    sleep: tuple[SleepRecord, ...] = ()
    activities: tuple[Activity, ...] = ()

    @property
    def interval_count(self) -> int:
        return sum(d.interval_count for d in self.duties)
