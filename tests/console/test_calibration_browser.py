"""Calibration in headless Chromium: upload observations, open the
report, see the calibration plot. Debian's ``/usr/bin/chromium``, as test_browser.py."""

from __future__ import annotations

from typing import Any

import httpx

from conftest import LiveService
from settings.helpers import upload_and_wait
from vigil.calibration import simulate_observations
from vigil.roster.synthetic import generate_roster

from .conftest import create_user
from .test_browser import browser, new_page, pytestmark, sign_in

__all__ = ["browser", "pytestmark"]

ROSTER = generate_roster(8, 28, seed=9)


def test_upload_observations_open_report_see_plot(browser: Any, service: LiveService) -> None:
    from vigil.store import operator_settings as store
    from vigil.store import repo

    cid, secret = service.create_client(operator="acme")
    with httpx.Client(base_url=service.base_url, auth=(cid, secret), timeout=60) as api:
        upload_and_wait(api, ROSTER, "march")
    create_user(service, "acme", "alice")
    with service.runtime.sessions.begin() as session:
        user = repo.require_console_user(session=session, username="alice")
        store.grant_admin(session=session, user_id=user.id)
    ratings = simulate_observations(ROSTER, seed=4, bias=1.0, per_duty=6)

    page = new_page(browser, service)
    sign_in(page, "alice")
    page.click("nav >> text=Calibration")
    page.wait_for_url("**/console/calibration")
    page.select_option("[data-testid=observations-roster]", label="march")
    page.set_input_files(
        "[data-testid=observations-file]",
        files=[{"name": "ratings.csv", "mimeType": "text/csv", "buffer": ratings.encode()}],
    )
    page.fill("input[name=name]", "winter study")
    page.click("button:text('Upload and open the report')")
    page.wait_for_url("**/console/calibration/*")
    assert page.locator("h1").inner_text() == "Calibration report: winter study"
    assert int(page.inner_text("[data-testid=ratings-used]")) > 100
    # the plain verdict leads the page: ratings drawn 1.0 KSS above the model
    said = page.inner_text("[data-testid=plain-verdict]")
    assert said.startswith("Vigil reads your crews ") and "KSS too alert" in said
    assert "raises" in said

    plot = page.locator("[data-testid=calibration-plot-KSS]")
    plot.wait_for()
    plot.scroll_into_view_if_needed()
    page.wait_for_function("el => el.complete && el.naturalWidth > 0", arg=plot.element_handle())
    box = plot.bounding_box()
    assert box is not None and box["width"] > 300 and box["height"] > 250
    assert "miscalibrated" in page.inner_text("[data-testid=verdict]")

    # next to the button: which setting changes, from what to what
    effect = page.inner_text("[data-testid=adopt-effect]")
    assert "the operator's preset from ingre2014_5c to acme-kss-v1" in effect
    assert "Rosters already stored keep their scores" in effect

    # adopting is one explicit click, recorded in the settings history
    page.click("[data-action=adopt]")
    page.wait_for_url("**adopted=acme-kss-v1")
    page.click("nav >> text=Settings")
    assert page.inner_text("[data-testid=settings-version]") == "1"
    history = page.inner_text("[data-testid=settings-history]")
    assert "alice" in history and "adopted calibrated preset acme-kss-v1" in history

    # the list links back to the report and its PDF
    page.goto("/console/calibration")
    assert page.locator("[data-testid=observation-sets] >> text=winter study").count() == 1
