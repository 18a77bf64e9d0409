"""Observations and calibration reports through the service: API, tenant isolation, PDF,
and adopting a fitted preset (explicit, recorded, admins only)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from conftest import LiveService
from console.conftest import create_user, csrf_of, sign_in
from settings.helpers import api, score, upload_and_wait
from vigil.calibration import simulate_observations
from vigil.roster.synthetic import generate_roster

ROSTER = generate_roster(12, 28, seed=5)
RATINGS = simulate_observations(ROSTER, seed=2, bias=0.8, per_duty=4)


@pytest.fixture
def acme(service: LiveService) -> Iterator[httpx.Client]:
    client = api(service, "acme")
    yield client
    client.close()


@pytest.fixture
def globex(service: LiveService) -> Iterator[httpx.Client]:
    client = api(service, "globex")
    yield client
    client.close()


def _upload(client: httpx.Client, roster_token: str, **extra: str) -> httpx.Response:
    return client.post(
        "/api/UploadObservations",
        json={"rosterToken": roster_token, "Observations": RATINGS, **extra},
    )


def test_upload_observations_and_read_the_report(acme: httpx.Client) -> None:
    roster_token = upload_and_wait(acme, ROSTER, "march")
    stored = _upload(acme, roster_token, Name="winter study")
    assert stored.status_code == 200, stored.text
    body = stored.json()
    assert body["rosterToken"] == roster_token and body["ratings"] > 500 and body["errors"] == []
    token = body["observationsToken"]
    report = acme.get("/api/GetCalibration", params={"observationsToken": token}).json()
    calibration = report["calibration"]
    assert report["name"] == "winter study"
    assert calibration["settingsVersion"] == 0 and calibration["modelVersion"].endswith("5c")
    fit = calibration["scales"]["KSS"]["fit"]
    assert abs(fit["bias"] - 0.8) < 0.1 and fit["calibrated"] is False
    assert fit["offeredPreset"] == "acme-kss-v1"
    # the plain verdict: a bias of +0.8 everywhere reads as "too alert", overall
    assert calibration["verdict"].startswith("Vigil reads your crews 0.")
    assert "KSS too alert" in calibration["verdict"] and "raises" in calibration["verdict"]
    assert calibration["verdictDetail"]["kind"] == "too-alert"
    assert "Rosters already stored keep their scores" in calibration["adoption"]
    hours = [g["label"] for g in calibration["scales"]["KSS"]["byHoursOnDuty"]]
    assert hours == sorted(hours, key=lambda h: float(h.rstrip("+").split("-")[0]))
    pdf = acme.get("/api/GetCalibration", params={"observationsToken": token, "format": "pdf"})
    assert pdf.headers["content-type"] == "application/pdf" and pdf.content.startswith(b"%PDF")
    listed = acme.get("/api/ListObservations").json()["observations"]
    assert [o["observationsToken"] for o in listed] == [token]


def test_bad_requests_are_clear(acme: httpx.Client) -> None:
    roster_token = upload_and_wait(acme, ROSTER, "march")
    no_header = _upload(acme, roster_token, Observations="P1,2026-03-01T06:00:00Z,KSS,5\n")
    assert no_header.status_code == 400
    assert no_header.headers["content-type"] == "application/problem+json"
    assert no_header.json()["errors"][0]["property"] == "Observations"
    no_token = acme.get("/api/GetCalibration")
    assert no_token.status_code == 400 and "observationsToken" in no_token.text
    bad_format = acme.get("/api/GetCalibration", params={"observationsToken": "x", "format": "doc"})
    assert bad_format.status_code == 400
    missing = _upload(acme, "no-such-roster")
    assert missing.status_code == 404


def test_tenant_isolation(acme: httpx.Client, globex: httpx.Client) -> None:
    roster_token = upload_and_wait(acme, ROSTER, "march")
    token = _upload(acme, roster_token).json()["observationsToken"]
    # globex can neither attach observations to acme's roster nor read acme's report
    assert _upload(globex, roster_token).status_code == 404
    for params in ({"observationsToken": token}, {"observationsToken": token, "format": "pdf"}):
        answer = globex.get("/api/GetCalibration", params=params)
        assert answer.status_code == 404 and "calibration" not in answer.text
    assert globex.get("/api/ListObservations").json() == {"observations": []}
    assert (
        globex.delete("/api/DeleteObservations", params={"observationsToken": token}).status_code
        == 404
    )
    assert acme.get("/api/GetCalibration", params={"observationsToken": token}).status_code == 200
    assert (
        acme.delete("/api/DeleteObservations", params={"observationsToken": token}).status_code
        == 204
    )
    assert acme.get("/api/GetCalibration", params={"observationsToken": token}).status_code == 404


def test_console_report_isolated_and_adoption_is_explicit(
    service: LiveService, acme: httpx.Client, request: pytest.FixtureRequest
) -> None:
    from vigil.store import operator_settings as store
    from vigil.store import repo

    roster_token = upload_and_wait(acme, ROSTER, "march")
    token = _upload(acme, roster_token).json()["observationsToken"]
    create_user(service, "acme", "alice")
    create_user(service, "acme", "carol")
    create_user(service, "globex", "bob")
    with service.runtime.sessions.begin() as session:
        alice = repo.require_console_user(session=session, username="alice")
        store.grant_admin(session=session, user_id=alice.id)
    admin, viewer, other = (sign_in(service, u) for u in ("alice", "carol", "bob"))
    for client in (admin, viewer, other):
        request.addfinalizer(client.close)

    for path in ("", "/plot-KSS.svg", "/report.pdf"):
        assert other.get(f"/console/calibration/{token}{path}").status_code == 404
    page = viewer.get(f"/console/calibration/{token}")
    assert page.status_code == 200 and "miscalibrated" in page.text
    assert 'data-action="adopt"' not in page.text
    plot = viewer.get(f"/console/calibration/{token}/plot-KSS.svg")
    assert plot.headers["content-type"] == "image/svg+xml" and b"<svg" in plot.content
    refused = viewer.post(
        f"/console/calibration/{token}/adopt", data={"csrf_token": csrf_of(page.text)}
    )
    assert refused.status_code == 403

    before = score(acme, ROSTER).json()
    assert before["settingsVersion"] == 0  # nothing changed by the report itself
    page = admin.get(f"/console/calibration/{token}")
    assert 'data-action="adopt"' in page.text
    assert 'data-testid="plain-verdict"' in page.text and "KSS too alert" in page.text
    assert "from ingre2014_5c to acme-kss-v1" in page.text
    adopted = admin.post(
        f"/console/calibration/{token}/adopt", data={"csrf_token": csrf_of(page.text)}
    )
    assert adopted.status_code == 303 and "adopted=acme-kss-v1" in adopted.headers["location"]
    with service.runtime.sessions() as session:
        current = store.current_settings(session=session, operator="acme")
    assert current.version == 1 and current.settings.preset == "acme-kss-v1"
    assert current.changed_by == "alice" and token in current.note
    [preset] = current.settings.calibrated
    assert abs(preset.intercept + (preset.slope - 1) * 5 - 0.8) < 0.3  # ≈ +0.8 at KSS 5
    after = score(acme, ROSTER).json()
    assert after["settingsVersion"] == 1 and after["modelVersion"].endswith("+acme-kss-v1")
    assert 0.5 < _mean_score(after) - _mean_score(before) < 1.1


def _mean_score(body: dict[str, Any]) -> float:
    """Mean of every fatigue score in a ProcessFatigue answer."""
    scores = [float(v) for s in body["scheduleScores"] for v in s["fatigueScores"]]
    return sum(scores) / len(scores)
