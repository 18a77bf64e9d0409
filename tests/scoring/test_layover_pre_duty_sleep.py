"""The pre-duty sleep on a layover, where the body clock and the local clock disagree.

Before an evening or night report the crew member takes a pre-duty sleep (ref §4.3.3; on
the body clock). On a layover the gates read the sleep-timing clock (§4.3.4). A report
that is evening locally but morning on the body clock left some crews with no sleep at
all in the day before it: the local afternoon's wake-maintenance zone keeps the gates
shut. There the pre-duty sleep is the sleep of last resort, taken only when the gates
give none (docs/sleep.md "Layover against home sleep").
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from vigil.roster.synthetic import SyntheticDuty, render_roster
from vigil.scoring.grid import epoch_hours
from vigil.scoring.report import ScheduleResult
from vigil.scoring.request import ScoreRequest
from vigil.scoring.service import score
from vigil.validation import scenarios as sc


def _cabin(on: datetime, off: datetime, start: str, end: str) -> SyntheticDuty:
    """A Dubai-based cabin crew member's long flight (composition 9, one rest, as the
    legal synthetic month's)."""
    return SyntheticDuty(
        "CC1", on, off, start, end, "DXB", fleet="B777", rank="CC",
        crew_composition=9, sleep_count=1, sleep_order=1,
    )  # fmt: skip


def _scored(rows: list[SyntheticDuty]) -> ScheduleResult:
    report = score(ScoreRequest(render_roster(rows), include_sleep=True, risk=True))
    assert not report.errors
    (result,) = report.schedules
    return result


def _at(day: int, hour: int, minute: int) -> datetime:
    return datetime(2026, 3, day, hour, minute, tzinfo=UTC)


def test_a_local_evening_departure_is_not_reported_for_after_a_day_awake() -> None:
    """DXB-JFK landing 01:55 New York time, JFK-DXB reporting 22:55 New York time two days
    later (07:55 on the crew member's Dubai body clock). Before, the model had them awake
    from 22:39 the evening before: 0.0 h of sleep in the 24 h before report, the legal
    month's riskiest duty (R 4.05)."""
    result = _scored([
        _cabin(_at(3, 15, 25), _at(4, 6, 55), "DXB", "JFK"),
        _cabin(_at(6, 3, 55), _at(6, 19, 25), "JFK", "DXB"),
    ])  # fmt: skip
    report = epoch_hours(result.duties[1].on_duty)
    assert sc.sleep_between(result, report - 24.0, report) >= 1.5
    before = [e for e in result.sleep if report - 12.0 <= e.start < report and e.kind == "nap"]
    assert len(before) == 1
    # it ends by 18:00 on the sleep-timing clock, at least an hour before the transfer
    assert before[0].end <= report - 1.0


def test_a_body_evening_gate_sleep_is_not_displaced_by_it() -> None:
    """Golden airline roster, schedule C00005: a layover west of home whose 05:25 UTC report
    is local evening; the gates give a 6-h body-evening sleep before it, which the sleep of
    last resort must leave in place (a rule that always took it lost that sleep and raised
    the duty's R from 0.24 to 0.44)."""
    report = score(ScoreRequest(_golden_rows("C00005"), include_sleep=True, risk=True))
    (result,) = report.schedules
    duty = next(d for d in result.duties if d.on_duty == _at(11, 5, 25))
    on = epoch_hours(duty.on_duty)
    longest = max(min(e.end, on) - e.start for e in result.sleep if on - 12.0 <= e.start < on)
    assert longest >= 5.5
    assert duty.risk is not None and duty.risk < 0.3


def _golden_rows(reference: str) -> str:
    lines = (Path(__file__).parents[1] / "data" / "golden_airline.csv").read_text().splitlines()
    return "\n".join([lines[0], *(line for line in lines[1:] if line.startswith(reference))])
