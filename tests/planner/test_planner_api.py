"""POST /api/Planner/InflightRest over real HTTP: scope, problems, tenant separation."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
import pytest
from test_planner_plan import CREW4, LANDING, roster

from vigil.web.routes import planner, upload

if TYPE_CHECKING:
    from conftest import LiveService

PATH = "/api/Planner/InflightRest"
ON = datetime(2026, 3, 3, 20, 0, tzinfo=UTC)
WIRE = {
    "fatigue": "svc_fast_safe_api",
    "risk": "svc_fast_safe_risk_api",
    "upload": "svc_safe_upload_api",
}


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveService]:
    from conftest import live_service

    tmp = tmp_path_factory.mktemp("planner")
    url = f"sqlite:///{tmp / 'vigil.db'}"
    with live_service(tmp, url, routers=[planner.router, upload.router], worker_processes=0) as svc:
        yield svc


def token_for(service: LiveService, scopes: str, operator: str = "acme") -> str:
    client_id, secret = service.create_client(operator=operator, scopes=scopes)
    response = httpx.post(
        f"{service.base_url}/connect/token",
        data={"grant_type": "client_credentials", "scope": WIRE[scopes]},
        auth=(client_id, secret),
    )
    assert response.status_code == 200, response.text
    return str(response.json()["access_token"])


def body(**overrides: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "RosterData": roster(ON, 14.0),
        "DateFormat": "dmy",
        "Duty": "2026-03-03T20:00:00Z",
        "References": list(CREW4),
        "Landing": list(LANDING),
    }
    base.update(overrides)
    return base


def post(service: LiveService, token: str | None, payload: Any) -> httpx.Response:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return httpx.post(f"{service.base_url}{PATH}", json=payload, headers=headers, timeout=120)


def test_a_fatigue_token_plans(service: LiveService) -> None:
    response = post(service, token_for(service, "fatigue"), body())
    assert response.status_code == 200, response.text
    data = response.json()
    proposal = data["proposal"]
    assert {b["reference"] for b in proposal["breaks"]} == set(CREW4)
    assert proposal["worstKss"] <= data["equalSplit"]["worstKss"]
    assert proposal["worstKss"] == max(proposal["landingKss"], proposal["reliefKss"])
    groups = {p["group"]: p for p in data["pairs"]}
    assert groups["relief"]["proposalKss"] == proposal["reliefKss"]
    assert groups["landing"]["equalSplitKss"] == data["equalSplit"]["landingKss"]
    assert data["placeholders"] == []
    assert data["gain"] == pytest.approx(
        data["equalSplit"]["landingKss"] - proposal["landingKss"], abs=1e-3
    )
    assert len(data["alternatives"]) == 3
    assert data["summary"].startswith("Landing pilots CA and FO")
    first = proposal["breaks"][0]
    assert first["columns"]["FirstRestStartTime"] == first["start"][11:16]
    assert "FirstRestStartDate" in data["rosterData"].splitlines()[0]


def test_a_crew_member_not_rostered_yet_is_planned_as_a_placeholder(
    service: LiveService,
) -> None:
    crew = ["CA", "FO", "CB", "NEW"]
    response = post(
        service, token_for(service, "fatigue"), body(References=crew, Placeholders=["NEW"])
    )
    assert response.status_code == 200, response.text
    data = response.json()
    assert data["placeholders"] == ["NEW"]
    stand_in = next(b for b in data["proposal"]["breaks"] if b["reference"] == "NEW")
    assert stand_in["placeholder"] and stand_in["row"] == 0
    assert "\r\nNEW," not in data["rosterData"]


def test_a_token_without_the_fatigue_scope_gets_403(service: LiveService) -> None:
    for scopes in ("risk", "upload"):
        response = post(service, token_for(service, scopes), body())
        assert response.status_code == 403, scopes
        assert response.content == b""
    assert post(service, None, body()).status_code == 401


@pytest.mark.parametrize(
    ("change", "prop", "words"),
    [
        ({"Duty": "2026-03-09T12:00:00Z"}, "Duty", "duty not found"),
        ({"References": ["CA", "FO", "CB", "XX"]}, "References", "'XX'"),
        ({"Placeholders": ["FB"]}, "Placeholders", "has rows"),
        ({"Placeholders": ["ZZ"]}, "Placeholders", "not one of References"),
        ({"Landing": ["CA", "XX"]}, "Landing", "not one of References"),
        ({"Duty": "2026-03-03T20:00:00"}, "Duty", "timezone"),
        ({"References": None}, "References", ""),
    ],
)
def test_bad_requests_are_400_naming_the_property(
    service: LiveService, change: dict[str, Any], prop: str, words: str
) -> None:
    response = post(service, token_for(service, "fatigue"), body(**change))
    assert response.status_code == 400, response.text
    assert response.headers["content-type"] == "application/problem+json"
    errors = response.json()["errors"]
    assert errors[0]["property"] == prop
    assert words.lower() in errors[0]["message"].lower()


def test_not_augmented_is_400(service: LiveService) -> None:
    text = roster(ON, 14.0).replace(",LHR,0,4,1,1,", ",LHR,0,2,0,1,")
    response = post(service, token_for(service, "fatigue"), body(RosterData=text))
    assert response.status_code == 400
    assert response.json()["errors"] == [{"property": "Duty", "message": response.json()["detail"]}]
    assert "not augmented" in response.json()["detail"]


def test_another_operators_data_is_never_read(service: LiveService, tmp_path: Path) -> None:
    # acme stores the crew's roster; globex asks to plan that crew without sending it
    acme = token_for(service, "upload", operator="acme")
    stored = httpx.post(
        f"{service.base_url}/api/UploadRoster",
        json={"RosterData": roster(ON, 14.0)},
        headers={"Authorization": f"Bearer {acme}"},
        timeout=60,
    )
    assert stored.status_code == 200, stored.text
    globex = token_for(service, "fatigue", operator="globex")
    own = roster(ON, 14.0, crew=("G1", "G2", "G3", "G4"))
    response = post(service, globex, body(RosterData=own))
    assert response.status_code == 400
    assert response.json()["errors"][0]["property"] == "References"
    assert "'CA' has no valid duty in RosterData" in response.json()["detail"]
    # and a plan of globex's own crew mentions nobody else's
    ok = post(service, globex, body(RosterData=own, References=["G1", "G2", "G3", "G4"],
                                    Landing=["G1", "G2"]))  # fmt: skip
    assert ok.status_code == 200, ok.text
    assert "CA" not in ok.text and "CB" not in ok.text
