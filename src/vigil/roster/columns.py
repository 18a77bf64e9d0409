"""The RosterData column table of seed §2.2 as data, with contract §3.1/§8 defaults and ranges.

Each :class:`Column` says how a cell is read (``kind``), whether it is required, the
default a blank cell takes, and which values are allowed. :mod:`vigil.roster.columnar`
reads cells only through this table, so a rule changes in one place.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Kind(StrEnum):
    """How a cell's text is read."""

    TEXT = "text"  #: free text, kept as written (trimmed)
    DATE = "date"  #: a date in the request's DateFormat
    TIME = "time"  #: H:MM or HH:MM, 00:00-23:59
    INT = "int"  #: a whole number
    NUMBER = "number"  #: a decimal number
    AIRPORT = "airport"  #: one ICAO/IATA/LID code
    AIRPORTS = "airports"  #: one or more codes separated by "/"


@dataclass(frozen=True, slots=True)
class Column:
    """One column of seed §2.2."""

    number: int  #: 1-based position in the seed's table
    name: str  #: the seed's column title
    kind: Kind
    required: bool = False  #: marked (+) in the seed
    default: int | float | None = None  #: value of a blank cell (contract §3.1, §8)
    allowed: tuple[int, ...] | None = None  #: allowed whole-number values, if a list
    minimum: int | None = None  #: lowest allowed whole number, if bounded below

    def describe_allowed(self) -> str:
        """The allowed values in words, for error messages."""
        if self.allowed is None:
            return f"{self.minimum} or more"
        values = self.allowed
        if values == tuple(range(values[0], values[-1] + 1)) and len(values) > 2:
            return f"{values[0]} to {values[-1]}"
        return ", ".join(str(v) for v in values[:-1]) + f" or {values[-1]}"


_K = Kind
#: The 34 columns in the seed's order (seed §2.2).
COLUMNS: tuple[Column, ...] = (
    Column(1, "Reference", _K.TEXT, required=True),
    Column(2, "OnDutyDate", _K.DATE, required=True),
    Column(3, "OnDutyTime", _K.TIME, required=True),
    Column(4, "StartAirport", _K.AIRPORT, required=True),
    Column(5, "OffDutyDate", _K.DATE, required=True),
    Column(6, "OffDutyTime", _K.TIME, required=True),
    Column(7, "EndAirport", _K.AIRPORT, required=True),
    Column(8, "Sectors", _K.INT, default=1, minimum=0),
    Column(9, "CrewComposition", _K.INT, default=2, allowed=(2, 3, 4, 9)),
    Column(10, "SleepCount", _K.INT, default=0, allowed=(0, 1, 2)),
    # SleepOrder: blank -> 1 (ours); 1-3 whatever SleepCount is (contract §8)
    Column(11, "SleepOrder", _K.INT, default=1, allowed=(1, 2, 3)),
    # SleepClass: blank -> 1, a bunk (ours, as vigil.domain.Duty)
    Column(12, "SleepClass", _K.INT, default=1, allowed=(1, 2, 3, 4, 5)),
    # HomeBase: required in the seed, but blank means the StartAirport (contract §3.1)
    Column(13, "HomeBase", _K.AIRPORTS, required=True),
    Column(14, "TimeReference", _K.INT, required=True, allowed=(0, 1, 2)),
    Column(15, "OnPartialAugmentDate", _K.DATE),
    Column(16, "OnPartialAugmentTime", _K.TIME),
    Column(17, "OffPartialAugmentDate", _K.DATE),
    Column(18, "OffPartialAugmentTime", _K.TIME),
    Column(19, "FirstRestStartDate", _K.DATE),
    Column(20, "FirstRestStartTime", _K.TIME),
    Column(21, "FirstRestEndDate", _K.DATE),
    Column(22, "FirstRestEndTime", _K.TIME),
    Column(23, "SecondRestStartDate", _K.DATE),
    Column(24, "SecondRestStartTime", _K.TIME),
    Column(25, "SecondRestEndDate", _K.DATE),
    Column(26, "SecondRestEndTime", _K.TIME),
    # SplitShift: 0 means True (seed §2.2 col 27); blank -> 1, no split (contract §8)
    Column(27, "SplitShift", _K.INT, default=1, allowed=(0, 1)),
    Column(28, "DutyType", _K.INT, default=1, allowed=(1, 2, 3)),
    Column(29, "Fleet", _K.TEXT),
    Column(30, "Rank", _K.TEXT),
    # Workload: range depends on Sectors (contract §8), checked in checks.py
    Column(31, "Workload", _K.NUMBER, default=0),
    Column(32, "CrewPrepTime", _K.INT, default=60, minimum=0),
    Column(33, "DutyCommuteTime", _K.INT, default=60, minimum=0),
    # CabinCrewSleepPattern 4 is accepted and treated as 0 (contract §3.1)
    Column(34, "CabinCrewSleepPattern", _K.INT, default=0, allowed=(0, 1, 2, 3, 4)),
)

#: Column by lower-case name, for header matching in any case (contract §3.1).
BY_LOWER_NAME: dict[str, Column] = {c.name.lower(): c for c in COLUMNS}

#: The 9 required columns, in the order a 9-column row without header gives them.
REQUIRED: tuple[Column, ...] = tuple(c for c in COLUMNS if c.required)

#: Column counts a row without a header may have (contract §3.1).
SHORT_WIDTH = len(REQUIRED)
FULL_WIDTH = len(COLUMNS)

#: Workload interval by whether Sectors is 0 (contract §8, seed §2.2 col 31).
WORKLOAD_RANGE_NO_SECTORS = (0.0, 50.0)
WORKLOAD_RANGE_WITH_SECTORS = (-50.0, 100.0)

#: Longest allowed duty, on-duty to off-duty (seed §8). [h]
MAX_DUTY_HOURS = 30

#: Longest schedule, first on-duty to last off-duty [days]: a roster is a plan for
#: the coming months; a year and a month covers an annual roster with its overlap
#: (docs/scoring.md). Longer schedules are row errors, so a schedule's cost is bounded.
MAX_SPAN_DAYS = 400

#: Years a date may have (contract §8).
MIN_YEAR, MAX_YEAR = 1900, 2100

#: ActivityData columns, in order (contract §5.1).
ACTIVITY_COLUMNS: tuple[str, ...] = (
    "Reference",
    "StartDate",
    "StartTime",
    "EndDate",
    "EndTime",
    "Location",
    "ActivityType",
    "TimeReference",
)
