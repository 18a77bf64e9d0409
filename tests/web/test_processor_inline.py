"""Small rosters are scored on the event loop, larger ones in the thread pool:
both give the same bytes, and the choice follows the roster's size."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from vigil.roster.synthetic import generate_roster
from vigil.web.routes import processor


def _token(service: Any, scope: str) -> str:
    client_id, secret = service.create_client(scopes="fatigue risk")
    answer = httpx.post(
        f"{service.base_url}/connect/token",
        data={"grant_type": "client_credentials", "scope": scope},
        auth=(client_id, secret),
    )
    assert answer.status_code == 200, answer.text
    return str(answer.json()["access_token"])


def test_loop_and_thread_pool_give_the_same_answers(
    embedded_service: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    roster = generate_roster(1, 28, seed=3)
    assert processor.row_count(roster) <= processor.INLINE_ROWS  # a month: on the loop
    threads: list[str] = []
    real = processor.run_in_threadpool

    async def counting(func: Any, *args: Any, **kwargs: Any) -> Any:
        threads.append(func.__name__)
        return await real(func, *args, **kwargs)

    monkeypatch.setattr(processor, "run_in_threadpool", counting)
    headers = {"Authorization": f"Bearer {_token(embedded_service, 'svc_fast_safe_risk_api')}"}
    request = {"RosterData": roster, "SleepData": [], "DateFormat": "dmy", "PreferredScale": "KP"}
    url = f"{embedded_service.base_url}/api/Processor/ProcessFatigueRisk?includeSleep=true"

    def call() -> httpx.Response:
        return httpx.post(url, json=request, headers=headers, timeout=60)

    on_loop = call()
    assert on_loop.status_code == 200 and threads == []
    monkeypatch.setattr(processor, "INLINE_ROWS", 0)  # every roster to the thread pool
    in_thread = call()
    assert threads == ["_score"]
    assert in_thread.status_code == 200
    assert in_thread.content == on_loop.content
    assert in_thread.json()["scheduleScores"][0]["riskScores"]
    # many sleep records go to the thread pool whatever the roster's size
    monkeypatch.setattr(processor, "INLINE_ROWS", 64)
    request["SleepData"] = [
        {
            "ScheduleName": "nobody",
            "SleepStart": f"2026-01-{day:02d}T22:00:00Z",
            "SleepEnd": f"2026-01-{day + 1:02d}T06:00:00Z",
        }
        for day in range(1, 30)
    ] * 3
    assert call().status_code == 200
    assert threads == ["_score", "_score"]
    # a few huge lines go to the thread pool too: the loop is never held by a long parse
    request["SleepData"] = []
    request["RosterData"] = roster + "\r\n" + "X" * (processor.INLINE_CHARS + 1)
    assert processor.row_count(request["RosterData"]) <= processor.INLINE_ROWS
    huge = call()  # the line is reported as a row error, in the body (contract)
    assert huge.status_code == 200 and "Row has 1 columns" in huge.text
    assert threads == ["_score", "_score", "_score"]
