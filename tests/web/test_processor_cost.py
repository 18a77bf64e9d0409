"""A scoring call's cost follows the days it simulates, not its rows or text (docs/hardening.md).

An attack found that 31 References with two 6-h duties 199 years apart (63 rows, 3.4 KB)
were scored on the event loop for 9 s of CPU. Now: spans over 400 days are row errors,
work is estimated in simulated crew-days before scoring, only small work stays on the
loop, a call's work is capped (413), and each operator has its own places in the pool.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from conftest import live_service
from vigil.web._operator_gate import GateFull, OperatorGate
from vigil.web.routes import processor


def _token(service: Any, operator: str = "acme") -> str:
    client_id, secret = service.create_client(scopes="fatigue risk", operator=operator)
    answer = httpx.post(
        f"{service.base_url}/connect/token",
        data={"grant_type": "client_credentials", "scope": "svc_fast_safe_api"},
        auth=(client_id, secret),
    )
    assert answer.status_code == 200, answer.text
    return str(answer.json()["access_token"])


def _pairs(n: int, second: str, end: str = "LHR") -> str:
    """``n`` References, each a duty on 1 Jan 2026 and one on ``second`` (ending at ``end``)."""
    rows = []
    for i in range(n):
        rows.append(f"R{i},01/01/2026,06:00,LHR,01/01/2026,12:00,{end},LHR,0")
        rows.append(f"R{i},{second},06:00,{end},{second},12:00,{end},LHR,0")
    return "\r\n".join(rows)


@pytest.fixture
def service(tmp_path: Path) -> Iterator[Any]:
    from vigil.web.app import EMBEDDED_ROUTERS, _load_router

    routers = [_load_router(spec) for spec in EMBEDDED_ROUTERS]
    with live_service(
        tmp_path,
        f"sqlite:///{tmp_path / 'vigil.db'}",
        routers=routers,
        worker_processes=0,
        sync_max_crew_days=5_000,
    ) as live:
        yield live


def _post(service: Any, token: str, roster: str) -> httpx.Response:
    return httpx.post(
        f"{service.base_url}/api/Processor/ProcessFatigue",
        json={"RosterData": roster, "SleepData": [], "DateFormat": "dmy", "PreferredScale": "KSS"},
        headers={"Authorization": f"Bearer {token}"},
        timeout=600,  # a cold Numba cache compiles first
    )


def test_work_not_rows_decides_the_loop_and_the_limit(
    service: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    threads: list[str] = []
    real = processor.run_in_threadpool

    async def counting(func: Any, *args: Any, **kwargs: Any) -> Any:
        threads.append(func.__name__)
        return await real(func, *args, **kwargs)

    monkeypatch.setattr(processor, "run_in_threadpool", counting)
    token = _token(service)
    # 199 years apart: one span error per schedule, nothing simulated, on the loop
    ancient = _post(service, token, _pairs(31, "01/01/2100").replace("/2026", "/1901"))
    assert ancient.status_code == 200
    body = ancient.json()
    assert body["scheduleScores"] == [] and len(body["errors"]) == 31
    assert all("a schedule may span at most 400 days" in e for e in body["errors"])
    assert threads == []
    # 10 References x 2 duties 300 days apart, the gap spent away (JFK): 20 rows, but
    # 10 x 300 simulated crew-days: scored in the pool, not on the loop
    away = _post(service, token, _pairs(10, "28/10/2026", end="JFK"))
    assert away.status_code == 200 and len(away.json()["scheduleScores"]) == 10
    assert threads == ["_score"]
    # the same gap at home is cut (reference §9.4 steady state): small work, on the loop
    home = _post(service, token, _pairs(10, "28/10/2026"))
    assert home.status_code == 200 and len(home.json()["scheduleScores"]) == 10
    assert threads == ["_score"]
    # 20 such References: 6,000 crew-days > VIGIL_SYNC_MAX_CREW_DAYS (5,000 here): 413
    refused = _post(service, token, _pairs(20, "28/10/2026", end="JFK"))
    assert refused.status_code == 413
    assert refused.headers["content-type"] == "application/problem+json"
    assert "simulated crew-days" in refused.json()["detail"]


def test_gate_bounds_one_operator_and_never_the_others() -> None:
    async def run() -> None:
        gate = OperatorGate(limit=1, queue=1)
        release = asyncio.Event()
        order: list[str] = []

        async def call(operator: str, name: str) -> None:
            async with gate.slot(operator):
                order.append(name)
                await release.wait()

        first = asyncio.create_task(call("a", "a1"))
        await asyncio.sleep(0)
        waiting = asyncio.create_task(call("a", "a2"))
        await asyncio.sleep(0)
        with pytest.raises(GateFull):  # one running, one waiting: the third is refused
            async with gate.slot("a"):
                pass
        other = asyncio.create_task(call("b", "b1"))  # another operator is not held
        await asyncio.sleep(0)
        assert order == ["a1", "b1"] and gate.running("a") == 1
        release.set()
        await asyncio.gather(first, waiting, other)
        assert order == ["a1", "b1", "a2"]
        assert gate.running("a") == 0 and gate.running("b") == 0

    asyncio.run(run())


def test_a_cancelled_waiter_gives_its_place_back() -> None:
    async def run() -> None:
        gate = OperatorGate(limit=1, queue=2)
        hold = asyncio.Event()

        async def call() -> None:
            async with gate.slot("a"):
                await hold.wait()

        first = asyncio.create_task(call())
        await asyncio.sleep(0)
        second = asyncio.create_task(call())
        await asyncio.sleep(0)
        second.cancel()
        hold.set()
        await first
        with pytest.raises(asyncio.CancelledError):
            await second
        assert gate.running("a") == 0
        async with gate.slot("a"):
            assert gate.running("a") == 1

    asyncio.run(run())
