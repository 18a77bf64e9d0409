"""Fixtures for the operator console: the embedded app on uvicorn, users, sign-in."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from conftest import LiveService, live_service

PASSWORD = "correct horse battery"

#: two schedules, 9 required columns with a header; P1 has 3 duties, P2 one
ROSTER = (
    "Reference,OnDutyDate,OnDutyTime,StartAirport,OffDutyDate,OffDutyTime,EndAirport,"
    "HomeBase,TimeReference\r\n"
    "P1,01/03/2026,06:00,LHR,01/03/2026,14:30,JFK,LHR,2\r\n"
    "P1,03/03/2026,18:00,JFK,04/03/2026,06:30,LHR,LHR,2\r\n"
    "P1,06/03/2026,22:10,LHR,07/03/2026,07:00,LHR,LHR,1\r\n"
    "P2,02/03/2026,05:45,MAN,02/03/2026,13:10,MAN,MAN,1\r\n"
)
#: row 3 has an unknown airport, row 4 a 56.5 h duty; P3 (row 2) is fine
ROSTER_WITH_ERRORS = (
    "Reference,OnDutyDate,OnDutyTime,StartAirport,OffDutyDate,OffDutyTime,EndAirport,"
    "HomeBase,TimeReference\r\n"
    "P3,01/03/2026,06:00,LHR,01/03/2026,12:00,LHR,LHR,0\r\n"
    "P4,01/03/2026,06:00,XYZ,01/03/2026,09:00,LHR,LHR,0\r\n"
    "P5,01/03/2026,06:00,LHR,03/03/2026,14:30,JFK,LHR,0\r\n"
)


def embedded_routers() -> list[object]:
    """The routers ``vigil serve`` mounts besides the identity surface's."""
    from vigil.web.app import EMBEDDED_ROUTERS, _load_router

    return [_load_router(spec) for spec in EMBEDDED_ROUTERS]


@pytest.fixture
def service(tmp_path: Path) -> Iterator[LiveService]:
    """The embedded app (identity, scoring, upload with an in-thread worker, console)."""
    url = f"sqlite:///{tmp_path / 'vigil.db'}"
    with live_service(
        tmp_path,
        url,
        routers=embedded_routers(),
        worker_processes=0,
        worker_poll_interval=0.2,
    ) as live:
        yield live


def create_user(service: LiveService, operator: str, username: str) -> None:
    from vigil.store import repo

    with service.runtime.sessions.begin() as session:
        repo.create_console_user(
            session=session, operator=operator, username=username, password=PASSWORD
        )


def csrf_of(html: str) -> str:
    found = re.search(r'name="csrf_token" value="([^"]+)"', html)
    assert found, "page has no CSRF field"
    return found.group(1)


def sign_in(service: LiveService, username: str) -> httpx.Client:
    """An httpx client holding a signed-in console session."""
    client = httpx.Client(base_url=service.base_url, timeout=30)
    page = client.get("/console/login")
    assert page.status_code == 200
    answer = client.post(
        "/console/login",
        data={"username": username, "password": PASSWORD, "csrf_token": csrf_of(page.text)},
    )
    assert answer.status_code == 303, answer.text
    return client


@pytest.fixture
def alice(service: LiveService) -> Iterator[httpx.Client]:
    """User ``alice`` of operator ``acme``, signed in."""
    create_user(service, "acme", "alice")
    client = sign_in(service, "alice")
    try:
        yield client
    finally:
        client.close()


@pytest.fixture
def bob(service: LiveService) -> Iterator[httpx.Client]:
    """User ``bob`` of operator ``globex``, signed in."""
    create_user(service, "globex", "bob")
    client = sign_in(service, "bob")
    try:
        yield client
    finally:
        client.close()
