"""The roster dashboard, schedules table, exports and chart options over HTTP."""

from __future__ import annotations

import csv
import io
import re
import time

import httpx
import pytest

from conftest import LiveService

from .conftest import ROSTER, csrf_of


def api_client(service: LiveService, operator: str) -> httpx.Client:
    """An httpx client holding an upload-scope token of ``operator``."""
    token = api_token(service, operator)
    return httpx.Client(base_url=service.base_url, headers={"Authorization": f"Bearer {token}"})


def api_token(service: LiveService, operator: str) -> str:
    client_id, secret = service.create_client(operator=operator, scopes="upload")
    answer = httpx.post(
        f"{service.base_url}/connect/token",
        data={"grant_type": "client_credentials", "scope": "svc_safe_upload_api"},
        auth=(client_id, secret),
    )
    assert answer.status_code == 200, answer.text
    return str(answer.json()["access_token"])


def upload_and_wait(client: httpx.Client, roster: str, name: str) -> str:
    page = client.get("/console/rosters")
    sent = client.post(
        "/console/rosters",
        data={"csrf_token": csrf_of(page.text), "name": name, "scale": "KSS"},
        files={"roster": (f"{name}.csv", roster.encode(), "text/csv")},
    )
    assert sent.status_code == 303, sent.text
    listing = client.get("/console/rosters").text
    token = re.search(rf'data-token="([^"]+)" data-name="{name}"', listing).group(1)
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        status = client.get("/console/rosters/status").json()["rosters"]
        mine = next(r for r in status if r["rosterToken"] == token)
        if mine["status"].startswith("completed"):
            return token
        time.sleep(0.3)
    raise AssertionError("roster not processed in time")


@pytest.fixture
def scored(alice: httpx.Client) -> str:
    return upload_and_wait(alice, ROSTER, "march")


def test_dashboard_summary_and_exports_agree(
    service: LiveService, alice: httpx.Client, scored: str
) -> None:
    with api_client(service, "acme") as api:
        summary = api.get("/api/GetResults", params={"rosterToken": scored, "dataKey": "summary"})
        scores = api.get("/api/GetResults", params={"rosterToken": scored, "dataKey": "scores"})
    assert summary.status_code == 200, summary.text
    body, scores = summary.json(), scores.json()
    risks = [
        (r, s["schedule"], j + 1)
        for s in scores["scheduleScores"]
        for j, r in enumerate(s["riskScores"])
    ]
    assert body["summary"]["counts"]["duties"] == len(risks) == 4
    assert sum(body["summary"]["riskHistogram"]["counts"]) == len(risks)
    top = body["summary"]["topDuties"][0]
    best = max(risks)
    assert (top["risk"], top["reference"], top["duty"]) == (round(best[0], 3), best[1], best[2])
    page = alice.get(f"/console/rosters/{scored}")
    assert page.status_code == 200
    bars = re.findall(r'class="bar"[^>]*data-count="(\d+)"', page.text.split("risk-histogram")[1])
    assert sum(map(int, bars[: len(body["summary"]["riskHistogram"]["counts"])])) == 4
    # CSV: one row per duty, the risk of each equal to the API's
    text = alice.get(f"/console/rosters/{scored}/export.csv").text
    rows = list(csv.DictReader(io.StringIO(text)))
    assert sorted((r["Reference"], int(r["Duty"]), float(r["Risk"])) for r in rows) == sorted(
        (ref, duty, round(risk, 3)) for risk, ref, duty in risks
    )
    assert {r["Start"] for r in rows} >= {"LHR", "JFK"}
    # ICAO codes once the user picks them (remembered per user)
    chart_url = f"/console/rosters/{scored}/chart?schedule=P1&scale=KSS"
    chart = alice.get(chart_url)
    assert "LHR–JFK" in chart.text
    saved = alice.post(
        "/console/rosters/preferences",
        data={"csrf_token": csrf_of(chart.text), "time": "home", "airports": "icao",
              "back": chart_url},
    )  # fmt: skip
    assert saved.status_code == 303 and saved.headers["location"] == chart_url
    chart = alice.get(chart_url)
    assert "EGLL–KJFK" in chart.text and '"timeAxis": "home"' in chart.text
    text = alice.get(f"/console/rosters/{scored}/export.csv").text
    assert "EGLL" in text


def test_status_json_carries_scoring_progress(alice: httpx.Client, scored: str) -> None:
    rosters = alice.get("/console/rosters/status").json()["rosters"]
    mine = next(r for r in rosters if r["rosterToken"] == scored)
    assert mine["progressTotal"] == 2 and mine["progressDone"] == 2  # schedules scored


def test_schedules_table_sorts_filters_and_searches(alice: httpx.Client, scored: str) -> None:
    def order(**params: str) -> list[str]:
        page = alice.get(f"/console/rosters/{scored}", params=params).text
        table = page.split('data-testid="schedules"')[1]
        return re.findall(r'<tr data-schedule="([^"]+)" data-risk="([^"]+)"', table)

    by_risk = order(sort="risk")
    risks = [float(r) for _, r in by_risk]
    assert risks == sorted(risks, reverse=True) and len(by_risk) == 2
    assert [r for r, _ in order(sort="risk", order="asc")] == [r for r, _ in by_risk][::-1]
    assert [r for r, _ in order(q="p2")] == ["P2"]


def test_other_operator_gets_404_everywhere(
    service: LiveService, alice: httpx.Client, bob: httpx.Client, scored: str
) -> None:
    for path in ("", "/export.csv", "/export.xlsx", "/export.pdf", "/chart?schedule=P1"):
        assert bob.get(f"/console/rosters/{scored}{path}").status_code == 404, path
    with api_client(service, "globex") as api:
        other = api.get("/api/GetResults", params={"rosterToken": scored, "dataKey": "summary"})
    assert other.status_code == 404
    assert alice.get(f"/console/rosters/{scored}/export.pdf").content.startswith(b"%PDF")


def test_upload_form_errors_are_pages(alice: httpx.Client) -> None:
    csrf = csrf_of(alice.get("/console/rosters").text)
    missing = alice.post("/console/rosters", data={"csrf_token": csrf, "name": "x"})
    assert missing.status_code == 400 and "text/html" in missing.headers["content-type"]
    assert "Choose a RosterData CSV file" in missing.text
    long_name = alice.post(
        "/console/rosters",
        data={"csrf_token": csrf, "name": "n" * 201},
        files={"roster": ("r.csv", ROSTER.encode(), "text/csv")},
    )
    assert long_name.status_code == 400 and "longer than 200" in long_name.text


def test_the_console_opens_on_the_newest_scored_rosters_dashboard(
    alice: httpx.Client, bob: httpx.Client
) -> None:
    # nothing scored yet: the connection overview
    first = alice.get("/console/")
    assert first.status_code == 200 and 'aria-current="page">Connect' in first.text
    token = upload_and_wait(alice, ROSTER, "april")
    landing = alice.get("/console/")
    assert landing.status_code == 303
    assert landing.headers["location"] == f"/console/rosters/{token}"
    assert alice.get("/console/connect").status_code == 200
    # another operator's roster is never where bob lands
    assert bob.get("/console/").status_code == 200
