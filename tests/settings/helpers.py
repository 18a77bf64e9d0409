"""Shared pieces of the settings and calibration tests: a live service and API calls."""

from __future__ import annotations

import time
from typing import Any

import httpx

from conftest import LiveService

#: one crew, three duties; StartAirport of the second duty is ZZQ, an airport only the
#: operator's own table knows (row 3); CrewPrepTime blank everywhere
ROSTER_ZZQ = (
    "Reference,OnDutyDate,OnDutyTime,StartAirport,OffDutyDate,OffDutyTime,EndAirport,"
    "HomeBase,TimeReference\r\n"
    "P1,01/03/2026,06:00,OSL,01/03/2026,10:30,ZZQ,OSL,0\r\n"
    "P1,02/03/2026,05:00,ZZQ,02/03/2026,09:00,OSL,OSL,2\r\n"
    "P1,04/03/2026,06:00,OSL,04/03/2026,14:00,OSL,OSL,1\r\n"
)
#: the same crew on public airports only, 34 columns with CrewPrepTime blank (col 32)
ROSTER = (
    "Reference,OnDutyDate,OnDutyTime,StartAirport,OffDutyDate,OffDutyTime,EndAirport,"
    "HomeBase,TimeReference,CrewPrepTime\r\n"
    "P1,01/03/2026,06:00,LHR,01/03/2026,14:30,JFK,LHR,2,\r\n"
    "P1,03/03/2026,18:00,JFK,04/03/2026,06:30,LHR,LHR,2,\r\n"
    "P1,06/03/2026,05:10,LHR,06/03/2026,12:00,LHR,LHR,1,\r\n"
    "P2,02/03/2026,05:45,MAN,02/03/2026,13:10,MAN,MAN,1,60\r\n"
)
ZZQ = {"code": "ZZQ", "name": "Test field", "tz": "Europe/Oslo", "lat": 60.2, "lon": 11.1}


def api(service: LiveService, operator: str) -> httpx.Client:
    """An API client of ``operator`` with every scope (HTTP Basic, contract §2)."""
    cid, secret = service.create_client(operator=operator)
    return httpx.Client(base_url=service.base_url, auth=(cid, secret), timeout=60)


def score(client: httpx.Client, roster: str, *, risk: bool = False) -> httpx.Response:
    path = "ProcessFatigueRisk" if risk else "ProcessFatigue"
    return client.post(
        f"/api/Processor/{path}",
        json={"RosterData": roster, "SleepData": [], "DateFormat": "dmy", "PreferredScale": "KSS"},
    )


def upload_and_wait(client: httpx.Client, roster: str, name: str) -> str:
    """Upload ``roster`` and wait until it is processed; its token."""
    answer = client.post("/api/UploadRoster", json={"RosterData": roster, "RosterName": name})
    assert answer.status_code == 200, answer.text
    token = str(answer.json()["rosterToken"])
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        status = client.get(
            "/api/GetResults", params={"rosterToken": token, "dataKey": "status"}
        ).json()["status"]
        if status.startswith("completed") or status == "failed":
            assert status.startswith("completed"), status
            return token
        time.sleep(0.2)
    raise AssertionError("the roster was not processed in time")


def save(service: LiveService, operator: str, changes: dict[str, Any], who: str = "test") -> int:
    """Change ``operator``'s settings through the store; the new version."""
    from vigil.settings import merge_settings
    from vigil.store import operator_settings as store

    with service.runtime.sessions.begin() as session:
        current = store.current_settings(session=session, operator=operator)
        new = merge_settings(current.settings, changes)
        return store.save_settings(
            session=session, operator=operator, settings=new, changed_by=who
        ).version
