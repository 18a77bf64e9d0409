"""A ``vigil worker`` process killed mid-job (SIGKILL): the roster still completes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from sqlalchemy.orm import Session, sessionmaker

from vigil.roster.synthetic import generate_roster
from vigil.store import uploads
from vigil.store.tables import RosterResult, RosterUpload
from vigil.worker.jobs import JobStatus

VIGIL = str(Path(sys.executable).with_name("vigil"))


def start_worker(db_url: str, tmp_path: Path, *args: str) -> subprocess.Popen[bytes]:
    env = {
        **os.environ,
        "VIGIL_DATABASE_URL": db_url,
        "VIGIL_LEASE_SECONDS": "2",  # short lease so the restart picks the roster up quickly
        "VIGIL_WORKER_PROCESSES": "0",
        "VIGIL_WORKER_POLL_INTERVAL": "0.1",
        "VIGIL_DATA_DIR": str(tmp_path),
    }
    with open(tmp_path / "worker.log", "ab") as log:
        return subprocess.Popen(
            [VIGIL, "worker", *args], env=env, stdout=subprocess.DEVNULL, stderr=log
        )


def status_of(sessions: sessionmaker[Session], upload_id: int) -> RosterUpload:
    with sessions() as session:
        found = session.get(RosterUpload, upload_id)
        assert found is not None
        return found


def test_killed_worker_process_then_restart_completes(
    sessions: sessionmaker[Session], db_url: str, tmp_path: Path
) -> None:
    roster = generate_roster(150, 28, 3)  # a few seconds of work: long enough to be killed
    with sessions.begin() as session:
        upload_id = uploads.create_upload(
            session=session, operator="acme", roster_name="big", roster_text=roster
        ).id
    first = start_worker(db_url, tmp_path)
    try:
        deadline = time.monotonic() + 60
        while status_of(sessions, upload_id).status != JobStatus.PROCESSING:
            assert first.poll() is None, (tmp_path / "worker.log").read_text()
            assert time.monotonic() < deadline, "the worker never claimed the roster"
            time.sleep(0.05)
        first.send_signal(signal.SIGKILL)
        first.wait(10)
    finally:
        if first.poll() is None:
            first.kill()
    killed = status_of(sessions, upload_id)
    assert killed.status == JobStatus.PROCESSING and killed.attempts == 1
    with sessions() as session:
        assert session.get(RosterResult, upload_id) is None  # died before storing
    second = start_worker(db_url, tmp_path, "--once")
    assert second.wait(timeout=180) == 0, (tmp_path / "worker.log").read_text()
    done = status_of(sessions, upload_id)
    assert (done.status, done.attempts) == (JobStatus.COMPLETED_SUCCESSFULLY, 2)
    with sessions() as session:
        result = session.get(RosterResult, upload_id)
        assert result is not None and result.errors_json == "[]" and len(result.scores) > 1000
        assert result.summary_json  # --once exits after the pool's summariser is drained
