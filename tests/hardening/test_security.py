"""Security checks: tenant isolation on every upload endpoint, and no secret,
token or roster content in anything the server process writes.

Token forgery (``alg: none``, HS256 keyed with the public key, expired, not yet valid,
unknown ``kid``, other issuer/audience, tampered claims, wrong ``typ``, garbage) is
covered by ``tests/web/test_deps.py::test_forged_tokens_refused``; the console's
isolation by ``tests/console/test_pages.py::test_other_operators_objects_are_404``.
"""

from __future__ import annotations

import base64
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest

from conftest import LiveService
from live_server import free_port

from .conftest import HEADER, WIRE_SCOPES, get_token, wait_finished

#: a Reference and an activity Location nobody else uses: roster content to grep for
MARK = "ZQXPILOT7731"
ROSTER = "\r\n".join(
    [
        HEADER,
        f"{MARK},02/03/2026,06:00,LHR,02/03/2026,14:30,LHR,LHR,0",
        f"{MARK},03/03/2026,07:10,LHR,03/03/2026,15:00,CDG,LHR,0",
        "P2,02/03/2026,06:00,LHR,04/03/2026,14:00,JFK,LHR,0",  # 56 h: a data error
    ]
)
ACTIVITY = f"{MARK},01/03/2026,09:00,01/03/2026,17:00,LHR,SIMULATOR,0"


def _client(service: LiveService, token: str) -> httpx.Client:
    return httpx.Client(
        base_url=service.base_url, headers={"Authorization": f"Bearer {token}"}, timeout=60
    )


def test_another_operators_rosters_are_404_everywhere(embedded: LiveService) -> None:
    alice = _client(embedded, get_token(embedded, "upload", operator="alice-air"))
    mallory = _client(embedded, get_token(embedded, "upload", operator="mallory-air"))
    response = alice.post("/api/UploadRoster", json={"RosterData": ROSTER, "RosterName": "mar"})
    assert response.status_code == 200
    token = response.json()["rosterToken"]
    assert wait_finished(alice, token) == "completedwitherrors"
    for key in ("status", "feedback", "scores", "results", "STATUS"):
        for params in (
            {"rosterToken": token, "dataKey": key},
            {"ROSTERTOKEN": token, "datakey": key, "scale": "SP"},
        ):
            theirs = mallory.get("/api/GetResults", params=params)
            assert theirs.status_code == 404, (key, theirs.text)
            assert MARK not in theirs.text and token not in theirs.text
            assert alice.get("/api/GetResults", params=params).status_code == 200
    listed = mallory.get("/api/ListRosters")
    assert listed.status_code == 200 and token not in listed.text and "mar" not in listed.text
    assert mallory.delete("/api/DeleteRoster", params={"rosterToken": token}).status_code == 404
    # the same name is free for another operator and does not touch alice's roster
    again = mallory.post("/api/UploadRoster", json={"RosterData": "x", "RosterName": "mar"})
    assert again.status_code == 200
    assert (
        mallory.post(
            "/api/UploadRoster", json={"RosterData": "x", "RosterName": "mar", "Overwrite": True}
        ).status_code
        == 200
    )
    scores = alice.get("/api/GetResults", params={"rosterToken": token, "dataKey": "scores"})
    assert scores.status_code == 200 and MARK in scores.text
    # Basic credentials of mallory's client are mallory too
    client_id, secret = embedded.create_client(operator="mallory-air", scopes="upload")
    basic = httpx.get(
        f"{embedded.base_url}/api/GetResults",
        params={"rosterToken": token, "dataKey": "scores"},
        auth=(client_id, secret),
    )
    assert basic.status_code == 404
    assert alice.delete("/api/DeleteRoster", params={"rosterToken": token}).status_code == 204
    alice.close()
    mallory.close()


def test_scopes_do_not_cross(embedded: LiveService, tokens: dict[str, str]) -> None:
    """Each token opens only its own endpoints (contract §2): 403 with an empty body."""
    calls = {
        "fatigue": ("POST", "/api/Processor/ProcessFatigue"),
        "risk": ("POST", "/api/Processor/ProcessFatigueRisk"),
        "upload": ("GET", "/api/ListRosters"),
    }
    for held, token in tokens.items():
        for needed, (method, path) in calls.items():
            if needed == held:
                continue
            response = httpx.request(
                method,
                f"{embedded.base_url}{path}",
                json={},
                headers={"Authorization": f"Bearer {token}"},
            )
            assert response.status_code == 403 and response.content == b"", (held, path)
            assert WIRE_SCOPES[needed] in response.headers["www-authenticate"]


# --- secrets absent from logs ----------------------------------------------------------


def _serve(workdir: Path) -> tuple[subprocess.Popen[str], list[str], str, threading.Thread]:
    """``vigil serve`` as deployed (its own log configuration), every output line kept."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("VIGIL_")}
    env.update(PYTHONUNBUFFERED="1", VIGIL_WORKER_PROCESSES="0", VIGIL_AUTH_FAILURE_DELAY="0")
    env["VIGIL_DATA_DIR"] = str(workdir)
    process = subprocess.Popen(
        [sys.executable, "-m", "vigil", "serve", "--port", str(port)],
        cwd=workdir,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    lines: list[str] = []
    assert process.stdout is not None
    stream = process.stdout

    def pump() -> None:
        for line in stream:
            lines.append(line)

    reader = threading.Thread(target=pump, daemon=True)
    reader.start()
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 900  # the warm start loads the kernels first
    while True:
        try:
            if httpx.get(f"{base}/readyz", timeout=2).status_code == 200:
                return process, lines, base, reader
        except httpx.TransportError:
            pass
        assert process.poll() is None, "".join(lines)
        assert time.monotonic() < deadline, "".join(lines)
        time.sleep(0.2)


def test_no_secret_token_or_roster_content_in_server_output(tmp_path: Path) -> None:
    process, lines, base, reader = _serve(tmp_path)
    try:
        banner = "".join(lines)
        client_id = re.search(r"client_id:\s+(\S+)", banner)
        secret = re.search(r"client_secret:\s+(\S+)", banner)
        assert client_id and secret, banner
        cid, sec = client_id.group(1), secret.group(1)
        shown = len(lines)  # the first-start banner shows the secret once, by design (§0)
        wrong = sec[::-1] + "x"
        exposed = [sec, wrong, base64.b64encode(f"{cid}:{sec}".encode()).decode(), MARK]

        def token(scope: str) -> str:
            response = httpx.post(
                f"{base}/connect/token",
                auth=(cid, sec),
                data={"grant_type": "client_credentials", "scope": scope},
            )
            assert response.status_code == 200
            return str(response.json()["access_token"])

        failed = httpx.post(
            f"{base}/connect/token", auth=(cid, wrong), data={"grant_type": "client_credentials"}
        )
        assert failed.status_code == 401
        body = {"RosterData": ROSTER, "SleepData": [], "DateFormat": "dmy", "PreferredScale": "KSS"}
        for path, scope in (
            ("/api/Processor/ProcessFatigue", WIRE_SCOPES["fatigue"]),
            ("/api/Processor/ProcessFatigueRisk", WIRE_SCOPES["risk"]),
        ):
            access = token(scope)
            exposed += [access, access.rsplit(".", 1)[1]]
            scored = httpx.post(
                f"{base}{path}?includeSleep=true",
                json=body,
                headers={"Authorization": f"Bearer {access}"},
                timeout=60,
            )
            assert scored.status_code == 200 and MARK in scored.text
        basic = httpx.post(f"{base}/api/Processor/ProcessFatigue", json=body, auth=(cid, sec))
        assert basic.status_code == 200
        bad_basic = httpx.post(f"{base}/api/Processor/ProcessFatigue", json=body, auth=(cid, wrong))
        assert bad_basic.status_code == 401
        access = token(WIRE_SCOPES["upload"])
        exposed += [access, access.rsplit(".", 1)[1]]
        with httpx.Client(
            base_url=base, timeout=60, headers={"Authorization": f"Bearer {access}"}
        ) as http:
            response = http.post(
                "/api/UploadRoster", json={"RosterData": ROSTER, "ActivityData": ACTIVITY}
            )
            roster_token = response.json()["rosterToken"]
            exposed.append(roster_token)
            assert wait_finished(http, roster_token) == "completedwitherrors"
            for key in ("status", "feedback", "scores"):
                params = {"rosterToken": roster_token, "dataKey": key}
                assert http.get("/api/GetResults", params=params).status_code == 200
            http.post("/api/UploadRoster", json={"RosterData": ROSTER, "RosterName": "dup"})
            assert (
                http.post(
                    "/api/UploadRoster", json={"RosterData": ROSTER, "RosterName": "dup"}
                ).status_code
                == 409
            )
            assert (
                http.post(
                    "/api/UploadRoster",
                    content=b"{" + ROSTER.encode(),
                    headers={"Content-Type": "application/json"},
                ).status_code
                == 400
            )
            assert (
                http.delete("/api/DeleteRoster", params={"rosterToken": roster_token}).status_code
                == 204
            )
        forged = access[:-4] + "AAAA"
        assert (
            httpx.get(
                f"{base}/api/ListRosters", headers={"Authorization": f"Bearer {forged}"}
            ).status_code
            == 401
        )
        exposed.append(forged.rsplit(".", 1)[1])
        time.sleep(0.5)  # let the last access-log lines through
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:  # pragma: no cover - shutdown hung
            process.kill()
            pytest.fail("vigil serve did not stop on SIGTERM")
        finally:
            reader.join(10)
            if process.stdout is not None:
                process.stdout.close()
    logged = "".join(lines[shown:])
    assert '"event": "request"' in logged or "request" in logged, logged[:2000]  # logs exist
    assert "/api/GetResults" in logged  # and cover the calls made
    for value in exposed:
        assert value not in logged, f"{value[:12]}... appears in the server's output"
