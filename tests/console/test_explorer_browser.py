"""The duty explorer in headless Chromium, driven by Playwright: from the dashboard to
every duty, filtered to night duties at one home base, each duty's risk explained, and a
duty's link to its chart centred on that duty. ``VIGIL_SCREENSHOTS=docs/img`` also saves
the screenshots of the per-duty risk explanation that docs/console.md shows
(``console-duty-explorer*.png``); otherwise they go to the test's temporary folder, so a
test run never changes the repository. The view's CSV downloads through the export
progress bar.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest

from conftest import LiveService

from .conftest import create_user
from .test_browser import CHROMIUM, browser, new_page, sign_in  # noqa: F401 - browser is a fixture
from .test_fleet_browser import upload_through_form

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason="/usr/bin/chromium is missing; run scripts/install-browser (Debian chromium)",
)

CREW = 40


def shot(page: Any, element: Any, path: Path, height: float = 480) -> None:
    """A screenshot of the top of ``element`` (at most ``height`` px: small PNGs)."""
    element.scroll_into_view_if_needed()
    box = element.bounding_box()
    x, y = page.evaluate("[window.scrollX, window.scrollY]")  # clip is in page coordinates
    clip = {**box, "x": box["x"] + x, "y": box["y"] + y, "height": min(box["height"], height)}
    page.screenshot(path=str(path), clip=clip, full_page=True)


def test_officer_filters_duties_and_opens_one_centred(
    browser: Any,  # noqa: F811 - the fixture
    service: LiveService,
    tmp_path: Path,
) -> None:
    shots = Path(os.environ.get("VIGIL_SCREENSHOTS") or tmp_path)
    from vigil.roster.synthetic import generate_airline_roster

    create_user(service, "acme", "alice")
    page = new_page(browser, service)
    sign_in(page, "alice")
    upload_through_form(page, "month", generate_airline_roster(CREW, 28, 16).encode())
    row = page.locator("tr[data-name=month]")
    row.locator("[data-status^=completed]").wait_for(timeout=600_000)
    row.locator("a >> nth=0").click()

    # the dashboard's top duties say what drives each one's risk
    top = page.locator("[data-testid=top-duties]")
    top.wait_for()
    reasons = top.locator("[data-testid=risk-reasons]").all_inner_texts()
    assert reasons and all(r.strip() and r.strip() != "—" for r in reasons)
    shot(page, top, shots / "console-duty-explorer-top.png")

    # "all duties" opens the explorer: every duty, riskiest first
    page.click("[data-action=all-duties]")
    table = page.locator("[data-testid=duty-explorer]")
    table.wait_for()
    matched = page.locator("[data-testid=matched]")
    total = int(matched.get_attribute("data-total"))
    assert int(matched.get_attribute("data-matched")) == total > 0
    script = "rows => rows.map(r => r.dataset.risk).filter(r => r !== 'None')"
    risks = [float(r) for r in table.locator("tbody tr").evaluate_all(script)]
    assert risks == sorted(risks, reverse=True)

    # filter: night duties at one home base, in home-base time
    base = page.locator("[data-testid=filter-base] option").nth(1).get_attribute("value") or ""
    page.check("input[name=kind][value=night]")
    page.select_option("[data-testid=filter-base]", base)
    page.select_option("[data-testid=time-toggle]", "home")
    page.click("[data-action=filter]")
    page.wait_for_url(re.compile(r".*kind=night.*"))
    rows = table.locator("tbody tr[data-duty]")
    n = int(page.locator("[data-testid=matched]").get_attribute("data-matched"))
    assert 0 < n < total
    kinds = rows.evaluate_all("rows => rows.map(r => [r.dataset.kind, r.dataset.base])")
    assert kinds and all(k == ["night", base] for k in kinds)
    words = rows.locator("[data-testid=risk-reasons]").all_inner_texts()
    # every duty explains itself (the model's kinds use the body clock, which can differ
    # from home-base time away from base, so "night" is not in every row's words)
    assert words and all(w.strip() and "not stored" not in w for w in words), words
    shot(page, table, shots / "console-duty-explorer.png")

    # "CSV of this view" streams through the progress bar, counted against its duties
    with page.expect_download(timeout=300_000) as info:
        page.click("[data-export=duties-csv]")
    exported = Path(info.value.path()).read_text(encoding="utf-8").splitlines()
    assert len(exported) - 1 == n
    progress = page.locator("[data-testid=export-progress]")
    page.wait_for_selector("[data-testid=export-progress][data-state=done]")
    assert progress.locator("progress").get_attribute("max") == str(n + 1)
    assert "Saved vigil-duties-" in progress.inner_text()

    # the duty link opens the chart on three days centred on that duty
    first = rows.first
    reference, duty = first.get_attribute("data-schedule"), first.get_attribute("data-duty")
    first.locator("[data-action=open-duty]").click()
    chart = page.locator(f".chart[data-anchor='{duty}']")
    chart.wait_for()
    assert page.locator("[data-window]").input_value() == "72"
    anchored = page.locator(f"[data-testid=duty-table] tr[data-duty='{duty}']")
    assert "anchored" in (anchored.get_attribute("class") or "")
    assert reference in page.locator("h1").inner_text()
    page.locator(".chart-figure").screenshot(path=str(shots / "console-duty-explorer-chart.png"))
