"""ProcessFatigue / ProcessFatigueRisk over real HTTP (seed §4.2-4.3, contract §2-§4)."""

from __future__ import annotations

import json
import math
import os
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from rosters import ROSTER

FATIGUE = "/api/Processor/ProcessFatigue"
RISK = "/api/Processor/ProcessFatigueRisk"


@dataclass
class ServeProcess:
    """``vigil serve`` running as its own process (a real HTTP server process)."""

    base_url: str
    workdir: Path
    env: dict[str, str]

    def create_client(self, *, scopes: str, operator: str = "acme") -> tuple[str, str]:
        """Register a client with the CLI against the server's database."""
        done = subprocess.run(
            [sys.executable, "-m", "vigil", "client", "create", "--operator", operator,
             "--create-operator", "--scopes", scopes.replace(" ", ","), "--json"],
            cwd=self.workdir, env=self.env, capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        data = json.loads(done.stdout)
        return str(data["client_id"]), str(data["client_secret"])


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServeProcess]:
    workdir = tmp_path_factory.mktemp("serve")
    env = {k: v for k, v in os.environ.items() if not k.startswith("VIGIL_")}
    env.update(
        {
            "VIGIL_SYNC_ROW_LIMIT": "20",
            "VIGIL_MAX_BODY_BYTES": "65536",
            "PYTHONUNBUFFERED": "1",
            "VIGIL_DATA_DIR": str(workdir),
        }
    )
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    process = subprocess.Popen(
        [sys.executable, "-m", "vigil", "serve", "--port", str(port)],
        cwd=workdir, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    assert process.stdout is not None
    seen: list[str] = []
    for line in process.stdout:
        seen.append(line)
        if "Application startup complete" in line:
            break
    else:  # pragma: no cover - the failure is the message
        process.kill()
        raise AssertionError("vigil serve did not start:\n" + "".join(seen))
    drain = threading.Thread(target=lambda: [None for _ in process.stdout or ()], daemon=True)
    drain.start()
    from live_server import wait_ready  # ready once the kernels are loaded

    wait_ready(f"http://127.0.0.1:{port}", process)
    yield ServeProcess(f"http://127.0.0.1:{port}", workdir, env)
    process.send_signal(signal.SIGTERM)
    process.wait(timeout=60)
    drain.join(timeout=10)
    process.stdout.close()


def token_for(service: ServeProcess, scopes: str, wire_scope: str) -> str:
    client_id, secret = service.create_client(scopes=scopes)
    response = httpx.post(
        f"{service.base_url}/connect/token",
        data={"grant_type": "client_credentials", "scope": wire_scope},
        auth=(client_id, secret),
    )
    assert response.status_code == 200, response.text
    return str(response.json()["access_token"])


@pytest.fixture(scope="module")
def fatigue_token(service: ServeProcess) -> str:
    return token_for(service, "fatigue", "svc_fast_safe_api")


@pytest.fixture(scope="module")
def risk_token(service: ServeProcess) -> str:
    return token_for(service, "risk", "svc_fast_safe_risk_api")


def post(
    service: ServeProcess, path: str, token: str | None, body: Any, **kwargs: Any
) -> httpx.Response:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    if isinstance(body, (bytes, str)):
        return httpx.post(
            f"{service.base_url}{path}",
            content=body,
            headers={**headers, "Content-Type": "application/json"},
            timeout=60,
            **kwargs,
        )
    return httpx.post(f"{service.base_url}{path}", json=body, headers=headers, timeout=60, **kwargs)


def body(**overrides: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "RosterData": ROSTER,
        "SleepData": [],
        "DateFormat": "dmy",
        "PreferredScale": "KSS",
    }
    base.update(overrides)
    return base


def test_process_fatigue_returns_one_score_per_interval(
    service: ServeProcess, fatigue_token: str
) -> None:
    response = post(service, FATIGUE, fatigue_token, body())
    assert response.status_code == 200, response.text
    data = response.json()
    assert data["errors"] == []
    assert data["scale"] == "KSS"
    assert data["modelVersion"].startswith("1.")
    by_name = {s["schedule"]: s for s in data["scheduleScores"]}
    assert list(by_name) == ["P1", "P2"]
    # contract §4: ceil((off - on) / 15 min) intervals per duty, concatenated
    p1 = by_name["P1"]
    assert [d["intervalCount"] for d in p1["duties"]] == [34, math.ceil(470 / 15)]
    assert [d["firstInterval"] for d in p1["duties"]] == [0, 34]
    assert len(p1["fatigueScores"]) == 34 + 32
    assert p1["duties"][0]["onDuty"] == "2026-03-02T06:00:00Z"
    # P2 reports 22:00 New York (EST, UTC-5) and goes off 07:05 London (GMT)
    assert by_name["P2"]["duties"][0]["onDuty"] == "2026-03-03T03:00:00Z"
    assert by_name["P2"]["duties"][0]["offDuty"] == "2026-03-03T07:05:00Z"
    assert all(1 <= s <= 9 for s in p1["fatigueScores"])
    assert "riskScores" not in p1


def test_risk_endpoint_adds_one_risk_per_duty(service: ServeProcess, risk_token: str) -> None:
    response = post(service, RISK, risk_token, body())
    assert response.status_code == 200, response.text
    by_name = {s["schedule"]: s for s in response.json()["scheduleScores"]}
    assert len(by_name["P1"]["riskScores"]) == 2
    assert by_name["P1"]["riskScores"] == [d["risk"] for d in by_name["P1"]["duties"]]

    # a night duty carries more risk per hour on duty than a day duty (Folkard, Lombardi &
    # Spencer 2006; R itself grows with the hours, and P2's night is half P1's day)
    def per_hour(entry: dict[str, Any], k: int) -> float:
        duty = entry["duties"][k]
        return float(duty["risk"]) / (duty["intervalCount"] / 4)

    night = per_hour(by_name["P2"], 0)
    assert night > max(per_hour(by_name["P1"], k) for k in range(2))


def test_property_names_and_values_match_case_insensitively(
    service: ServeProcess, fatigue_token: str
) -> None:
    lower = {"rosterdata": ROSTER, "sleepData": [], "dateformat": "DMY", "preferredScale": "sp"}
    response = post(service, FATIGUE, fatigue_token, lower)
    assert response.status_code == 200, response.text
    assert response.json()["scale"] == "SP"
    scores = response.json()["scheduleScores"][0]["fatigueScores"]
    assert all(1 <= s <= 7 for s in scores)


@pytest.mark.parametrize(
    ("payload", "properties"),
    [
        ({"SleepData": [], "DateFormat": "dmy", "PreferredScale": "KSS"}, ["RosterData"]),
        (body(DateFormat="ymd", PreferredScale="XYZ"), ["DateFormat", "PreferredScale"]),
        (body(SleepData=[{"ScheduleName": "P1", "SleepStart": "2026-03-01T22:00:00Z"}]), None),
        (body(RosterData=42), ["RosterData"]),
    ],
)
def test_request_level_problems_answer_400_naming_each_property(
    service: ServeProcess, fatigue_token: str, payload: dict[str, Any], properties: list[str] | None
) -> None:
    response = post(service, FATIGUE, fatigue_token, payload)
    assert response.status_code == 400
    assert response.headers["content-type"] == "application/problem+json"
    named = [e["property"] for e in response.json()["errors"]]
    if properties is None:  # a sleep record missing SleepEnd (contract §3)
        assert named == ["SleepData.0.SleepEnd"]
    else:
        assert named == properties


def test_body_that_is_not_json_answers_400(service: ServeProcess, fatigue_token: str) -> None:
    response = post(service, FATIGUE, fatigue_token, b"{not json")
    assert response.status_code == 400
    assert response.headers["content-type"] == "application/problem+json"


def test_data_errors_leave_other_schedules_scored(
    service: ServeProcess, fatigue_token: str
) -> None:
    roster = ROSTER + "\r\nP3,04/03/2026,06:00,LHR,05/03/2026,14:00,XQZ,LHR,0"
    response = post(service, FATIGUE, fatigue_token, body(RosterData=roster))
    assert response.status_code == 200
    data = response.json()
    assert [s["schedule"] for s in data["scheduleScores"]] == ["P1", "P2"]
    assert len(data["errors"]) >= 1
    assert all(e.startswith("5|P3|") for e in data["errors"])


def test_fatigue_token_on_risk_endpoint_is_403_with_empty_body(
    service: ServeProcess, fatigue_token: str
) -> None:
    response = post(service, RISK, fatigue_token, body())
    assert response.status_code == 403
    assert response.content == b""
    assert 'error="insufficient_scope"' in response.headers["www-authenticate"]


def test_no_credentials_is_401(service: ServeProcess) -> None:
    response = post(service, FATIGUE, None, body())
    assert response.status_code == 401
    assert response.headers["www-authenticate"] == "Bearer"


def test_basic_client_credentials_are_accepted(service: ServeProcess) -> None:
    client_id, secret = service.create_client(scopes="fatigue")
    response = httpx.post(
        f"{service.base_url}{FATIGUE}", json=body(), auth=(client_id, secret), timeout=60
    )
    assert response.status_code == 200, response.text


def test_too_many_rows_is_413_naming_the_upload_api(
    service: ServeProcess, fatigue_token: str
) -> None:
    rows = [f"P{i},02/03/2026,06:00,LHR,02/03/2026,14:30,LHR,LHR,0" for i in range(25)]
    response = post(service, FATIGUE, fatigue_token, body(RosterData="\r\n".join(rows)))
    assert response.status_code == 413
    assert "UploadRoster" in response.json()["detail"]


def test_body_over_the_size_limit_is_413(service: ServeProcess, fatigue_token: str) -> None:
    response = post(service, FATIGUE, fatigue_token, body(RosterData="x" * 70000))
    assert response.status_code == 413


def test_include_sleep_shows_given_and_predicted_sleep(
    service: ServeProcess, fatigue_token: str
) -> None:
    sleep = [
        {
            "ScheduleName": "P1",
            "SleepStart": "2026-03-01T21:30:00Z",
            "SleepEnd": "2026-03-02T04:00:00Z",
        },
        {
            "ScheduleName": "P1",
            "SleepStart": "2026-03-02T21:00:00Z",
            "SleepEnd": "2026-03-03T05:00:00Z",
        },
    ]
    response = post(
        service, FATIGUE, fatigue_token, body(SleepData=sleep), params={"includeSleep": "true"}
    )
    assert response.status_code == 200, response.text
    by_name = {s["schedule"]: s for s in response.json()["scheduleScores"]}
    given = [s for s in by_name["P1"]["sleep"] if s["source"] == "given"]
    assert [(s["start"], s["end"]) for s in given] == [
        ("2026-03-01T21:30:00Z", "2026-03-02T04:00:00Z"),
        ("2026-03-02T21:00:00Z", "2026-03-03T05:00:00Z"),
    ]
    assert {s["source"] for s in by_name["P2"]["sleep"]} == {"predicted"}
    assert "sleep" not in post(service, FATIGUE, fatigue_token, body()).json()["scheduleScores"][0]


def test_identical_requests_give_identical_responses(
    service: ServeProcess, risk_token: str
) -> None:
    first = post(service, RISK, risk_token, body())
    second = post(service, RISK, risk_token, body())
    assert first.content == second.content


@pytest.mark.parametrize(
    ("scale", "low", "high"),
    [("SP", 1, 7), ("KSS", 1, 9), ("KP", 0, 100), ("VD", 0, 100), ("CRD", 0, 100), ("PMR", 0, 100)],
)
def test_every_scale_stays_in_its_contract_range(
    service: ServeProcess, fatigue_token: str, scale: str, low: float, high: float
) -> None:
    # contract §4 ranges; P2's duty ends 07:05, so its last interval is 5 minutes long
    response = post(service, FATIGUE, fatigue_token, body(PreferredScale=scale))
    assert response.status_code == 200, response.text
    for schedule in response.json()["scheduleScores"]:
        assert all(low <= s <= high for s in schedule["fatigueScores"])


def test_tampered_or_garbage_tokens_are_401_invalid_token(
    service: ServeProcess, fatigue_token: str
) -> None:
    # contract §2: malformed or badly signed tokens -> 401 Bearer error="invalid_token"
    head, payload, signature = fatigue_token.split(".")
    flipped = signature[:-2] + ("AA" if signature[-2:] != "AA" else "BB")
    for token in ("not-a-jwt", f"{head}.{payload}.{flipped}"):
        response = post(service, FATIGUE, token, body())
        assert response.status_code == 401
        assert response.headers["www-authenticate"] == 'Bearer error="invalid_token"'
        assert response.headers["content-type"] == "application/problem+json"
