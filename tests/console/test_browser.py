"""The console in headless Chromium, driven by Playwright.

Uses Debian's ``/usr/bin/chromium`` (installed by ``scripts/install-browser``; Playwright's
own browser downloads are never used). Skips, saying so, only when that binary is absent.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from conftest import LiveService

from .conftest import PASSWORD, ROSTER, create_user

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason="/usr/bin/chromium is missing; run scripts/install-browser (Debian chromium)",
)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


def new_page(browser: Any, service: LiveService) -> Any:
    context = browser.new_context(
        base_url=service.base_url, viewport={"width": 1200, "height": 900}
    )
    context.set_default_timeout(20_000)
    page = context.new_page()
    page.on("dialog", lambda dialog: dialog.accept())
    return page


def sign_in(page: Any, username: str) -> None:
    page.goto("/console/")
    assert page.url.endswith("/console/login?next=/console/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", PASSWORD)
    page.click("button:text('Sign in')")
    # home: the newest scored roster's dashboard, or the connection overview without one
    page.wait_for_url(lambda url: "/console/login" not in url)
    assert username in page.inner_text("[data-testid=who]")


def hover_first_point(page: Any) -> str:
    """Move the mouse onto the first score point inside the plot (a chart opened on a
    duty shows a window of the roster: earlier points are drawn left of it, clipped);
    the tooltip's text."""
    box = page.locator(".chart svg").bounding_box()
    paths = page.locator(".chart path.score-line").evaluate_all(
        "ps => ps.map(p => p.getAttribute('d'))"
    )
    x, y = next(
        (float(a), float(b))
        for d in paths
        for a, b in re.findall(r"[ML](-?[\d.]+),(-?[\d.]+)", d)
        if 50
        <= float(a)
        <= box["width"] - 66  # the plot: 48 px in from the left, 64 from the right
    )
    page.mouse.move(box["x"] + x, box["y"] + y)
    tip = page.locator(".chart-tip")
    tip.wait_for(state="visible")
    return str(tip.inner_text())


def test_operator_round_trip(browser: Any, service: LiveService) -> None:
    create_user(service, "acme", "alice")
    page = new_page(browser, service)
    sign_in(page, "alice")

    # API client: create with scopes, then show its secret again
    page.click("nav >> text=API clients")
    page.fill("input[name=name]", "planning system")
    page.uncheck("input[name=scope][value=risk]")
    page.click("button:text('Create client')")
    client_id = page.inner_text("[data-testid=shown-client-id]")
    secret = page.inner_text("[data-testid=shown-secret]")
    page.goto("/console/clients")
    assert page.locator("[data-testid=secret-box]").count() == 0
    page.click(f"tr[data-client-id='{client_id}'] [data-action=reveal]")
    assert page.inner_text("[data-testid=shown-secret]") == secret
    auth = (client_id, secret)
    token = httpx.post(
        f"{service.base_url}/connect/token", auth=auth, data={"grant_type": "client_credentials"}
    )
    assert token.json()["scope"] == "svc_fast_safe_api svc_safe_upload_api"

    # roster: upload a file, watch the status change without reloading
    page.click("nav >> text=Rosters")
    page.set_input_files(
        "[data-testid=roster-file]",
        files=[{"name": "march.csv", "mimeType": "text/csv", "buffer": ROSTER.encode()}],
    )
    page.select_option("select[name=scale]", "KSS")
    page.click("button:text('Upload')")
    page.wait_for_url("**/console/rosters")
    row = page.locator("tr[data-name=march]")
    row.locator("[data-status=completedsuccessfully]").wait_for(timeout=90_000)
    assert row.locator("[data-status]").inner_text() == "completed"
    roster_token = row.get_attribute("data-token")

    # chart of P1: as many points as the API's intervals
    row.locator("a >> nth=0").click()
    page.click("tr[data-schedule=P1] [data-action=chart]")
    chart = page.locator(".chart[data-points]")
    chart.wait_for()
    scores = httpx.get(
        f"{service.base_url}/api/GetResults",
        params={"rosterToken": roster_token, "dataKey": "scores"},
        auth=auth,
    ).json()
    p1 = next(s for s in scores["scheduleScores"] if s["schedule"] == "P1")
    expected = sum(d["intervalCount"] for d in p1["duties"])
    assert expected == len(p1["fatigueScores"]) > 0
    assert int(chart.get_attribute("data-points")) == expected
    assert int(chart.get_attribute("data-duties")) == len(p1["duties"]) == 3
    assert int(chart.get_attribute("data-sleeps")) > 0
    assert page.locator(".chart rect.duty-band").count() == 3
    assert page.locator(".chart line.warn-line").count() == 1  # KSS 7
    tip = hover_first_point(page)
    assert f"KSS {p1['fatigueScores'][0]:g}" in tip and "UTC" in tip
    assert p1["duties"][0]["onDuty"][:10] in tip

    # another scale, same points
    page.select_option("select[name=scale]", "VD")
    page.click("button:text('Show')")
    page.wait_for_url("**scale=VD**")
    assert int(page.get_attribute(".chart", "data-points")) == expected
    assert page.locator(".chart line.warn-line").count() == 1  # VD 27.1: KSS 7 mapped

    # delete: gone from the list and from the API
    page.goto(f"/console/rosters/{roster_token}")
    page.click("[data-action=delete]")
    page.wait_for_url("**/console/rosters")
    assert page.locator("p.notice").inner_text() == "Roster march deleted."
    assert page.locator("tr[data-name=march]").count() == 0
    gone = httpx.get(
        f"{service.base_url}/api/GetResults",
        params={"rosterToken": roster_token, "dataKey": "status"},
        auth=auth,
    )
    assert gone.status_code == 404


def test_feedback_shown_against_rows(browser: Any, service: LiveService) -> None:
    from .conftest import ROSTER_WITH_ERRORS

    create_user(service, "acme", "alice")
    page = new_page(browser, service)
    sign_in(page, "alice")
    page.goto("/console/rosters")
    page.set_input_files(
        "[data-testid=roster-file]",
        files=[{"name": "bad.csv", "mimeType": "text/csv", "buffer": ROSTER_WITH_ERRORS.encode()}],
    )
    page.click("button:text('Upload')")
    row = page.locator("tr[data-name=bad]")
    row.locator("[data-status=completedwitherrors]").wait_for(timeout=90_000)
    row.locator("a >> nth=0").click()
    feedback = page.locator("[data-testid=feedback]")
    assert feedback.locator("tr[data-row='3'] code").inner_text().startswith("P4,")
    assert "XYZ" in feedback.locator("tr[data-row='3'] .msg").inner_text()
    assert "P5" in feedback.locator("tr[data-row='4']").inner_text()
    assert feedback.locator("tr[data-row='2']").count() == 0
    assert page.locator("[data-testid=schedules] tr[data-schedule=P3]").count() == 1


def test_try_it_draws_every_interval(browser: Any, service: LiveService) -> None:
    create_user(service, "acme", "alice")
    page = new_page(browser, service)
    sign_in(page, "alice")
    page.click("nav >> text=Try it")
    page.fill("[data-testid=roster-text]", ROSTER)
    page.select_option("select[name=scale]", "PMR")
    page.click("button:text('Score')")
    chart = page.locator("[data-panel='0'] .chart[data-points]")
    chart.wait_for()
    from vigil.scoring.service import ScoreRequest, score

    envelope = score(ScoreRequest(ROSTER, scale="PMR")).to_envelope()
    counts = [len(s["fatigueScores"]) for s in envelope["scheduleScores"]]
    assert int(chart.get_attribute("data-points")) == counts[0]
    page.select_option("[data-switch-schedule]", "1")
    second = page.locator("[data-panel='1'] .chart")
    second.wait_for(state="visible")
    assert int(second.get_attribute("data-points")) == counts[1]


#: a night run and a four-sector early, whose duty table explains each risk
EXPLAIN_ROSTER = "\r\n".join(
    [
        "Reference,OnDutyDate,OnDutyTime,StartAirport,OffDutyDate,OffDutyTime,EndAirport,"
        "Sectors,HomeBase,TimeReference",
        *(f"N1,{9 + k:02d}/03/2026,22:00,ACC,{10 + k:02d}/03/2026,06:00,ACC,2,ACC,0"
          for k in range(4)),
        "N1,15/03/2026,05:00,ACC,15/03/2026,16:30,ACC,4,ACC,0",
    ]
)  # fmt: skip


def test_try_it_explains_each_duty(browser: Any, service: LiveService) -> None:
    """Each duty's risk says what drives it, in words; VIGIL_SCREENSHOTS=DIR
    also saves the duty table as DIR/console-risk-why.png (docs/img)."""
    import os

    create_user(service, "acme", "alice")
    page = new_page(browser, service)
    sign_in(page, "alice")
    page.click("nav >> text=Try it")
    page.fill("[data-testid=roster-text]", EXPLAIN_ROSTER)
    page.click("button:text('Score')")
    page.locator("[data-panel='0'] .chart[data-points]").wait_for()
    why = page.locator("[data-panel='0'] [data-testid=risk-why]")
    texts = [why.nth(i).inner_text() for i in range(why.count())]
    assert len(texts) == 5
    assert texts[0].startswith("night") and texts[3].startswith("fourth consecutive night")
    assert "four landings" in texts[4] and "early start" in texts[4]
    folder = os.environ.get("VIGIL_SCREENSHOTS")
    if folder:
        table = page.locator("[data-panel='0'] table.duties")
        table.screenshot(path=str(Path(folder) / "console-risk-why.png"))
        page.locator("[data-panel='0']").screenshot(
            path=str(Path(folder) / "console-risk-why-chart.png")
        )


def test_second_operator_cannot_reach_the_first(browser: Any, service: LiveService) -> None:
    from vigil.store import uploads

    create_user(service, "acme", "alice")
    create_user(service, "globex", "bob")
    client_id, _ = service.create_client(operator="acme")
    with service.runtime.sessions.begin() as session:
        token = uploads.create_upload(
            session=session, operator="acme", roster_name="acme-march", roster_text=ROSTER
        ).token
    page = new_page(browser, service)
    sign_in(page, "bob")
    for path in (f"/console/rosters/{token}", f"/console/rosters/{token}/chart?schedule=P1"):
        response = page.goto(path)
        assert response.status == 404
        assert "Not found" in page.inner_text("h1")
    page.goto("/console/rosters")
    assert page.locator("tr[data-name=acme-march]").count() == 0
    page.goto("/console/clients")
    assert client_id not in page.content()
