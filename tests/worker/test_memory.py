"""The memory budget: the summary without a second parse, memory back to the OS,
and a heartbeat that never renews a lease the worker has released."""

from __future__ import annotations

import logging
import os
import subprocess
import sys

import pytest
from sqlalchemy.orm import Session, sessionmaker

from reference.roster_rows import parse_request_rows
from vigil.domain import DateFormat
from vigil.fleet.stored import WORKER_SUMMARIES, build
from vigil.fleet.table import (
    RouteFacts,
    roster_facts,
    route_facts,
    route_facts_of_columns,
    with_offsets,
)
from vigil.results.compact import unpack
from vigil.roster import parse_request
from vigil.roster.synthetic import generate_airline_roster
from vigil.scoring.service import SCALE_CODES, ScoreRequest
from vigil.store import uploads
from vigil.store.tables import RosterResult
from vigil.worker.jobs import JobStatus
from vigil.worker.memory import release_memory, reuse_heap_in_tasks
from vigil.worker.run import Worker, score_roster
from vigil.worker.scorers import InlineScorer, ProcessScorer


def _airline(crew: int) -> str:
    """An airline month with a bad row and a schedule whose rows are all bad."""
    lines = generate_airline_roster(crew, 28, seed=5).split("\r\n")
    lines[3] = lines[3].replace(",", ",x", 1)  # one bad row of a schedule (left out)
    lines.insert(9, "ZZ9,31/02/2026,06:00,LHR,01/03/2026,14:30,LHR,LHR,0")
    return "\r\n".join(lines)


def _request(text: str, scale: str = "KSS", **kw: object) -> ScoreRequest:
    extra = tuple(s for s in SCALE_CODES if s != scale)
    return ScoreRequest(text, DateFormat.DMY, scale=scale, risk=True, extra_scales=extra, **kw)  # type: ignore[arg-type]


@pytest.mark.parametrize("chunk", [1, 7, 1000])
def test_route_facts_of_the_tasks_equal_the_whole_roster_parsed(chunk: int) -> None:
    text = _airline(24)
    scored = score_roster(_request(text), chunk_size=chunk, local=InlineScorer())
    assert scored.errors and scored.routes is not None
    stored = unpack(scored.scores)
    whole = roster_facts(stored, parse_request(text, DateFormat.DMY).schedules)
    assert with_offsets(stored, scored.routes) == whole
    assert len(whole.airports.code) > 5 and max(whole.sectors) > 1  # a real mix
    # so the stored summary is the same, built from one scale without parsing
    for scale in ("KSS", "PMR"):
        one = unpack(scored.scores, (scale,))
        assert one.scales == (scale,) and one.matrix.shape == (stored.matrix.shape[0], 1)
        quick = build(one, scale=scale, model_version="m", facts=with_offsets(one, scored.routes))
        parsed = build(stored, roster_text=text, scale=scale, model_version="m")
        assert quick == parsed


@pytest.mark.parametrize("chunk", [30, 1000])
def test_route_facts_of_columnar_tasks_equal_the_row_reader(chunk: int) -> None:
    """80 crew: more than ``POLARS_MIN_LINES`` lines, so the tasks read their part with
    cells split by Polars, and take the route facts from the columns; the reference
    row reader's schedules give the same facts."""
    text = _airline(80)
    assert parse_request(text, DateFormat.DMY).columns is not None
    scored = score_roster(_request(text), chunk_size=chunk, local=InlineScorer())
    assert scored.routes is not None and scored.schedule_count == 79  # one left out
    stored = unpack(scored.scores)
    rows = parse_request_rows(text, DateFormat.DMY)
    assert with_offsets(stored, scored.routes) == roster_facts(stored, rows.schedules)


def test_route_facts_of_columns_equal_those_of_schedules() -> None:
    """Including a stored schedule the roster lacks and stored duty counts that differ
    from the parsed ones (fewer, more)."""
    parsed = parse_request(_airline(6), DateFormat.DMY)
    assert parsed.columns is not None
    schedules = parsed.schedules
    entries = [(s.reference, len(s.duties)) for s in schedules]
    entries[1] = (entries[1][0], 2)
    entries[2] = (entries[2][0], entries[2][1] + 3)
    entries.insert(3, ("NOT-IN-ROSTER", 4))
    ours = route_facts_of_columns(entries, parsed.columns)
    assert ours == route_facts(entries, schedules)
    assert ours.home[3] == -1 and ours.duties[3] == 4 and len(ours.airports.code) > 3


def test_route_facts_through_scoring_processes_and_with_sleep_data() -> None:
    text = _airline(12)
    sleep = [
        {
            "ScheduleName": r,
            "SleepStart": "2026-03-01T22:00:00Z",
            "SleepEnd": "2026-03-02T06:00:00Z",
        }
        for r in ("C00003", "C00007")
    ]
    pool = ProcessScorer(2)
    try:
        for request in (_request(text), _request(text, sleep_data=sleep)):
            scored = score_roster(request, chunk_size=4, local=pool)
            inline = score_roster(request, chunk_size=4, local=InlineScorer())
            assert scored.routes == inline.routes and scored.scores == inline.scores
            assert scored.routes is not None
            stored = unpack(scored.scores)
            parsed = parse_request(text, DateFormat.DMY, sleep_data=request.sleep_data)
            assert with_offsets(stored, scored.routes) == roster_facts(stored, parsed.schedules)
    finally:
        pool.close()


def test_joined_route_facts_renumber_airports_and_refuse_a_mismatch() -> None:
    text = _airline(10)
    scored = score_roster(_request(text), chunk_size=3, local=InlineScorer())
    assert scored.routes is not None
    again = RouteFacts.join([scored.routes, RouteFacts.join([])])
    assert again == scored.routes
    stored = unpack(scored.scores)
    with pytest.raises(ValueError, match="do not match"):
        with_offsets(stored, RouteFacts.join([scored.routes, scored.routes]))


def test_release_memory_returns_freed_heap_to_the_os() -> None:
    """200 MB of small blocks, every 50th kept (so the heap cannot just shrink at its
    top): freeing the rest leaves the pages resident until they are released."""
    code = (
        "import os\n"
        "from vigil.worker.memory import release_memory\n"
        "def rss():\n"
        "    return int(open('/proc/self/statm').read().split()[1]) * os.sysconf('SC_PAGE_SIZE')\n"
        "blocks = [bytes(1000) + bytes([i % 256]) for i in range(200_000)]\n"
        "kept = blocks[::50]\n"
        "del blocks\n"
        "before = rss()\n"
        "trimmed = release_memory()\n"
        "print(trimmed, (before - rss()) >> 20)\n"
    )
    if not sys.platform.startswith("linux"):
        pytest.skip("malloc_trim is glibc's (Linux)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    trimmed, freed_mib = out.stdout.split()
    assert trimmed == "True" and int(freed_mib) > 100
    assert release_memory() is True


def test_the_heartbeat_stops_before_the_result_is_stored(
    sessions: sessionmaker[Session], caplog: pytest.LogCaptureFixture
) -> None:
    """The lease is released by the commit that stores the result; a beat after it (while
    the summary is built) used to log "lost the lease" for a roster stored once."""
    with sessions.begin() as session:
        upload_id = uploads.create_upload(
            session=session, operator="acme", roster_name="m", roster_text=_airline(40)
        ).id
    beats = 0.06  # a lease of 60 ms: renewed every 20 ms, many times while the summary is built
    worker = Worker(sessions, lease_seconds=beats, chunk_size=10, record_summary=WORKER_SUMMARIES)
    with caplog.at_level(logging.WARNING, logger="vigil.worker.run"):
        assert worker.run_once()
    with sessions() as session:
        result = session.get(RosterResult, upload_id)
        assert result is not None and result.summary_json
    assert [r.getMessage() for r in caplog.records] == []
    with sessions() as session:
        from vigil.store.tables import RosterUpload

        upload = session.get(RosterUpload, upload_id)
        assert upload is not None and upload.status == JobStatus.COMPLETED_WITH_ERRORS
        assert upload.attempts == 1 and upload.lease_owner is None


def test_scoring_processes_end_when_no_roster_is_queued(sessions: sessionmaker[Session]) -> None:
    """Two rosters queued back to back share the processes; after the last, they end."""
    ids = []
    for name in ("a", "b"):
        with sessions.begin() as session:
            ids.append(
                uploads.create_upload(
                    session=session, operator="acme", roster_name=name, roster_text=_airline(8)
                ).id
            )
    pool = ProcessScorer(2)
    alive: list[bool] = []
    worker = Worker(
        sessions, chunk_size=4, local=pool, on_processed=lambda job, st: alive.append(pool.running)
    )
    try:
        assert worker.run_once() and worker.run_once()
        assert alive == [True, False]  # kept while "b" was queued, ended after it
        assert not pool.release_idle()  # nothing left to end
        with sessions() as session:
            from vigil.store.tables import RosterUpload

            done = [session.get(RosterUpload, i) for i in ids]
            assert all(u is not None and u.status == JobStatus.COMPLETED_WITH_ERRORS for u in done)
        # a third roster spawns them again
        with sessions.begin() as session:
            uploads.create_upload(
                session=session, operator="acme", roster_name="c", roster_text=_airline(8)
            )
        assert worker.run_once() and alive[-1] is False
    finally:
        pool.close()


@pytest.mark.parametrize("setting", [None, "65536"])
def test_heap_reuse_only_where_the_trim_threshold_is_set(setting: str | None) -> None:
    """Dask's nanny starts workers with ``MALLOC_TRIM_THRESHOLD_``: only there are glibc's
    thresholds changed for tasks (once per process)."""
    if not sys.platform.startswith("linux"):
        pytest.skip("mallopt is glibc's (Linux)")
    env = {k: v for k, v in os.environ.items() if k != "MALLOC_TRIM_THRESHOLD_"}
    if setting is not None:
        env["MALLOC_TRIM_THRESHOLD_"] = setting
    code = (
        "from vigil.worker.memory import reuse_heap_in_tasks\n"
        "print(reuse_heap_in_tasks(), reuse_heap_in_tasks())\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    want = "True" if setting is not None else "False"
    assert out.stdout.split() == [want, want]
    assert reuse_heap_in_tasks() is ("MALLOC_TRIM_THRESHOLD_" in os.environ)
