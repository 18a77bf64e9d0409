"""Chart payloads (``vigil.web.console.charts``) and feedback grouping (``rosters``)."""

from __future__ import annotations

import json
import math

import pytest

from vigil.scoring.service import ScoreRequest, score
from vigil.web.console.charts import INTERVAL_MS, chart_payload, envelope_payloads, risk_band
from vigil.web.console.rosters import feedback_rows

from .conftest import ROSTER


@pytest.fixture(scope="module")
def envelope() -> dict[str, object]:
    report = score(ScoreRequest(ROSTER, scale="VD", risk=True, include_sleep=True))
    return report.to_envelope()


def test_one_point_per_interval_with_its_times(envelope: dict[str, object]) -> None:
    payloads = envelope_payloads(envelope)
    assert [p["schedule"] for p in payloads] == ["P1", "P2"]
    p1 = payloads[0]
    entry = envelope["scheduleScores"][0]  # type: ignore[index]
    assert p1["v"] == entry["fatigueScores"]
    assert len(p1["t0"]) == len(p1["t1"]) == sum(d["intervalCount"] for d in entry["duties"])
    # the third duty is 22:10-07:00: 36 intervals, the last one 5 minutes long
    third = p1["duties"][2]
    assert third["count"] == 36
    last = third["first"] + third["count"] - 1
    assert p1["t1"][last] - p1["t0"][last] == 5 * 60 * 1000
    assert p1["t0"][third["first"] + 1] - p1["t0"][third["first"]] == INTERVAL_MS
    assert p1["t1"][last] == third["off"]


def test_scale_facts_duties_and_sleep(envelope: dict[str, object]) -> None:
    p1 = envelope_payloads(envelope)[0]
    assert (p1["low"], p1["high"], p1["unit"], p1["warnings"]) == (0.0, 100.0, "%", [27.1])
    risks = envelope["scheduleScores"][0]["riskScores"]  # type: ignore[index]
    assert [d["risk"] for d in p1["duties"]] == risks
    assert all(d["band"] for d in p1["duties"])
    assert p1["sleep"] and {s["source"] for s in p1["sleep"]} == {"predicted"}
    assert all(s["end"] > s["start"] for s in p1["sleep"])
    json.dumps(p1, allow_nan=False)


def test_missing_values_become_null() -> None:
    entry = {
        "schedule": "X",
        "fatigueScores": [2.0, math.nan],
        "duties": [
            {
                "onDuty": "2026-03-01T06:00:00Z",
                "offDuty": "2026-03-01T06:20:00Z",
                "firstInterval": 0,
                "intervalCount": 2,
            }
        ],
    }
    payload = chart_payload(entry, "KSS")
    assert payload["v"] == [2.0, None]
    assert payload["duties"][0]["risk"] is None and payload["duties"][0]["peak"] == 2.0
    json.dumps(payload, allow_nan=False)


@pytest.mark.parametrize(
    ("risk", "band"),
    [
        (None, ""),
        (1.0, "standard"),
        (1.29, "standard"),
        (1.3, "elevated"),
        (2.0, "high"),
        (2.99, "high"),
        (3.0, "very-high"),
    ],
)
def test_risk_bands(risk: float | None, band: str) -> None:
    assert risk_band(risk)[0] == band


def test_feedback_grouped_by_row() -> None:
    roster = "Reference,OnDutyDate\r\nP1,x\r\n\r\nP2,y\nP3,z"
    errors = [
        "4|P2|bad airport",
        "2|P1|first",
        "2|P1|second",
        "1||Unknown column 'Foo'",
        "ActivityData:2|P1|unknown activity",
        "SleepData[0]|P9|no such schedule",
        "99|P7|beyond the roster",
    ]
    sleep = json.dumps([{"ScheduleName": "P9"}])
    rows, loose = feedback_rows(errors, roster, "Reference\nP1,FLY", sleep)
    summary = [(r.source, r.row, r.text, r.messages) for r in rows]
    assert summary == [
        ("RosterData", 1, "Reference,OnDutyDate", [("", "Unknown column 'Foo'")]),
        ("RosterData", 2, "P1,x", [("P1", "first"), ("P1", "second")]),
        ("RosterData", 4, "P2,y", [("P2", "bad airport")]),
        ("ActivityData", 2, "P1,FLY", [("P1", "unknown activity")]),
        ("SleepData", 0, '{"ScheduleName": "P9"}', [("P9", "no such schedule")]),
    ]
    assert loose == [("99", "P7", "beyond the roster")]
