"""``vigil worker``: process uploaded rosters from the shared database (contract §7, §8).

Run it on any machine that reaches the database (``--database-url`` or
``VIGIL_DATABASE_URL``); every ``VIGIL_*`` setting applies (``VIGIL_LEASE_SECONDS``,
``VIGIL_WORKER_PROCESSES``, ``VIGIL_DASK_SCHEDULER``, ``VIGIL_RETENTION_DAYS`` ...).
SIGINT/SIGTERM stop claiming and let the current rosters finish; a worker killed hard
loses nothing: its lease lapses and another worker picks the roster up (docs/upload.md).
"""

from __future__ import annotations

import logging
import signal
import threading
from typing import Annotated, Any

import typer

from vigil.cli._identity import DatabaseUrlOption


def worker_command(
    database_url: Annotated[str | None, DatabaseUrlOption] = None,
    threads: Annotated[
        int, typer.Option("--threads", min=1, help="Rosters processed at the same time.")
    ] = 1,
    once: Annotated[
        bool, typer.Option("--once", help="Exit when no roster is queued or processing any more.")
    ] = False,
) -> None:
    """Process uploaded rosters: claim with a lease, score, store the results."""
    from vigil.config.settings import Settings
    from vigil.fleet.stored import WORKER_SUMMARIES
    from vigil.store.db import make_engine, make_session_factory, upgrade
    from vigil.worker.run import WorkerPool

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    settings = Settings.from_env()
    url = database_url or settings.database_url
    engine = make_engine(url)
    if settings.migrate_on_start:
        upgrade(engine)
    pool = WorkerPool.from_settings(
        make_session_factory(engine), settings, threads=threads, record_summary=WORKER_SUMMARIES
    )
    typer.echo(f"vigil worker: {threads} thread(s) on {engine.url.render_as_string()}")
    try:
        if once:
            pool.run_until_idle()
            return
        stopped = threading.Event()

        def stop(signum: int, _frame: Any) -> None:
            stopped.set()

        signal.signal(signal.SIGINT, stop)
        signal.signal(signal.SIGTERM, stop)
        pool.start()
        stopped.wait()
        typer.echo("vigil worker: stopping after the current rosters")
    finally:
        pool.stop(timeout=300.0)
        engine.dispose()


def register(app: typer.Typer) -> None:
    """Add the ``worker`` command to the CLI."""
    app.command("worker")(worker_command)
