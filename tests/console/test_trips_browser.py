"""Trips, hot spots and months compared in headless Chromium, driven by Playwright.

Two generated airline months of the same crew (February, and March with the earlier,
looser rules: some duties longer) go through the upload form; the officer opens the trips
page from the dashboard, follows a trip to its chart, then compares the months with the
two pickers and downloads the CSV, which is checked against the JSON of the same
comparison. ``VIGIL_SCREENSHOTS=DIR`` also saves ``console-trips.png`` and
``console-compare.png`` there (docs/img).
"""

from __future__ import annotations

import csv
import io
import os
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from conftest import LiveService

from .conftest import create_user
from .test_browser import CHROMIUM, browser, new_page, sign_in  # noqa: F401 - fixture
from .test_fleet_browser import download, upload_through_form

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason="/usr/bin/chromium is missing; run scripts/install-browser (Debian chromium)",
)

CREW, DAYS = 60, 21


def month(first_day: date, *, legal: bool) -> bytes:
    from vigil.roster.synthetic import generate_airline_duties, render_roster

    duties = generate_airline_duties(CREW, DAYS, 16, first_day=first_day, legal=legal)
    return render_roster(duties).encode()


def scored_token(page: Any, name: str) -> str:
    row = page.locator(f"tr[data-name={name}]")
    row.locator("[data-status^=completed]").wait_for(timeout=600_000)
    token = row.get_attribute("data-token")
    assert token
    return token


def clipped(page: Any, selector: str, path: Path, height: int) -> None:
    """The top ``height`` CSS pixels of ``selector``, as PNG (small enough for docs/img)."""
    box = page.locator(selector).bounding_box()
    clip = {**box, "height": min(box["height"], height)}
    page.screenshot(path=str(path), clip=clip, full_page=True)


def test_officer_reads_trips_and_compares_two_months(
    browser: Any,  # noqa: F811 - the fixture
    service: LiveService,
) -> None:
    create_user(service, "acme", "alice")
    page = new_page(browser, service)
    sign_in(page, "alice")
    upload_through_form(page, "february", month(date(2026, 2, 1), legal=True))
    a = scored_token(page, "february")
    upload_through_form(page, "march", month(date(2026, 3, 1), legal=False))
    b = scored_token(page, "march")
    shots = os.environ.get("VIGIL_SCREENSHOTS")

    # the dashboard links to the trips page; trips come most hazardous first
    page.goto(f"/console/rosters/{b}")
    page.click("[data-testid=trips-link]")
    rows = page.locator("[data-testid=trips] tbody tr")
    rows.first.wait_for()
    keys = [
        (
            -int(rows.nth(i).get_attribute("data-upper")),
            -float(rows.nth(i).get_attribute("data-max-risk")),
        )
        for i in range(rows.count())
    ]
    assert keys == sorted(keys)
    body = page.request.get(f"/console/rosters/{b}/trips.json").json()
    assert int(page.locator("[data-figure=trips]").inner_text().replace(",", "")) == len(
        body["trips"]["rows"]
    ) + (body["trips"]["matched"] - len(body["trips"]["rows"]))
    assert page.locator("[data-testid=hot-pattern] tbody tr").count() > 0
    if shots:
        clipped(page, "main", Path(shots) / "console-trips.png", 1100)
        clipped(page, "#hot-spots", Path(shots) / "console-trip-hot-spots.png", 900)
    # a trip opens its crew member's chart at the worst duty
    first = rows.first
    reference = first.get_attribute("data-schedule")
    first.locator("a").first.click()
    page.locator(".chart[data-points]").wait_for()
    assert f"schedule={reference}".replace(",", "%2C") in page.url or reference in page.url
    assert "#duty-" in page.url

    # months compared: the two pickers, the result, the CSV
    page.click("nav >> text=Compare")
    page.select_option("[data-testid=pick-a]", a)
    page.select_option("[data-testid=pick-b]", b)
    page.click("button:text('Compare')")
    page.locator("[data-testid=compare-bands]").wait_for()
    found = page.request.get("/console/compare.json", params={"a": a, "b": b}).json()
    shares = page.locator("[data-testid=compare-bands] tbody tr").evaluate_all(
        "rows => rows.map(r => [r.dataset.shareA, r.dataset.shareB])"
    )
    assert [[float(x), float(y)] for x, y in shares] == [
        [band["shareA"], band["shareB"]] for band in found["bands"]
    ]
    matched = int(page.locator("[data-testid=pairing-counts]").get_attribute("data-matched"))
    assert matched == found["pairings"]["matched"] > 0
    if shots:
        clipped(page, "main", Path(shots) / "console-compare.png", 1500)
    lines = list(csv.reader(io.StringIO(download(page, "compare-csv").decode("utf-8"))))
    pairing_rows = [x for x in lines if x[0] == "pairing duty"]
    assert len(pairing_rows) == matched
    first_rise = found["pairings"]["rows"][0]
    assert pairing_rows[0][1] == first_rise["key"]
    assert float(pairing_rows[0][6]) == pytest.approx(first_rise["meanChange"])
