"""Every query parameter of every route: a malformed value is a 4xx, never a 500.

Found by an attack: ``GetSettings?version=²`` (``isdigit`` accepts it, ``int`` does not),
a 5,000-digit or 2⁶⁴ version, and ``GetResults?...&OFFSET=<5,000 digits>`` answered 500
and closed the connection. The routes and their parameters are read from the routers
``vigil serve`` mounts, so a new parameter is covered without editing this test; each is
tried in its own case and upper-cased (the upload API's names ignore case). Bounded
Hypothesis examples keep the test quick; ``benchmarks/bench_fuzz.py`` runs longer.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from conftest import LiveService
from vigil.web import docs_ui
from vigil.web.routes import health

from .conftest import ROSTER, WIRE_SCOPES, embedded_routers, wait_finished

PASSWORD = "correct horse battery"

#: numbers as an attacker writes them, and any text
VALUES = st.one_of(
    st.sampled_from(
        [
            "²",
            "٣",
            "１",
            "-1",
            "0",
            "1e3",
            "18446744073709551616",
            "9223372036854775808",
            "9" * 5000,
            "1" + "0" * 4400,
            " 7 ",
            "\x00",
            "%00",
            "true",
            "",
        ]
    ),
    st.text(max_size=40),
    st.integers(min_value=-(2**70), max_value=2**70).map(str),
)


def _routes(routes: Any, prefix: str = "") -> Iterator[tuple[str, Any]]:
    for route in routes:
        if hasattr(route, "dependant"):
            yield prefix + route.path, route
        elif hasattr(route, "original_router"):  # FastAPI's included router
            included = getattr(route.include_context, "prefix", "") or ""
            yield from _routes(route.original_router.routes, prefix + included)
        elif hasattr(route, "routes"):
            yield from _routes(route.routes, prefix)


def query_targets() -> list[tuple[str, str, str]]:
    """(method, path template, parameter) of every route with query parameters (GET,
    DELETE, and the scoring POSTs, which are sent with a valid body)."""
    from vigil.web.app import IDENTITY_ROUTERS

    routers = [*IDENTITY_ROUTERS, *embedded_routers(), health.router, docs_ui.router]
    found = []
    for router in routers:
        for path, route in _routes(router.routes):
            for method in sorted(route.methods & {"GET", "DELETE", "POST"}):
                if method == "POST" and not path.startswith("/api/Processor/"):
                    continue
                found += [(method, path, q.alias) for q in route.dependant.query_params]
    return found


TARGETS = query_targets()


def test_the_known_findings_are_among_the_targets() -> None:
    assert ("GET", "/api/GetSettings", "version") in TARGETS
    assert ("GET", "/api/GetResults", "offset") in TARGETS
    assert ("GET", "/console/rosters/{token}", "page") in TARGETS
    assert ("DELETE", "/api/DeleteRoster", "rosterToken") in TARGETS
    assert ("POST", "/api/Processor/ProcessFatigue", "includeSleep") in TARGETS
    assert len(TARGETS) >= 20


def _all_scopes(service: LiveService) -> str:
    client_id, secret = service.create_client(operator="acme", scopes="fatigue risk upload")
    answer = httpx.post(
        f"{service.base_url}/connect/token",
        data={"grant_type": "client_credentials", "scope": " ".join(WIRE_SCOPES.values())},
        auth=(client_id, secret),
        timeout=30,
    )
    assert answer.status_code == 200, answer.text
    return str(answer.json()["access_token"])


@pytest.fixture(scope="module")
def callers(
    embedded: LiveService,
) -> Iterator[tuple[httpx.Client, httpx.Client, str]]:
    """(API client holding every scope, signed-in console client, a roster token)."""
    from vigil.store import repo

    with embedded.runtime.sessions.begin() as session:
        repo.create_console_user(session=session, operator="acme", username="q", password=PASSWORD)
    api = httpx.Client(
        base_url=embedded.base_url,
        headers={"Authorization": f"Bearer {_all_scopes(embedded)}"},
        timeout=60,
    )
    console = httpx.Client(base_url=embedded.base_url, timeout=60)
    page = console.get("/console/login").text
    csrf = re.search(r'name="csrf_token" value="([^"]+)"', page)
    assert csrf
    signed = console.post(
        "/console/login",
        data={"username": "q", "password": PASSWORD, "csrf_token": csrf.group(1)},
    )
    assert signed.status_code == 303
    upload = api.post(
        "/api/UploadRoster", json={"RosterData": ROSTER, "DateFormat": "dmy", "RosterName": "q"}
    )
    assert upload.status_code == 200, upload.text
    token = upload.json()["rosterToken"]
    assert wait_finished(api, token) == "completedsuccessfully"
    try:
        yield api, console, token
    finally:
        api.close()
        console.close()


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(value=VALUES)
@example(value="²")  # the findings, always tried
@example(value="9" * 5000)
@example(value="18446744073709551616")
@example(value="٣")
def test_no_query_value_is_a_server_error(
    callers: tuple[httpx.Client, httpx.Client, str], value: str
) -> None:
    api, console, token = callers
    scoring = {"RosterData": ROSTER, "SleepData": [], "DateFormat": "dmy", "PreferredScale": "KSS"}
    for method, path, name in TARGETS:
        url = path.replace("{token}", token)
        caller = console if url.startswith("/console") else api
        base = {}
        if "GetResults" in url:  # everything else valid, so the parameter is reached
            base = {k: v for k, v in (("rosterToken", token), ("dataKey", "scores")) if k != name}
        if method == "DELETE" and name == "rosterToken" and value.strip() == token:
            continue  # the fixture's roster stays
        body = {"json": scoring} if method == "POST" else {}
        for key in (name, name.upper()):
            answer = caller.request(method, url, params={**base, key: value}, **body)
            assert answer.status_code < 500, (url, key, value[:60], answer.text[:300])
            if url.startswith("/api/") and 400 <= answer.status_code < 500:
                kind = answer.headers.get("content-type", "")
                assert answer.status_code == 403 or kind == "application/problem+json", (
                    url,
                    key,
                    answer.status_code,
                    kind,
                )


def test_the_callers_reach_the_routes(callers: tuple[httpx.Client, httpx.Client, str]) -> None:
    """Good values are answered 200: the property above is not about refused callers."""
    api, console, token = callers
    assert api.get("/api/GetSettings", params={"version": "0"}).status_code == 200
    results = api.get(
        "/api/GetResults", params={"rosterToken": token, "dataKey": "scores", "OFFSET": "0"}
    )
    assert results.status_code == 200
    scored = api.post(
        "/api/Processor/ProcessFatigueRisk",
        params={"includeSleep": "true"},
        json={"RosterData": ROSTER, "SleepData": [], "DateFormat": "dmy", "PreferredScale": "KSS"},
    )
    assert scored.status_code == 200 and scored.json()["scheduleScores"]
    assert console.get(f"/console/rosters/{token}", params={"page": "1"}).status_code == 200
