"""The roster summary from hand-made stored scores with known answers."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import numpy as np
import pytest

from vigil.fleet.schedules import select
from vigil.fleet.summary import SHORT_REST_HOURS, schedule_rows, summarise
from vigil.fleet.table import Airports, RosterFacts, duty_table
from vigil.model import DEFAULT, SCALES
from vigil.results.compact import IndexedDuty, IndexedSchedule, StoredScores

SCALE_ORDER = ("KSS", "SP", "KP", "VD", "CRD", "PMR")


def epoch(text: str) -> int:
    return int(datetime.fromisoformat(text).replace(tzinfo=UTC).timestamp())


def stored_from(kss_by_duty: list[list[list[float]]], times: list[list[tuple[str, str]]],
                risks: list[list[float]]) -> StoredScores:  # fmt: skip
    """Stored scores of schedules A, B, ... whose duties have these KSS interval values;
    the other scales are the model's own mappings of them."""
    schedules, rows = [], []
    for s, duties in enumerate(kss_by_duty):
        first, entries = 0, []
        for d, values in enumerate(duties):
            on, off = times[s][d]
            entries.append(IndexedDuty(epoch(on), epoch(off), first, len(values), risks[s][d]))
            first += len(values)
            rows.extend(values)
        schedules.append(IndexedSchedule(chr(65 + s), first, tuple(entries)))
    kss = np.asarray(rows, dtype=np.float64)
    matrix = np.stack([SCALES[c](kss, DEFAULT) for c in SCALE_ORDER], axis=1).astype(np.float32)
    return StoredScores(SCALE_ORDER, schedules, matrix)


def facts_for(n_duties: list[int], *, fleet: list[str], rank: list[str]) -> RosterFacts:
    """London-based crew flying LHR-CDG (UTC+0 in early March), one sector each."""
    total = sum(n_duties)
    return RosterFacts(
        fleet=fleet,
        rank=rank,
        home=[0] * len(n_duties),
        airports=Airports(
            ["LHR", "CDG"], ["LHR", "CDG"], ["EGLL", "LFPG"], ["Europe/London", "Europe/Paris"]
        ),  # fmt: skip
        start=[0] * total,
        end=[1] * total,
        sectors=[1] * total,
        start_offset=[0] * total,
        end_offset=[60] * total,
        home_offset=[0] * total,
    )


#: A: three early starts on consecutive days (Mon-Wed 2026-03-02..04), the third after a
#: 10.5 h rest; B: one 14:00-22:00 day duty
KSS = [
    [[5, 5, 6, 7, 7, 8, 6, 5, 7], [4, 4, 5], [6, 6, 6, 6]],
    [[3, 3, 3, 3]],
]
TIMES = [
    [
        ("2026-03-02T06:00", "2026-03-02T08:10"),
        ("2026-03-03T05:30", "2026-03-03T06:15"),
        ("2026-03-03T16:45", "2026-03-03T17:45"),
    ],
    [("2026-03-04T14:00", "2026-03-04T15:00")],
]
RISKS = [[2.0, 0.8, 3.5], [0.5]]


@pytest.fixture
def stored() -> StoredScores:
    return stored_from(KSS, TIMES, RISKS)


@pytest.fixture
def facts() -> RosterFacts:
    return facts_for([3, 1], fleet=["A320", "B777"], rank=["CPT", "FO"])


def test_duty_figures(stored: StoredScores, facts: RosterFacts) -> None:
    t = duty_table(stored, facts, "KSS")
    assert len(t) == 4
    # intervals at or above KSS 7: 3 full ones and the last 10-min one of duty 1
    assert t.above_minutes.tolist() == [55.0, 0.0, 0.0, 0.0]
    assert t.peak.tolist() == [8.0, 5.0, 6.0, 3.0]
    # duration-weighted mean: 8 intervals of 15 min and one of 10 min
    expected = (sum(KSS[0][0][:8]) * 15 + 7 * 10) / 130
    assert t.mean[0] == pytest.approx(expected, abs=1e-3)
    assert t.minutes.tolist() == [130.0, 45.0, 60.0, 60.0]
    rest = t.rest_before_h.tolist()
    assert np.isnan(rest[0]) and rest[1] == pytest.approx(21 + 20 / 60) and np.isnan(rest[3])
    assert rest[2] == pytest.approx(10.5)
    # the model's classification on home-base time: 06:00 and 05:30 reports are early
    assert [("early", "day", "late", "night")[k] for k in t.kind.tolist()] == [
        "early", "early", "day", "day",
    ]  # fmt: skip


def test_summary_figures(stored: StoredScores, facts: RosterFacts) -> None:
    t = duty_table(stored, facts, "KSS")
    rows = schedule_rows(t)
    s = summarise(t, rows)
    assert sum(s["riskHistogram"]["counts"]) == 4 and s["riskHistogram"]["missing"] == 0
    assert sum(s["peakHistogram"]["counts"]) == 4
    assert s["aboveWarning"]["minutes"] == 55.0
    assert s["aboveWarning"]["share"] == pytest.approx(55 / 295, abs=1e-4)
    top = s["topDuties"][0]
    assert (top["reference"], top["duty"], top["risk"]) == ("A", 3, 3.5)
    assert top["route"] == "LHR–CDG" and top["fleet"] == "A320"
    assert [x["reference"] for x in s["topSchedules"]] == ["A", "B"]
    bands = {b["band"]: b["count"] for b in s["bands"]}
    assert bands == {"standard": 2, "elevated": 0, "high": 1, "very-high": 1}
    # hot spots: Monday 06:00 local has duty 1 alone; fleets and ranks as given
    grid = s["hotSpots"]["reportHour"]
    assert grid["n"][6][0] == 1 and grid["mean"][6][0] == 2.0
    assert sum(map(sum, grid["n"])) == 4
    assert {g["key"]: g["n"] for g in s["hotSpots"]["fleet"]} == {"A320": 3, "B777": 1}
    kinds = {g["key"]: (g["n"], g["max"]) for g in s["hotSpots"]["dutyKind"]}
    assert kinds == {"early": (2, 2.0), "day": (2, 3.5)}
    # patterns: the rest of 10.5 h before A's third duty; two early starts are no run of 3
    assert rows["shortRests"] == [1, 0] and SHORT_REST_HOURS == 12.0
    assert s["patterns"]["shortRests"]["top"][0]["reference"] == "A"
    assert s["patterns"]["earlyRuns"]["count"] == 0 and rows["longestEarlyRun"] == [2, 0]
    json.dumps(s, allow_nan=False)


def test_three_consecutive_early_starts_are_a_run() -> None:
    times = [[(f"2026-03-0{d}T05:45", f"2026-03-0{d}T09:45") for d in (2, 3, 4, 6)]]
    stored = stored_from([[[4.0] * 16] * 4], times, [[1.0] * 4])
    t = duty_table(stored, facts_for([4], fleet=["A320"], rank=["FO"]), "KSS")
    rows = schedule_rows(t)
    # 2nd, 3rd: consecutive (< 36 h since the last early one went off); 6th: 68 h later
    assert rows["earlyRuns"] == [1] and rows["longestEarlyRun"] == [3]


def test_share_above_warning_is_the_same_on_every_scale(stored: StoredScores,
                                                       facts: RosterFacts) -> None:  # fmt: skip
    # each scale's warning level is KSS 7 through its mapping
    shares = {c: summarise(duty_table(stored, facts, c))["aboveWarning"]["share"]
              for c in SCALE_ORDER}  # fmt: skip
    assert len(set(shares.values())) == 1, shares


def test_schedule_selection_sorts_filters_and_searches(
    stored: StoredScores, facts: RosterFacts
) -> None:
    rows = schedule_rows(duty_table(stored, facts, "KSS"))
    assert select(rows, sort="risk").positions == [0, 1]
    assert select(rows, sort="risk", descending=False).positions == [1, 0]
    assert select(rows, sort="peak", descending=False).positions == [1, 0]
    assert select(rows, fleet="B777").positions == [1]
    assert select(rows, rank="CPT").positions == [0]
    assert select(rows, query="b").positions == [1]
    picked = select(rows, limit=1, offset=1)
    assert picked.positions == [1] and picked.matched == 2
    assert picked.fleets == ["A320", "B777"]


def test_facts_must_match_the_stored_duties(stored: StoredScores) -> None:
    with pytest.raises(ValueError, match="do not match"):
        duty_table(stored, facts_for([2], fleet=["x"], rank=["y"]), "KSS")
