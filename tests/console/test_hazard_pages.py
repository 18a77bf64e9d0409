"""The hazard log over HTTP: review controls on the dashboard and chart, superseding, the
log page and its CSV export, decisions kept across re-uploads, per-operator isolation,
and ``GET /api/GetHazardLog``."""

from __future__ import annotations

import csv
import html
import io
import re
import time

import httpx
import pytest

from conftest import LiveService

from .conftest import ROSTER, csrf_of
from .test_fleet_pages import upload_and_wait


def review_forms(page: str) -> list[dict[str, str]]:
    """The hidden fields of every review form on a page, in page order."""
    form = r'<form method="post" action="/console/hazards"[^>]*"review-form">(.*?)</form>'
    hidden = r'type="hidden" name="([^"]+)" value="([^"]*)"'
    return [
        {k: html.unescape(v) for k, v in re.findall(hidden, f)}
        for f in re.findall(form, page, re.S)
    ]


def top_rows(page: str) -> list[tuple[str, str, str]]:
    """``(schedule, duty, review state)`` of the dashboard's top duties."""
    table = page.split('data-testid="top-duties"')[1].split("</table>")[0]
    row = r'<tr data-schedule="([^"]+)" data-duty="(\d+)".*?data-review-state="(\w+)"'
    rows = re.findall(row, table, re.S)
    return [(s, d, state) for s, d, state in rows]


def counts(page: str) -> tuple[int, int, int]:
    found = re.search(r'data-high="(\d+)" data-reviewed="(\d+)" data-open="(\d+)"', page)
    assert found
    high, reviewed, open_ = (int(x) for x in found.groups())
    return high, reviewed, open_


def review_list(client: httpx.Client, **params: str) -> list[tuple[str, str]]:
    """``(schedule, duty)`` of the hazard log page's "duties to review"."""
    page = client.get("/console/hazards", params=params).text
    table = page.split('data-testid="review-duties"')[1].split("</table>")[0]
    return re.findall(r'<tr data-schedule="([^"]+)" data-duty="(\d+)">', table)


def status_of(client: httpx.Client, token: str) -> str:
    rosters = client.get("/console/rosters/status").json()["rosters"]
    return str(next(r["status"] for r in rosters if r["rosterToken"] == token))


def post(client: httpx.Client, fields: dict[str, str], **extra: str) -> httpx.Response:
    return client.post("/console/hazards", data={**fields, **extra})


@pytest.fixture
def march(alice: httpx.Client) -> str:
    return upload_and_wait(alice, ROSTER, "march")


def test_review_from_the_dashboard_supersede_and_keep_across_uploads(
    alice: httpx.Client, march: str
) -> None:
    page = alice.get(f"/console/rosters/{march}").text
    rows = top_rows(page)
    assert len(rows) == 4 and {state for *_, state in rows} == {"open"}
    high, reviewed, open_ = counts(page)
    assert reviewed == 0 and open_ == high
    first = review_forms(page)[0]
    assert first["roster"] == march and first["seen"] == ""
    assert first["start"] and first["end"] and int(first["report"]) > 0
    # no CSRF token: refused, nothing stored
    refused = post(alice, {k: v for k, v in first.items() if k != "csrf_token"},
                   decision="accept", reason="x")  # fmt: skip
    assert refused.status_code == 403
    # no reason: the log page with the reason, nothing stored
    empty = post(alice, first, decision="accept", reason="  ")
    assert empty.status_code == 400 and "needs a reason" in empty.text
    sent = post(alice, first, decision="accept", reason="rested crew, FRMS envelope")
    assert sent.status_code == 303 and sent.headers["location"].startswith(
        f"/console/rosters/{march}#top-duties"
    )
    page = alice.get(f"/console/rosters/{march}").text
    assert top_rows(page)[0][2] == "reviewed" and [r[2] for r in top_rows(page)[1:]] == ["open"] * 3
    top_risk = float(
        re.search(r'data-testid="top-duties".*?data-risk="([^"]+)"', page, re.S).group(1)
    )
    assert counts(page)[1] == (1 if top_risk >= 2.96 else 0)  # built-in "high" from R 2.96
    # the log page lists the newest roster's top duties, filtered open or reviewed
    reviewed_rows = review_list(alice, review="reviewed")
    assert reviewed_rows == [top_rows(page)[0][:2]]
    open_rows = review_list(alice, review="open")
    assert len(open_rows) == 3 and top_rows(page)[0][:2] not in open_rows
    # a second decision must name the one in force: stale forms are refused (409)
    stale = post(alice, first, decision="change", reason="swap it")
    assert stale.status_code == 409 and "changed since the page was loaded" in stale.text
    again = review_forms(page)[0]
    assert again["seen"].isdigit()
    changed = post(alice, again, decision="mitigate", reason="long duty",
                   mitigation="controlled rest on the descent")  # fmt: skip
    assert changed.status_code == 303
    log = alice.get("/console/hazards").text
    entries = re.findall(r'<tr data-entry="(\d+)" data-decision="(\w+)" data-in-force="(\w+)"', log)
    assert [(d, f) for _, d, f in entries] == [("mitigate", "yes"), ("accept", "no")]
    assert f"superseded by #{entries[0][0]}" in log and "controlled rest on the descent" in log
    # the chart page of the same duty shows the decision in force
    schedule, duty, _ = top_rows(page)[0]
    chart = alice.get(f"/console/rosters/{march}/chart", params={"schedule": schedule}).text
    states = re.findall(r'data-review-state="(\w+)"', chart)
    assert states[int(duty) - 1] == "reviewed" and states.count("reviewed") == 1
    # review another duty from the chart: back to its row, and it shows there
    other = next(i for i, state in enumerate(states) if state == "open")
    form = review_forms(chart)[other]
    sent = post(alice, form, decision="change", reason="move the report later")
    assert sent.status_code == 303 and sent.headers["location"].endswith(f"#duty-{other + 1}")
    chart = alice.get(sent.headers["location"]).text
    assert re.findall(r'data-review-state="(\w+)"', chart).count("reviewed") == 2
    # overwrite the roster: a new token, the same duties, the decision still shows
    listing = alice.get("/console/rosters")
    replaced = alice.post(
        "/console/rosters",
        data={"csrf_token": csrf_of(listing.text), "name": "march", "overwrite": "true"},
        files={"roster": ("march.csv", ROSTER.encode(), "text/csv")},
    )
    assert replaced.status_code == 303
    listing = alice.get("/console/rosters").text
    again_token = re.search(r'data-token="([^"]+)" data-name="march"', listing).group(1)
    assert again_token != march
    newer = upload_and_wait(alice, ROSTER, "march-v2")
    deadline = time.monotonic() + 60
    while not status_of(alice, again_token).startswith("completed"):
        assert time.monotonic() < deadline, "the overwritten roster was not processed"
        time.sleep(0.3)
    for token in (again_token, newer):
        rows = top_rows(alice.get(f"/console/rosters/{token}").text)
        assert dict(((s, d), st) for s, d, st in rows)[(schedule, duty)] == "reviewed"
        assert (schedule, str(other + 1)) not in {(s, d) for s, d, st in rows if st == "open"}
    assert alice.get(f"/console/rosters/{march}").status_code == 404  # overwritten
    # deleting every roster keeps the log
    for token in re.findall(r'data-token="([^"]+)"', alice.get("/console/rosters").text):
        page = alice.get("/console/rosters").text
        alice.post(f"/console/rosters/{token}/delete", data={"csrf_token": csrf_of(page)})
    assert 'data-token="' not in alice.get("/console/rosters").text
    log = alice.get("/console/hazards").text
    assert len(re.findall(r'<tr data-entry="', log)) == 3


def test_log_filters_and_formula_safe_csv(alice: httpx.Client) -> None:
    page = alice.get("/console/hazards").text
    token = csrf_of(page)
    for label, decision, reason, mitigation in [
        ("MAN 3+ early starts", "mitigate", '=HYPERLINK("http://x")', "+later reports"),
        ("LHR-JFK-LHR pairing", "accept", "within limits", ""),
    ]:
        sent = alice.post(
            "/console/hazards",
            data={"csrf_token": token, "kind": "pattern", "label": label, "decision": decision,
                  "reason": reason, "mitigation": mitigation},
        )  # fmt: skip
        assert sent.status_code == 303
    # the same name again without naming the entry in force: refused, nothing replaced
    dup = alice.post(
        "/console/hazards",
        data={"csrf_token": token, "kind": "pattern", "label": "man 3+  EARLY starts",
              "decision": "change", "reason": "r"},
    )  # fmt: skip
    assert dup.status_code == 409
    only = alice.get("/console/hazards", params={"decision": "accept"}).text
    assert re.findall(r'data-decision="(\w+)"', only) == ["accept"]
    text = alice.get("/console/hazards/export.csv").text
    rows = list(csv.DictReader(io.StringIO(text)))
    assert [r["Subject"] for r in rows] == ["LHR-JFK-LHR pairing", "MAN 3+ early starts"]
    assert rows[1]["Reason"] == '\'=HYPERLINK("http://x")'
    assert rows[1]["Mitigation"] == "'+later reports" and rows[1]["State"] == "in force"
    filtered = alice.get("/console/hazards/export.csv", params={"decision": "mitigate"}).text
    assert [r["Decision"] for r in csv.DictReader(io.StringIO(filtered))] == ["mitigate"]


def test_operators_never_see_each_others_log(
    service: LiveService, alice: httpx.Client, bob: httpx.Client, march: str
) -> None:
    form = review_forms(alice.get(f"/console/rosters/{march}").text)[0]
    assert post(alice, form, decision="change", reason="acme's own reason").status_code == 303
    assert "acme&#39;s own reason" in alice.get("/console/hazards").text
    theirs = bob.get("/console/hazards").text
    assert "data-entry=" not in theirs and "own reason" not in theirs
    assert "own reason" not in bob.get("/console/hazards/export.csv").text
    # bob cannot record against acme's roster (404), and his own decision on the same
    # duty identity is his alone
    bob_form = {**form, "csrf_token": csrf_of(theirs)}
    assert post(bob, bob_form, decision="accept", reason="r").status_code == 404
    del bob_form["roster"]
    assert post(bob, bob_form, decision="accept", reason="globex reason").status_code == 303
    assert "globex reason" not in alice.get("/console/hazards").text
    # over the API, with the risk scope, each operator reads only its own entries
    for operator, reason in (("acme", "acme's own reason"), ("globex", "globex reason")):
        with api(service, operator, "risk") as client:
            answer = client.get("/api/GetHazardLog")
        assert answer.status_code == 200, answer.text
        body = answer.json()
        assert body["operator"] == operator
        assert [e["reason"] for e in body["entries"]] == [reason]
        entry = body["entries"][0]
        assert entry["subjectKind"] == "duty" and entry["inForce"] is True
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", entry["reportAt"])


def api(service: LiveService, operator: str, kind: str) -> httpx.Client:
    wire = {"risk": "svc_fast_safe_risk_api", "upload": "svc_safe_upload_api"}[kind]
    client_id, secret = service.create_client(operator=operator, scopes=kind)
    answer = httpx.post(
        f"{service.base_url}/connect/token",
        data={"grant_type": "client_credentials", "scope": wire},
        auth=(client_id, secret),
    )
    assert answer.status_code == 200, answer.text
    token = answer.json()["access_token"]
    return httpx.Client(base_url=service.base_url, headers={"Authorization": f"Bearer {token}"})


def test_api_needs_the_risk_scope_and_checks_its_filters(service: LiveService) -> None:
    with api(service, "acme", "upload") as client:
        denied = client.get("/api/GetHazardLog")
    assert denied.status_code == 403 and denied.content == b""
    assert "fast_safe_risk_api" in denied.headers["www-authenticate"]
    assert httpx.get(f"{service.base_url}/api/GetHazardLog").status_code == 401
    with api(service, "acme", "risk") as client:
        empty = client.get("/api/GetHazardLog", params={"decision": "accept"})
        bad = client.get("/api/GetHazardLog", params={"decision": "ignore"})
        unknown = client.get("/api/GetHazardLog", params={"since": "2026"})
    assert empty.status_code == 200 and empty.json() == {"operator": "acme", "entries": []}
    assert bad.status_code == 400 and bad.headers["content-type"] == "application/problem+json"
    assert bad.json()["errors"][0]["property"] == "decision"
    assert unknown.status_code == 400 and "since" in unknown.json()["detail"]


#: three consecutive early starts at MAN (UTC = home-base time in March): one run of 3
EARLY = (
    "Reference,OnDutyDate,OnDutyTime,StartAirport,OffDutyDate,OffDutyTime,EndAirport,"
    "HomeBase,TimeReference\r\n"
    "E1,02/03/2026,05:30,MAN,02/03/2026,13:00,MAN,MAN,0\r\n"
    "E1,03/03/2026,05:30,MAN,03/03/2026,13:00,MAN,MAN,0\r\n"
    "E1,04/03/2026,05:30,MAN,04/03/2026,13:00,MAN,MAN,0\r\n"
)


def test_patterns_on_the_dashboard_are_reviewed_by_schedule(alice: httpx.Client) -> None:
    first = upload_and_wait(alice, EARLY, "early-1")
    page = alice.get(f"/console/rosters/{first}").text
    section = page.split('data-pattern="earlyRuns"')[1].split("</table>")[0]
    assert re.findall(r'data-review-state="(\w+)"', section) == ["open"]
    form = review_forms(section)[0]
    assert form["kind"] == "pattern" and form["label"] == "E1: runs of 3+ consecutive early starts"
    sent = post(alice, form, decision="mitigate", reason="three earlies",
                mitigation="one later report")  # fmt: skip
    assert sent.status_code == 303 and sent.headers["location"].endswith("#patterns")
    # the same schedule's pattern in another roster shows the decision
    second = upload_and_wait(alice, EARLY, "early-2")
    section = alice.get(f"/console/rosters/{second}").text.split('data-pattern="earlyRuns"')[1]
    section = section.split("</table>")[0]
    assert re.findall(r'data-review-state="(\w+)"', section) == ["reviewed"]
    assert ">mitigate</span>" in section
    entries = alice.get("/console/hazards", params={"kind": "pattern"}).text
    assert "E1: runs of 3+ consecutive early starts" in entries and "one later report" in entries
