"""The upload surface over real HTTP, on SQLite and PostgreSQL (contract §2, §5, §8)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
import numpy as np
import pytest

from rosters import HEADER, ROSTER
from vigil.domain import DateFormat
from vigil.scoring.service import SCALE_CODES, ScoreRequest, score
from vigil.web.routes import upload

if TYPE_CHECKING:
    from conftest import LiveService

# row 3: 32 h duty (contract §3.1, 30 h maximum); P1 is still scored
ROSTER_WITH_ERRORS = "\r\n".join(
    [
        HEADER,
        "P1,02/03/2026,06:00,LHR,02/03/2026,14:30,LHR,LHR,0",
        "P2,02/03/2026,06:00,LHR,03/03/2026,14:00,JFK,LHR,0",
    ]
)
FAST = {"worker_processes": 0, "worker_poll_interval": 0.05}


@pytest.fixture
def service(tmp_path: Path, db_url: str) -> Iterator[LiveService]:
    from conftest import live_service

    with live_service(tmp_path, db_url, routers=[upload.router], **FAST) as svc:
        yield svc


def token_for(service: LiveService, *, operator: str = "acme", scopes: str = "upload") -> str:
    client_id, secret = service.create_client(operator=operator, scopes=scopes)
    wire = {"upload": "svc_safe_upload_api", "fatigue": "svc_fast_safe_api"}[scopes]
    response = httpx.post(
        f"{service.base_url}/connect/token",
        data={"grant_type": "client_credentials", "scope": wire},
        auth=(client_id, secret),
    )
    assert response.status_code == 200, response.text
    return str(response.json()["access_token"])


class Api:
    """A tiny client of the upload surface."""

    def __init__(self, base_url: str, token: str | None) -> None:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        self.http = httpx.Client(base_url=base_url, headers=headers, timeout=30)

    def upload(self, roster: str = ROSTER, **extra: Any) -> httpx.Response:
        return self.http.post("/api/UploadRoster", json={"RosterData": roster, **extra})

    def results(self, token: str, key: str, **params: str) -> httpx.Response:
        return self.http.get(
            "/api/GetResults", params={"rosterToken": token, "dataKey": key, **params}
        )

    def wait(self, token: str, timeout: float = 60.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            body: dict[str, Any] = self.results(token, "status").json()
            if body["status"] not in ("queued", "processing"):
                return body
            assert time.monotonic() < deadline, f"still {body['status']}"
            time.sleep(0.05)


@pytest.fixture
def api(service: LiveService) -> Iterator[Api]:
    client = Api(service.base_url, token_for(service))
    yield client
    client.http.close()


def expected(roster: str, scale: str) -> dict[str, object]:
    """What ProcessFatigueRisk answers for the same roster (contract §5 scores)."""
    with np.errstate(invalid="ignore"):  # KP: NaN padding warning in the model (see run.py)
        report = score(ScoreRequest(roster, DateFormat.DMY, scale=scale, risk=True))
    return report.to_envelope()


def test_upload_status_feedback_scores_delete(api: Api) -> None:
    response = api.upload(RosterName="march", PreferredScale="sp")
    assert response.status_code == 200, response.text
    body = response.json()
    token = body["rosterToken"]
    assert body["rosterName"] == "march"
    assert len(token) >= 22  # ≥ 128 random bits in URL-safe base64
    status = api.wait(token)
    assert status["status"] == "completedsuccessfully"
    assert set(status) == {"rosterToken", "status", "submittedAt", "updatedAt", "progress"}
    assert status["progress"] == {"crewDone": 2, "crewTotal": 2}
    assert status["submittedAt"].endswith("Z") and status["submittedAt"] <= status["updatedAt"]
    feedback = api.results(token, "feedback").json()
    assert feedback == {"rosterToken": token, "status": "completedsuccessfully", "errors": []}
    scores = api.results(token, "scores")
    assert scores.status_code == 200
    assert scores.json() == expected(ROSTER, "SP")  # the preferred scale by default
    for scale in SCALE_CODES:  # other scales without reprocessing, identical to the service
        assert api.results(token, "results", scale=scale.lower()).json() == expected(ROSTER, scale)
    listed = api.http.get("/api/ListRosters").json()["rosters"]
    assert [(r["rosterToken"], r["rosterName"], r["status"]) for r in listed] == [
        (token, "march", "completedsuccessfully")
    ]
    assert api.http.delete("/api/DeleteRoster", params={"rosterToken": token}).status_code == 204
    assert api.results(token, "status").status_code == 404
    assert api.http.delete("/api/DeleteRoster", params={"rosterToken": token}).status_code == 404
    assert api.http.get("/api/ListRosters").json() == {"rosters": []}


def test_data_errors_complete_with_errors(api: Api) -> None:
    token = api.upload(ROSTER_WITH_ERRORS).json()["rosterToken"]
    assert api.wait(token)["status"] == "completedwitherrors"
    want = expected(ROSTER_WITH_ERRORS, "KSS")
    feedback = api.results(token, "feedback").json()
    assert feedback["errors"] == want["errors"] and len(feedback["errors"]) == 1
    assert feedback["errors"][0].startswith("3|P2|")
    assert api.results(token, "scores").json() == want


SLEEP = [  # P1 given (one night, one in-flight nap on its 2nd duty); P2 predicted
    {
        "ScheduleName": "P1",
        "SleepStart": "2026-03-01T22:00:00Z",
        "SleepEnd": "2026-03-02T05:00:00Z",
    },
    {
        "ScheduleName": "P1",
        "SleepStart": "2026-03-03T10:00:00Z",
        "SleepEnd": "2026-03-03T11:00:00Z",
    },
]


def test_sleep_is_what_process_fatigue_risk_include_sleep_gives(api: Api) -> None:
    token = api.upload(SleepData=SLEEP).json()["rosterToken"]
    assert api.wait(token)["status"] == "completedsuccessfully"
    with np.errstate(invalid="ignore"):
        report = score(
            ScoreRequest(ROSTER, DateFormat.DMY, risk=True, include_sleep=True, sleep_data=SLEEP)
        )
    want = report.to_envelope()
    scores = api.results(token, "scores", includeSleep="true")
    assert scores.status_code == 200 and scores.json() == want
    sources = {s["source"] for e in want["scheduleScores"] for s in e["sleep"]}  # type: ignore[attr-defined]
    assert sources == {"given", "predicted"}
    sleep = api.results(token, "SLEEP").json()
    assert sleep["rosterToken"] == token and sleep["modelVersion"] == want["modelVersion"]
    assert sleep["scheduleSleep"] == [
        {"schedule": e["schedule"], "sleep": e["sleep"]}
        for e in want["scheduleScores"]  # type: ignore[attr-defined]
    ]
    plain = api.results(token, "scores", includeSleep="false").json()
    assert "sleep" not in plain["scheduleScores"][0]
    bad = api.results(token, "scores", includeSleep="maybe")
    assert bad.status_code == 400 and bad.json()["errors"][0]["property"] == "includeSleep"


def test_scores_by_schedule_and_by_page(api: Api) -> None:
    token = api.upload().json()["rosterToken"]
    api.wait(token)
    everything = expected(ROSTER, "KSS")
    entries: list[dict[str, object]] = everything["scheduleScores"]  # type: ignore[assignment]
    assert [e["schedule"] for e in entries] == ["P1", "P2"]

    def only(*picked: dict[str, object]) -> dict[str, object]:
        return {**everything, "scheduleScores": list(picked)}

    one = api.results(token, "scores", schedule="P2")
    assert one.json() == only(entries[1]) and one.headers["x-total-count"] == "1"
    both = api.http.get(
        "/api/GetResults",
        params=[
            ("rosterToken", token),
            ("dataKey", "scores"),
            ("Schedule", "P2"),
            ("schedule", "P1"),
        ],
    )
    assert both.json() == everything  # roster order, whatever the order asked
    page = api.results(token, "scores", offset="1", limit="5")
    assert page.json() == only(entries[1]) and page.headers["x-total-count"] == "2"
    assert api.results(token, "scores", limit="1").json() == only(entries[0])
    assert api.results(token, "scores", offset="2").json() == only()
    sleep = api.results(token, "sleep", schedule="P2", limit="1").json()
    assert [e["schedule"] for e in sleep["scheduleSleep"]] == ["P2"]
    unknown = api.results(token, "scores", schedule="P9")
    assert unknown.status_code == 404 and "'P9'" in unknown.json()["detail"]
    for bad in ({"offset": "-1"}, {"limit": "0"}, {"limit": "x"}, {"offset": "²"}):
        response = api.results(token, "scores", **bad)
        assert response.status_code == 400, bad
        assert response.json()["errors"][0]["property"] in ("offset", "limit")


def test_parameters_case_insensitive_and_problems(api: Api) -> None:
    token = api.upload().json()["rosterToken"]
    api.wait(token)
    ok = api.http.get("/api/getresults", params={"ROSTERTOKEN": token, "DataKey": "STATUS"})
    assert ok.status_code == 404  # paths are case-sensitive; parameters are not
    ok = api.http.get("/api/GetResults", params={"ROSTERTOKEN": token, "DataKey": "STATUS"})
    assert ok.status_code == 200 and ok.json()["status"] == "completedsuccessfully"
    cases = [
        {"dataKey": "status"},  # no token
        {"rosterToken": token, "dataKey": "everything"},
        {"rosterToken": token},  # no dataKey
        {"rosterToken": token, "dataKey": "scores", "scale": "XYZ"},
    ]
    for params in cases:
        response = api.http.get("/api/GetResults", params=params)
        assert response.status_code == 400, params
        assert response.headers["content-type"] == "application/problem+json"
    assert api.http.delete("/api/DeleteRoster").status_code == 400
    missing = api.results("no-such-token", "status")
    assert missing.status_code == 404
    assert missing.headers["content-type"] == "application/problem+json"


def test_shape_errors_are_400(api: Api) -> None:
    assert api.http.post("/api/UploadRoster", json={"ActivityData": ""}).status_code == 400
    assert api.upload(DateFormat="ymd").status_code == 400
    assert api.upload(PreferredScale="XX").status_code == 400
    assert api.upload(SleepData=[{"ScheduleName": "P1"}]).status_code == 400
    bad = api.http.post("/api/UploadRoster", content=b"not json")
    assert bad.status_code == 400
    # data are not validated at upload [4.4]: garbage CSV is accepted, then reported
    token = api.upload("just,some\r\ngarbage").json()["rosterToken"]
    assert api.wait(token)["status"] == "completedwitherrors"
    assert api.results(token, "feedback").json()["errors"]


def test_duplicate_name_conflicts_unless_overwrite(api: Api) -> None:
    first = api.upload(RosterName="week 10").json()["rosterToken"]
    conflict = api.upload(RosterName="week 10")
    assert conflict.status_code == 409
    assert conflict.headers["content-type"] == "application/problem+json"
    replaced = api.upload(ROSTER_WITH_ERRORS, RosterName="week 10", Overwrite=True)
    assert replaced.status_code == 200
    second = replaced.json()["rosterToken"]
    assert second != first
    assert api.results(first, "status").status_code == 404
    assert api.wait(second)["status"] == "completedwitherrors"
    names = [r["rosterName"] for r in api.http.get("/api/ListRosters").json()["rosters"]]
    assert names == ["week 10"]


def test_default_names_and_newest_first(api: Api) -> None:
    tokens = [api.upload().json()["rosterToken"] for _ in range(3)]
    listed = api.http.get("/api/ListRosters").json()["rosters"]
    assert [r["rosterToken"] for r in listed] == tokens[::-1]
    assert len({r["rosterName"] for r in listed}) == 3
    assert all(r["rosterName"].startswith("roster-") for r in listed)


def test_auth_and_tenant_isolation(service: LiveService, api: Api) -> None:
    token = api.upload(RosterName="mine").json()["rosterToken"]
    api.wait(token)
    other = Api(service.base_url, token_for(service, operator="globex"))
    for key in ("status", "feedback", "scores", "results"):
        response = other.results(token, key)
        assert response.status_code == 404, key
        assert token not in response.text
    assert other.http.delete("/api/DeleteRoster", params={"rosterToken": token}).status_code == 404
    assert other.http.get("/api/ListRosters").json() == {"rosters": []}
    # the same RosterName is free for another operator
    assert other.upload(RosterName="mine").status_code == 200
    assert api.results(token, "status").json()["status"] == "completedsuccessfully"
    anonymous = Api(service.base_url, None)
    assert anonymous.results(token, "status").status_code == 401
    assert anonymous.upload().status_code == 401
    wrong_scope = Api(service.base_url, token_for(service, scopes="fatigue"))
    forbidden = wrong_scope.results(token, "status")
    assert forbidden.status_code == 403 and forbidden.content == b""
    assert wrong_scope.http.get("/api/ListRosters").status_code == 403
    for client in (other, anonymous, wrong_scope):
        client.http.close()


def test_scores_before_processing_is_409(tmp_path: Path, db_url: str) -> None:
    from conftest import live_service

    with live_service(tmp_path, db_url, routers=[upload.router], worker_threads=0) as svc:
        api = Api(svc.base_url, token_for(svc))
        token = api.upload().json()["rosterToken"]
        status = api.results(token, "status").json()
        assert status["status"] == "queued"
        conflict = api.results(token, "scores")
        assert conflict.status_code == 409
        assert conflict.json()["rosterStatus"] == "queued"
        assert api.results(token, "feedback").json()["errors"] == []
        api.http.close()


def test_restart_between_upload_and_results_loses_nothing(tmp_path: Path, db_url: str) -> None:
    """Upload to a server without workers, stop it, start another: the roster completes."""
    from conftest import live_service

    fixed = {"public_base_url": "http://vigil.test", **FAST}
    with live_service(tmp_path, db_url, routers=[upload.router], worker_threads=0, **fixed) as a:
        bearer = token_for(a)  # issuer is fixed, so the token outlives this process
        first = Api(a.base_url, bearer)
        tokens = [first.upload(RosterName=f"r{i}").json()["rosterToken"] for i in range(3)]
        assert {first.results(t, "status").json()["status"] for t in tokens} == {"queued"}
        first.http.close()
    with live_service(tmp_path, db_url, routers=[upload.router], **fixed) as b:
        second = Api(b.base_url, bearer)
        for token in tokens:
            assert second.wait(token)["status"] == "completedsuccessfully"
            assert second.results(token, "scores").json() == expected(ROSTER, "KSS")
        second.http.close()


def test_upload_surface_app_serves_the_routes(tmp_path: Path, sqlite_url: str) -> None:
    from vigil.config.settings import Settings
    from vigil.web.entry import SURFACES

    app = SURFACES["upload"](Settings.from_mapping({"database_url": sqlite_url}))
    paths = set(app.openapi()["paths"])
    assert {"/api/UploadRoster", "/api/GetResults", "/api/DeleteRoster", "/api/ListRosters"} <= (
        paths
    )
