"""Job states, claims and leases on SQLite and PostgreSQL (contract §5, §8)."""

from __future__ import annotations

import threading
from collections import Counter
from datetime import timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from vigil.store import uploads
from vigil.store.tables import RosterUpload, utcnow
from vigil.worker import jobs
from vigil.worker.jobs import JobStatus
from vigil.worker.run import Worker

from ._rosters import HEADER, ROSTER


def add(sessions: sessionmaker[Session], name: str, roster: str = ROSTER, **kw: str) -> int:
    with sessions.begin() as session:
        return uploads.create_upload(
            session=session, operator="acme", roster_name=name, roster_text=roster, **kw
        ).id


def row(sessions: sessionmaker[Session], upload_id: int) -> RosterUpload:
    with sessions() as session:
        found = session.get(RosterUpload, upload_id)
        assert found is not None
        return found


def test_claim_complete_success_and_errors(sessions: sessionmaker[Session]) -> None:
    first = add(sessions, "a")
    second = add(sessions, "b")
    assert row(sessions, first).status == JobStatus.QUEUED
    with sessions.begin() as session:
        job = jobs.claim(session=session, owner="w1", lease_seconds=60)
    assert job is not None and job.id == first  # oldest first
    claimed = row(sessions, first)
    assert (claimed.status, claimed.attempts, claimed.lease_owner) == ("processing", 1, "w1")
    assert claimed.lease_expires_at is not None and claimed.lease_expires_at > utcnow()
    with sessions.begin() as session:
        done = jobs.complete(session=session, job=job, errors=[], scores=b"x", model_version="m")
    assert done == JobStatus.COMPLETED_SUCCESSFULLY
    finished = row(sessions, first)
    assert finished.finished_at is not None and finished.lease_owner is None
    with sessions.begin() as session:
        job2 = jobs.claim(session=session, owner="w1", lease_seconds=60)
        assert job2 is not None and job2.id == second
        status = jobs.complete(
            session=session, job=job2, errors=["2|P1|bad"], scores=b"", model_version="m"
        )
    assert status == JobStatus.COMPLETED_WITH_ERRORS
    with sessions.begin() as session:
        assert jobs.claim(session=session, owner="w1", lease_seconds=60) is None
        result = uploads.get_result(session=session, upload_id=second)
        assert result is not None and result.errors_json == '["2|P1|bad"]'


def test_lapsed_lease_requeues_then_fails_after_three(sessions: sessionmaker[Session]) -> None:
    upload_id = add(sessions, "a")
    for attempt in (1, 2, 3):
        with sessions.begin() as session:
            job = jobs.claim(session=session, owner=f"w{attempt}", lease_seconds=60)
            assert job is not None and job.attempt == attempt
        with sessions.begin() as session:  # not lapsed yet: nothing happens
            assert jobs.reap_lapsed(session=session) == (0, 0)
        later = utcnow() + timedelta(seconds=61)
        with sessions.begin() as session:
            assert jobs.renew(session=session, job=job, lease_seconds=60)  # still held
            counts = jobs.reap_lapsed(session=session, now=later + timedelta(seconds=61))
        expected = JobStatus.FAILED if attempt == 3 else JobStatus.QUEUED
        assert counts == ((0, 1) if attempt == 3 else (1, 0))
        assert row(sessions, upload_id).status == expected
        # the dead worker's late result is discarded: it no longer holds the lease
        with sessions.begin() as session:
            assert (
                jobs.complete(session=session, job=job, errors=[], scores=b"", model_version="m")
                is None
            )
    final = row(sessions, upload_id)
    assert final.finished_at is not None and "lease" in (final.error_summary or "")


def test_server_faults_retry_then_fail(sessions: sessionmaker[Session]) -> None:
    """A roster the worker cannot process (bad stored date format): 3 attempts, failed."""
    upload_id = add(sessions, "a", date_format="ymd")
    seen: list[JobStatus | None] = []
    worker = Worker(sessions, on_processed=lambda job, status: seen.append(status))
    while worker.run_once():
        pass
    assert seen == [JobStatus.QUEUED, JobStatus.QUEUED, JobStatus.FAILED]
    failed = row(sessions, upload_id)
    assert (failed.status, failed.attempts) == ("failed", 3)
    assert "ValueError" in (failed.error_summary or "")


def test_lost_lease_cannot_store(sessions: sessionmaker[Session]) -> None:
    upload_id = add(sessions, "a")
    with sessions.begin() as session:
        old = jobs.claim(session=session, owner="slow", lease_seconds=1)
    assert old is not None
    with sessions.begin() as session:
        jobs.reap_lapsed(session=session, now=utcnow() + timedelta(seconds=5))
        new = jobs.claim(session=session, owner="fast", lease_seconds=60)
    assert new is not None and new.id == upload_id and new.attempt == 2
    with sessions.begin() as session:
        assert not jobs.renew(session=session, job=old, lease_seconds=60)
        assert jobs.record_fault(session=session, job=old, message="x") is None
        assert (
            jobs.complete(session=session, job=old, errors=[], scores=b"", model_version="m")
            is None
        )
        assert jobs.complete(session=session, job=new, errors=[], scores=b"", model_version="m")


def test_worker_scores_and_deleted_roster_is_discarded(sessions: sessionmaker[Session]) -> None:
    keep = add(sessions, "keep")
    gone = add(sessions, "gone")
    with sessions.begin() as session:
        job = jobs.claim(session=session, owner="w", lease_seconds=60)
        assert job is not None and job.id == keep
        token = session.scalar(select(RosterUpload.token).where(RosterUpload.id == gone))
        assert token is not None and uploads.delete_upload(
            session=session, operator="acme", token=token
        )
    worker = Worker(sessions)
    assert worker.process(job) == JobStatus.COMPLETED_SUCCESSFULLY
    assert not worker.run_once()  # the deleted roster is not processed


def test_concurrent_workers_process_each_roster_once(
    sessions: sessionmaker[Session], db_url: str
) -> None:
    """Four workers, each with its own engine, race on 16 tiny rosters."""
    from vigil.store.db import make_engine, make_session_factory

    tiny = "\r\n".join([HEADER, "P1,02/03/2026,06:00,LHR,02/03/2026,09:30,LHR,LHR,0"])
    ids = [add(sessions, f"r{i}", tiny) for i in range(16)]
    processed: list[tuple[int, str]] = []
    lock = threading.Lock()

    def record(job: jobs.ClaimedJob, status: JobStatus | None) -> None:
        assert status == JobStatus.COMPLETED_SUCCESSFULLY
        with lock:
            processed.append((job.id, job.owner))

    engines = [make_engine(db_url) for _ in range(4)]
    workers = [
        Worker(make_session_factory(e), name=f"w{i}", on_processed=record)
        for i, e in enumerate(engines)
    ]
    stop = threading.Event()
    threads = [
        threading.Thread(target=w.run, args=(stop,), kwargs={"until_idle": True}) for w in workers
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    for e in engines:
        e.dispose()
    counts = Counter(i for i, _ in processed)
    assert sorted(counts) == sorted(ids) and set(counts.values()) == {1}
    with sessions() as session:
        rows = session.scalars(select(RosterUpload)).all()
        assert {(r.status, r.attempts) for r in rows} == {("completedsuccessfully", 1)}
    assert len({owner for _, owner in processed}) >= 2  # they really raced


def test_progress_is_reported_per_chunk_and_complete_at_the_end(
    sessions: sessionmaker[Session],
) -> None:
    from vigil.worker.run import request_for, score_roster
    from vigil.worker.scorers import InlineScorer

    upload_id = add(sessions, "a")
    with sessions.begin() as session:
        job = jobs.claim(session=session, owner="w1", lease_seconds=60)
    assert job is not None
    seen: list[tuple[int, int]] = []
    score_roster(
        request_for(job),
        chunk_size=1,
        local=InlineScorer(),
        progress=lambda d, t: seen.append((d, t)),
    )
    assert seen == [(0, 3), (1, 3), (2, 3), (3, 3)]  # P1, P2, P3: one chunk each
    with sessions.begin() as session:
        assert jobs.report_progress(session=session, job=job, done=1, total=3)
    assert (row(sessions, upload_id).progress_done, row(sessions, upload_id).progress_total) == (
        1,
        3,
    )
    with sessions.begin() as session:
        jobs.complete(session=session, job=job, errors=[], scores=b"x", model_version="m")
        assert not jobs.report_progress(session=session, job=job, done=2, total=3)  # not held
    assert row(sessions, upload_id).progress_done == 3
    worker = Worker(sessions, chunk_size=1)
    second = add(sessions, "b")
    assert worker.run_once()
    assert (row(sessions, second).progress_done, row(sessions, second).progress_total) == (3, 3)


def test_retention_default_is_enforced_by_the_worker(sessions: sessionmaker[Session]) -> None:
    """90 days by default (docs/upload.md "Retention"); a worker purges at its first loop."""
    from vigil.config.settings import Settings
    from vigil.worker.run import PoolSettings

    days = PoolSettings.of(Settings.from_mapping({})).retention_days
    assert days == 90
    now = utcnow()
    ids = [add(sessions, name) for name in ("old", "recent", "queued")]
    with sessions.begin() as session:
        for upload_id, age in zip(ids[:2], (days + 1, days - 1), strict=True):
            found = session.get(RosterUpload, upload_id)
            assert found is not None
            found.status, found.finished_at = "completedsuccessfully", now - timedelta(days=age)
    worker = Worker(sessions, retention_days=days)
    worker.purge(0.0)
    with sessions() as session:
        left = sorted(u.roster_name for u in uploads.list_uploads(session=session, operator="acme"))
    assert left == ["queued", "recent"]
