"""Settings through the running service: per-operator effect, settingsVersion everywhere,
re-scoring with an old version, the console form (admins only, 400 on a bad zone)."""

from __future__ import annotations

import httpx
import pytest

from conftest import LiveService
from console.conftest import create_user, csrf_of, sign_in
from vigil.domain import DateFormat
from vigil.scoring.service import score

from .helpers import ROSTER, ROSTER_ZZQ, ZZQ, api, save, upload_and_wait
from .helpers import score as score_call


def test_operator_airport_resolves_only_for_that_operator(
    service: LiveService, request: pytest.FixtureRequest
) -> None:
    acme, globex = api(service, "acme"), api(service, "globex")
    request.addfinalizer(acme.close)
    request.addfinalizer(globex.close)
    assert save(service, "acme", {"airports": [ZZQ]}) == 1
    mine = score_call(acme, ROSTER_ZZQ).json()
    assert mine["settingsVersion"] == 1 and mine["errors"] == []
    assert [s["schedule"] for s in mine["scheduleScores"]] == ["P1"]
    theirs = score_call(globex, ROSTER_ZZQ).json()
    assert theirs["settingsVersion"] == 0 and theirs["scheduleScores"] == []
    assert theirs["errors"][0].startswith("2|P1|") and "ZZQ" in theirs["errors"][0]


def test_settings_version_in_every_response(
    service: LiveService, request: pytest.FixtureRequest
) -> None:
    acme = api(service, "acme")
    request.addfinalizer(acme.close)
    fatigue, risk = score_call(acme, ROSTER), score_call(acme, ROSTER, risk=True)
    assert fatigue.json()["settingsVersion"] == 0 == risk.json()["settingsVersion"]
    assert list(fatigue.json())[:3] == ["scale", "modelVersion", "settingsVersion"]
    old = upload_and_wait(acme, ROSTER, "before")
    save(service, "acme", {"crewPrepMinutes": 120})
    new = upload_and_wait(acme, ROSTER, "after")
    for token, version in ((old, 0), (new, 1)):
        for scale in ("KSS", "SP"):
            body = acme.get(
                "/api/GetResults",
                params={"rosterToken": token, "dataKey": "scores", "scale": scale},
            ).json()
            assert body["settingsVersion"] == version, (token, scale)
    assert score_call(acme, ROSTER).json()["settingsVersion"] == 1
    shown = acme.get("/api/GetSettings").json()
    assert shown["settingsVersion"] == 1 and shown["settings"]["crewPrepMinutes"] == 120
    assert [h["settingsVersion"] for h in shown["history"]] == [1, 0]
    assert (
        acme.get("/api/GetSettings", params={"version": 0}).json()["settings"]["crewPrepMinutes"]
        == 60
    )
    missing = acme.get("/api/GetSettings", params={"version": 7})
    assert missing.status_code == 404
    assert missing.headers["content-type"] == "application/problem+json"
    assert acme.get("/api/GetSettings", params={"version": "x"}).status_code == 400
    # read-only: no other method
    assert acme.post("/api/GetSettings", json={}).status_code == 405


def test_rescoring_with_an_old_settings_version_is_byte_identical(
    service: LiveService, request: pytest.FixtureRequest
) -> None:
    from vigil.store import operator_settings as store

    acme = api(service, "acme")
    request.addfinalizer(acme.close)
    save(service, "acme", {"crewPrepMinutes": 150, "kpThreshold": 7})
    at_v1 = score_call(acme, ROSTER, risk=True).content
    save(service, "acme", {"crewPrepMinutes": 30, "kpThreshold": 8})
    at_v2 = score_call(acme, ROSTER, risk=True).content
    assert at_v2 != at_v1  # the settings matter
    with service.runtime.sessions() as session:
        v1 = store.settings_at(session=session, operator="acme", version=1)
    assert v1 is not None
    again = score(
        v1.context().request(ROSTER, date_format=DateFormat.DMY, scale="KSS", risk=True)
    ).to_json()
    assert again == at_v1


def test_uploads_are_scored_with_the_version_recorded_at_upload(
    service: LiveService, request: pytest.FixtureRequest
) -> None:
    acme = api(service, "acme")
    request.addfinalizer(acme.close)
    save(service, "acme", {"preset": "tpm_default"})
    token = upload_and_wait(acme, ROSTER, "tpm")
    body = acme.get("/api/GetResults", params={"rosterToken": token, "dataKey": "scores"}).json()
    assert body["modelVersion"].endswith("+tpm_default") and body["settingsVersion"] == 1
    sync = score_call(acme, ROSTER, risk=True).json()
    assert sync["modelVersion"] == body["modelVersion"]
    assert sync["scheduleScores"][0]["riskScores"] == body["scheduleScores"][0]["riskScores"]


def _form(page: httpx.Response, **changes: str) -> dict[str, str]:
    data = {
        "csrf_token": csrf_of(page.text),
        "crewPrepMinutes": "60",
        "commuteMinutes": "60",
        "preset": "ingre2014_5c",
        "scale": "KSS",
        "kpThreshold": "8",
        "warn_KSS": "7",
        "airports": "",
        "note": "",
    }
    data.update(changes)
    return data


def test_console_settings_admins_only_and_a_bad_zone_is_400(
    service: LiveService, request: pytest.FixtureRequest
) -> None:
    from vigil.store import operator_settings as store
    from vigil.store import repo

    create_user(service, "acme", "alice")
    create_user(service, "acme", "carol")
    with service.runtime.sessions.begin() as session:
        alice = repo.require_console_user(session=session, username="alice")
        store.grant_admin(session=session, user_id=alice.id)
    admin, viewer = sign_in(service, "alice"), sign_in(service, "carol")
    request.addfinalizer(admin.close)
    request.addfinalizer(viewer.close)

    seen = viewer.get("/console/settings")
    assert seen.status_code == 200 and "settings-form" not in seen.text
    refused = viewer.post("/console/settings", data=_form(seen, crewPrepMinutes="90"))
    assert refused.status_code == 403

    page = admin.get("/console/settings")
    assert 'data-testid="settings-form"' in page.text
    bad = admin.post(
        "/console/settings",
        data=_form(page, airports="ZZQ,Test field,Europe/Osloo\nZZX,Other,Mars/Base,1,2"),
    )
    assert bad.status_code == 400
    assert "airports[0].tz" in bad.text and "&#39;Europe/Osloo&#39; is not an IANA" in bad.text
    assert "airports[1].tz" in bad.text and "Nothing was saved" in bad.text
    with service.runtime.sessions() as session:
        assert store.current_settings(session=session, operator="acme").version == 0

    good = admin.post(
        "/console/settings",
        data=_form(page, airports="ZZQ,Test field,Europe/Oslo,60.2,11.1", note="new field"),
    )
    assert good.status_code == 303 and good.headers["location"].endswith("?saved=1")
    shown = admin.get("/console/settings")
    assert 'data-testid="settings-version">1<' in shown.text and "new field" in shown.text
    with service.runtime.sessions() as session:
        current = store.current_settings(session=session, operator="acme")
    assert current.changed_by == "alice" and current.settings.airports[0].code == "ZZQ"


def test_console_settings_risk_bands_are_validated_and_versioned(
    service: LiveService, request: pytest.FixtureRequest
) -> None:
    from vigil.store import operator_settings as store
    from vigil.store import repo

    create_user(service, "acme", "alice")
    with service.runtime.sessions.begin() as session:
        alice = repo.require_console_user(session=session, username="alice")
        store.grant_admin(session=session, user_id=alice.id)
    admin = sign_in(service, "alice")
    request.addfinalizer(admin.close)
    page = admin.get("/console/settings")
    assert 'value="1.3, 2, 3"' in page.text  # the built-in bounds, editable
    bad = admin.post("/console/settings", data=_form(page, riskBands="2, 1.5, 5"))
    assert bad.status_code == 400 and "riskBands" in bad.text and "strictly ascending" in bad.text
    assert 'value="2, 1.5, 5"' in bad.text  # the form keeps what was typed
    good = admin.post("/console/settings", data=_form(page, riskBands="1.5, 3, 5"))
    assert good.status_code == 303 and good.headers["location"].endswith("?saved=1")
    shown = admin.get("/console/settings").text
    bands = 'data-testid="risk-bands">acceptable R &lt; 1.5 · monitor to 3.0 · mitigate to 5.0'
    assert bands in shown
    with service.runtime.sessions() as session:
        assert store.current_settings(session=session, operator="acme").settings.risk_bands == (
            1.5,
            3.0,
            5.0,
        )
