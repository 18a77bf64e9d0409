"""What-if and plan-rest endpoints of the console over real HTTP.

One embedded app (identity, scoring, planner, upload with an in-thread worker, console) for
the module; a four-pilot roster (28 days of short-haul history, then an augmented LHR-SIN
duty and the return) is uploaded once and processed by the worker.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

from conftest import LiveService, live_service
from vigil.contract import JobStatus
from vigil.store import uploads

from .conftest import create_user, embedded_routers, sign_in

CREW = ("CA", "FO", "CB", "FB")
LANDING = ("CA", "FO")
#: the long-haul report: 20:00Z at LHR, 14.5 h to SIN, after 28 days of history
ON = datetime(2026, 3, 29, 20, 0, tzinfo=UTC)
HEADER = (
    "Reference,OnDutyDate,OnDutyTime,StartAirport,OffDutyDate,OffDutyTime,EndAirport,HomeBase,"
    "TimeReference,CrewComposition,SleepCount,SleepOrder"
)


def crew_roster(days: int = 28) -> str:
    """Each pilot: ``days`` of 07:00-15:00Z LHR-CDG duties (5 on, 2 off), the augmented
    LHR-SIN duty (landing pair SleepOrder 2) and the SIN-LHR return two days later."""
    lines = [HEADER]
    off = ON + timedelta(hours=14.5)
    back_on = ON + timedelta(days=2, hours=2)
    back_off = back_on + timedelta(hours=14)
    for ref in CREW:
        order = 2 if ref in LANDING else 1
        for k in range(days):
            when = ON - timedelta(days=days - k)
            if k % 7 < 5 and when.date() < (ON - timedelta(days=1)).date():
                d = when.strftime("%d/%m/%Y")
                lines.append(f"{ref},{d},07:00,LHR,{d},15:00,CDG,LHR,0,2,0,1")
        lines.append(
            f"{ref},{ON:%d/%m/%Y},{ON:%H:%M},LHR,{off:%d/%m/%Y},{off:%H:%M},SIN,LHR,0,4,1,{order}"
        )
        lines.append(
            f"{ref},{back_on:%d/%m/%Y},{back_on:%H:%M},SIN,{back_off:%d/%m/%Y},{back_off:%H:%M},"
            f"LHR,LHR,0,4,1,{order}"
        )
    return "\r\n".join(lines)


def processed_upload(
    service: LiveService, operator: str, name: str, text: str, sleep: str = "[]"
) -> str:
    """Upload ``text`` (and SleepData ``sleep``) for ``operator``, wait for the worker; the
    roster token."""
    with service.runtime.sessions.begin() as session:
        token = uploads.create_upload(
            session=session, operator=operator, roster_name=name, roster_text=text, sleep_json=sleep
        ).token
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        with service.runtime.sessions.begin() as session:
            upload = uploads.get_upload(session=session, operator=operator, token=token)
            assert upload is not None
            if upload.status == JobStatus.COMPLETED_SUCCESSFULLY:
                return token
            assert upload.status not in (JobStatus.FAILED, JobStatus.COMPLETED_WITH_ERRORS)
        time.sleep(0.2)
    raise AssertionError("the upload was not processed in time")


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveService]:
    tmp: Path = tmp_path_factory.mktemp("whatif")
    url = f"sqlite:///{tmp / 'vigil.db'}"
    with live_service(
        tmp, url, routers=embedded_routers(), worker_processes=0, worker_poll_interval=0.2
    ) as live:
        create_user(live, "acme", "alice")
        create_user(live, "globex", "bob")
        yield live


@pytest.fixture(scope="module")
def token(service: LiveService) -> str:
    return processed_upload(service, "acme", "longhaul", crew_roster())


@pytest.fixture(scope="module")
def alice(service: LiveService) -> Iterator[httpx.Client]:
    client = sign_in(service, "alice")
    yield client
    client.close()


@pytest.fixture(scope="module")
def bob(service: LiveService) -> Iterator[httpx.Client]:
    client = sign_in(service, "bob")
    yield client
    client.close()


def page_data(client: httpx.Client, token: str, schedule: str = "CB") -> dict[str, Any]:
    """The what-if page's embedded data (and its CSRF token under ``csrf``)."""
    page = client.get(f"/console/rosters/{token}/whatif", params={"schedule": schedule})
    assert page.status_code == 200, page.text
    found = re.search(r'id="whatif-data">(.*?)</script>', page.text, re.S)
    csrf = re.search(r'name="csrf-token" content="([^"]+)"', page.text)
    assert found and csrf
    data: dict[str, Any] = json.loads(found.group(1))
    data["csrf"] = csrf.group(1)
    return data


def post(
    client: httpx.Client, token: str, what: str, body: dict[str, Any], csrf: str
) -> httpx.Response:
    return client.post(
        f"/console/rosters/{token}/whatif/{what}", json=body, headers={"X-CSRF-Token": csrf}
    )


def api_token(service: LiveService, operator: str = "acme") -> str:
    client_id, secret = service.create_client(operator=operator)
    answer = httpx.post(
        f"{service.base_url}/connect/token",
        data={"grant_type": "client_credentials"},
        auth=(client_id, secret),
    )
    assert answer.status_code == 200, answer.text
    return str(answer.json()["access_token"])


def long_haul(draft: dict[str, Any]) -> int:
    on = int(ON.timestamp() * 1000)
    return next(i for i, d in enumerate(draft["duties"]) if d["on"] == on)


def test_unedited_draft_scores_as_stored(alice: httpx.Client, token: str) -> None:
    data = page_data(alice, token)
    draft = {**data["draft"], "scale": "KSS"}
    assert draft["sleep"] is None  # predicted, as in the upload
    answer = post(alice, token, "score", draft, data["csrf"])
    assert answer.status_code == 200, answer.text
    body = answer.json()
    stored, mine = data["stored"], body["payload"]
    assert body["errors"] == []
    assert mine["v"] == stored["v"] and mine["t0"] == stored["t0"]
    assert [d["risk"] for d in mine["duties"]] == [d["risk"] for d in stored["duties"]]
    assert mine["sleep"] == stored["sleep"]
    assert body["sleepData"] == [] and body["dateFormat"] == "dmy"
    assert body["serverMs"] > 0 and "whatif;dur=" in answer.headers["server-timing"]
    # the long-haul duty rests as SleepOrder 1 of four pilots: the first half of the cruise
    rests = body["rests"][long_haul(draft)]
    assert len(rests) == 1 and rests[0][0] > draft["duties"][long_haul(draft)]["on"]


def test_moved_sleep_rescored_and_files_resubmit_to_the_same_scores(
    service: LiveService, alice: httpx.Client, token: str
) -> None:
    data = page_data(alice, token)
    stored = data["stored"]
    lh = long_haul(data["draft"])
    on = data["draft"]["duties"][lh]["on"]
    # the main sleep before the long haul, made given and moved 3 h later
    sleeps = [[s["start"], s["end"]] for s in stored["sleep"]]
    i = max(k for k, s in enumerate(sleeps) if s[1] <= on - 3600_000)
    sleeps[i] = [sleeps[i][0] + 3 * 3600_000, min(sleeps[i][1] + 3 * 3600_000, on - 3600_000)]
    draft = {**data["draft"], "scale": "KSS", "sleep": sleeps}
    answer = post(alice, token, "score", draft, data["csrf"])
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["errors"] == []
    duty = body["payload"]["duties"][lh]
    before = stored["v"][duty["first"] : duty["first"] + duty["count"]]
    after = body["payload"]["v"][duty["first"] : duty["first"] + duty["count"]]
    assert before != after  # the long haul's scores moved with the sleep
    assert len(body["sleepData"]) == len(sleeps)
    assert all(r["ScheduleName"] == "CB" for r in body["sleepData"])
    # the draft files, submitted as they are, give the draft's scores
    api = httpx.post(
        f"{service.base_url}/api/Processor/ProcessFatigueRisk",
        json={
            "RosterData": body["rosterData"],
            "SleepData": body["sleepData"],
            "DateFormat": body["dateFormat"],
            "PreferredScale": "KSS",
        },
        headers={"Authorization": f"Bearer {api_token(service)}"},
    )
    assert api.status_code == 200, api.text
    (entry,) = api.json()["scheduleScores"]
    assert entry["fatigueScores"] == body["payload"]["v"]
    assert entry["riskScores"] == [d["risk"] for d in body["payload"]["duties"]]
    # and the stored upload is untouched
    with service.runtime.sessions.begin() as session:
        upload = uploads.get_upload(session=session, operator="acme", token=token)
        assert upload is not None and upload.roster_text == crew_roster()
        assert upload.sleep_json in ("", "[]")


def test_duty_time_change_is_scored(alice: httpx.Client, token: str) -> None:
    data = page_data(alice, token)
    draft = {**data["draft"], "scale": "SP"}
    lh = long_haul(draft)
    draft["duties"][lh]["off"] += 2 * 3600_000  # two hours longer
    body = post(alice, token, "score", draft, data["csrf"]).json()
    duty = body["payload"]["duties"][lh]
    assert duty["count"] == 14.5 * 4 + 8
    assert body["payload"]["scale"] == "SP"
    assert (
        body["rosterData"]
        .splitlines()[lh + 1]
        .startswith("CB,29/03/2026,20:00,LHR,30/03/2026,12:30")
    )


def test_plan_rest_is_the_planners_answer_and_applies(
    service: LiveService, alice: httpx.Client, token: str
) -> None:
    data = page_data(alice, token)
    draft = {**data["draft"], "scale": "KSS"}
    lh = long_haul(draft)
    assert data["crew"] == {
        str(lh): {"size": 4, "crew": list(CREW)},
        str(lh + 1): {"size": 4, "crew": list(CREW)},
    }
    request = {"draft": draft, "duty": lh, "references": list(CREW), "landing": list(LANDING)}
    answer = post(alice, token, "plan", request, data["csrf"])
    assert answer.status_code == 200, answer.text
    body = answer.json()
    # the API on the uploaded roster gives the same plan
    api = httpx.post(
        f"{service.base_url}/api/Planner/InflightRest",
        json={
            "RosterData": crew_roster(),
            "Duty": "2026-03-29T20:00:00Z",
            "References": list(CREW),
            "Landing": list(LANDING),
        },
        headers={"Authorization": f"Bearer {api_token(service)}"},
    ).json()
    assert body["summary"] == api["summary"]
    for key in ("worstKss", "landingKss", "reliefKss", "crewMeanKss"):
        assert body["plan"]["proposal"][key] == api["proposal"][key]
    strip = [{k: b[k] for k in ("reference", "start", "end")} for b in api["proposal"]["breaks"]]
    assert [
        {k: b[k] for k in ("reference", "start", "end")} for b in body["plan"]["proposal"]["breaks"]
    ] == strip
    mine = next(b for b in api["proposal"]["breaks"] if b["reference"] == "CB")
    assert body["mine"].startswith(f"CB takes break {mine['break']}, {mine['start'][11:16]}")
    assert [datetime.fromtimestamp(t / 1000, UTC) for t in body["rests"][0]] == [
        datetime.fromisoformat(mine["start"]),
        datetime.fromisoformat(mine["end"]),
    ]
    # the current split: SleepOrder 1 of 2 crews for CB, the scorer's windows for each pilot
    assert {n["reference"] for n in body["now"]} == set(CREW)
    assert all(len(n["windows"]) == 1 for n in body["now"])
    # the preview is CB's draft with the break applied; its last hour is the plan's figure
    preview = body["preview"]["payload"]["duties"][lh]
    tail = body["preview"]["payload"]["v"][
        preview["first"] + preview["count"] - 4 : preview["first"] + preview["count"]
    ]
    assert max(tail) == pytest.approx(mine["lastHourKss"], abs=1e-9)
    # applying it (the page puts the break in the draft) scores exactly as the preview
    draft["duties"][lh]["rests"] = body["rests"]
    applied = post(alice, token, "score", draft, data["csrf"]).json()
    assert applied["payload"] == body["preview"]["payload"]
    row = applied["rosterData"].splitlines()[lh + 1].split(",")
    assert row[18:22] == [
        mine["columns"]["FirstRestStartDate"],
        mine["columns"]["FirstRestStartTime"],
        mine["columns"]["FirstRestEndDate"],
        mine["columns"]["FirstRestEndTime"],
    ]


def test_plan_problems_name_the_property(alice: httpx.Client, token: str) -> None:
    data = page_data(alice, token)
    draft = {**data["draft"], "scale": "KSS"}
    lh = long_haul(draft)
    short = {"draft": draft, "duty": 0, "references": list(CREW), "landing": list(LANDING)}
    answer = post(alice, token, "plan", short, data["csrf"])  # a two-pilot short-haul duty
    assert answer.status_code == 400
    assert answer.headers["content-type"] == "application/problem+json"
    assert answer.json()["errors"][0]["property"] == "Duty"
    bad_landing = {**short, "duty": lh, "landing": ["CA", "XX"]}
    answer = post(alice, token, "plan", bad_landing, data["csrf"])
    assert answer.status_code == 400 and answer.json()["errors"][0]["property"] == "Landing"
    without_me = {**short, "duty": lh, "references": ["CA", "FO", "FB"]}
    answer = post(alice, token, "plan", without_me, data["csrf"])
    assert answer.status_code == 400 and answer.json()["errors"][0]["property"] == "References"


def test_a_crew_member_missing_from_the_roster_is_planned_as_a_placeholder(
    alice: httpx.Client, token: str
) -> None:
    data = page_data(alice, token)
    draft = {**data["draft"], "scale": "KSS"}
    lh = long_haul(draft)
    crew = ["CA", "FO", "CB", "NEW1"]
    request = {"draft": draft, "duty": lh, "references": crew, "landing": list(LANDING)}
    # without saying it is a placeholder, an unknown Reference is still refused
    assert post(alice, token, "plan", request, data["csrf"]).status_code == 404
    answer = post(alice, token, "plan", {**request, "placeholders": ["NEW1"]}, data["csrf"])
    assert answer.status_code == 200, answer.text
    plan = answer.json()["plan"]
    assert plan["placeholders"] == ["NEW1"]
    assert [b["placeholder"] for b in plan["proposal"]["breaks"]] == [False, False, False, True]
    assert {p["group"] for p in plan["pairs"]} == {"landing", "relief"}
    stray = {**request, "placeholders": ["ZZ"]}
    answer = post(alice, token, "plan", stray, data["csrf"])
    assert answer.status_code == 400
    assert answer.json()["errors"][0]["property"] == "placeholders"


def test_bad_drafts_answer_400_or_data_errors(alice: httpx.Client, token: str) -> None:
    data = page_data(alice, token)
    draft = data["draft"]
    odd = json.loads(json.dumps(draft))
    odd["duties"][0]["on"] += 30_000  # half a minute
    answer = post(alice, token, "score", odd, data["csrf"])
    assert answer.status_code == 400
    assert answer.json()["errors"] == [
        {"property": "duties[0].on", "message": "duties[0].on must be a whole minute"}
    ]
    cell = json.loads(json.dumps(draft))
    cell["duties"][0]["cells"]["Password"] = "x"
    answer = post(alice, token, "score", cell, data["csrf"])
    assert answer.status_code == 400 and answer.json()["errors"][0]["property"] == "duties[0].cells"
    backwards = json.loads(json.dumps(draft))
    backwards["sleep"] = [[1_800_000_000_000, 1_799_000_000_000]]
    answer = post(alice, token, "score", backwards, data["csrf"])
    assert answer.status_code == 400 and answer.json()["errors"][0]["property"] == "sleep[0]"
    # a duty ending before it starts is the roster's own data error, shown on the page
    wrong = json.loads(json.dumps(draft))
    wrong["duties"][0]["off"] = wrong["duties"][0]["on"] - 3600_000
    answer = post(alice, token, "score", wrong, data["csrf"])
    assert answer.status_code == 200
    assert answer.json()["payload"] is None
    assert answer.json()["errors"][0].startswith("2|CB|")
    missing = post(alice, token, "score", {"schedule": "CB"}, data["csrf"])
    assert (
        missing.status_code == 400 and missing.headers["content-type"] == "application/problem+json"
    )


def test_impossible_drafts_are_refused_naming_the_field(alice: httpx.Client, token: str) -> None:
    data = page_data(alice, token)
    draft = {**data["draft"], "scale": "KSS"}
    lh = long_haul(draft)
    duty = draft["duties"][lh]
    hour = 3_600_000
    # a rest that starts 10 minutes after report, before take-off (report + 60 min, ref §6)
    early = json.loads(json.dumps(draft))
    early["duties"][lh]["rests"] = [[duty["on"] + 600_000, duty["on"] + 3 * hour]]
    answer = post(alice, token, "score", early, data["csrf"])
    assert answer.status_code == 400
    error = answer.json()["errors"][0]
    assert error["property"] == f"duties[{lh}].rests[0]"
    assert "outside the flight" in error["message"] and "take-off" in error["message"]
    # the same rest inside the flight is accepted
    inside = json.loads(json.dumps(draft))
    inside["duties"][lh]["rests"] = [[duty["on"] + 2 * hour, duty["on"] + 4 * hour]]
    assert post(alice, token, "score", inside, data["csrf"]).status_code == 200
    # a given sleep stretched across the landing, outside every rest break
    across = json.loads(json.dumps(inside))
    across["sleep"] = [[duty["on"] + 2 * hour, duty["off"] + hour]]
    answer = post(alice, token, "score", across, data["csrf"])
    assert answer.status_code == 400
    error = answer.json()["errors"][0]
    assert error["property"] == "sleep[0]" and f"overlaps duty {lh + 1}" in error["message"]
    # in-flight sleep inside the rest break is in-flight rest, and stays allowed
    bunk = json.loads(json.dumps(inside))
    bunk["sleep"] = [[duty["on"] + 2 * hour + 900_000, duty["on"] + 4 * hour]]
    assert post(alice, token, "score", bunk, data["csrf"]).status_code == 200


def test_json_endpoints_need_the_csrf_header_and_json(alice: httpx.Client, token: str) -> None:
    data = page_data(alice, token)
    url = f"/console/rosters/{token}/whatif/score"
    assert alice.post(url, json=data["draft"]).status_code == 403
    assert (
        alice.post(url, json=data["draft"], headers={"X-CSRF-Token": "forged"}).status_code == 403
    )
    form = alice.post(
        url,
        content=json.dumps(data["draft"]),
        headers={"X-CSRF-Token": data["csrf"], "Content-Type": "text/plain"},
    )
    assert form.status_code == 415
    with httpx.Client(base_url=str(alice.base_url)) as anonymous:
        assert anonymous.post(url, json=data["draft"]).status_code == 303


def test_another_operator_gets_404_everywhere(
    service: LiveService, alice: httpx.Client, bob: httpx.Client, token: str
) -> None:
    data = page_data(alice, token)
    draft = {**data["draft"], "scale": "KSS"}
    lh = long_haul(draft)
    plan = {"draft": draft, "duty": lh, "references": list(CREW), "landing": list(LANDING)}
    bob_csrf = re.search(
        r'name="csrf_token" value="([^"]+)"', bob.get("/console/rosters").text
    ).group(1)  # type: ignore[union-attr]
    assert bob.get(f"/console/rosters/{token}/whatif", params={"schedule": "CB"}).status_code == 404
    assert post(bob, token, "score", draft, bob_csrf).status_code == 404
    assert post(bob, token, "plan", plan, bob_csrf).status_code == 404
    # bob's own roster does not open alice's schedules either, nor lends them to a plan
    own = processed_upload(service, "globex", "mine", crew_roster(3).replace("CB,", "ZZ,"))
    assert bob.get(f"/console/rosters/{own}/whatif", params={"schedule": "CB"}).status_code == 404
    answer = post(bob, own, "score", draft, bob_csrf)
    assert (
        answer.status_code == 404 and answer.headers["content-type"] == "application/problem+json"
    )
    assert post(bob, own, "plan", plan, bob_csrf).status_code == 404
    bob_data = page_data(bob, own, "ZZ")
    theirs = {
        "draft": {**bob_data["draft"], "scale": "KSS"},
        "duty": long_haul(bob_data["draft"]),
        "references": ["ZZ", "CA", "FO", "XX"],
        "landing": ["CA", "FO"],
    }
    answer = post(bob, own, "plan", theirs, bob_data["csrf"])
    assert answer.status_code == 404 and "XX" in answer.json()["detail"]
    # alice cannot reach bob's
    assert alice.get(f"/console/rosters/{own}/whatif", params={"schedule": "ZZ"}).status_code == 404
    assert post(alice, own, "score", bob_data["draft"], data["csrf"]).status_code == 404


def test_given_sleep_of_the_upload_is_the_drafts_and_the_plans(
    service: LiveService, alice: httpx.Client
) -> None:
    nights = [(ON - timedelta(days=k)).replace(hour=22) for k in range(8, 0, -1)]
    records = [
        {"ScheduleName": ref, "SleepStart": f"{n:%Y-%m-%dT%H:%M:%SZ}",
         "SleepEnd": f"{n + timedelta(hours=8):%Y-%m-%dT%H:%M:%SZ}"}
        for ref in ("CA", "CB")
        for n in nights
    ]  # fmt: skip
    text = crew_roster(10)
    token = processed_upload(service, "acme", "given", text, json.dumps(records))
    data = page_data(alice, token)
    draft = {**data["draft"], "scale": "KSS"}
    assert len(draft["sleep"]) == len(nights)  # CB's given sleep, as uploaded
    body = post(alice, token, "score", draft, data["csrf"]).json()
    assert body["payload"]["v"] == data["stored"]["v"]
    assert body["sleepData"] == [r for r in records if r["ScheduleName"] == "CB"]
    plan = post(
        alice,
        token,
        "plan",
        {
            "draft": draft,
            "duty": long_haul(draft),
            "references": list(CREW),
            "landing": list(LANDING),
        },
        data["csrf"],
    ).json()
    api = httpx.post(
        f"{service.base_url}/api/Planner/InflightRest",
        json={
            "RosterData": text,
            "SleepData": records,
            "Duty": "2026-03-29T20:00:00Z",
            "References": list(CREW),
            "Landing": list(LANDING),
        },
        headers={"Authorization": f"Bearer {api_token(service)}"},
    ).json()
    assert plan["plan"]["proposal"] == {
        **api["proposal"],
        "breaks": [
            {**b, "row": p["row"], "columns": p["columns"]}
            for b, p in zip(
                api["proposal"]["breaks"], plan["plan"]["proposal"]["breaks"], strict=True
            )
        ],
    }


def test_the_page_parses_only_its_schedule_and_the_crew_of_its_augmented_duty(
    service: LiveService, alice: httpx.Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The page hands the parser its schedule's rows, then those of the schedules the
    stored scores have on duty at the augmented duty's exact times: never the roster."""
    from vigil.scoring.context import ScoringContext
    from vigil.web.console.whatif_draft import references_of

    off = ON + timedelta(hours=14.5)
    same_times = (  # on duty at the long haul's times, to another airport: not its crew
        f"XS,{ON:%d/%m/%Y},{ON:%H:%M},LHR,{off:%d/%m/%Y},{off:%H:%M},HKG,LHR,0,4,1,1"
    )
    others = [
        f"X{k:03d},{(ON - timedelta(days=d)):%d/%m/%Y},06:00,LHR,"
        f"{(ON - timedelta(days=d)):%d/%m/%Y},12:00,MAN,LHR,0,2,0,1"
        for k in range(40)
        for d in (3, 4, 5)
    ]
    text = "\r\n".join([crew_roster(10), same_times, *others])
    token = processed_upload(service, "acme", "crowded", text)
    handed: list[frozenset[str]] = []
    parse = ScoringContext.parse

    def counting_parse(self: ScoringContext, roster_text: str, *args: Any, **kw: Any) -> Any:
        handed.append(references_of(roster_text))
        return parse(self, roster_text, *args, **kw)

    monkeypatch.setattr(ScoringContext, "parse", counting_parse)
    data = page_data(alice, token)
    assert handed[0] == {"CB"}  # the page's own schedule, alone
    assert frozenset().union(*handed) == {*CREW, "XS"}  # then the candidates by times
    assert [v["crew"] for v in data["crew"].values()] == [list(CREW), list(CREW)]
