"""The cached scored month in a fresh store, served by a fresh app: the console benchmarks'
common setup.

``bench_fleet.py``, ``bench_explorer.py``, ``bench_trips.py``, ``bench_officer.py`` and
``bench_results.py`` measure what an officer or an API client waits for over the month
:func:`bench_fleet.prepare` scores once and caches. Each stores it in a fresh SQLite
database as the worker does (:func:`fresh_store`, :func:`store_month`), serves the embedded
app in-process (Starlette's TestClient, :func:`app_settings`) with a signed-in console user
(:func:`sign_in`), and measures in a child process (:func:`run_child`), so the peak RSS is
a server's, not the scorer's.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

OPERATOR = "acme"
USERNAME = "officer"
PASSWORD = "bench pass 16"


@dataclass
class Month:
    """The cached month: roster text, the stored scores and sleep blobs, model version."""

    text: str
    scores: bytes
    sleep: bytes | None
    model_version: str


def read_month(folder: Path) -> Month:
    """The month :func:`bench_fleet.prepare` cached in ``folder``."""
    return Month(
        text=(folder / "roster.csv").read_text(encoding="utf-8"),
        scores=(folder / "scores.bin").read_bytes(),
        sleep=(folder / "sleep.bin").read_bytes() or None,
        model_version=json.loads((folder / "meta.json").read_text())["model_version"],
    )


@dataclass
class Store:
    """A fresh SQLite store: its URL, data folder and session factory."""

    url: str
    data_dir: str
    sessions: Any


@contextmanager
def fresh_store(*, console_user: bool = True) -> Iterator[Store]:
    """A migrated SQLite database in a temporary folder (removed afterwards), with the
    console user :func:`sign_in` signs in as unless ``console_user`` is False."""
    from vigil.store import repo
    from vigil.store.db import make_engine, make_session_factory, upgrade

    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{tmp}/vigil.db"
        engine = make_engine(url)
        upgrade(engine)
        sessions = make_session_factory(engine)
        if console_user:
            with sessions.begin() as session:
                repo.create_console_user(
                    session=session, operator=OPERATOR, username=USERNAME, password=PASSWORD
                )
        yield Store(url, tmp, sessions)


def upload_and_claim(store: Store, text: str, name: str) -> tuple[str, Any]:
    """Upload ``text`` as roster ``name`` and claim its job as a worker does: the upload's
    token and the claimed job."""
    from vigil.store import uploads
    from vigil.worker import jobs

    with store.sessions.begin() as session:
        upload = uploads.create_upload(
            session=session, operator=OPERATOR, roster_name=name, roster_text=text,
            activity_text="", date_format="dmy", preferred_scale="KSS", overwrite=False,
        )  # fmt: skip
        token, upload_id = upload.token, upload.id
    with store.sessions.begin() as session:
        job = jobs.claim(session=session, owner="bench", lease_seconds=600)
        assert job is not None and job.id == upload_id
    return token, job


def store_month(
    store: Store, month: Month, name: str = "month", *, summary: bool = True
) -> tuple[str, float]:
    """Store ``month`` as roster ``name`` as the worker does: upload, claim, the job's
    result and (with ``summary``) the summary hook. The upload's token and the hook's
    seconds (0 without it)."""
    from vigil.fleet.stored import record_summary
    from vigil.worker import jobs

    token, job = upload_and_claim(store, month.text, name)
    seconds = 0.0
    with store.sessions.begin() as session:
        status = jobs.complete(session=session, job=job, errors=[], scores=month.scores,
                               model_version=month.model_version, sleep=month.sleep)  # fmt: skip
        if summary:
            started = time.perf_counter()
            record_summary(session, job, month.scores, status)
            seconds = time.perf_counter() - started
    return token, seconds


def app_settings(store: Store, *, warm_start: bool = False) -> Any:
    """The app's settings over ``store``: no worker threads, the test client's base URL."""
    from vigil.config.settings import Settings

    return Settings.from_mapping(
        {
            "database_url": store.url,
            "data_dir": store.data_dir,
            "worker_threads": 0,
            "warm_start": warm_start,
            "public_base_url": "http://testserver",
        }  # fmt: skip
    )


def new_server_view(
    store: Store, path: str, params: Mapping[str, str], repeat: int
) -> tuple[float, float]:
    """The first view of ``path`` from a new server each run (a new app over ``store``:
    nothing kept in memory, no page opened before it): medians of the page's own wall time
    and of the process's CPU time meanwhile (the server's thread and the client's)."""
    import statistics

    from fastapi.testclient import TestClient

    from vigil.web.app import create_app

    times, cpu = [], []
    for _ in range(repeat):
        with TestClient(create_app(app_settings(store))) as client:
            sign_in(client)
            started, cpu_started = time.perf_counter(), time.process_time()
            response = client.get(path, params=dict(params))
            times.append(time.perf_counter() - started)
            cpu.append(time.process_time() - cpu_started)
            assert response.status_code == 200, (path, response.status_code)
    return statistics.median(times), statistics.median(cpu)


def sign_in(client: Any) -> None:
    """Sign the test client in as the store's console user (login form, CSRF token)."""
    login = client.get("/console/login")
    csrf = re.search(r'name="csrf_token" value="([^"]+)"', login.text)
    assert csrf is not None
    signed = client.post(
        "/console/login",
        data={"username": USERNAME, "password": PASSWORD, "csrf_token": csrf.group(1)},
        follow_redirects=False,
    )
    assert signed.status_code == 303, signed.text


def run_child(script: str, options: Mapping[str, object]) -> Any:
    """Run ``script --measure --NAME VALUE ...`` in a fresh interpreter and return the JSON
    of the last line it prints."""
    command = [sys.executable, script, "--measure"]
    for name, value in options.items():
        command += [f"--{name}", str(value)]
    child = subprocess.run(command, check=True, capture_output=True, text=True)
    return json.loads(child.stdout.strip().splitlines()[-1])


def month_parser(doc: str, repeat: int, *, child: bool = True) -> argparse.ArgumentParser:
    """The options every month benchmark takes: the month's size (``--crew``, ``--days``),
    ``--repeat`` and, with ``child``, the hidden ``--measure`` :func:`run_child` passes."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("--crew", type=int, default=10_000)
    parser.add_argument("--days", type=int, default=28)
    parser.add_argument("--repeat", type=int, default=repeat)
    if child:
        parser.add_argument("--measure", action="store_true", help=argparse.SUPPRESS)
    return parser
