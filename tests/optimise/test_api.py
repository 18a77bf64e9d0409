"""POST /api/Optimise/Evaluate over real HTTP: scope, columnar answer, problems."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import httpx
import numpy as np
import pytest

from vigil.optimise import Engine
from vigil.optimise.candidates import parse_candidates
from vigil.optimise.costs import TERM_NAMES
from vigil.optimise.synthetic import swap_candidates
from vigil.roster.synthetic import generate_airline_duties, render_roster
from vigil.web.routes import optimise

if TYPE_CHECKING:
    from conftest import LiveService

PATH = "/api/Optimise/Evaluate"
WIRE = {"fatigue": "svc_fast_safe_api", "risk": "svc_fast_safe_risk_api"}


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveService]:
    from conftest import live_service

    tmp = tmp_path_factory.mktemp("optimise")
    url = f"sqlite:///{tmp / 'vigil.db'}"
    with live_service(tmp, url, routers=[optimise.router], worker_processes=0) as svc:
        yield svc


def token_for(service: LiveService, scopes: str) -> str:
    client_id, secret = service.create_client(operator="acme", scopes=scopes)
    response = httpx.post(
        f"{service.base_url}/connect/token",
        data={"grant_type": "client_credentials", "scope": WIRE[scopes]},
        auth=(client_id, secret),
    )
    assert response.status_code == 200, response.text
    return str(response.json()["access_token"])


@pytest.fixture(scope="module")
def payload() -> dict[str, Any]:
    duties = generate_airline_duties(6, 40, seed=11)
    base = render_roster(duties)
    engine = Engine.from_roster(base)
    cs = swap_candidates(engine, duties, 4, seed=2)
    rows: list[list[str]] = []
    header: list[str] = []
    for k, window in enumerate(cs.windows):
        text = render_roster([replace(d, reference=cs.crew[k]) for d in window])
        head, *body = list(csv.reader(io.StringIO(text)))
        header = [*head, "Candidate"]
        rows += [[*r, f"c{k}"] for r in body]
    columns = {name: [r[j] for r in rows] for j, name in enumerate(header)}
    return {"BaseRosterData": base, "DateFormat": "dmy", "Candidates": columns}


def post(service: LiveService, token: str, body: Any) -> httpx.Response:
    return httpx.post(
        f"{service.base_url}{PATH}",
        json=body,
        headers={"Authorization": f"Bearer {token}"},
        timeout=300,
    )


def test_a_risk_token_gets_one_array_per_term(
    service: LiveService, payload: dict[str, Any]
) -> None:
    response = post(service, token_for(service, "risk"), payload)
    assert response.status_code == 200, response.text
    out = response.json()
    assert {"candidate", "errors", "modelVersion", "settingsVersion", *TERM_NAMES} <= set(out)
    assert out["errors"] == []
    # the same as the engine in process, reading the same rows
    engine = Engine.from_roster(payload["BaseRosterData"])
    from vigil.optimise.candidates import rows_to_csv

    parsed = parse_candidates(engine, rows_to_csv(payload["Candidates"]))
    assert parsed.candidates is not None and parsed.pool is not None
    ev = engine.evaluate(parsed.pool, parsed.candidates)
    assert out["candidate"] == list(parsed.ids)
    np.testing.assert_allclose(out["cost"], ev.terms.cost, rtol=1e-12)
    again = post(service, token_for(service, "risk"), payload)  # the cached base engine
    assert again.json()["cost"] == out["cost"]


def test_a_fatigue_token_gets_403(service: LiveService, payload: dict[str, Any]) -> None:
    assert post(service, token_for(service, "fatigue"), payload).status_code == 403


def test_bad_input_is_a_problem_naming_the_property(
    service: LiveService, payload: dict[str, Any]
) -> None:
    token = token_for(service, "risk")
    ragged = {**payload, "Candidates": {"Reference": ["a", "b"], "Candidate": ["x"]}}
    response = post(service, token, ragged)
    assert response.status_code == 400
    assert response.json()["errors"][0]["property"] == "Candidates"
    bad_base = {**payload, "BaseRosterData": "Reference,OnDutyDate\r\nX,1\r\n"}
    response = post(service, token, bad_base)
    assert response.status_code == 400
    assert response.json()["errors"][0]["property"] == "BaseRosterData"
    weights = {**payload, "Weights": {"nonsense": 1.0}}
    response = post(service, token, weights)
    assert response.status_code == 400 and "unknown cost terms" in response.text
    unknown = {**payload, "Candidates": {**payload["Candidates"]}}
    unknown["Candidates"]["Reference"] = ["NOBODY"] * len(unknown["Candidates"]["Reference"])
    response = post(service, token, unknown)
    assert response.status_code == 200
    assert response.json()["candidate"] == []
    assert "is not a schedule of the base roster" in response.json()["errors"][0]
