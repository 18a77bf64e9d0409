"""R = 1 for the reference duty, through the whole service path (reference §8).

The reference duty: two pilots at home on UTC+0, acclimatised, habitual 23:00-07:00
sleep, report 10:00, off 20:00, 2 sectors, Workload 0. The service's batch risk and
:func:`vigil.model.reference_hazard` both go through
:func:`vigil.model.risk.duties_hazard`, so a roster holding exactly that duty, scored
like any request (CSV parsing, layout, simulation, risk), must come out at R = 1.000.
Reykjavik (KEF, Atlantic/Reykjavik) is UTC+0 all year, so no DST enters.
"""

from __future__ import annotations

import pytest

from vigil.scoring.service import ScoreRequest, score

HEADER = (
    "Reference,OnDutyDate,OnDutyTime,StartAirport,OffDutyDate,OffDutyTime,EndAirport,"
    "Sectors,HomeBase,TimeReference"
)
SLEEP = [
    {
        "ScheduleName": "R",
        "SleepStart": f"2026-03-0{day}T23:00:00Z",
        "SleepEnd": f"2026-03-0{day + 1}T07:00:00Z",
    }
    for day in (1, 2, 3)
]


def _risk(report: str, off: str, sectors: int) -> float | None:
    row = f"R,04/03/2026,{report},KEF,04/03/2026,{off},KEF,{sectors},KEF,0"
    result = score(ScoreRequest(f"{HEADER}\r\n{row}", risk=True, sleep_data=SLEEP))
    assert result.errors == ()
    return result.schedules[0].duties[0].risk


def test_reference_duty_scores_one_through_the_service() -> None:
    assert _risk("10:00", "20:00", 2) == pytest.approx(1.0, abs=5e-4)


def test_departures_from_the_reference_duty_move_the_risk() -> None:
    assert _risk("10:00", "20:00", 4) > 1.0  # two more take-offs and landings
    assert _risk("10:00", "14:00", 2) < 1.0  # a shorter duty
