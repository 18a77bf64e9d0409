"""Screenshots of every console page for docs/console.md.

Runs the embedded app (``create_app``, as ``vigil serve``) on a free loopback port with a
throw-away SQLite database, signs in with Playwright in Debian's headless chromium and
saves ``docs/img/console-*.png``::

    .venv/bin/python docs/plots/console_screenshots.py
"""

from __future__ import annotations

import socket
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import uvicorn
from playwright.sync_api import Page, sync_playwright

from vigil.config.settings import Settings
from vigil.store import repo
from vigil.web.app import create_app

OUT = Path(__file__).resolve().parents[1] / "img"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
PASSWORD = "screenshots-only"
HEADER = (
    "Reference,OnDutyDate,OnDutyTime,StartAirport,OffDutyDate,OffDutyTime,EndAirport,"
    "HomeBase,TimeReference\r\n"
)
#: a week of a long-haul captain and a short-haul first officer (UTC, TimeReference 0)
ROSTER = HEADER + (
    "CPT 1043,02/03/2026,08:30,LHR,02/03/2026,17:15,JFK,LHR,0\r\n"
    "CPT 1043,04/03/2026,00:30,JFK,04/03/2026,08:10,LHR,LHR,0\r\n"
    "CPT 1043,06/03/2026,20:00,LHR,07/03/2026,07:30,SIN,LHR,0\r\n"
    "CPT 1043,09/03/2026,15:00,SIN,10/03/2026,05:10,LHR,LHR,0\r\n"
    "FO 2210,02/03/2026,04:45,MAN,02/03/2026,12:40,MAN,MAN,0\r\n"
    "FO 2210,03/03/2026,04:45,MAN,03/03/2026,13:10,MAN,MAN,0\r\n"
    "FO 2210,04/03/2026,05:15,MAN,04/03/2026,14:00,MAN,MAN,0\r\n"
)
BROKEN = HEADER + (
    "FO 3001,02/03/2026,06:00,MAN,02/03/2026,14:00,MAN,MAN,0\r\n"
    "FO 3002,02/03/2026,06:00,XYZ,02/03/2026,09:00,MAN,MAN,0\r\n"
    "FO 3003,02/03/2026,06:00,MAN,04/03/2026,14:30,JFK,MAN,0\r\n"
)


def serve(app: object) -> tuple[uvicorn.Server, str]:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True).start()
    while not server.started:
        time.sleep(0.05)
    return server, f"http://127.0.0.1:{sock.getsockname()[1]}"


@contextmanager
def running_console(username: str, **settings: object) -> Iterator[str]:
    """The embedded app (as ``vigil serve``) on a free loopback port with a throw-away
    SQLite store and one console user of "Northwind Air" (``PASSWORD``); yields its base
    URL. ``settings`` override the defaults (no worker processes: uploads score in the
    app's own worker); a value of ``None`` leaves that setting unset."""
    with tempfile.TemporaryDirectory() as tmp:
        values: dict[str, object] = {
            "database_url": f"sqlite:///{tmp}/vigil.db",
            "data_dir": tmp,
            "worker_processes": 0,
            "worker_poll_interval": 0.2,
            **settings,
        }
        app = create_app(Settings.from_mapping({k: v for k, v in values.items() if v is not None}))
        server, base = serve(app)
        with app.state.vigil.sessions.begin() as session:
            repo.create_console_user(
                session=session, operator="Northwind Air", username=username, password=PASSWORD
            )
        try:
            yield base
        finally:
            server.should_exit = True


def upload(page: Page, name: str, text: str) -> None:
    page.goto("/console/rosters")
    page.set_input_files(
        "input[name=roster]",
        files=[{"name": f"{name}.csv", "mimeType": "text/csv", "buffer": text.encode()}],
    )
    page.click("button:text('Upload')")
    done = f"tr[data-name='{name}'] [data-status^=completed]"
    page.locator(done).wait_for(timeout=120_000)


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    with running_console("planner") as base:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
            page = browser.new_context(
                base_url=base, viewport={"width": 1280, "height": 860}
            ).new_page()
            page.on("dialog", lambda d: d.accept())
            page.goto("/console/login")
            page.fill("input[name=username]", "planner")
            page.screenshot(path=OUT / "console-login.png")
            page.fill("input[name=password]", PASSWORD)
            page.click("button:text('Sign in')")
            page.wait_for_url("**/console/")

            page.goto("/console/clients")
            page.fill("input[name=name]", "crew planning system")
            page.click("button:text('Create client')")
            page.goto("/console/clients")
            page.fill("input[name=name]", "fatigue dashboard")
            page.uncheck("input[name=scope][value=upload]")
            page.click("button:text('Create client')")
            page.screenshot(path=OUT / "console-clients.png", full_page=True)

            upload(page, "march-week-1", ROSTER)
            upload(page, "march-broken", BROKEN)
            page.goto("/console/rosters")
            page.screenshot(path=OUT / "console-rosters.png", full_page=True)
            page.click("tr[data-name='march-broken'] a >> nth=0")
            page.screenshot(path=OUT / "console-feedback.png", full_page=True)

            page.goto("/console/rosters")
            page.click("tr[data-name='march-week-1'] a >> nth=0")
            page.click("tr[data-schedule='CPT 1043'] [data-action=chart]")
            chart = page.locator(".chart[data-points]")
            chart.wait_for()
            box = chart.bounding_box()
            assert box is not None
            page.mouse.move(box["x"] + box["width"] * 0.64, box["y"] + 150)
            page.screenshot(path=OUT / "console-chart.png", full_page=True)

            page.goto("/console/")
            page.screenshot(path=OUT / "console-overview.png")

            page.goto("/console/try")
            page.select_option("select[name=scale]", "SP")
            page.click("button:text('Score')")
            page.locator(".chart[data-points]").first.wait_for()
            page.screenshot(path=OUT / "console-try.png", full_page=True)
            browser.close()
    for path in sorted(OUT.glob("console-*.png")):
        print(path)


if __name__ == "__main__":
    main()
