"""Long gaps at home start from the rested steady state (vigil.scoring.segments).

Tolerance fixed from the reference before comparing: after the gap S is within 0.01 of
its steady state (reference §2.1, §9.4) and phi at the home-base offset (§3), so
interval means on the KSS scale may differ from the minute-by-minute simulation by at
most 0.01 (KSS moves by less than one unit per TPM unit, reference §2.6).
"""

from __future__ import annotations

import math

import numpy as np

from vigil.domain import DateFormat
from vigil.model.parameters import DEFAULT
from vigil.roster import parse_request
from vigil.scoring.segments import GAP_DAYS
from vigil.scoring.service import ScoreRequest, plan_parsed, score, score_plan

BEFORE = [  # a week of mixed duties ending at home (LHR): early, late, a JFK trip, a night
    "P,02/03/2026,06:00,LHR,02/03/2026,14:30,LHR,LHR,0",
    "P,03/03/2026,21:10,LHR,04/03/2026,07:00,JFK,LHR,2",
    "P,05/03/2026,18:00,JFK,06/03/2026,07:30,LHR,LHR,2",
    "P,08/03/2026,23:00,LHR,09/03/2026,06:00,LHR,LHR,0",
]
AFTER = [  # more than GAP_DAYS later
    "P,20/04/2026,05:30,LHR,20/04/2026,13:00,LHR,LHR,0",
    "P,21/04/2026,14:00,LHR,21/04/2026,23:30,LHR,LHR,0",
]


def _results(rows: list[str], **kw: float) -> list:  # noqa: ANN401
    parsed = parse_request("\r\n".join(rows), DateFormat.DMY)
    assert parsed.errors == ()
    return score_plan(plan_parsed(parsed, DEFAULT), DEFAULT, ("KSS",), risk=True, **kw)


def test_the_gap_used_is_longer_than_the_models_memory() -> None:
    # S: 5 days (reference §2.1); phi: 9.6 h at 1.0 h/day (§3); margin about two
    assert GAP_DAYS >= 2 * (5 + 9.6) - 2


def test_after_a_long_gap_a_schedule_scores_as_a_fresh_one() -> None:
    (joined,) = _results(BEFORE + AFTER)
    (before,) = _results(BEFORE)
    (after,) = _results(AFTER)
    n = before.scores["KSS"].size
    assert np.array_equal(joined.scores["KSS"][:n], before.scores["KSS"])
    assert np.array_equal(joined.scores["KSS"][n:], after.scores["KSS"])
    assert [d.first_interval for d in joined.duties[4:]] == [
        n + d.first_interval for d in after.duties
    ]
    assert [d.risk for d in joined.duties] == [d.risk for d in (*before.duties, *after.duties)]


def test_segments_agree_with_the_minute_by_minute_simulation() -> None:
    (cut,) = _results(BEFORE + AFTER)
    (whole,) = _results(BEFORE + AFTER, gap_days=math.inf)
    assert cut.scores["KSS"].size == whole.scores["KSS"].size
    assert np.max(np.abs(cut.scores["KSS"] - whole.scores["KSS"])) <= 0.01
    assert [d.interval_count for d in cut.duties] == [d.interval_count for d in whole.duties]


def test_a_gap_away_from_home_is_simulated() -> None:
    away = [BEFORE[1], "P,20/04/2026,05:30,JFK,20/04/2026,13:00,LHR,LHR,2"]  # ends at JFK
    (cut,) = _results(away)
    (whole,) = _results(away, gap_days=math.inf)
    assert np.array_equal(cut.scores["KSS"], whole.scores["KSS"])


def test_two_duties_399_days_apart_simulate_days_not_a_year() -> None:
    rows = []
    for i in range(150):
        rows += [
            f"R{i},01/01/2026,06:00,LHR,01/01/2026,12:00,LHR,LHR,0",
            f"R{i},04/02/2027,06:00,LHR,04/02/2027,12:00,LHR,LHR,0",
        ]
    request = ScoreRequest("\r\n".join(rows), DateFormat.DMY, risk=True, include_sleep=True)
    report = score(request)
    assert report.errors == () and len(report.schedules) == 150
    # simulated: the warm-up nights and the nights after each duty, not 399 nights each
    assert all(len(s.sleep) < 12 for s in report.schedules)
