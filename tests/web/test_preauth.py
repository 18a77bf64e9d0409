"""``/api/*`` calls are authenticated from the headers before the body is read."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest

from vigil.web.routes import processor, upload

ROSTER = "P1,02/03/2026,06:00,LHR,02/03/2026,14:30,LHR,LHR,0"


@pytest.fixture
def svc(tmp_path: Path, sqlite_url: str) -> Iterator[object]:
    from conftest import live_service

    with live_service(
        tmp_path, sqlite_url, routers=[processor.router, upload.router], worker_threads=0
    ) as service:
        yield service


def raw_request(base_url: str, head: str, body: bytes = b"", timeout: float = 5.0) -> bytes:
    """Send a request head and part of a body; return what the server answers in time."""
    url = urlsplit(base_url)
    with socket.create_connection((url.hostname, url.port), timeout=timeout) as sock:
        sock.sendall(head.encode("latin-1") + body)
        try:
            return sock.recv(65536)
        except TimeoutError:
            return b""


def test_anonymous_upload_is_refused_before_its_body_arrives(svc: object) -> None:
    # 100 MiB declared, 16 bytes sent: the 401 must come without waiting for the rest
    head = (
        "POST /api/UploadRoster HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        f"Content-Length: {100 * 1024 * 1024}\r\n\r\n"
    )
    answer = raw_request(svc.base_url, head, b'{"RosterData": "')  # type: ignore[attr-defined]
    assert answer.startswith(b"HTTP/1.1 401"), answer[:200]
    assert b"www-authenticate: Bearer" in answer.lower().replace(b"bearer", b"Bearer")
    assert b"connection: close" in answer.lower()


@pytest.mark.parametrize("path", ["/api/UploadRoster", "/api/Processor/ProcessFatigue"])
def test_malformed_body_without_credentials_is_401_not_400(svc: object, path: str) -> None:
    base = svc.base_url  # type: ignore[attr-defined]
    bad = b'{"RosterData": '  # not JSON
    anonymous = httpx.post(base + path, content=bad, headers={"content-type": "application/json"})
    assert anonymous.status_code == 401
    assert anonymous.headers["www-authenticate"].startswith("Bearer")
    forged = httpx.post(
        base + path,
        content=bad,
        headers={"content-type": "application/json", "authorization": "Bearer not.a.token"},
    )
    assert forged.status_code == 401
    assert 'error="invalid_token"' in forged.headers["www-authenticate"]
    assert forged.headers["content-type"] == "application/problem+json"


def test_wrong_scope_is_403_before_the_body(svc: object) -> None:
    client_id, secret = svc.create_client(scopes="fatigue")  # type: ignore[attr-defined]
    answer = httpx.post(
        svc.base_url + "/api/UploadRoster",  # type: ignore[attr-defined]
        content=b"{not json",
        headers={"content-type": "application/json"},
        auth=(client_id, secret),
    )
    assert answer.status_code == 403
    assert answer.content == b""
    assert 'error="insufficient_scope"' in answer.headers["www-authenticate"]


def test_authenticated_callers_get_the_same_answers(svc: object) -> None:
    base = svc.base_url  # type: ignore[attr-defined]
    client_id, secret = svc.create_client(scopes="fatigue upload")  # type: ignore[attr-defined]
    auth = (client_id, secret)
    bad = httpx.post(
        base + "/api/UploadRoster",
        content=b'{"RosterData": ',
        headers={"content-type": "application/json"},
        auth=auth,
    )
    assert bad.status_code == 400
    assert bad.headers["content-type"] == "application/problem+json"
    ok = httpx.post(base + "/api/UploadRoster", json={"RosterData": ROSTER}, auth=auth)
    assert ok.status_code == 200, ok.text
    token = ok.json()["rosterToken"]
    status = httpx.get(
        base + "/api/GetResults", params={"rosterToken": token, "dataKey": "status"}, auth=auth
    )
    assert status.status_code == 200
    assert status.json()["status"] == "queued"
    big = ROSTER + "\r\n" + "\r\n".join(ROSTER.replace("P1", f"P{i}") for i in range(2, 40_000))
    assert len(big) > 2 * 1024 * 1024  # spooled to disk past 1 MiB
    spooled = httpx.post(
        base + "/api/UploadRoster", json={"RosterData": big, "RosterName": "big"}, auth=auth
    )
    assert spooled.status_code == 200, spooled.text


def test_unknown_paths_and_methods_keep_their_answers(svc: object) -> None:
    base = svc.base_url  # type: ignore[attr-defined]
    assert httpx.post(base + "/api/NoSuchThing", content=b"x").status_code == 404
    assert httpx.get(base + "/api/UploadRoster").status_code == 405
