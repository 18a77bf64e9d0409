"""Roster summaries beside the next roster: a worker with a summariser claims
and stores the next roster without waiting for the last one's summary, and every summary
is built in the end; a stopped pool drops only the queued ones (built on first view)."""

from __future__ import annotations

import logging
import os
import threading
import time
from typing import Any

import orjson
import pytest
from sqlalchemy.orm import Session, sessionmaker

from vigil.domain import DateFormat
from vigil.fleet import packed
from vigil.fleet.stored import WORKER_SUMMARIES, Summaries, SummaryBuild, build
from vigil.results.compact import unpack
from vigil.roster.synthetic import generate_airline_roster
from vigil.scoring.service import ScoreRequest
from vigil.store import results as results_store
from vigil.store import uploads
from vigil.store.tables import RosterResult, RosterUpload
from vigil.worker.jobs import JobStatus
from vigil.worker.run import Worker, score_roster
from vigil.worker.scorers import InlineScorer, ProcessScorer
from vigil.worker.summaries import Summariser


def _upload(sessions: sessionmaker[Session], name: str, seed: int) -> int:
    with sessions.begin() as session:
        return uploads.create_upload(
            session=session,
            operator="acme",
            roster_name=name,
            roster_text=generate_airline_roster(6, 14, seed=seed),
        ).id


def _state(sessions: sessionmaker[Session], upload_id: int) -> tuple[str, bool]:
    """The roster's status and whether its summary is stored."""
    with sessions() as session:
        upload = session.get(RosterUpload, upload_id)
        result = session.get(RosterResult, upload_id)
        assert upload is not None
        return upload.status, result is not None and result.summary_json is not None


def test_the_next_roster_does_not_wait_for_the_last_summary(
    sessions: sessionmaker[Session],
) -> None:
    first, second = _upload(sessions, "a", 1), _upload(sessions, "b", 2)
    summaries = Summariser()
    gate = threading.Event()
    summaries.submit(gate.wait, "the gate")  # holds the summariser's one thread
    worker = Worker(sessions, chunk_size=4, summaries=summaries, record_summary=WORKER_SUMMARIES)
    try:
        assert worker.run_once() and worker.run_once()  # both claimed, scored, stored
        # the first finished with the second queued: its summary waits for the summariser
        assert _state(sessions, first) == (JobStatus.COMPLETED_SUCCESSFULLY, False)
        # the second finished with nothing queued: stored with its result, delaying no one
        assert _state(sessions, second) == (JobStatus.COMPLETED_SUCCESSFULLY, True)
        gate.set()
        summaries.drain()
        assert _state(sessions, first) == (JobStatus.COMPLETED_SUCCESSFULLY, True)
    finally:
        gate.set()
        summaries.close()


def test_with_nothing_queued_the_roster_finishes_with_its_summary(
    sessions: sessionmaker[Session],
) -> None:
    """The roster reads as finished only with its dashboard's figures, even while the
    summariser is busy: the dashboard opened at completion reads them (no build)."""
    upload_id = _upload(sessions, "a", 4)
    summaries = Summariser()
    gate = threading.Event()
    summaries.submit(gate.wait, "the gate")  # a busy summariser
    seen: list[tuple[str, bool]] = []
    worker = Worker(
        sessions,
        chunk_size=4,
        summaries=summaries,
        record_summary=WORKER_SUMMARIES,
        on_processed=lambda job, status: seen.append(_state(sessions, upload_id)),
    )
    try:
        assert worker.run_once()
        assert seen == [(JobStatus.COMPLETED_SUCCESSFULLY, True)]
    finally:
        gate.set()
        summaries.close()


def test_without_a_summariser_the_summary_is_stored_before_process_returns(
    sessions: sessionmaker[Session],
) -> None:
    upload_id = _upload(sessions, "a", 3)
    assert Worker(sessions, chunk_size=4, record_summary=WORKER_SUMMARIES).run_once()
    assert _state(sessions, upload_id) == (JobStatus.COMPLETED_SUCCESSFULLY, True)


def test_close_finishes_the_running_build_and_drops_the_queued() -> None:
    summaries = Summariser()
    started, gate = threading.Event(), threading.Event()
    ran: list[str] = []

    def running() -> None:
        started.set()
        gate.wait()
        ran.append("running")

    summaries.submit(running, "the running one")
    summaries.submit(lambda: ran.append("queued"), "the queued one")
    assert started.wait(10)
    threading.Timer(0.2, gate.set).start()
    summaries.close()  # waits for the running build only
    assert ran == ["running"]


def test_a_summary_submitted_after_close_is_dropped_not_raised(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A worker that outlived the pool's stop timeout stores its roster, then submits its
    summary to a closed summariser: the summary is left to its first view and the worker
    gets no error (its results are already committed)."""
    summaries = Summariser()
    summaries.close()
    ran: list[int] = []
    with caplog.at_level(logging.INFO, logger="vigil.worker.summaries"):
        summaries.submit(lambda: ran.append(1), "roster 9")
    assert ran == []
    assert [r.getMessage() for r in caplog.records] == [
        "summary of roster 9 left to its first view (the pool has stopped)"
    ]


def test_a_failed_build_is_logged_and_the_next_still_runs(
    caplog: pytest.LogCaptureFixture,
) -> None:
    summaries = Summariser()
    ran: list[int] = []

    def fail() -> None:
        raise RuntimeError("boom")

    with caplog.at_level(logging.ERROR, logger="vigil.worker.summaries"):
        summaries.submit(fail, "roster 7")
        summaries.submit(lambda: ran.append(1), "roster 8")
        summaries.drain()
    summaries.close()
    assert ran == [1]
    assert [r.getMessage() for r in caplog.records] == ["building the summary of roster 7 failed"]


def test_a_scoring_process_builds_what_runs_after_several_tasks() -> None:
    """The summary runs where the tasks ran: in a scoring process once a roster of
    several tasks has started them, here when none runs (none spawned for it)."""
    pool = ProcessScorer(2)
    try:
        assert pool.submit(os.getpid).result() == os.getpid() and not pool.running
        request = ScoreRequest(generate_airline_roster(6, 14, seed=6), DateFormat.DMY, risk=True)
        scored = score_roster(request, chunk_size=2, local=pool)
        assert pool.running and len(scored.route_parts or ()) == 3
        assert pool.submit(os.getpid).result() != os.getpid()
        # a finished call no longer holds them (its done-callback may run just after)
        assert any(pool.release_idle() or time.sleep(0.05) for _ in range(100))
    finally:
        pool.close()


def test_a_failed_build_leaves_the_roster_stored_without_a_summary(
    sessions: sessionmaker[Session], caplog: pytest.LogCaptureFixture
) -> None:
    """Derived data: the roster completes; its dashboard builds the figures on first view."""

    class Broken(Summaries):
        def prepare(self, session: Session, job: Any, model_version: str) -> SummaryBuild:
            return SummaryBuild("NOPE", model_version)  # no such scale in the blob

    upload_id = _upload(sessions, "a", 7)
    with caplog.at_level(logging.ERROR, logger="vigil.worker.run"):
        assert Worker(sessions, chunk_size=4, record_summary=Broken()).run_once()
    assert _state(sessions, upload_id) == (JobStatus.COMPLETED_SUCCESSFULLY, False)
    assert "building its summary failed" in caplog.text


def test_summaries_built_in_scoring_processes_equal_the_parsed_rosters(
    sessions: sessionmaker[Session],
) -> None:
    """The first roster's summary is built in a scoring process and stored by the
    summariser (the second was queued), the second's waited for and stored with it: both
    are the summary of the parsed roster."""
    first, second = _upload(sessions, "a", 8), _upload(sessions, "b", 9)
    pool, summaries = ProcessScorer(2), Summariser()
    worker = Worker(
        sessions, chunk_size=2, local=pool, summaries=summaries, record_summary=WORKER_SUMMARIES
    )
    try:
        assert worker.run_once() and worker.run_once()
        summaries.drain()
    finally:
        summaries.close()
        pool.close()
    for upload_id in (first, second):
        with sessions() as session:
            upload = session.get(RosterUpload, upload_id)
            result = session.get(RosterResult, upload_id)
            assert upload is not None and result is not None and result.summary_json
            stored = unpack(result.scores, ("KSS",))
            parsed = build(
                stored,
                roster_text=upload.roster_text,
                scale="KSS",
                model_version=result.model_version,
            )
            assert orjson.loads(result.summary_json) == orjson.loads(parsed)
            # the packed duty tables are built in the same process and stored beside it
            tables = results_store.packed_tables(session, upload_id)
            assert tables is not None and packed.read(tables).scales == ("KSS",)


def test_a_local_build_runs_once_in_the_thread_that_asks_for_it() -> None:
    """Without scoring processes the worker's thread only hands the build over: the
    summariser's thread (or the worker, when it waits) runs it, once."""
    later = InlineScorer().submit(threading.get_ident)
    ran: list[tuple[int, int]] = []
    asker = threading.Thread(target=lambda: ran.append((later.result(), threading.get_ident())))
    asker.start()
    asker.join()
    assert ran[0][0] == ran[0][1] != threading.get_ident()
    assert later.result() == ran[0][0]  # not run again
    failing = InlineScorer().submit(int, "x")
    with pytest.raises(ValueError):
        failing.result()
