"""The duty explorer over HTTP: every duty, filters, the CSV of the view, the duty link
to the centred chart, bad parameters and operators kept apart."""

from __future__ import annotations

import csv
import io
import json
import re
import time
from typing import Any

import httpx

from conftest import LiveService

from .conftest import ROSTER
from .test_fleet_pages import api_client, upload_and_wait


def risk_response(service: LiveService) -> dict[str, Any]:
    """ProcessFatigueRisk with ``explainRisk=true`` on the same roster: the API's words."""
    client_id, secret = service.create_client(operator="acme", scopes="risk")
    token = httpx.post(
        f"{service.base_url}/connect/token",
        data={"grant_type": "client_credentials", "scope": "svc_fast_safe_risk_api"},
        auth=(client_id, secret),
    ).json()["access_token"]
    answer = httpx.post(
        f"{service.base_url}/api/Processor/ProcessFatigueRisk",
        params={"explainRisk": "true"},
        json={"RosterData": ROSTER, "SleepData": [], "DateFormat": "dmy", "PreferredScale": "KSS"},
        headers={"Authorization": f"Bearer {token}"},
        timeout=120,
    )
    assert answer.status_code == 200, answer.text
    return dict(answer.json())


def rows_of(html: str) -> list[tuple[str, int]]:
    return [
        (ref, int(duty))
        for ref, duty in re.findall(r'<tr data-schedule="([^"]+)" data-duty="(\d+)"', html)
    ]


def test_explorer_lists_filters_and_exports_the_view(
    service: LiveService, alice: httpx.Client
) -> None:
    token = upload_and_wait(alice, ROSTER, "march")
    with api_client(service, "acme") as api:
        scores = api.get(
            "/api/GetResults", params={"rosterToken": token, "dataKey": "scores"}
        ).json()
    explained = risk_response(service)
    risks = sorted(
        (
            (r, s["schedule"], j + 1)
            for s in scores["scheduleScores"]
            for j, r in enumerate(s["riskScores"])
        ),
        key=lambda x: (-x[0], x[1]),
    )
    page = alice.get(f"/console/rosters/{token}/duties")
    assert page.status_code == 200, page.text
    # every duty, riskiest first
    assert rows_of(page.text) == [(ref, duty) for _, ref, duty in risks]
    assert 'data-matched="4"' in page.text
    # each row says what drives its risk, in the API's own words
    words = {
        (s["schedule"], j + 1): d["riskReasons"]
        for s in explained["scheduleScores"]
        for j, d in enumerate(s["duties"])
    }
    assert any(words.values()), "some duty of the roster has a reason"
    parts = {
        (s["schedule"], j + 1): d["riskComponents"]
        for s in explained["scheduleScores"]
        for j, d in enumerate(s["duties"])
    }
    cells = re.findall(r'data-testid="risk-reasons" title="([^"]*)">([^<]*)<', page.text)
    for (ref, duty), (title, cell) in zip(rows_of(page.text), cells, strict=True):
        assert cell == ", ".join(words[(ref, duty)]) or "nothing beyond a standard duty"
        # the components behind it, as the API gives them
        assert f"sleepiness ×{parts[(ref, duty)]['sleepiness']} " in title
        assert f"consecutive ×{parts[(ref, duty)]['consecutive']} " in title
    # filters: home base MAN is P2 alone; the P1 night duty by time of day
    man = alice.get(f"/console/rosters/{token}/duties", params={"base": "MAN"})
    assert rows_of(man.text) == [("P2", 1)]
    night = alice.get(f"/console/rosters/{token}/duties", params={"kind": "night", "q": "lhr"})
    assert all(ref == "P1" for ref, _ in rows_of(night.text)) and rows_of(night.text)
    # the CSV of a view is exactly that view, in its order
    params = {"q": "P1", "sort": "report", "order": "asc", "size": "1"}
    view = alice.get(f"/console/rosters/{token}/duties", params=params)
    assert 'data-matched="3"' in view.text and len(rows_of(view.text)) == 1  # one per page
    exported = alice.get(f"/console/rosters/{token}/duties.csv", params=params)
    assert exported.status_code == 200
    assert exported.headers["content-type"].startswith("text/csv")
    assert exported.headers["x-vigil-duties"] == "3"  # the progress bar's count, sent first
    table = list(csv.reader(io.StringIO(exported.text)))
    assert [(r[0], int(r[1])) for r in table[1:]] == [("P1", 1), ("P1", 2), ("P1", 3)]
    # the dashboard links here: "all duties" and each band's count
    dashboard = alice.get(f"/console/rosters/{token}").text
    assert f"/console/rosters/{token}/duties" in dashboard
    assert f"/console/rosters/{token}/duties?band=very-high" in dashboard


def test_duty_link_opens_the_chart_centred_on_the_duty(alice: httpx.Client) -> None:
    token = upload_and_wait(alice, ROSTER, "march")
    page = alice.get(
        f"/console/rosters/{token}/duties", params={"q": "P1", "sort": "report", "order": "asc"}
    )
    links = re.findall(r'<a href="([^"]+)" data-action="open-duty">', page.text)
    assert len(links) == 3
    chart = alice.get(links[2].replace("&amp;", "&"))
    assert chart.status_code == 200
    payload = json.loads(re.search(r'id="chart-data-0">(.*?)</script>', chart.text, re.S).group(1))
    assert payload["anchor"] == 3
    assert re.search(r'<tr data-duty="3" id="duty-3" class="anchored" data-anchored>', chart.text)
    # a duty number that is not the schedule's is ignored, not an error
    plain = alice.get(f"/console/rosters/{token}/chart", params={"schedule": "P1", "duty": "99"})
    assert plain.status_code == 200 and "anchored" not in plain.text.split("duty-table")[1]


def test_bad_filters_are_a_clear_400_page(alice: httpx.Client) -> None:
    token = upload_and_wait(alice, ROSTER, "march")
    for params, name in (
        ({"band": "purple"}, "band"),
        ({"from": "2026-02-30"}, "from"),
        ({"page": "abc"}, "page"),
        ({"sort": "'; drop table"}, "sort"),
    ):
        for path in ("duties", "duties.csv"):
            answer = alice.get(f"/console/rosters/{token}/{path}", params=params)
            assert answer.status_code == 400, (params, answer.text[:200])
            assert f'data-parameter="{name}"' in answer.text
            assert "Cannot filter by" in answer.text


def test_operators_never_see_each_others_duties(alice: httpx.Client, bob: httpx.Client) -> None:
    token = upload_and_wait(alice, ROSTER, "march")
    assert alice.get(f"/console/rosters/{token}/duties").status_code == 200
    for path in ("duties", "duties.csv", "duties?band=high"):
        answer = bob.get(f"/console/rosters/{token}/{path}")
        assert answer.status_code == 404
        assert "P1" not in answer.text


def test_the_dashboard_builds_the_explorer_columns_in_the_background(
    service: LiveService, alice: httpx.Client
) -> None:
    from vigil.web.console.explorer_cache import column_cache

    token = upload_and_wait(alice, ROSTER, "march")
    cache = column_cache(service.runtime)
    assert len(cache) == 0
    assert alice.get(f"/console/rosters/{token}").status_code == 200
    deadline = time.monotonic() + 60
    while not len(cache) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert len(cache) == 1  # built without opening the explorer
    assert alice.get(f"/console/rosters/{token}/duties").status_code == 200
    assert len(cache) == 1  # the page used it: no second build


def test_column_cache_is_bounded_per_operator_and_replaces_an_overwritten_roster() -> None:
    from vigil.web.console.explorer_cache import ColumnCache

    cache = ColumnCache(limit=3, per_operator=2)
    value: Any = object()
    cache.put((1, 10, "t0", "KSS"), value)
    cache.put((1, 10, "t1", "KSS"), value)  # the same roster, overwritten
    assert cache.get((1, 10, "t0", "KSS")) is None and len(cache) == 1
    cache.put((1, 11, "t0", "KSS"), value)
    cache.put((1, 12, "t0", "KSS"), value)  # operator 1's third roster: its oldest goes
    assert cache.get((1, 10, "t1", "KSS")) is None and len(cache) == 2
    cache.put((2, 20, "t0", "KSS"), value)
    cache.get((1, 11, "t0", "KSS"))  # recently used
    cache.put((3, 30, "t0", "KSS"), value)  # over the limit: the least recently used goes
    assert cache.get((1, 12, "t0", "KSS")) is None
    assert all(cache.get(k) is value for k in ((1, 11, "t0", "KSS"), (2, 20, "t0", "KSS")))
    # a build in progress is claimed once
    event = cache.claim((4, 40, "t0", "KSS"))
    assert event is not None and cache.claim((4, 40, "t0", "KSS")) is None
    cache.release((4, 40, "t0", "KSS"))
    assert event.is_set()


def test_a_roster_stored_without_packed_tables_shows_the_same_pages(
    service: LiveService, alice: httpx.Client
) -> None:
    """The worker packs each roster's duty tables; a roster stored before (no packed
    tables) builds them from its scores on first view, and shows exactly the same."""
    from sqlalchemy import delete

    from vigil.store.tables import RosterTable

    token = upload_and_wait(alice, ROSTER, "march")
    paths = ("duties", "duties?sort=report&order=asc&time=home", "duties.csv", "trips.json")
    state = service.runtime.state

    def views() -> list[str]:
        state.duty_explorer = state.roster_views = None  # a restarted server
        out = []
        for path in paths:
            answer = alice.get(f"/console/rosters/{token}/{path}")
            assert answer.status_code == 200, (path, answer.text[:200])
            out.append(answer.text)
        return out

    from_packed = views()
    with service.runtime.sessions.begin() as session:
        assert session.execute(delete(RosterTable)).rowcount == 1  # type: ignore[attr-defined]
    assert views() == from_packed
