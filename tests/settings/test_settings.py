"""Operator settings: defaults, validation, versions, and what scoring takes."""

from __future__ import annotations

from functools import partial
from typing import Any

import orjson
import pytest
from sqlalchemy.orm import Session, sessionmaker

from reference.roster_rows import parse_request_rows
from vigil import model, tz
from vigil.domain import DateFormat
from vigil.roster.parse import parse_request
from vigil.scoring.context import ScoringContext
from vigil.scoring.service import ScoreRequest, score
from vigil.settings import DEFAULT_SETTINGS, SettingsError, merge_settings, parse_settings

from .helpers import ROSTER, ROSTER_ZZQ, ZZQ


def test_defaults_are_todays_behaviour() -> None:
    # nothing moves for an operator who never changed a setting (golden baseline)
    assert DEFAULT_SETTINGS.parameters() is model.PRESETS["ingre2014_5c"]
    assert DEFAULT_SETTINGS.blank_defaults() == {}
    assert DEFAULT_SETTINGS.airport_table() == {}
    assert (DEFAULT_SETTINGS.crew_prep_minutes, DEFAULT_SETTINGS.commute_minutes) == (60, 60)
    plain = score(ScoreRequest(roster_text=ROSTER, risk=True, settings_version=None)).to_envelope()
    under = score(
        ScoringContext.of_settings(DEFAULT_SETTINGS, 0).request(ROSTER, risk=True)
    ).to_envelope()
    assert "settingsVersion" not in plain
    assert under.pop("settingsVersion") == 0
    assert orjson.dumps(under, option=orjson.OPT_SERIALIZE_NUMPY) == orjson.dumps(
        plain, option=orjson.OPT_SERIALIZE_NUMPY
    )


def test_round_trip_is_canonical() -> None:
    s = parse_settings({"crewPrepMinutes": "90", "airports": [ZZQ], "kpThreshold": 7})
    assert parse_settings(orjson.loads(s.to_json())) == s
    assert s.to_json() == parse_settings(s.to_dict()).to_json()


@pytest.mark.parametrize(
    ("data", "prop"),
    [
        ({"airports": [{**ZZQ, "tz": "Europe/Osloo"}]}, "airports[0].tz"),
        ({"airports": [{**ZZQ, "tz": "+02:00"}]}, "airports[0].tz"),
        ({"airports": [{**ZZQ, "code": "Z!Q"}]}, "airports[0].code"),
        ({"airports": [ZZQ, ZZQ]}, "airports[1].code"),
        ({"airports": [{**ZZQ, "lat": 91}]}, "airports[0].lat"),
        ({"crewPrepMinutes": -5}, "crewPrepMinutes"),
        ({"kpThreshold": 6}, "kpThreshold"),
        ({"preset": "nope"}, "preset"),
        ({"scale": "XYZ"}, "scale"),
        ({"warningLevels": {"KSS": [10]}}, "warningLevels.KSS"),
        ({"colour": "red"}, "colour"),
    ],
)
def test_bad_settings_name_the_property(data: dict[str, Any], prop: str) -> None:
    with pytest.raises(SettingsError) as caught:
        parse_settings(data)
    assert [e["property"] for e in caught.value.errors] == [prop]


def test_bad_zone_message_is_clear() -> None:
    with pytest.raises(SettingsError, match="'Mars/Base' is not an IANA time zone name"):
        parse_settings({"airports": [{**ZZQ, "tz": "Mars/Base"}]})


def test_kp_threshold_changes_kp_and_says_so() -> None:
    s = parse_settings({"kpThreshold": 7})
    params = s.parameters()
    assert params.model_version.endswith("+ingre2014_5c+kp7")
    kss = score(ScoreRequest(roster_text=ROSTER, scale="KP"))
    kp7 = score(ScoreRequest(roster_text=ROSTER, scale="KP", parameters=params))
    a, b = kss.schedules[0].scores["KP"], kp7.schedules[0].scores["KP"]
    assert (b > a).all()  # P(KSS >= 7) > P(KSS >= 8)


@pytest.mark.parametrize(
    "read",
    [parse_request_rows, partial(parse_request, polars=False), partial(parse_request, polars=True)],
)
def test_blank_prep_takes_the_operator_default(read: Any) -> None:
    plain = read(ROSTER, DateFormat.DMY)
    own = read(ROSTER, DateFormat.DMY, blank_defaults={"CrewPrepTime": 90})
    assert [d.crew_prep_minutes for s in plain.schedules for d in s.duties] == [60, 60, 60, 60]
    # P2's cell says 60 explicitly: kept; P1's are blank: the operator's 90
    assert [d.crew_prep_minutes for s in own.schedules for d in s.duties] == [90, 90, 90, 60]
    assert [d.commute_minutes for s in own.schedules for d in s.duties] == [60] * 4


def test_blank_prep_moves_predicted_sleep_only() -> None:
    plain = score(ScoreRequest(roster_text=ROSTER, include_sleep=True))
    s = parse_settings({"crewPrepMinutes": 150})
    own = score(ScoringContext.of_settings(s, 1).request(ROSTER, include_sleep=True))

    def wakes(report: Any) -> list[float]:
        """The last wake before each report time of P1 [epoch h]."""
        result = report.schedules[0]
        ons = [d.on_duty.timestamp() / 3600 for d in result.duties]
        return [max(e.end for e in result.sleep if e.end <= on + 1e-9) for on in ons]

    before, after = wakes(plain), wakes(own)
    # 90 min more preparation: the crew wake no later, and earlier for some duty
    assert all(a <= b + 1e-9 for a, b in zip(after, before, strict=True))
    assert any(a < b - 0.25 for a, b in zip(after, before, strict=True))
    assert plain.model_version == own.model_version


def test_bad_blank_default_is_refused() -> None:
    with pytest.raises(ValueError, match="not an optional whole-number column"):
        parse_request(ROSTER, "dmy", blank_defaults={"Reference": 1})
    with pytest.raises(ValueError, match="0 or more"):
        parse_request(ROSTER, "dmy", blank_defaults={"CrewPrepTime": -1})


def test_operator_airport_resolves_only_inside_its_table() -> None:
    assert tz.airport("ZZQ") is None
    plain = parse_request(ROSTER_ZZQ, "dmy")
    assert plain.schedules == () and "Unknown" in " ".join(plain.error_strings()) or plain.errors
    table = parse_settings({"airports": [ZZQ]}).airport_table()
    own = parse_request(ROSTER_ZZQ, "dmy", airports=table)
    assert own.errors == ()
    duty = own.schedules[0].duties[1]
    assert duty.start_airport.code == "ZZQ" and duty.start_airport.tz == "Europe/Oslo"
    # TimeReference 2: 05:00 at ZZQ (Oslo, UTC+1 in March) is 04:00 UTC
    assert duty.on_duty.isoformat() == "2026-03-02T04:00:00+00:00"
    with tz.operator_airports(table):
        assert tz.airport("zzq") is not None
    assert tz.airport("ZZQ") is None  # gone again outside


def test_an_operator_airport_overrides_a_public_one() -> None:
    moved = {"code": "OSL", "name": "Oslo, moved", "tz": "America/New_York"}
    table = parse_settings({"airports": [moved]}).airport_table()
    own = parse_request(ROSTER_ZZQ.replace("ZZQ", "OSL"), "dmy", airports=table)
    assert own.schedules[0].duties[0].start_airport.tz == "America/New_York"
    public = tz.airport("OSL")
    assert public is not None and public.tz == "Europe/Oslo"


def test_settings_are_versioned_with_history(db_url: str) -> None:
    from vigil.store import operator_settings as store
    from vigil.store.db import make_engine, make_session_factory, upgrade

    engine = make_engine(db_url)
    upgrade(engine)
    sessions: sessionmaker[Session] = make_session_factory(engine)
    try:
        with sessions.begin() as session:
            assert store.current_settings(session=session, operator="acme").version == 0
            first = parse_settings({"crewPrepMinutes": 90})
            v1 = store.save_settings(
                session=session, operator="acme", settings=first, changed_by="alice", note="SOP 4"
            )
            same = store.save_settings(
                session=session, operator="acme", settings=first, changed_by="bob"
            )
            second = merge_settings(first, {"airports": [ZZQ]})
            v2 = store.save_settings(
                session=session, operator="acme", settings=second, changed_by="cli:ops"
            )
            other = store.current_settings(session=session, operator="globex")
        assert (v1.version, same.version, v2.version, other.version) == (1, 1, 2, 0)
        with sessions() as session:
            history = store.settings_history(session=session, operator="acme")
            assert [(v.version, v.changed_by) for v in history] == [
                (2, "cli:ops"),
                (1, "alice"),
                (0, "vigil"),
            ]
            assert history[1].note == "SOP 4" and history[1].changed_at is not None
            old = store.settings_at(session=session, operator="acme", version=1)
            assert old is not None and old.settings == first
            assert store.settings_at(session=session, operator="globex", version=1) is None
            assert store.current_settings(session=session, operator="acme").settings == second
    finally:
        engine.dispose()


def test_the_unified_preset_is_an_operator_setting() -> None:
    """``preset: unified`` (docs/model.md) is accepted like every built-in preset, and the
    parameters it gives are the Unified Model's."""
    from vigil.model import PRESETS
    from vigil.settings.record import parse_settings

    chosen = parse_settings({"preset": "unified"})
    assert chosen.preset == "unified"
    assert chosen.parameters() is PRESETS["unified"]
    assert chosen.parameters().alertness_model == "unified"
