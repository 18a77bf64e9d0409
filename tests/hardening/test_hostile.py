"""Hostile input over HTTP: every answer is a 4xx or a 200 (with data errors
where the data is bad), never a 5xx, and the service is healthy afterwards.

Covers the scoring surface, the upload surface and the token endpoint of the embedded
app (SQLite); the PostgreSQL-only failure (text with NUL, which PostgreSQL cannot
store) runs under the ``integration`` marker. Formula-looking values must never reach
a CSV cell unescaped (``vigil score --out x.csv``; the service itself writes no CSV).
"""

from __future__ import annotations

import base64
import csv
import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from conftest import LiveService

from .conftest import ROSTER, get_token, serve_embedded

SCORING = ("/api/Processor/ProcessFatigue", "/api/Processor/ProcessFatigueRisk")
ROW = "P1,01/03/2026,06:00,LHR,01/03/2026,14:30,JFK,LHR,0"
#: the classic DDE payload; a Reference cannot hold ``|`` (a row error), so the scored
#: formulas below are its ``|``-free relatives
DDE = "=cmd|' /C calc'!A0"
FORMULAS = ("=cmd' /C calc'!A0", "+SUM(1+1)", "-2+3", "@A1", '=HYPERLINK("http://x")')


def _request(roster: str, **extra: object) -> dict[str, object]:
    return {
        "RosterData": roster,
        "SleepData": [],
        "DateFormat": "dmy",
        "PreferredScale": "KSS",
        **extra,
    }


def _json(value: object) -> bytes:
    return json.dumps(value).encode()


DEEP = 100_000
#: (id, body bytes, content type) sent to every JSON endpoint
HOSTILE_BODIES: list[tuple[str, bytes, str | None]] = [
    ("deep-array", b"[" * DEEP + b"]" * DEEP, "application/json"),
    ("deep-object", b'{"a":' * DEEP + b"1" + b"}" * DEEP, "application/json"),
    (
        "deep-sleepdata",
        b'{"RosterData":"x","SleepData":' + b"[" * DEEP + b"]" * DEEP + b"}",
        "application/json",
    ),
    ("invalid-utf8", b'{"RosterData":"\xff\xfe\xc0\x80","SleepData":[]}', "application/json"),
    ("lone-surrogate", b'{"RosterData":"\\ud800","SleepData":[]}', "application/json"),
    ("nul-in-roster", _json(_request(ROW.replace("P1", "P\x001"))), "application/json"),
    ("nul-in-keys", _json({**_request(ROW), "\x00": "\x00"}), "application/json"),
    ("huge-cell", _json(_request(ROW.replace("LHR", "L" * 4_000_000, 1))), "application/json"),
    ("huge-reference", _json(_request(ROW.replace("P1", "P" * 2_000_000))), "application/json"),
    ("huge-number", b'{"RosterData":"x","SleepData":[],"x":' + b"9" * 100_000 + b"}", None),
    ("nan-literal", b'{"RosterData":NaN,"SleepData":[]}', "application/json"),
    ("many-rows", _json(_request("\r\n".join([ROW] * 60_000))), "application/json"),
    (
        "many-sleep-records",
        _json(
            _request(
                ROSTER,
                SleepData=[
                    {
                        "ScheduleName": "P1",
                        "SleepStart": "2026-03-01T22:00:00Z",
                        "SleepEnd": "2026-03-02T05:00:00Z",
                    }
                ]
                * 50_000,
            )
        ),
        "application/json",
    ),
    ("case-duplicates", b'{"RosterData":"x","rosterdata":5,"ROSTERDATA":[]}', "application/json"),
    ("top-level-array", b"[1,2,3]", "application/json"),
    ("top-level-string", b'"RosterData"', "application/json"),
    ("empty-body", b"", "application/json"),
    ("text-plain", _json(_request(ROSTER)), "text/plain"),
    ("xml", b"<RosterData>x</RosterData>", "application/xml"),
    ("form", b"RosterData=x&SleepData=", "application/x-www-form-urlencoded"),
    (
        "multipart",
        b"--b\r\nContent-Disposition: form-data; name=a\r\n\r\nx\r\n--b--\r\n",
        "multipart/form-data; boundary=b",
    ),
    ("no-content-type", _json(_request(ROSTER)), None),
    ("charset-lie", _json(_request(ROSTER)).decode().encode("utf-16"), "application/json"),
]


@pytest.fixture(scope="module")
def clients(embedded: LiveService, tokens: dict[str, str]) -> Iterator[dict[str, httpx.Client]]:
    out = {
        kind: httpx.Client(
            base_url=embedded.base_url,
            headers={"Authorization": f"Bearer {token}"},
            timeout=120,
        )
        for kind, token in tokens.items()
    }
    yield out
    for client in out.values():
        client.close()


def _assert_refused_or_reported(response: httpx.Response, *, scoring: bool) -> None:
    assert response.status_code < 500, response.text[:500]
    if response.status_code == 200 and scoring:
        body = response.json()
        assert isinstance(body["errors"], list) and isinstance(body["scheduleScores"], list)
    elif response.status_code >= 400:
        assert response.headers["content-type"] == "application/problem+json"
        assert "Traceback" not in response.text


def _assert_healthy(service: LiveService) -> None:
    assert httpx.get(f"{service.base_url}/healthz", timeout=10).json() == {"status": "ok"}
    assert httpx.get(f"{service.base_url}/readyz", timeout=10).status_code == 200


@pytest.mark.parametrize(
    ("name", "body", "content_type"), HOSTILE_BODIES, ids=[c[0] for c in HOSTILE_BODIES]
)
def test_hostile_bodies(
    embedded: LiveService,
    clients: dict[str, httpx.Client],
    name: str,
    body: bytes,
    content_type: str | None,
) -> None:
    headers = {"Content-Type": content_type} if content_type else {}
    for path, kind in ((SCORING[0], "fatigue"), (SCORING[1], "risk")):
        response = clients[kind].post(path, content=body, headers=headers)
        _assert_refused_or_reported(response, scoring=True)
    response = clients["upload"].post("/api/UploadRoster", content=body, headers=headers)
    _assert_refused_or_reported(response, scoring=False)
    _assert_healthy(embedded)


def test_specific_answers(clients: dict[str, httpx.Client]) -> None:
    """The cases with one right answer: parse failures and request problems are 400."""
    post = clients["fatigue"].post
    for name, body, content_type in HOSTILE_BODIES:
        if name.startswith(("deep-", "invalid-utf8", "huge-number", "nan-", "empty-")):
            response = post(SCORING[0], content=body, headers={"Content-Type": content_type or ""})
            assert response.status_code == 400, name
    response = post(
        SCORING[0], content=HOSTILE_BODIES[4][1], headers={"Content-Type": "application/json"}
    )
    assert response.status_code == 400
    assert response.json()["errors"][0]["property"] == "RosterData"  # the lone surrogate
    response = post(SCORING[0], json=_request("\r\n".join([ROW] * 60_000)))
    assert response.status_code == 413 and "UploadRoster" in response.json()["detail"]
    response = post(
        SCORING[0], content=b"x" * (11 * 1024 * 1024), headers={"Content-Type": "application/json"}
    )
    assert response.status_code == 413
    # NUL in a Reference is data: scored, and JSON escapes it
    response = post(SCORING[0], json=_request(ROW.replace("P1", "P\x001")))
    assert response.status_code == 200
    assert response.json()["scheduleScores"][0]["schedule"] == "P\x001"
    assert b"P\\u00001" in response.content


def test_upload_texts_with_nul_are_refused(clients: dict[str, httpx.Client]) -> None:
    """PostgreSQL cannot store U+0000 in text: refused on every backend alike (400)."""
    for field in ("RosterData", "ActivityData", "RosterName"):
        body = {"RosterData": ROW, field: "a\x00b"}
        response = clients["upload"].post("/api/UploadRoster", json=body)
        assert response.status_code == 400, response.text
        assert response.json()["errors"][0]["property"] == field


HOSTILE_QUERIES = [
    "rosterToken=%00&dataKey=status",
    "rosterToken=%ff%fe&dataKey=status",
    "rosterToken=" + "a" * 60_000 + "&dataKey=status",
    "rosterToken=x&dataKey=%00",
    "rosterToken=x&dataKey=" + "status" * 5000,
    "rosterToken=x&rosterToken=y&dataKey=status&dataKey=scores",
    "rosterToken=x&dataKey=scores&scale=%00",
    "rosterToken=%E2%80%AE&dataKey=feedback",
    "rostertoken[]=x&datakey[]=status",
    "%00=%00",
]


@pytest.mark.parametrize("query", HOSTILE_QUERIES, ids=range(len(HOSTILE_QUERIES)))
def test_hostile_queries(
    embedded: LiveService, clients: dict[str, httpx.Client], query: str
) -> None:
    http = clients["upload"]
    for method, path in (("GET", "/api/GetResults"), ("DELETE", "/api/DeleteRoster")):
        response = http.request(method, f"{path}?{query}")
        assert response.status_code in (400, 404), (method, query, response.text[:300])
        assert response.headers["content-type"] == "application/problem+json"
    # ListRosters takes no parameters: each of these names an unknown one
    response = http.get(f"/api/ListRosters?{query}")
    assert response.status_code == 400, response.text[:300]
    assert response.headers["content-type"] == "application/problem+json"
    assert http.get("/api/ListRosters").status_code == 200
    _assert_healthy(embedded)


HOSTILE_AUTHORIZATION: list[bytes] = [
    b"Bearer " + b"a" * 60_000,
    b"Bearer \xff\xfe",
    b"Bearer",
    b"Bearer a.b.c",
    b"Bearer " + base64.urlsafe_b64encode(b'{"alg":"none"}') + b"..",
    b"Basic !!!",
    b"Basic " + base64.b64encode(b"\xff\xfe:\x00"),
    b"Basic " + base64.b64encode(b"no-colon"),
    b"Basic " + base64.b64encode(b"a" * 5000 + b":" + b"b" * 5000),
    b"Basic " + base64.b64encode(b"%zz:%"),
    b"Negotiate abc",
    b"bearer\t" + b"a" * 10,
]


@pytest.mark.parametrize(
    "authorization", HOSTILE_AUTHORIZATION, ids=range(len(HOSTILE_AUTHORIZATION))
)
def test_hostile_authorization_is_401(embedded: LiveService, authorization: bytes) -> None:
    headers = {"Authorization": authorization}
    calls = [
        ("POST", SCORING[0], _request(ROW)),
        ("POST", SCORING[1], _request(ROW)),
        ("POST", "/api/UploadRoster", {"RosterData": ROW}),
        ("GET", "/api/ListRosters", None),
    ]
    for method, path, body in calls:
        response = httpx.request(
            method, f"{embedded.base_url}{path}", json=body, headers=headers, timeout=30
        )
        assert response.status_code == 401, (path, authorization[:40], response.text[:200])
        assert response.headers["www-authenticate"].startswith("Bearer")
    _assert_healthy(embedded)


TOKEN_BODIES: list[tuple[bytes, str]] = [
    (b"grant_type=client_credentials&scope=%ff%fe", "application/x-www-form-urlencoded"),
    (
        b"grant_type=client_credentials&scope=" + b"x" * 2_000_000,
        "application/x-www-form-urlencoded",
    ),
    (
        b"grant_type=client_credentials%00&client_id=a%00&client_secret=b",
        "application/x-www-form-urlencoded",
    ),
    (b"grant_type=client_credentials&grant_type=password", "application/x-www-form-urlencoded"),
    (b'{"grant_type":"client_credentials"}', "application/json"),
    (b"%%%%", "application/x-www-form-urlencoded"),
    (b"", "application/x-www-form-urlencoded"),
    (b"grant_type=client_credentials", "text/plain"),
    (b"\x00" * 1000, "application/x-www-form-urlencoded"),
]


@pytest.mark.parametrize(("body", "content_type"), TOKEN_BODIES, ids=range(len(TOKEN_BODIES)))
def test_hostile_token_requests(embedded: LiveService, body: bytes, content_type: str) -> None:
    for auth in (None, b"Basic " + base64.b64encode(b"a\x00:b"), b"Basic \xff"):
        headers = {"Content-Type": content_type, **({"Authorization": auth} if auth else {})}
        response = httpx.post(
            f"{embedded.base_url}/connect/token", content=body, headers=headers, timeout=30
        )
        assert response.status_code in (400, 401), (body[:40], auth, response.text[:200])
        assert response.json()["error"] in (
            "invalid_request",
            "invalid_client",
            "unsupported_grant_type",
        )
    _assert_healthy(embedded)


def test_formula_references_are_scored_and_listed_verbatim_in_json(
    clients: dict[str, httpx.Client],
) -> None:
    """JSON carries the value as data (no spreadsheet reads it); errors keep 3 parts."""
    roster = "\r\n".join(
        ROW.replace("P1", f'"{f.replace(chr(34), chr(34) * 2)}"') for f in FORMULAS
    )
    response = clients["risk"].post(SCORING[1], json=_request(roster))
    assert response.status_code == 200
    assert [s["schedule"] for s in response.json()["scheduleScores"]] == list(FORMULAS)
    dde_row = ROW.replace("P1", f'"{DDE}"')
    for bad in (dde_row, ROW.replace("P1", FORMULAS[1]).replace("JFK", "ZZ")):
        errors = clients["risk"].post(SCORING[1], json=_request(bad)).json()["errors"]
        assert len(errors) == 1 and len(errors[0].split("|")) == 3, errors


def test_cli_csv_output_escapes_formulas(tmp_path: Path) -> None:
    """``vigil score --out x.csv``: a schedule cell never starts a formula (OWASP)."""
    from vigil.cli import create_app

    lines = [ROW.replace("P1", f'"{f.replace(chr(34), chr(34) * 2)}"') for f in FORMULAS]
    lines.append(ROW.replace("P1", '"\t=1+1"'))  # trimmed to "=1+1" by the parser
    roster = tmp_path / "roster.csv"
    roster.write_text("\r\n".join(lines), encoding="utf-8")
    out = tmp_path / "x.csv"
    result = CliRunner().invoke(create_app(), ["score", str(roster), "--risk", "--out", str(out)])
    assert result.exit_code == 0, result.output
    with out.open(newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    names = {row[0] for row in rows[1:]}
    assert names == {"'" + f for f in FORMULAS} | {"'=1+1"}
    for row in rows[1:]:
        for cell in row:
            assert not cell.startswith(("=", "+", "@", "\t", "\r")), cell
            assert not cell.startswith("-") or cell[1:2].isdigit(), cell  # numbers only


@pytest.mark.integration
def test_nul_on_postgresql_is_never_a_500(tmp_path: Path, pg_url: str) -> None:
    """Each was a 500 (psycopg DataError) before the fix."""
    with serve_embedded(tmp_path, pg_url) as service:
        upload = {"Authorization": f"Bearer {get_token(service, 'upload')}"}
        base = service.base_url
        for field in ("RosterData", "ActivityData", "RosterName"):
            body = {"RosterData": ROW, field: "a\x00b"}
            response = httpx.post(f"{base}/api/UploadRoster", json=body, headers=upload)
            assert response.status_code == 400
        for method, path, key in (
            ("GET", "/api/GetResults", "&dataKey=status"),
            ("DELETE", "/api/DeleteRoster", ""),  # DeleteRoster takes no dataKey
        ):
            url = f"{base}{path}?rosterToken=%00{key}"
            assert httpx.request(method, url, headers=upload).status_code == 404
        response = httpx.post(
            f"{base}/connect/token", data={"grant_type": "client_credentials"}, auth=("a\x00", "b")
        )
        assert response.status_code == 401 and response.json()["error"] == "invalid_client"
        response = httpx.post(f"{base}{SCORING[0]}", json=_request(ROW), auth=("a\x00", "b"))
        assert response.status_code == 401
        _assert_healthy(service)
