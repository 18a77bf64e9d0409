"""Small rosters shared by the worker tests."""

from __future__ import annotations

from rosters import HEADER

ROSTER = "\r\n".join(
    [
        HEADER,
        "P1,02/03/2026,06:00,LHR,02/03/2026,14:30,LHR,LHR,0",
        "P1,03/03/2026,07:10,LHR,03/03/2026,15:00,CDG,LHR,0",
        "P2,02/03/2026,22:00,JFK,03/03/2026,07:05,LHR,JFK,2",
        "P3,04/03/2026,05:00,SYD,04/03/2026,12:00,MEL,SYD,1",
    ]
)
