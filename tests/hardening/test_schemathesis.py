"""Schemathesis against the embedded app's OpenAPI document (all surfaces), with tokens.

The embedded app (``vigil serve``) publishes the identity, scoring and upload operations
in one ``/openapi.json`` (contract §0). Each operation gets a bounded number of generated
requests — valid ones and, separately, ones that break the schema — sent over HTTP to
a live uvicorn with a bearer token holding exactly that operation's scope. Every
response must not be a server error and must match its documented schema.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import response_schema_conformance

from conftest import LiveService

from .conftest import ROSTER, WIRE_SCOPES, wait_finished

#: generated requests per operation and generation mode (bounded: the suite stays fast)
MAX_EXAMPLES = 25

#: the scope each protected operation needs (contract §2)
SCOPE_OF = {
    "/api/Processor/ProcessFatigue": "fatigue",
    "/api/Processor/ProcessFatigueRisk": "risk",
    "/api/UploadRoster": "upload",
    "/api/GetResults": "upload",
    "/api/DeleteRoster": "upload",
    "/api/ListRosters": "upload",
    "/api/Planner/InflightRest": "fatigue",
    "/api/Optimise/Evaluate": "risk",
    "/api/GetSettings": "upload",
    "/api/GetHazardLog": "risk",
    "/api/UploadObservations": "upload",
    "/api/GetCalibration": "upload",
    "/api/ListObservations": "upload",
    "/api/DeleteObservations": "upload",
}

#: the issue's two checks. (``content_type_conformance`` also fails today, on documentation
#: only: the JWKS answers ``application/jwk-set+json`` and ``/authentication`` 410
#: ``application/problem+json`` where the document says ``application/json``.)
CHECKS = [not_a_server_error, response_schema_conformance]


def _cases() -> list[tuple[str, str, GenerationMode]]:
    """(method, path, mode) for every operation of the embedded app's document.

    Negative mode needs something to break, so operations without parameters or body
    (health, discovery, JWKS, the v1 tombstone) get positive cases only.
    """
    from vigil.config.settings import Settings
    from vigil.web.app import create_app

    document = create_app(Settings.from_mapping({"data_dir": "."})).openapi()
    out = []
    for path, operations in sorted(document["paths"].items()):
        for method, spec in sorted(operations.items()):
            out.append((method.upper(), path, GenerationMode.POSITIVE))
            if spec.get("parameters") or spec.get("requestBody"):
                out.append((method.upper(), path, GenerationMode.NEGATIVE))
    return out


CASES = _cases()


@pytest.fixture(scope="module")
def schema(embedded: LiveService) -> Any:
    document = httpx.get(f"{embedded.base_url}/openapi.json", timeout=30).json()
    return schemathesis.openapi.from_dict(document)


def test_document_lists_every_surface() -> None:
    paths = {path for _, path, _ in CASES}
    assert {"/connect/token", "/.well-known/openid-configuration/jwks", *SCOPE_OF} <= paths


@pytest.mark.parametrize(
    ("method", "path", "mode"), CASES, ids=[f"{m} {p} {g.value}" for m, p, g in CASES]
)
def test_operation_conforms(
    schema: Any,
    embedded: LiveService,
    tokens: dict[str, str],
    method: str,
    path: str,
    mode: GenerationMode,
) -> None:
    operation = schema[path][method]
    kind = SCOPE_OF.get(path)
    headers = {"Authorization": f"Bearer {tokens[kind]}"} if kind else {}
    statuses: list[int] = []

    @settings(
        max_examples=MAX_EXAMPLES,
        deadline=None,
        derandomize=True,
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(case=operation.as_strategy(generation_mode=mode))
    def run(case: Any) -> None:
        response = case.call(base_url=embedded.base_url, headers=headers, timeout=60)
        statuses.append(response.status_code)
        case.validate_response(response, checks=CHECKS)

    run()
    assert statuses, "no request was generated"
    assert max(statuses) < 500
    if kind and mode is GenerationMode.POSITIVE:
        # valid requests with the right scope are never refused for authorisation
        assert not {401, 403} & set(statuses), statuses
    assert httpx.get(f"{embedded.base_url}/healthz", timeout=10).status_code == 200


def test_token_scopes_are_the_contract_ones(tokens: dict[str, str]) -> None:
    """The fixture's tokens carry the scopes the contract names (a guard on SCOPE_OF)."""
    import jwt

    for kind, token in tokens.items():
        claims = jwt.decode(token, options={"verify_signature": False})
        assert claims["scope"] == WIRE_SCOPES[kind]
        assert claims["operator"] == "acme"


def _uploaded(embedded: LiveService, tokens: dict[str, str]) -> str:
    http = httpx.Client(
        base_url=embedded.base_url,
        headers={"Authorization": f"Bearer {tokens['upload']}"},
        timeout=60,
    )
    with http:
        response = http.post("/api/UploadRoster", json={"RosterData": ROSTER})
        assert response.status_code == 200, response.text
        token = str(response.json()["rosterToken"])
        assert wait_finished(http, token) == "completedsuccessfully"
    return token


def test_real_data_conforms(schema: Any, embedded: LiveService, tokens: dict[str, str]) -> None:
    """Random data rarely scores; real rosters must match the documented 200 schemas too."""
    roster_token = _uploaded(embedded, tokens)
    body = {"RosterData": ROSTER, "SleepData": [], "DateFormat": "dmy", "PreferredScale": "KP"}
    calls: list[tuple[str, str, str, dict[str, Any]]] = []
    for path in ("/api/Processor/ProcessFatigue", "/api/Processor/ProcessFatigueRisk"):
        for include in ("true", "false"):
            calls.append(
                ("POST", path, SCOPE_OF[path], {"body": body, "query": {"includeSleep": include}})
            )
    for key in ("status", "feedback", "scores", "results"):
        query = {"rosterToken": roster_token, "dataKey": key, "scale": "PMR"}
        calls.append(("GET", "/api/GetResults", "upload", {"query": query}))
    calls.append(("GET", "/api/ListRosters", "upload", {}))
    calls.append(
        ("DELETE", "/api/DeleteRoster", "upload", {"query": {"rosterToken": roster_token}})
    )
    statuses = []
    for method, path, kind, parts in calls:
        case = schema[path][method].Case(**parts)
        headers = {"Authorization": f"Bearer {tokens[kind]}"}
        response = case.call(base_url=embedded.base_url, headers=headers, timeout=60)
        case.validate_response(response, checks=CHECKS)
        statuses.append(response.status_code)
        if path.startswith("/api/Processor"):
            scored = response.json()["scheduleScores"]
            assert [s["schedule"] for s in scored] == ["P1", "P2"]
    assert statuses == [200] * (len(calls) - 1) + [204]
