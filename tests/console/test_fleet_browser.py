"""The fleet view in headless Chromium, driven by Playwright.

A generated airline month of 200 crew goes through the upload form; the dashboard's
histogram, top duty and schedules table are checked against GetResults, and the CSV,
XLSX and PDF downloads are opened with csv, openpyxl and pypdf and checked against the
API. A file larger than the old 10 MiB form limit is streamed through the same form.
Uses Debian's ``/usr/bin/chromium`` like :mod:`tests.console.test_browser`.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from conftest import LiveService, live_service

from .conftest import create_user, embedded_routers
from .test_browser import (  # noqa: F401 - browser is a fixture
    CHROMIUM,
    browser,
    hover_first_point,
    new_page,
    sign_in,
)
from .test_fleet_pages import api_client

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason="/usr/bin/chromium is missing; run scripts/install-browser (Debian chromium)",
)

CREW = 200


@pytest.fixture(scope="module")
def airline_roster() -> str:
    from vigil.roster.synthetic import generate_airline_roster

    return generate_airline_roster(CREW, 28, 16)


def upload_through_form(page: Any, name: str, data: bytes) -> None:
    page.goto("/console/rosters")
    page.set_input_files(
        "[data-testid=roster-file]",
        files=[{"name": f"{name}.csv", "mimeType": "text/csv", "buffer": data}],
    )
    page.fill("input[name=name]", name)
    page.select_option("select[name=scale]", "KSS")
    page.click("button:text('Upload')")
    page.wait_for_url("**/console/rosters")


def download(page: Any, kind: str) -> bytes:
    with page.expect_download() as info:
        page.click(f"[data-export={kind}]")
    path = info.value.path()
    return Path(path).read_bytes()


def test_airline_month_dashboard_and_reports(
    browser: Any,  # noqa: F811 - the fixture
    service: LiveService,
    airline_roster: str,
    tmp_path: Path,
) -> None:
    from openpyxl import load_workbook
    from pypdf import PdfReader

    create_user(service, "acme", "alice")
    page = new_page(browser, service)
    sign_in(page, "alice")
    upload_through_form(page, "march", airline_roster.encode())
    row = page.locator("tr[data-name=march]")
    row.locator("[data-status^=completed]").wait_for(timeout=600_000)
    token = row.get_attribute("data-token")
    with api_client(service, "acme") as api:
        scores = api.get("/api/GetResults", params={"rosterToken": token, "dataKey": "scores"})
        summary = api.get("/api/GetResults", params={"rosterToken": token, "dataKey": "summary"})
    assert scores.status_code == 200 and summary.status_code == 200
    api_risks = {
        (s["schedule"], j + 1): r
        for s in scores.json()["scheduleScores"]
        for j, r in enumerate(s["riskScores"])
    }
    assert len({ref for ref, _ in api_risks}) == CREW

    # dashboard: the risk histogram's bins add up to the number of duties
    row.locator("a >> nth=0").click()
    histogram = page.locator("[data-testid=risk-histogram]")
    histogram.wait_for()
    bins = [int(c) for c in histogram.locator("rect.bar").evaluate_all(
        "bars => bars.map(b => b.getAttribute('data-count'))")]  # fmt: skip
    assert sum(bins) == len(api_risks) == summary.json()["summary"]["counts"]["duties"]
    peaks = page.locator("[data-testid=peak-histogram] rect.bar").evaluate_all(
        "bars => bars.map(b => Number(b.getAttribute('data-count')))"
    )
    assert sum(peaks) == len(api_risks)
    # the top duty is the one with the highest risk in GetResults scores
    top = page.locator("[data-testid=top-duties] tbody tr").first
    best = max(api_risks, key=lambda k: api_risks[k])
    assert (top.get_attribute("data-schedule"), int(top.get_attribute("data-duty"))) == best
    assert float(top.get_attribute("data-risk")) == pytest.approx(api_risks[best], abs=1e-3)
    page.screenshot(path=str(tmp_path / "dashboard.png"), full_page=True)
    # its link opens the schedule's chart with route, sectors and local times
    top.locator("a").click()
    page.locator(".chart[data-points]").wait_for()
    duty_row = page.locator(f"[data-testid=duty-table] tr[data-duty='{best[1]}']")
    assert "–" in duty_row.locator("[data-route]").inner_text()
    page.screenshot(path=str(tmp_path / "chart.png"), full_page=True)
    page.locator(".chart svg").scroll_into_view_if_needed()
    assert "UTC" in hover_first_point(page)
    # home-base time and ICAO codes, remembered for this user
    page.select_option("[data-testid=time-axis]", "home")
    page.select_option("[data-testid=airport-codes]", "icao")
    page.click("[data-testid=chart-options] button")
    page.locator(".chart[data-points]").wait_for()
    page.locator(".chart svg").scroll_into_view_if_needed()
    assert "home base, UTC" in hover_first_point(page)
    assert page.locator("[data-testid=time-axis]").input_value() == "home"
    page.goto(f"/console/rosters/{token}")

    # schedules sorted by risk (the column header), then lowest first
    page.click("[data-testid=schedules] thead [data-sort=risk]")
    page.wait_for_url("**sort=risk**")
    first_page = [float(r) for r in page.locator("[data-testid=schedules] tbody tr").evaluate_all(
        "rows => rows.map(r => r.getAttribute('data-risk'))")]  # fmt: skip
    highest = {}
    for (ref, _), r in api_risks.items():
        highest[ref] = max(highest.get(ref, 0.0), r)
    ascending = sorted(highest.values())
    assert first_page == pytest.approx(ascending[: len(first_page)], abs=1e-3)
    page.select_option("[data-testid=sort]", "risk")
    page.select_option("select[name=order]", "desc")
    page.click("[data-action=apply]")
    page.wait_for_url("**order=desc**")
    first = float(page.locator("[data-testid=schedules] tbody tr").first.get_attribute("data-risk"))
    assert first == pytest.approx(ascending[-1], abs=1e-3)

    # CSV: every duty, each risk equal to the API's
    rows = list(csv.DictReader(io.StringIO(download(page, "csv").decode())))
    assert len(rows) == len(api_risks)
    # its progress bar counted the rows against the duties the server announced
    page.wait_for_selector("[data-testid=export-progress][data-state=done]")
    counted = page.eval_on_selector(
        "[data-testid=export-progress] progress", "p => [p.value, p.max]"
    )
    assert counted == [len(api_risks) + 1, len(api_risks) + 1]  # the header and each duty
    assert "Saved vigil-march.csv" in page.inner_text("[data-testid=export-progress]")
    for r in rows:
        assert float(r["Risk"]) == pytest.approx(
            api_risks[(r["Reference"], int(r["Duty"]))], abs=1e-3
        )
    # XLSX: the duties sheet holds the same numbers, as numbers; the summary its counts
    book = load_workbook(io.BytesIO(download(page, "xlsx")), read_only=True)
    duties = list(book["Duties"].iter_rows(values_only=True))
    header, body = duties[0], duties[1:]
    col = {name: i for i, name in enumerate(header)}
    assert len(body) == len(api_risks)
    for line in body:
        risk = line[col["Risk"]]
        assert isinstance(risk, int | float)  # a number cell, not text
        assert risk == pytest.approx(
            api_risks[(line[col["Reference"]], line[col["Duty"]])], abs=1e-3
        )
    facts = {r[0]: r[1] for r in book["Summary"].iter_rows(values_only=True)}
    assert facts["Duties"] == len(api_risks) and facts["Schedules"] == CREW
    # PDF: the top duty listed, model version and preset on every page
    pdf = download(page, "pdf")
    (tmp_path / "report.pdf").write_bytes(pdf)
    reader = PdfReader(io.BytesIO(pdf))
    texts = [p.extract_text() for p in reader.pages]
    version = scores.json()["modelVersion"]
    assert len(texts) >= 4
    assert all(version in t and "preset ingre2014_5c" in t for t in texts)
    assert best[0] in texts[2]


@pytest.fixture
def idle_service(tmp_path: Path) -> Iterator[LiveService]:
    """The embedded app with no worker: an upload stays queued (nothing scores it)."""
    url = f"sqlite:///{tmp_path / 'vigil.db'}"
    with live_service(tmp_path, url, routers=embedded_routers(), worker_threads=0) as live:
        yield live


def test_upload_larger_than_ten_mib_streams_through_the_form(
    browser: Any,  # noqa: F811 - the fixture
    idle_service: LiveService,
    airline_roster: str,
) -> None:
    from vigil.store import uploads

    header, _, body = airline_roster.partition("\r\n")
    copies = []
    for k in range(40):  # the month of 200 crew, as 40 bases of 200 crew each
        copies.append(re.sub(r"^(\"?)([^,\"]+)", rf"\1\2-B{k:02d}", body, flags=re.M))
    data = (header + "\r\n" + "".join(copies)).encode()
    assert len(data) > 10 * 1024 * 1024
    create_user(idle_service, "acme", "alice")
    page = new_page(browser, idle_service)
    sign_in(page, "alice")
    page.goto("/console/rosters")
    assert page.locator("[data-testid=upload-progress]").is_hidden()
    upload_through_form(page, "airline", data)
    row = page.locator("tr[data-name=airline]")
    assert row.locator("[data-status]").get_attribute("data-status") == "queued"
    with idle_service.runtime.sessions() as session:
        stored = uploads.get_upload(
            session=session, operator="acme", token=row.get_attribute("data-token")
        )
        assert stored is not None and stored.roster_text.encode() == data
    # too large for UploadRoster too: refused in the page, before sending
    page.goto("/console/rosters")
    page.evaluate("document.querySelector('[data-upload]').setAttribute('data-max-bytes', '1000')")
    page.set_input_files(
        "[data-testid=roster-file]",
        files=[{"name": "big.csv", "mimeType": "text/csv", "buffer": data[:5000]}],
    )
    page.click("button:text('Upload')")
    assert "the most accepted is" in page.locator("[data-upload-text]").inner_text()
    assert page.locator("tr[data-name=big]").count() == 0


def test_home_base_axis_follows_a_daylight_saving_change(
    browser: Any,  # noqa: F811 - the fixture
    service: LiveService,
) -> None:
    """Ticks sit at whole home-base hours/days with the offset of their own instant: UTC+0
    before London's clocks go forward (2026-03-29 01:00 UTC), UTC+1 after."""
    from datetime import UTC, datetime

    from .test_fleet_settings import DST_ROSTER

    create_user(service, "acme", "alice")
    page = new_page(browser, service)
    sign_in(page, "alice")
    upload_through_form(page, "spring", DST_ROSTER.encode())
    row = page.locator("tr[data-name=spring]")
    row.locator("[data-status^=completed]").wait_for(timeout=120_000)
    token = row.get_attribute("data-token")
    page.goto(f"/console/rosters/{token}/chart?schedule=D1")
    page.locator(".chart[data-points]").wait_for()
    page.select_option("[data-testid=time-axis]", "home")
    page.click("[data-testid=chart-options] button")
    page.locator(".chart[data-points]").wait_for()
    ticks = page.locator(".chart text.tick[data-t]").evaluate_all(
        "ts => ts.map(t => [Number(t.getAttribute('data-t')), t.textContent])"
    )
    change = datetime(2026, 3, 29, 1, tzinfo=UTC).timestamp() * 1000
    assert any(t < change for t, _ in ticks) and any(t > change for t, _ in ticks)
    for t, label in ticks:
        local = datetime.fromtimestamp(t / 1000 + (3600 if t >= change else 0), UTC)
        assert (local.minute, local.second) == (0, 0), (t, label)
        assert label in (f"{local:%H:%M}", f"{local:%d %b}"), (t, label, local)
        if ":" not in label:  # day ticks at home-base midnight
            assert local.hour == 0, (t, label, local)
    page.locator(".chart svg").scroll_into_view_if_needed()
    assert "home base, UTC+00:00" in hover_first_point(page)
