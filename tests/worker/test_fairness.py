"""Fair claims across operators on SQLite and PostgreSQL (docs/upload.md)."""

from __future__ import annotations

from pathlib import Path

import httpx
from sqlalchemy.orm import Session, sessionmaker

from vigil.store import uploads
from vigil.worker import jobs

from ._rosters import ROSTER


def queue(sessions: sessionmaker[Session], operator: str, name: str) -> int:
    with sessions.begin() as session:
        return uploads.create_upload(
            session=session, operator=operator, roster_name=name, roster_text=ROSTER
        ).id


def claim(sessions: sessionmaker[Session], owner: str = "w") -> jobs.ClaimedJob:
    with sessions.begin() as session:
        job = jobs.claim(session=session, owner=owner, lease_seconds=60)
    assert job is not None
    return job


def finish(sessions: sessionmaker[Session], job: jobs.ClaimedJob) -> None:
    with sessions.begin() as session:
        jobs.complete(session=session, job=job, errors=[], scores=b"x", model_version="m")


def test_one_worker_alternates_between_operators(sessions: sessionmaker[Session]) -> None:
    """A sequential worker: 'big' queued 4 rosters before 'small' queued 2."""
    big = [queue(sessions, "big", f"b{i}") for i in range(4)]
    small = [queue(sessions, "small", f"s{i}") for i in range(2)]
    order = []
    for _ in range(6):
        job = claim(sessions)
        order.append(job.id)
        finish(sessions, job)
    # FIFO would give big[0..3] before small: small waits for every one of big's rosters
    assert order == [big[0], small[0], big[1], small[1], big[2], big[3]]


def test_busy_operator_does_not_take_every_worker(sessions: sessionmaker[Session]) -> None:
    """Concurrent workers: 'big' has a roster in processing; the next claim serves others."""
    big = [queue(sessions, "big", f"b{i}") for i in range(3)]
    first = claim(sessions, "w1")
    assert first.id == big[0]
    late = queue(sessions, "late", "l0")
    assert claim(sessions, "w2").id == late  # not big[1], although older
    assert claim(sessions, "w3").id == big[1]  # everyone busy once: oldest of the rest
    with sessions.begin() as session:
        assert jobs.claim(session=session, owner="w4", lease_seconds=60).id == big[2]
        assert jobs.claim(session=session, owner="w5", lease_seconds=60) is None


def test_single_operator_stays_fifo(sessions: sessionmaker[Session]) -> None:
    ids = [queue(sessions, "acme", f"r{i}") for i in range(3)]
    got = []
    for _ in ids:
        job = claim(sessions)
        got.append(job.id)
        finish(sessions, job)
    assert got == ids


def test_operator_quota_is_429_and_frees_up(tmp_path: Path, sqlite_url: str) -> None:
    """VIGIL_MAX_QUEUED_PER_OPERATOR: one operator cannot queue without bound."""
    from conftest import live_service
    from vigil.web.routes import upload

    with live_service(
        tmp_path, sqlite_url, routers=[upload.router], worker_threads=0, max_queued_per_operator=2
    ) as svc:
        greedy = svc.create_client(operator="greedy", scopes="upload")
        other = svc.create_client(operator="other", scopes="upload")
        url = f"{svc.base_url}/api/UploadRoster"
        tokens = [httpx.post(url, json={"RosterData": ROSTER}, auth=greedy) for _ in range(2)]
        assert [t.status_code for t in tokens] == [200, 200]
        refused = httpx.post(url, json={"RosterData": ROSTER}, auth=greedy)
        assert refused.status_code == 429
        assert refused.headers["content-type"] == "application/problem+json"
        assert "2 rosters queued or processing" in refused.json()["detail"]
        assert refused.headers["retry-after"] == "60"
        assert httpx.post(url, json={"RosterData": ROSTER}, auth=other).status_code == 200
        token = tokens[0].json()["rosterToken"]
        deleted = httpx.delete(
            f"{svc.base_url}/api/DeleteRoster", params={"rosterToken": token}, auth=greedy
        )
        assert deleted.status_code == 204
        assert httpx.post(url, json={"RosterData": ROSTER}, auth=greedy).status_code == 200
