"""The small RosterData shared by the API, hardening and worker tests.

P1: two short-haul duties at London in UTC; P2: a night duty from JFK in local time.
Imported as ``from rosters import HEADER, ROSTER`` (the tests' root is on the path).
"""

from __future__ import annotations

HEADER = (
    "Reference,OnDutyDate,OnDutyTime,StartAirport,OffDutyDate,OffDutyTime,EndAirport,"
    "HomeBase,TimeReference"
)
ROSTER = "\r\n".join(
    [
        HEADER,
        "P1,02/03/2026,06:00,LHR,02/03/2026,14:30,LHR,LHR,0",
        "P1,03/03/2026,07:10,LHR,03/03/2026,15:00,CDG,LHR,0",
        "P2,02/03/2026,22:00,JFK,03/03/2026,07:05,LHR,JFK,2",
    ]
)
