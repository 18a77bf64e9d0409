"""Every surface scores under the operator's settings: after a change of settings, an
unedited what-if draft, the planner, try-it and ProcessFatigueRisk agree with the stored
results to the last digit, and each names the settings version (docs/settings.md).

The change moves what every surface reads from the settings: the blank CrewPrepTime and
DutyCommuteTime defaults (predicted sleep) and the KP threshold (the model parameters). A
surface that scored with the built-in defaults would differ in every interval.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

from conftest import LiveService, live_service
from console.conftest import create_user, csrf_of, embedded_routers, sign_in
from console.test_whatif_api import CREW, LANDING, ON, crew_roster, page_data, processed_upload
from console.test_whatif_api import post as whatif_post

from .helpers import api, save

#: what the operator changes (version 1): prep and commute defaults, and KP at KSS >= 7
CHANGES = {"crewPrepMinutes": 120, "commuteMinutes": 15, "kpThreshold": 7}


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveService]:
    tmp: Path = tmp_path_factory.mktemp("agreement")
    with live_service(
        tmp,
        f"sqlite:///{tmp / 'vigil.db'}",
        routers=embedded_routers(),
        worker_processes=0,
        worker_poll_interval=0.2,
    ) as live:
        create_user(live, "acme", "alice")
        yield live


@pytest.fixture(scope="module")
def client(service: LiveService) -> Iterator[httpx.Client]:
    with api(service, "acme") as acme:
        yield acme


@pytest.fixture(scope="module")
def alice(service: LiveService) -> Iterator[httpx.Client]:
    client = sign_in(service, "alice")
    yield client
    client.close()


@pytest.fixture(scope="module")
def stored(service: LiveService, client: httpx.Client) -> dict[str, Any]:
    """The settings changed, then the roster uploaded and processed: its stored KSS."""
    assert save(service, "acme", CHANGES) == 1
    token = processed_upload(service, "acme", "agreement", crew_roster())
    body = client.get(
        "/api/GetResults", params={"rosterToken": token, "dataKey": "scores", "scale": "KSS"}
    ).json()
    assert body["settingsVersion"] == 1
    return {"token": token, **body}


def by_schedule(body: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {entry["schedule"]: entry for entry in body["scheduleScores"]}


def risk_call(client: httpx.Client, roster: str) -> dict[str, Any]:
    answer = client.post(
        "/api/Processor/ProcessFatigueRisk",
        json={"RosterData": roster, "SleepData": [], "DateFormat": "dmy", "PreferredScale": "KSS"},
    )
    assert answer.status_code == 200, answer.text
    body: dict[str, Any] = answer.json()
    return body


def test_the_settings_change_moves_the_scores(client: httpx.Client, stored: dict[str, Any]) -> None:
    # guard: under the built-in defaults the same roster scores differently
    from vigil.scoring.context import DEFAULT_CONTEXT
    from vigil.scoring.service import score

    plain = score(DEFAULT_CONTEXT.request(crew_roster(), risk=True)).to_envelope()
    defaults = {e["schedule"]: list(e["fatigueScores"]) for e in plain["scheduleScores"]}  # type: ignore[union-attr]
    assert all(defaults[ref] != by_schedule(stored)[ref]["fatigueScores"] for ref in CREW)


def test_process_fatigue_risk_agrees_with_stored(
    client: httpx.Client, stored: dict[str, Any]
) -> None:
    body = risk_call(client, crew_roster())
    assert body["settingsVersion"] == 1
    assert body["modelVersion"] == stored["modelVersion"]
    mine, theirs = by_schedule(body), by_schedule(stored)
    for ref in CREW:
        assert mine[ref]["fatigueScores"] == theirs[ref]["fatigueScores"], ref
        assert mine[ref]["riskScores"] == theirs[ref]["riskScores"], ref


def test_an_unedited_whatif_draft_agrees_with_stored(
    alice: httpx.Client, stored: dict[str, Any]
) -> None:
    for ref in ("CA", "FB"):
        data = page_data(alice, stored["token"], ref)
        assert data["settingsVersion"] == 1
        answer = whatif_post(
            alice, stored["token"], "score", {**data["draft"], "scale": "KSS"}, data["csrf"]
        )
        assert answer.status_code == 200, answer.text
        body = answer.json()
        assert body["settingsVersion"] == 1 and body["errors"] == []
        assert body["payload"]["v"] == by_schedule(stored)[ref]["fatigueScores"], ref
        assert body["payload"]["v"] == data["stored"]["v"]
        assert [d["risk"] for d in body["payload"]["duties"]] == (
            by_schedule(stored)[ref]["riskScores"]
        )


def test_try_it_agrees_with_stored(alice: httpx.Client, stored: dict[str, Any]) -> None:
    form = alice.get("/console/try")
    page = alice.post(
        "/console/try",
        data={
            "roster": crew_roster(),
            "date_format": "dmy",
            "scale": "KSS",
            "csrf_token": csrf_of(form.text),
        },
    )
    assert page.status_code == 200, page.text
    assert "settings version 1." in page.text
    charts = [
        json.loads(found)
        for found in re.findall(r'id="chart-data-[^"]+">(.*?)</script>', page.text, re.S)
    ]
    assert sorted(c["schedule"] for c in charts) == sorted(CREW)
    for chart in charts:
        assert chart["v"] == by_schedule(stored)[chart["schedule"]]["fatigueScores"]


def test_the_planner_agrees_with_process_fatigue_risk(
    client: httpx.Client, stored: dict[str, Any]
) -> None:
    answer = client.post(
        "/api/Planner/InflightRest",
        json={
            "RosterData": crew_roster(),
            "DateFormat": "dmy",
            "Duty": ON.isoformat(),
            "References": list(CREW),
            "Landing": list(LANDING),
        },
        timeout=120,
    )
    assert answer.status_code == 200, answer.text
    plan = answer.json()
    assert plan["settingsVersion"] == 1
    assert plan["modelVersion"] == stored["modelVersion"]
    # the proposal filled in, scored by ProcessFatigueRisk: the planner's own figures
    scored = by_schedule(risk_call(client, plan["rosterData"]))
    on = ON.strftime("%Y-%m-%dT%H:%M:%SZ")
    worst = []
    for brk in plan["proposal"]["breaks"]:
        entry = scored[brk["reference"]]
        duty = next(d for d in entry["duties"] if d["onDuty"] == on)
        kss = entry["fatigueScores"][
            duty["firstInterval"] : duty["firstInterval"] + duty["intervalCount"]
        ]
        assert brk["lastHourKss"] == max(kss[-4:]), brk["reference"]
        # meanKss is the mean at the controls: intervals whose middle is outside the break
        start, end = (
            datetime.fromisoformat(brk[k].replace("Z", "+00:00")) for k in ("start", "end")
        )
        middles = [ON + timedelta(minutes=15 * i + 7.5) for i in range(len(kss))]
        working = [k for k, t in zip(kss, middles, strict=True) if not start <= t < end]
        assert brk["meanKss"] == pytest.approx(sum(working) / len(working), abs=1e-3)
        if brk["landing"]:
            worst.append(max(kss[-4:]))
    assert plan["proposal"]["landingKss"] == max(worst)
