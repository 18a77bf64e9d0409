"""Calibration like uploads: parsed off the event loop, bounded per operator.

Found by an attack: the console's calibration upload parsed on the event loop (a 9.6 MiB
file stalled ``/healthz`` for 3.5 s); a 7.6 MiB set cost 6–7 s of CPU per report; the
report cache (16 reports shared by all operators) held about 100 MiB per report; and a
tenant could store any number of sets. Now sets hold at most
``VIGIL_MAX_OBSERVATION_RATINGS`` ratings and an operator at most
``VIGIL_MAX_OBSERVATION_SETS_PER_OPERATOR`` sets, on the API and in the console, and the
report cache is weighed in ratings per operator (vigil.web._report_cache).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from conftest import LiveService, live_service
from console.conftest import create_user, embedded_routers, sign_in
from settings.helpers import api, upload_and_wait
from vigil.calibration import simulate_observations
from vigil.roster.synthetic import generate_roster
from vigil.web._report_cache import ReportCache
from vigil.web.console import calibration as console_calibration

ROSTER = generate_roster(4, 14, seed=5)
RATINGS = simulate_observations(ROSTER, seed=2, bias=0.8, per_duty=4)
MAX_RATINGS = 40


@pytest.fixture
def strict(tmp_path: Path) -> Iterator[LiveService]:
    with live_service(
        tmp_path,
        f"sqlite:///{tmp_path / 'vigil.db'}",
        routers=embedded_routers(),
        worker_processes=0,
        worker_poll_interval=0.1,
        max_observation_ratings=MAX_RATINGS,
        max_observation_sets_per_operator=2,
    ) as live:
        yield live


def _lines(n: int) -> str:
    header, *rows = RATINGS.strip().splitlines()
    assert len(rows) >= n
    return "\n".join([header, *rows[:n]]) + "\n"


def test_set_sizes_and_counts_are_bounded_on_both_ways_in(
    strict: LiveService, monkeypatch: pytest.MonkeyPatch
) -> None:
    acme = api(strict, "acme")
    roster_token = upload_and_wait(acme, ROSTER, "week")

    def send(text: str) -> httpx.Response:
        return acme.post(
            "/api/UploadObservations", json={"rosterToken": roster_token, "Observations": text}
        )

    big = send(_lines(MAX_RATINGS + 1))
    assert big.status_code == 400 and "at most 40" in big.json()["detail"]
    assert send(_lines(MAX_RATINGS)).status_code == 200
    create_user(strict, "acme", "alice")
    browser = sign_in(strict, "alice")
    pooled: list[str] = []
    real = console_calibration.run_in_threadpool

    async def counting(func: Any, *args: Any, **kwargs: Any) -> Any:
        pooled.append(func.__name__)
        return await real(func, *args, **kwargs)

    monkeypatch.setattr(console_calibration, "run_in_threadpool", counting)

    def form(text: str) -> httpx.Response:
        page = browser.get("/console/calibration").text
        csrf = re.search(r'name="csrf_token" value="([^"]+)"', page)
        assert csrf
        return browser.post(
            "/console/calibration",
            data={"csrf_token": csrf.group(1), "roster": roster_token, "name": "x"},
            files={"observations": ("o.csv", text.encode(), "text/csv")},
        )

    try:
        refused = form(_lines(MAX_RATINGS + 1))
        assert refused.status_code == 400 and "at most 40" in refused.text
        assert pooled == ["_store_set"]  # parsed in the thread pool, not on the loop
        assert form(_lines(10)).status_code == 303  # the second set
        third = form(_lines(10))
        assert third.status_code == 409 and "stores 2 observation sets" in third.text
    finally:
        browser.close()
    over = send(_lines(10))
    assert over.status_code == 409
    assert over.headers["content-type"] == "application/problem+json"
    # another operator's allowance is its own
    globex = api(strict, "globex")
    theirs = upload_and_wait(globex, ROSTER, "week")
    mine = globex.post(
        "/api/UploadObservations", json={"rosterToken": theirs, "Observations": _lines(10)}
    )
    assert mine.status_code == 200
    acme.close()
    globex.close()


def test_report_cache_is_bounded_per_operator_and_in_total() -> None:
    cache: ReportCache[str] = ReportCache(per_operator=100, total=150)
    cache.put("b", ("t1", 0), "b1", 40)
    for i in range(10):  # operator a fills its share again and again
        cache.put("a", (f"a{i}", 0), f"a{i}", 60)
    assert cache.weight("a") == 60 and cache.get("a", ("a9", 0)) == "a9"
    assert cache.get("a", ("a0", 0)) is None
    assert cache.get("b", ("t1", 0)) == "b1"  # b kept: a stayed within its own share
    cache.put("c", ("c1", 0), "c1", 80)  # the total (150) evicts the least recent: a9
    assert cache.get("a", ("a9", 0)) is None and cache.get("b", ("t1", 0)) == "b1"
    cache.put("a", ("huge", 0), "h", 101)  # heavier than a share: never kept
    assert cache.get("a", ("huge", 0)) is None
    cache.discard("b", "t1")
    assert cache.get("b", ("t1", 0)) is None and cache.weight("b") == 0
