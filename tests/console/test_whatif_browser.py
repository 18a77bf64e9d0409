"""What-if in headless Chromium: plan the rest of a long-haul duty
and see it drawn, drag a sleep with the mouse and see the scores change, download the draft
files and check that they score as drawn.

Debian's ``/usr/bin/chromium`` driven by Playwright, like ``test_browser.py``.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

from conftest import LiveService
from vigil.planner import PlanRequest, plan_rest

from .conftest import create_user
from .test_browser import CHROMIUM, browser, new_page, sign_in
from .test_whatif_api import CREW, LANDING, ON, api_token, crew_roster, processed_upload

__all__ = ["browser"]  # the module-scoped Chromium fixture, shared with test_browser

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason="/usr/bin/chromium is missing; run scripts/install-browser (Debian chromium)",
)


def seq(page: Any) -> int:
    return int(page.get_attribute("[data-whatif]", "data-seq"))


def wait_seq(page: Any, above: int) -> int:
    """Wait until the page has drawn the next re-score (its data-seq passes ``above``)."""
    page.locator(f"[data-whatif][data-seq='{above + 1}']").wait_for(state="attached")
    return seq(page)


def test_plan_rest_drag_a_sleep_and_download_the_draft(
    browser: Any, service: LiveService, tmp_path: Path
) -> None:
    create_user(service, "acme", "alice")
    token = processed_upload(service, "acme", "longhaul", crew_roster())
    page = new_page(browser, service)
    sign_in(page, "alice")
    page.goto(f"/console/rosters/{token}/chart?schedule=CB")
    page.click("[data-action=whatif]")
    page.wait_for_url("**/whatif?schedule=CB**")
    n = wait_seq(page, 0)
    summary = page.locator("[data-testid=summary]")
    assert summary.get_attribute("data-changed") == "0"  # the unedited draft is the upload
    assert "sleep predicted by the service" in summary.inner_text()

    # plan the rest of the long haul: the planner's own answer, drawn over the current split
    long_haul = page.locator("[data-testid=duties] tbody tr").filter(
        has=page.locator(f"input[value='{ON:%Y-%m-%d %H:%M}']")
    )
    long_haul.locator("[data-action=open-plan]").click()
    crew = page.locator("[data-testid=plan] input[name=crew]:checked")
    assert sorted(crew.evaluate_all("els => els.map(e => e.value)")) == sorted(CREW)
    page.click("[data-action=plan]")
    line = page.locator("[data-testid=plan-summary]")
    line.wait_for()
    plan = plan_rest(PlanRequest(crew_roster(), ON, CREW, LANDING))
    assert line.inner_text() == plan.summary
    assert line.inner_text().startswith("Landing pilots CA and FO take break")
    mine = next(b for b in plan.proposal.breaks if b.reference == "CB")
    assert page.inner_text("[data-testid=plan-mine]").startswith(
        f"CB takes break {mine.number}, {mine.start:%H:%M}\u2013{mine.end:%H:%M}Z"
    )
    overlay = page.locator("[data-testid=plan-overlay]")
    assert overlay.locator("rect.plan-break").count() == 4
    assert overlay.locator("rect.now-break").count() == 4  # one break each, SleepOrder 1 or 2
    assert page.locator(".whatif-chart path.score-preview").count() == 1
    assert page.locator(".whatif-chart rect.rest-plan").count() == 1

    # apply it to the draft: CB's rest columns now hold the planned break
    page.click("[data-action=plan-apply]")
    n = wait_seq(page, n)
    assert (
        long_haul.locator("[data-field=rest0-start]").input_value()
        == f"{mine.start:%Y-%m-%d %H:%M}"
    )
    assert page.locator(".whatif-chart path.score-preview").count() == 0
    planned_changed = int(summary.get_attribute("data-changed"))
    assert planned_changed > 0

    # drag the main sleep before the long haul two hours later, with the mouse
    bars = page.locator(".whatif-chart rect.sleep-draft")
    titles = bars.evaluate_all("els => els.map(e => e.querySelector('title').textContent)")
    before = [
        i for i, t in enumerate(titles) if t.split(" sleep ")[1][:16] < f"{ON:%Y-%m-%d %H:%M}"
    ]

    def hours(title: str) -> float:
        start, end = title.split(" sleep ")[1].split(" UTC")[0].split(" \u2013 ")
        span = datetime.fromisoformat(end) - datetime.fromisoformat(start)
        return span.total_seconds() / 3600

    index = [i for i in before if hours(titles[i]) >= 4][-1]  # the main sleep before it
    target = bars.nth(index)
    target.scroll_into_view_if_needed()
    box = target.bounding_box()
    assert box is not None and box["width"] > 30  # the 3-day window after planning
    svg_width = page.locator(".whatif-chart svg").bounding_box()["width"]
    ms_per_px = 72 * 3600_000 / (svg_width - 56 - 64)
    dx = round(2 * 3600_000 / ms_per_px)
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(x, y)
    page.mouse.down()
    for k in range(1, 11):
        page.mouse.move(x + dx * k / 10, y)
    assert "sleep " in page.text_content(".whatif-chart .drag-tip")
    page.mouse.up()
    n = wait_seq(page, n)
    assert "sleep given" in summary.inner_text()
    assert int(summary.get_attribute("data-changed")) != planned_changed
    draft_peak = float(summary.get_attribute("data-draft-peak"))

    # download the draft files; submitted as they are, they give the drawn scores
    with page.expect_download() as roster_download:
        page.click("[data-action=download-roster]")
    with page.expect_download() as sleep_download:
        page.click("[data-action=download-sleep]")
    roster_path = tmp_path / "draft.csv"
    sleep_path = tmp_path / "sleep.json"
    roster_download.value.save_as(roster_path)
    sleep_download.value.save_as(sleep_path)
    assert roster_download.value.suggested_filename == "longhaul-CB-draft.csv"
    roster_text = roster_path.read_text()
    records = json.loads(sleep_path.read_text())
    rows = roster_text.splitlines()
    assert rows[0].startswith("Reference,OnDutyDate,OnDutyTime,StartAirport")
    assert all(r.startswith("CB,") for r in rows[1:])
    planned_row = next(r for r in rows if r.startswith(f"CB,{ON:%d/%m/%Y},{ON:%H:%M}"))
    assert (
        f"{mine.start:%d/%m/%Y},{mine.start:%H:%M},{mine.end:%d/%m/%Y},{mine.end:%H:%M}"
        in planned_row
    )
    assert {r["ScheduleName"] for r in records} == {"CB"}
    # one record moved by the drag, about 2 h later (5-min steps, clamped by its neighbours)
    drawn = [t.split(" sleep ")[1][:16] for t in titles]  # the draft's sleeps before the drag
    moved = [r for r in records if r["SleepStart"][:16].replace("T", " ") not in drawn]
    assert len(moved) == 1 and len(records) == len(titles)
    new = datetime.fromisoformat(moved[0]["SleepStart"])
    old = datetime.strptime(titles[index].split(" sleep ")[1][:16], "%Y-%m-%d %H:%M")
    assert abs((new.replace(tzinfo=None) - old).total_seconds() - 7200) <= 600
    answer = httpx.post(
        f"{service.base_url}/api/Processor/ProcessFatigue",
        json={
            "RosterData": roster_text,
            "SleepData": records,
            "DateFormat": "dmy",
            "PreferredScale": "KSS",
        },
        headers={"Authorization": f"Bearer {api_token(service)}"},
    )
    assert answer.status_code == 200, answer.text
    (entry,) = answer.json()["scheduleScores"]
    assert max(entry["fatigueScores"]) == pytest.approx(draft_peak, abs=1e-9)
    changed = sum(
        1
        for a, b in zip(
            entry["fatigueScores"],
            json.loads(page.inner_text("#whatif-data"))["stored"]["v"],
            strict=True,
        )
        if abs(a - b) > 0.0005
    )
    assert changed == int(summary.get_attribute("data-changed"))

    # undo brings back the planned draft
    page.click("[data-action=undo]")
    wait_seq(page, n)
    assert int(summary.get_attribute("data-changed")) == planned_changed
    n = seq(page)

    # the keyboard equivalent: a focused sleep bar moves 15 min per arrow key, Delete removes it
    count = bars.count()
    bars.nth(index).focus()
    page.keyboard.press("ArrowLeft")
    n = wait_seq(page, n)
    assert "sleep given" in summary.inner_text()
    page.locator(".whatif-chart rect.sleep-draft.selected").wait_for(state="attached")
    page.keyboard.press("Delete")
    n = wait_seq(page, n)
    assert page.locator(".whatif-chart rect.sleep-draft").count() == count - 1

    # a duty's times: the long haul one hour longer has four more intervals
    off = long_haul.locator("[data-field=off]")
    later = datetime.strptime(off.input_value(), "%Y-%m-%d %H:%M") + timedelta(hours=1)
    off.fill(f"{later:%Y-%m-%d %H:%M}")
    off.press("Enter")
    n = wait_seq(page, n)
    draft_intervals = int(summary.inner_text().split(" of ")[1].split()[0])
    assert draft_intervals == len(json.loads(page.inner_text("#whatif-data"))["stored"]["v"]) + 4
    # a typo is refused on the page, not sent
    off.fill("tomorrow")
    off.press("Enter")
    assert "Duty " in page.inner_text("[data-testid=draft-errors]")
    assert seq(page) == n

    # add a sleep: up to 8 h in the first free time at the middle of the view
    page.click("[data-action=add-sleep]")
    n = wait_seq(page, n)
    assert page.locator(".whatif-chart rect.sleep-draft").count() == count
    start = page.input_value("[data-field=sleep-start]")
    end = page.input_value("[data-field=sleep-end]")
    hours = (datetime.fromisoformat(end) - datetime.fromisoformat(start)).total_seconds() / 3600
    assert 0.5 <= hours <= 8


def test_a_moved_duty_takes_its_rests_and_an_impossible_rest_is_refused_at_its_field(
    browser: Any, service: LiveService
) -> None:
    create_user(service, "acme", "alice")
    token = processed_upload(service, "acme", "longhaul", crew_roster())
    page = new_page(browser, service)
    sign_in(page, "alice")
    page.goto(f"/console/rosters/{token}/whatif?schedule=CB")
    n = wait_seq(page, 0)
    row = page.locator("[data-testid=duties] tbody tr").filter(
        has=page.locator(f"input[value='{ON:%Y-%m-%d %H:%M}']")
    )
    assert row.locator("[data-field=route]").inner_text() == "LHR–SIN"
    stamp = "%Y-%m-%d %H:%M"
    # give the long haul a rest inside its flight, then move the duty 2 h later
    rest = (ON + timedelta(hours=3), ON + timedelta(hours=6))
    row.locator("[data-field=rest0-start]").fill(f"{rest[0]:{stamp}}")
    row.locator("[data-field=rest0-end]").fill(f"{rest[1]:{stamp}}")
    row.locator("[data-field=rest0-end]").press("Enter")
    n = wait_seq(page, n)
    off = datetime.strptime(row.locator("[data-field=off]").input_value(), stamp)
    row.locator("[data-field=on]").fill(f"{ON + timedelta(hours=2):{stamp}}")
    row.locator("[data-field=on]").press("Enter")
    n = wait_seq(page, n)
    moved = page.locator("[data-testid=duties] tbody tr").filter(
        has=page.locator(f"input[value='{ON + timedelta(hours=2):{stamp}}']")
    )
    assert moved.locator("[data-field=off]").input_value() == f"{off + timedelta(hours=2):{stamp}}"
    assert (
        moved.locator("[data-field=rest0-start]").input_value()
        == f"{rest[0] + timedelta(hours=2):{stamp}}"
    )
    # a rest starting 10 minutes after report, before take-off: not applied, said at the field
    start = moved.locator("[data-field=rest0-start]")
    start.fill(f"{ON + timedelta(hours=2, minutes=10):{stamp}}")
    start.press("Enter")
    note = page.locator("[data-testid=field-error]")
    note.wait_for()
    assert "outside the flight" in note.inner_text()
    assert "take-off" in note.inner_text()
    assert start.input_value() == f"{rest[0] + timedelta(hours=2):{stamp}}"  # undone
    assert "Not applied" in page.inner_text("[data-testid=draft-errors]")
