"""Warning levels and risk bands of a settings version, as a roster's views use them."""

from __future__ import annotations

import orjson

from vigil.fleet.records import duty_records
from vigil.fleet.stored import SUMMARY_VERSION, load
from vigil.fleet.summary import summarise
from vigil.fleet.table import duty_table
from vigil.fleet.thresholds import DEFAULT_THRESHOLDS, Thresholds
from vigil.model import warning_level
from vigil.settings import DEFAULT_SETTINGS, parse_settings
from vigil.settings.bands import RISK_BANDS
from vigil.web.console.charts import chart_payload, in_force

from .test_summary import KSS, RISKS, TIMES, facts_for, stored_from

FACTS = facts_for([3, 1], fleet=["A320", "B777"], rank=["CPT", "FO"])


def test_default_settings_are_the_built_in_levels_and_bands() -> None:
    limits = Thresholds.from_settings(DEFAULT_SETTINGS, 0)
    assert limits == DEFAULT_THRESHOLDS and limits.is_default
    assert limits.bands is RISK_BANDS
    assert limits.level("SP") == warning_level("SP")  # exact, not the rounded 5.5
    stored = stored_from(KSS, TIMES, RISKS)
    plain = duty_table(stored, FACTS, "KSS")
    same = duty_table(stored, FACTS, "KSS", level=limits.level("KSS"), bands=limits.bands)
    assert summarise(same) == summarise(plain)


def test_own_level_and_bands_change_the_figures() -> None:
    own = parse_settings({"riskBands": [1.0, 2.5, 3.0], "warningLevels": {"KSS": [6, 8]}})
    limits = Thresholds.from_settings(own, 4)
    assert not limits.is_default and limits.level("KSS") == 6.0
    assert limits.warnings("KSS") == (6.0, 8.0) and limits.warnings("SP") == (5.5,)
    stored = stored_from(KSS, TIMES, RISKS)
    base = summarise(duty_table(stored, FACTS, "KSS"))
    t = duty_table(stored, FACTS, "KSS", level=limits.level("KSS"), bands=limits.bands)
    mine = summarise(t)
    # risks 2.0, 0.8, 3.5, 0.5: built in (1.3, 2, 3) 2 acceptable, 1 mitigate, 1 redesign
    assert [b["count"] for b in base["bands"]] == [2, 0, 1, 1]
    assert [b["count"] for b in mine["bands"]] == [2, 1, 0, 1]
    assert mine["warningLevel"] == 6.0
    # KSS ≥ 6 counts more of duty A1 (5,5,6,7,7,8,6,5,7) than KSS ≥ 7
    assert mine["aboveWarning"]["minutes"] > base["aboveWarning"]["minutes"]
    words = [row[18] for row in duty_records(t)]  # the Band column
    assert words == ["monitor", "acceptable", "redesign", "acceptable"]
    shown = in_force(limits, "KSS")
    assert shown["version"] == 4 and shown["levels"] == "6, 8"
    assert [b["span"] for b in shown["bands"]] == ["R < 1", "1 – 2.5", "2.5 – 3", "R ≥ 3"]


def test_stored_summary_keeps_its_thresholds() -> None:
    limits = Thresholds.from_settings(parse_settings({"riskBands": [1.0, 2.5, 3.0]}), 2)
    stored = stored_from(KSS, TIMES, RISKS)
    data = {
        "version": SUMMARY_VERSION,
        "modelVersion": "1.1.1+x",
        "summary": {},
        "schedules": {},
        "facts": FACTS.to_json(),
        "thresholds": limits.to_json(),
    }
    loaded = load(orjson.dumps(data))
    assert loaded is not None and loaded.thresholds == limits
    assert loaded.table(stored, "KSS").bands == limits.bands
    del data["thresholds"]  # no thresholds recorded: built-in levels and bands
    older = load(orjson.dumps(data))
    assert older is not None and older.thresholds == DEFAULT_THRESHOLDS
    data["version"] = SUMMARY_VERSION - 1  # stored before: rebuilt on first view
    assert load(orjson.dumps(data)) is None


def test_chart_payload_draws_the_levels_in_force() -> None:
    entry = {
        "schedule": "A",
        "fatigueScores": [5.0, 6.5, 7.5],
        "duties": [
            {"onDuty": "2026-03-02T06:00:00Z", "offDuty": "2026-03-02T06:45:00Z",
             "firstInterval": 0, "intervalCount": 3, "risk": 2.0}
        ],
    }  # fmt: skip
    built_in = chart_payload(entry, "KSS")
    assert built_in["warnings"] == [7.0] and built_in["duties"][0]["aboveWarning"] == 1
    assert built_in["duties"][0]["band"] == "high"  # R 2.0: mitigate (2-3)
    limits = Thresholds.from_settings(
        parse_settings({"riskBands": [1.0, 1.5, 1.9], "warningLevels": {"KSS": [6]}}), 1
    )
    own = chart_payload(entry, "KSS", warnings=limits.warnings("KSS"), in_force=limits.bands)
    assert own["warnings"] == [6.0] and own["duties"][0]["aboveWarning"] == 2
    assert own["duties"][0]["band"] == "very-high"
