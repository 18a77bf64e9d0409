"""Screenshots of the hazard log for docs/hazard-log.md.

Runs the embedded app on a free loopback port with a throw-away SQLite database (as
``console_screenshots.py`` does), uploads a week's roster, records a decision with the
dashboard's "Review" control in headless chromium, changes it from the hazard log page
(so one entry supersedes another) and saves ``docs/img/console-hazard-*.png``::

    .venv/bin/python docs/plots/hazard_screenshots.py
"""

from __future__ import annotations

import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parent))

from console_screenshots import ARGS, OUT, PASSWORD, ROSTER, running_console, upload  # noqa: E402


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    with running_console("officer") as base:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
            page = browser.new_context(
                base_url=base, viewport={"width": 1280, "height": 860}
            ).new_page()
            page.goto("/console/login")
            page.fill("input[name=username]", "officer")
            page.fill("input[name=password]", PASSWORD)
            page.click("button:text('Sign in')")
            page.wait_for_url("**/console/")
            upload(page, "march-week-1", ROSTER)
            page.goto("/console/rosters")
            page.click("tr[data-name='march-week-1'] a >> nth=0")
            top = page.locator("[data-testid=top-duties] tbody tr").first
            top.locator("summary:text('Review')").click()
            form = top.locator("[data-testid=review-form]")
            form.locator("select[name=decision]").select_option("accept")
            form.locator("textarea[name=reason]").fill(
                "Single westbound sector, rested crew; within the FRMS envelope."
            )
            form.locator("button:text('Record decision')").click()
            page.wait_for_url("**#top-duties")
            second = page.locator("[data-testid=top-duties] tbody tr").nth(1)
            second.locator("summary:text('Review')").click()
            page.locator("#top-duties").screenshot(path=OUT / "console-hazard-review.png")

            page.goto("/console/hazards")
            row = page.locator("[data-testid=hazard-log] tbody tr").first
            row.locator("summary:text('Review again')").click()
            again = row.locator("[data-testid=review-form]")
            again.locator("select[name=decision]").select_option("mitigate")
            again.locator("textarea[name=reason]").fill("Night arrival after a short rest.")
            again.locator("textarea[name=mitigation]").fill(
                "Controlled rest in the cruise; report moved 1 h later."
            )
            again.locator("button").click()
            page.wait_for_url("**/console/hazards?recorded=*")
            page.screenshot(path=OUT / "console-hazard-log.png", full_page=True)
            states = page.locator("[data-testid=hazard-log] tbody tr").evaluate_all(
                "rows => rows.map(r => r.dataset.inForce)"
            )
            assert states == ["yes", "no"], states
            browser.close()
    for path in sorted(OUT.glob("console-hazard-*.png")):
        print(path)


if __name__ == "__main__":
    main()
