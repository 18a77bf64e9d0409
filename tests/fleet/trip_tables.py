"""Hand-built duty tables for the trip, hot-spot and comparison tests.

Each duty is written as ``(schedule, start, end, report, off, R, top of descent)`` with
airports by IATA code, times as ``"D HH:MM"`` (day of March 2026, UTC; London is on UTC
until 29 March, so UTC is also home-base time for LHR, LGW and MAN). The table is the
real :class:`~vigil.fleet.table.DutyTable`; only the columns trips read are filled in.
"""

from __future__ import annotations

import math
from datetime import UTC, datetime

import numpy as np

from vigil.fleet.table import Airports, DutyTable

#: (code as written, IATA, ICAO, zone): EGLL is LHR spelled by its ICAO code
AIRPORTS = (
    ("LHR", "LHR", "EGLL", "Europe/London"),
    ("LGW", "LGW", "EGKK", "Europe/London"),
    ("MAN", "MAN", "EGCC", "Europe/London"),
    ("JFK", "JFK", "KJFK", "America/New_York"),
    ("CDG", "CDG", "LFPG", "Europe/Paris"),
    ("FRA", "FRA", "EDDF", "Europe/Berlin"),
    ("EGLL", "LHR", "EGLL", "Europe/London"),
)
INDEX = {code: i for i, (code, *_rest) in enumerate(AIRPORTS)}

Duty = tuple[int, str, str, str, str, float, float]


def instant(text: str) -> int:
    """``"D HH:MM"`` in March 2026 (UTC) as epoch seconds."""
    day, clock = text.split()
    hour, minute = clock.split(":")
    return int(datetime(2026, 3, int(day), int(hour), int(minute), tzinfo=UTC).timestamp())


def table(
    duties: list[Duty],
    homes: list[str],
    *,
    references: list[str] | None = None,
) -> DutyTable:
    """A :class:`DutyTable` of ``duties`` (grouped by schedule in order), schedule ``s``
    based at ``homes[s]`` (its first code, for :attr:`DutyTable.home`)."""
    n = len(duties)
    col = list(zip(*duties, strict=True)) if duties else [()] * 7
    sched = np.asarray(col[0], dtype=np.int64)
    number = np.zeros(n, dtype=np.int64)
    for i in range(n):
        number[i] = 1 if i == 0 or sched[i] != sched[i - 1] else number[i - 1] + 1
    zeros = np.zeros(n, dtype=np.int64)
    floats = np.zeros(n)
    on = np.asarray([instant(t) for t in col[3]], dtype=np.int64)
    off = np.asarray([instant(t) for t in col[4]], dtype=np.int64)
    return DutyTable(
        scale="KSS",
        level=7.0,
        references=references or [f"P{s + 1}" for s in range(len(homes))],
        fleet=["A320"] * len(homes),
        rank=["CPT"] * len(homes),
        home=[INDEX[h.split("/")[0]] for h in homes],
        airports=Airports(*(list(c) for c in zip(*AIRPORTS, strict=True))),
        sched=sched,
        number=number,
        on_s=on,
        off_s=off,
        start=np.asarray([INDEX[a] for a in col[1]], dtype=np.int64),
        end=np.asarray([INDEX[a] for a in col[2]], dtype=np.int64),
        sectors=np.ones(n, dtype=np.int64),
        start_offset=zeros,
        end_offset=zeros,
        home_offset=zeros,
        kind=zeros,
        risk=np.asarray(col[5], dtype=np.float64),
        peak=floats,
        mean=floats,
        minutes=(off - on) / 60.0,
        above_minutes=floats,
        working_minutes=(off - on) / 60.0,
        tod=np.asarray(col[6], dtype=np.float64),
        rest_before_h=np.full(n, math.nan),
        intervals=(off - on) // 900,
        rest_intervals=zeros,
        peak_at_s=on,
    )


def bases(homes: list[str]) -> list[list[int]]:
    """Every HomeBase code of each schedule as airport indexes (``"LHR/LGW"``)."""
    return [[INDEX[code] for code in h.split("/")] for h in homes]
