"""Faults: the database away for a while, a full disk on upload.

- Database unavailable → 503 with ``Retry-After``, and recovery by itself once it is back
  (no restart): on PostgreSQL the service's database refuses connections and its
  backends are terminated (``pg_terminate_backend``); on SQLite another process holds
  an exclusive lock on the file.
- Disk full on upload → 507 with ``Retry-After``, a clear message, and nothing stored;
  simulated with SQLite's ``max_page_count`` (a real full file system needs a mount).
- Worker crash: covered by ``tests/worker/test_process.py`` (a ``vigil worker`` killed
  with SIGKILL mid-job; the roster completes after a restart) and
  ``tests/worker/test_jobs.py::test_lapsed_lease_requeues_then_fail_after_three``.
"""

from __future__ import annotations

import sqlite3
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import event, text

from conftest import PG_SERVER_URL, LiveService, pg_admin

from .conftest import ROSTER, WIRE_SCOPES, get_token, serve_embedded, wait_finished

SCORE_BODY = {"RosterData": ROSTER, "SleepData": [], "DateFormat": "dmy", "PreferredScale": "KSS"}


def _token_request(service: LiveService, client: tuple[str, str]) -> httpx.Response:
    return httpx.post(
        f"{service.base_url}/connect/token",
        data={"grant_type": "client_credentials", "scope": WIRE_SCOPES["upload"]},
        auth=client,
        timeout=60,
    )


def _assert_unavailable(response: httpx.Response) -> None:
    assert response.status_code == 503, response.text
    assert int(response.headers["retry-after"]) > 0
    assert response.headers["content-type"] == "application/problem+json"
    assert "unavailable" in response.json()["detail"]


def _until_ok(call: Any, timeout: float = 30.0) -> httpx.Response:
    """Retry ``call`` as a client honouring 503 would (briefly), until it is not 503."""
    deadline = time.monotonic() + timeout
    while True:
        response: httpx.Response = call()
        if response.status_code != 503 or time.monotonic() > deadline:
            return response
        time.sleep(0.2)


@pytest.fixture
def pg_database() -> Iterator[tuple[str, Any]]:
    """A database of its own on the test server (others' tests keep theirs), dropped after."""
    admin = pg_admin()
    name = f"vigil_fault_{uuid.uuid4().hex[:12]}"
    with admin:
        admin.execute(f'CREATE DATABASE "{name}"')
        try:
            yield PG_SERVER_URL.rsplit("/", 1)[0] + f"/{name}", admin
        finally:
            admin.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS true')
            admin.execute(f'DROP DATABASE "{name}" WITH (FORCE)')


@pytest.mark.integration
def test_postgresql_outage_is_503_then_recovers_by_itself(
    tmp_path: Path, pg_database: tuple[str, Any]
) -> None:
    url, admin = pg_database
    name = url.rsplit("/", 1)[1]
    with serve_embedded(tmp_path, url) as service:
        client = service.create_client(scopes="fatigue risk upload")
        fatigue = get_token(service, "fatigue")
        upload = {"Authorization": f"Bearer {get_token(service, 'upload')}"}
        base = service.base_url
        # the outage: no new connections, and every open one is cut
        admin.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS false')
        admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s",
            (name,),
        )
        _assert_unavailable(_token_request(service, client))
        _assert_unavailable(
            httpx.post(
                f"{base}/api/UploadRoster", json={"RosterData": ROSTER}, headers=upload, timeout=60
            )
        )
        _assert_unavailable(httpx.get(f"{base}/api/ListRosters", headers=upload, timeout=60))
        not_ready = httpx.get(f"{base}/readyz", timeout=60)
        assert not_ready.status_code == 503 and not_ready.headers["retry-after"] == "5"
        assert httpx.get(f"{base}/healthz", timeout=10).status_code == 200  # alive, not ready
        # scoring needs no database: tokens verify against the cached key set
        scored = httpx.post(
            f"{base}/api/Processor/ProcessFatigue",
            json=SCORE_BODY,
            headers={"Authorization": f"Bearer {fatigue}"},
            timeout=60,
        )
        assert scored.status_code == 200 and len(scored.json()["scheduleScores"]) == 2
        # back again: the same process answers without a restart
        admin.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS true')
        assert _until_ok(lambda: _token_request(service, client)).status_code == 200
        again = {"json": {"RosterData": ROSTER}, "headers": upload}
        response = _until_ok(lambda: httpx.post(f"{base}/api/UploadRoster", **again))
        assert response.status_code == 200, response.text
        with httpx.Client(base_url=base, headers=upload, timeout=60) as http:
            token = response.json()["rosterToken"]
            assert wait_finished(http, token) == "completedsuccessfully"  # the worker too
        assert httpx.get(f"{base}/readyz", timeout=60).status_code == 200


def test_sqlite_locked_is_503_then_recovers(tmp_path: Path) -> None:
    """Another process holds the file's write lock past the 5 s busy timeout."""
    path = tmp_path / "vigil.db"
    with serve_embedded(tmp_path, f"sqlite:///{path}") as service:
        upload = {"Authorization": f"Bearer {get_token(service, 'upload')}"}
        url = f"{service.base_url}/api/UploadRoster"
        other = sqlite3.connect(path, timeout=1, isolation_level=None)
        try:
            other.execute("BEGIN EXCLUSIVE")
            _assert_unavailable(
                httpx.post(
                    url, json={"RosterData": ROSTER, "RosterName": "a"}, headers=upload, timeout=60
                )
            )
        finally:
            other.execute("ROLLBACK")
            other.close()
        response = httpx.post(
            url, json={"RosterData": ROSTER, "RosterName": "a"}, headers=upload, timeout=60
        )
        assert response.status_code == 200, response.text  # the refused one left nothing
        with httpx.Client(base_url=service.base_url, headers=upload, timeout=60) as http:
            assert wait_finished(http, response.json()["rosterToken"]) == "completedsuccessfully"


def _roster_rows(service: LiveService) -> int:
    with service.runtime.engine.connect() as conn:
        return int(conn.execute(text("SELECT count(*) FROM roster_upload")).scalar_one())


def test_disk_full_on_upload_is_507_and_stores_nothing(tmp_path: Path) -> None:
    path = tmp_path / "vigil.db"
    with serve_embedded(tmp_path, f"sqlite:///{path}") as service:
        upload = {"Authorization": f"Bearer {get_token(service, 'upload')}"}
        url = f"{service.base_url}/api/UploadRoster"
        assert httpx.post(url, json={"RosterData": ROSTER}, headers=upload).status_code == 200
        before = _roster_rows(service)
        engine = service.runtime.engine
        with engine.connect() as conn:
            pages = int(conn.execute(text("PRAGMA page_count")).scalar_one())
        limit = {"pages": pages + 8}  # ~32 KiB of room: a 2 MB roster cannot fit

        def cap(dbapi_connection: Any, _record: Any) -> None:
            dbapi_connection.execute(f"PRAGMA max_page_count = {limit['pages']}")

        event.listen(engine, "connect", cap)
        engine.dispose()  # new connections get the cap
        try:
            big = "\r\n".join([ROSTER] + [ROSTER.split("\r\n")[1]] * 40_000)
            response = httpx.post(
                url, json={"RosterData": big, "RosterName": "big"}, headers=upload, timeout=60
            )
            assert response.status_code == 507, response.text
            assert int(response.headers["retry-after"]) > 0
            assert "nothing was stored" in response.json()["detail"]
            assert _roster_rows(service) == before  # rolled back whole
            listed = httpx.get(f"{service.base_url}/api/ListRosters", headers=upload).json()
            assert "big" not in {r["rosterName"] for r in listed["rosters"]}
            assert httpx.get(f"{service.base_url}/readyz").status_code == 200
        finally:
            limit["pages"] = 2**31 - 2  # room again (the SQLite maximum)
            engine.dispose()
        response = httpx.post(
            url, json={"RosterData": big, "RosterName": "big"}, headers=upload, timeout=60
        )
        assert response.status_code == 200, response.text
        assert _roster_rows(service) == before + 1
