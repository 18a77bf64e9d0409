"""The safety officer's month, walked through in headless Chromium at airline size.

Runs the embedded app (``create_app``, as ``vigil serve``) on a free loopback port with a
throw-away SQLite store and the production worker (the in-process claiming thread with a
pool of scoring processes, one per CPU), signs in as an officer and follows the path of
docs/console.md with Playwright in Debian's ``/usr/bin/chromium``:

1. upload the 10,000-crew March (``generate_airline_roster(10000, 28, seed=7)``, about
   140,000 duties, 16 MB) through the console's upload form and wait for it to be scored;
2. open its dashboard;
3. filter the duty explorer to high and very high night duties at the base with most of
   them;
4. open the riskiest of those duties (its chart, centred on the duty);
5. record a decision on it with the Review control (decision, reason, mitigation) and find
   it in the hazard log;
6. upload the same crew's February, rostered under the earlier, looser rules
   (``legal=False``: short-haul duties beyond EASA's 13-h basic FDP), and compare the months
   (A = February, B = March): the same network flies the same pairings, so the comparison
   shows, pairing by pairing, what rostering within the flight time limitations changed;
7. export the filtered explorer view as CSV and the roster's Excel workbook (the dashboard's
   progress bar), and check both files' rows against the pages' counts.

Each step asserts what it shows, so the walk fails where the officer's path breaks, and
prints its wall time. Screenshots go to ``docs/img/walk-*.png`` (1280×860 viewport)::

    .venv/bin/python docs/plots/officer_walkthrough.py
"""

from __future__ import annotations

import csv
import io
import re
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date
from pathlib import Path
from urllib.parse import urlencode

from playwright.sync_api import Page, sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parent))

from console_screenshots import ARGS, OUT, PASSWORD, running_console  # noqa: E402

CREW, DAYS, SEED = 10_000, 28, 7
UPPER = ("high", "very-high")  #: the bands whose action is to review or change the duty
SCORING_TIMEOUT_MS = 900_000


@contextmanager
def step(name: str, times: list[tuple[str, float]]) -> Iterator[None]:
    """Time one step of the walk and print it as it ends."""
    started = time.perf_counter()
    yield
    took = time.perf_counter() - started
    times.append((name, took))
    print(f"{name:<52} {took:7.1f} s", flush=True)


def clip(page: Page, selector: str, name: str, height: float = 860) -> None:
    """The top ``height`` CSS pixels of ``selector`` as ``docs/img/name`` (small PNGs)."""
    element = page.locator(selector).first
    element.scroll_into_view_if_needed()
    box = element.bounding_box()
    assert box is not None, selector
    x, y = page.evaluate("[window.scrollX, window.scrollY]")  # clip is in page coordinates
    area = {**box, "x": box["x"] + x, "y": box["y"] + y, "height": min(box["height"], height)}
    page.screenshot(path=OUT / name, clip=area, full_page=True)


def send(page: Page, name: str, text: str) -> None:
    """Upload ``text`` as ``name`` through the console's form (KSS, as the officer does)."""
    page.goto("/console/rosters")
    page.set_input_files(
        "[data-testid=roster-file]",
        files=[{"name": f"{name}.csv", "mimeType": "text/csv", "buffer": text.encode()}],
    )
    page.fill("input[name=name]", name)
    page.select_option("select[name=scale]", "KSS")
    page.click("button:text('Upload')")
    page.wait_for_url("**/console/rosters", timeout=300_000)


def scored(page: Page, name: str) -> str:
    """Wait until the roster ``name`` is scored; its token."""
    row = page.locator(f"tr[data-name='{name}']")
    row.locator("[data-status^=completed]").wait_for(timeout=SCORING_TIMEOUT_MS)
    token = row.get_attribute("data-token")
    assert token, name
    return token


def matched(page: Page) -> tuple[int, int]:
    """The explorer's ``(matched, total)`` duty counts."""
    tag = page.locator("[data-testid=matched]")
    return int(tag.get_attribute("data-matched") or -1), int(tag.get_attribute("data-total") or -1)


def download(page: Page, selector: str, timeout: float = 300_000) -> bytes:
    with page.expect_download(timeout=timeout) as info:
        page.click(selector)
    return Path(info.value.path()).read_bytes()


def walk(page: Page, times: list[tuple[str, float]]) -> None:
    from openpyxl import load_workbook

    from vigil.roster.synthetic import (
        generate_airline_duties,
        generate_airline_roster,
        render_roster,
    )

    with step("0 generate the two 10k months", times):
        march = generate_airline_roster(CREW, DAYS, SEED)
        february = render_roster(
            generate_airline_duties(CREW, DAYS, SEED, first_day=date(2026, 2, 1), legal=False)
        )
    print(f"  march {len(march) / 2**20:.1f} MiB, february {len(february) / 2**20:.1f} MiB")

    with step("1 sign in, upload March through the form", times):
        page.goto("/console/login")
        page.fill("input[name=username]", "officer")
        page.fill("input[name=password]", PASSWORD)
        page.click("button:text('Sign in')")
        page.wait_for_url("**/console/")
        send(page, "march-2026", march)
    with step("1 … scoring, the row's live progress", times):
        bar = page.locator("tr[data-name='march-2026'] [data-progress]")
        bar.wait_for(state="visible", timeout=120_000)
        page.wait_for_function(
            "() => { const p = document.querySelector(\"tr[data-name='march-2026'] "
            '[data-progress]"); return p && p.value > 0.4; }',
            timeout=SCORING_TIMEOUT_MS,
        )
        page.screenshot(path=OUT / "walk-1-upload.png")
    with step("1 … until March is scored", times):
        token = scored(page, "march-2026")

    with step("2 dashboard", times):
        page.click("tr[data-name='march-2026'] a >> nth=0")
        page.locator("[data-testid=risk-histogram]").wait_for()
        duties = int(page.inner_text("[data-figure=duties]").replace(",", ""))
        assert duties > 100_000, duties
        cells = [f"[data-testid=bands] tr[data-band={b}] td >> nth=3" for b in UPPER]
        upper = sum(int(page.inner_text(c).replace(",", "")) for c in cells)
        assert upper > 0
        page.locator("[data-testid=exports]").evaluate("e => e.scrollIntoView()")
        page.screenshot(path=OUT / "walk-2-dashboard.png")
    print(f"  {duties:,} duties, {upper:,} high or very high")

    with step("3 explorer: high-risk night duties, one base", times):
        page.click("[data-action=all-duties]")
        page.locator("[data-testid=duty-explorer]").wait_for()
        assert matched(page) == (duties, duties)
        bases = [
            b
            for b in page.locator("[data-testid=filter-base] option").evaluate_all(
                "options => options.map(o => o.value)"
            )
            if b
        ]
        explorer = f"/console/rosters/{token}/duties"
        counts = {}
        for b in bases:  # the count the explorer gives for each base, as its page says
            query = urlencode([*(("band", x) for x in UPPER), ("kind", "night"), ("base", b)])
            html = page.request.get(f"{explorer}?{query}").text()
            found = re.search(r'data-matched="(\d+)"', html)
            assert found, b
            counts[b] = int(found.group(1))
        base = max(counts, key=lambda b: counts[b])
        print(f"  upper-band night duties by base: {counts}")
        for b in UPPER:
            page.check(f"input[name=band][value={b}]")
        page.check("input[name=kind][value=night]")
        page.select_option("[data-testid=filter-base]", base)
        page.select_option("[data-testid=time-toggle]", "home")
        page.click("[data-action=filter]")
        page.wait_for_url(re.compile(r".*kind=night.*"))
        n, total = matched(page)
        assert n == counts[base] and 0 < n < total == duties, (n, counts[base], total)
        rows = page.locator("[data-testid=duty-explorer] tbody tr[data-duty]")
        facts = rows.evaluate_all(
            "rows => rows.map(r => [r.dataset.kind, r.dataset.base, r.dataset.band, "
            "Number(r.dataset.risk)])"
        )
        assert facts and all(
            k == "night" and b == base and band in UPPER for k, b, band, _ in facts
        )
        shown = rows.evaluate_all("rows => rows.map(r => [r.dataset.schedule, r.dataset.duty])")
        risks = [r for *_, r in facts]
        assert risks == sorted(risks, reverse=True)
        page.screenshot(path=OUT / "walk-3-explorer.png")
        filtered_url = page.url
    print(f"  base {base}: {n:,} of {total:,} duties")

    with step("4 open the riskiest of them", times):
        first = rows.first
        reference = first.get_attribute("data-schedule") or ""
        duty = first.get_attribute("data-duty") or ""
        first.locator("[data-action=open-duty]").click()
        page.locator(f".chart[data-anchor='{duty}']").wait_for()
        anchored = page.locator(f"[data-testid=duty-table] tr[data-duty='{duty}']")
        assert "anchored" in (anchored.get_attribute("class") or "")
        assert reference in page.inner_text("h1")
        page.evaluate("window.scrollTo(0, 0)")  # the link's fragment scrolls to the row
        page.screenshot(path=OUT / "walk-4-duty.png")
    print(f"  {reference} duty {duty}")

    with step("5 record a decision, see it in the hazard log", times):
        anchored.locator("summary:text('Review')").click()
        form = anchored.locator("[data-testid=review-form]")
        form.locator("select[name=decision]").select_option("mitigate")
        form.locator("textarea[name=reason]").fill(
            "Night duty in the window of circadian low at the upper band; recurring pairing."
        )
        form.locator("textarea[name=mitigation]").fill(
            "Report moved 1 h later; controlled rest briefed; crew member rested the day before."
        )
        anchored.scroll_into_view_if_needed()
        page.evaluate("window.scrollBy(0, 200)")  # the row and its open form
        page.screenshot(path=OUT / "walk-5-decision.png")
        form.locator("button:text('Record decision')").click()
        page.wait_for_url(f"**#duty-{duty}")
        anchored = page.locator(f"[data-testid=duty-table] tr[data-duty='{duty}']")
        assert anchored.locator("[data-review-state]").inner_text().strip() == "mitigate"
        page.goto("/console/hazards")
        log = page.locator("[data-testid=hazard-log] tbody tr")
        assert log.count() == 1 and reference in log.first.inner_text()
        assert log.first.get_attribute("data-in-force") == "yes"
        clip(page, "main", "walk-5-hazard-log.png", 560)

    with step("6 upload February (earlier rules) through the form", times):
        send(page, "february-2026", february)
    with step("6 … until February is scored", times):
        earlier = scored(page, "february-2026")
    with step("6 compare February (A) with March (B)", times):
        page.goto(f"/console/rosters/{token}")
        page.click("[data-testid=compare-link]")
        page.select_option("[data-testid=pick-a]", earlier)
        page.select_option("[data-testid=pick-b]", token)
        page.click("button:text('Compare')")
        page.locator("[data-testid=compare-bands]").wait_for(timeout=300_000)
        pairings = int(page.get_attribute("[data-testid=pairing-counts]", "data-matched") or 0)
        assert pairings > 0
        shares = page.locator("[data-testid=compare-bands] tbody tr").evaluate_all(
            "rows => rows.map(r => [r.dataset.band, Number(r.dataset.shareA), "
            "Number(r.dataset.shareB)])"
        )
        assert abs(sum(a for _, a, _ in shares) - 1) < 1e-6
        assert abs(sum(b for _, _, b in shares) - 1) < 1e-6
        page.screenshot(path=OUT / "walk-6-compare.png")
    print(f"  {pairings:,} pairing duties in both months; shares A→B {shares}")

    with step("7 export the filtered view as CSV", times):
        page.goto(filtered_url)
        lines = list(csv.reader(io.StringIO(download(page, "[data-export=duties-csv]").decode())))
        assert len(lines) - 1 == n, (len(lines), n)
        table = [dict(zip(lines[0], line, strict=True)) for line in lines[1:]]
        assert all(r["Home base"] == base and r["Kind"] == "night" for r in table)
        assert [[r["Reference"], r["Duty"]] for r in table[: len(shown)]] == shown
    with step("7 export the roster as XLSX (progress bar)", times):
        page.goto(f"/console/rosters/{token}")
        with page.expect_download(timeout=600_000) as info:
            page.click("[data-export=xlsx]")
            page.wait_for_selector("[data-testid=export-progress][data-state=preparing]")
            page.wait_for_timeout(1500)  # the bar and its clock while the server prepares
            clip(page, "[data-testid=exports]", "walk-7-export-progress.png", 300)
        data = Path(info.value.path()).read_bytes()
        page.wait_for_selector("[data-testid=export-progress][data-state=done]")
        assert "Saved vigil-" in page.inner_text("[data-testid=export-progress]")
        clip(page, "[data-testid=exports]", "walk-7-export.png", 300)
        book = load_workbook(io.BytesIO(data), read_only=True)
        sheet = book["Duties"]
        assert sheet.max_row == duties + 1, (sheet.max_row, duties)
        facts = {r[0]: r[1] for r in book["Summary"].iter_rows(values_only=True)}
        assert facts["Duties"] == duties and facts["Schedules"] == CREW
    print(f"  CSV {n:,} rows; XLSX {len(data) / 2**20:.1f} MiB, {duties:,} duty rows")


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    times: list[tuple[str, float]] = []
    with running_console("officer", worker_processes=None, worker_poll_interval=0.5) as base:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
            context = browser.new_context(
                base_url=base, viewport={"width": 1280, "height": 860}, accept_downloads=True
            )
            context.set_default_timeout(120_000)
            walk(context.new_page(), times)
            browser.close()
    print(f"{'total':<52} {sum(t for _, t in times):7.1f} s")
    for path in sorted(OUT.glob("walk-*.png")):
        print(f"{path} {path.stat().st_size / 1024:.0f} KB")


if __name__ == "__main__":
    main()
