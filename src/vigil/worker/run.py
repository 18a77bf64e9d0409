"""The worker loop: claim → score → store (contract §5, §8).

:class:`Worker` processes uploaded rosters one at a time: it returns lapsed rosters to
the queue (:func:`vigil.worker.jobs.reap_lapsed`), claims the oldest queued one with a
lease, renews the lease from a heartbeat thread while it scores, and stores the compact
result guarded by the lease. :class:`WorkerPool` runs several workers as threads; the
server starts one in its lifespan (``VIGIL_WORKER_THREADS``, default 1) and
``vigil worker`` runs one on any machine that reaches the database.

Scoring goes through the service (:func:`vigil.roster.parse_request`, then
:func:`vigil.scoring.service.plan_parsed` and :func:`~vigil.scoring.service.score_plan`,
exactly what :func:`vigil.scoring.service.score` does), but in chunk tasks
(:mod:`vigil.worker.tasks`): the worker splits the roster text by schedule
(:mod:`vigil.worker.split`), a :class:`ChunkScorer` runs the tasks in this thread, in
local processes, or on a Dask cluster (:mod:`vigil.worker.dask`), and the worker joins
the encoded results in schedule order (:mod:`vigil.results.frames`,
:mod:`vigil.results.stored_sleep`) and stores them. The roster's summary is built where
the tasks ran (:meth:`ChunkScorer.submit <vigil.worker.scorers.ChunkScorer.submit>`) and
the worker only stores its bytes: with the result when no roster waits, else from the
pool's :class:`~vigil.worker.summaries.Summariser` thread while the worker claims the next.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import socket
import threading
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from sqlalchemy.orm import Session, sessionmaker

from vigil.results.routes import RouteFacts
from vigil.store import operator_settings as settings_store
from vigil.store import uploads
from vigil.store.tables import utcnow
from vigil.worker import jobs
from vigil.worker.memory import release_memory
from vigil.worker.roster_job import ScoredRoster, plan_tasks, request_for, score_roster
from vigil.worker.scorers import ChunkScorer, InlineScorer, Pending, ProcessScorer
from vigil.worker.summaries import Summariser

#: a roster's summary build: ``(scores blob, route facts per chunk) -> summary bytes``,
#: pure and picklable (it runs where the chunk tasks ran)
SummaryBuild = Callable[[bytes, Sequence[RouteFacts]], bytes]


class RecordSummary(Protocol):
    """What builds and stores finished rosters' summaries; the service passes
    :data:`vigil.fleet.stored.WORKER_SUMMARIES` (the worker never imports fleet)."""

    def prepare(self, session: Session, job: jobs.ClaimedJob, model_version: str) -> SummaryBuild:
        """The build of ``job``'s summary, with what it needs from the database."""
        ...

    def store(self, session: Session, upload_id: int, summary: bytes) -> None:
        """Save the bytes a build answered."""
        ...


#: a roster's summary: built (bytes), being built, or none to store
_Summary = bytes | Pending[bytes] | None

if TYPE_CHECKING:
    from vigil.config.settings import Settings
    from vigil.worker.dask import DaskScorer

__all__ = [
    "ChunkScorer",
    "InlineScorer",
    "PoolSettings",
    "ProcessScorer",
    "ScoredRoster",
    "Worker",
    "WorkerPool",
    "plan_tasks",
    "request_for",
    "score_roster",
]

logger = logging.getLogger(__name__)

#: how often the retention purge runs in a worker [s]
PURGE_INTERVAL = 3600.0
#: least time between two progress writes of one roster [s]
PROGRESS_INTERVAL = 0.5


def worker_name() -> str:
    """A unique lease owner: host, process, random suffix."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


class _Heartbeat:
    """Renews a job's lease every third of the lease until stopped."""

    def __init__(self, sessions: sessionmaker[Session], job: jobs.ClaimedJob, lease: float):
        self.lost = threading.Event()
        self._stop = threading.Event()
        self._sessions = sessions
        self._job = job
        self._lease = lease
        self._thread = threading.Thread(target=self._run, name=f"lease-{job.id}", daemon=True)

    def __enter__(self) -> _Heartbeat:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        while not self._stop.wait(self._lease / 3):
            try:
                with self._sessions.begin() as session:
                    held = jobs.renew(session=session, job=self._job, lease_seconds=self._lease)
            except Exception:  # noqa: BLE001 - a transient DB error; retry next beat
                logger.warning("renewing the lease of roster %s failed", self._job.id)
                continue
            if not held:
                logger.warning("lost the lease of roster %s", self._job.id)
                self.lost.set()
                return


def _built(pending: Pending[bytes], job: jobs.ClaimedJob) -> bytes | None:
    """The summary a build answered; ``None`` (logged) when it failed: derived data, built
    on first view, it never fails the roster."""
    try:
        return pending.result()
    except Exception:  # noqa: BLE001 - any failure of the build, wherever it ran
        logger.exception("roster %s: building its summary failed", job.id)
        return None


class Worker:
    """Claims and processes uploaded rosters (one at a time) against one database.

    Parameters
    ----------
    sessions : sessionmaker
        Sessions on the shared database.
    lease_seconds : float
        Lease length (contract §8: 60 s); renewed every third of it.
    chunk_size : int
        Schedules per chunk for ``local``/``remote`` scoring.
    local, remote : ChunkScorer
        Where chunks are scored; ``remote`` (Dask) only for rosters of several chunks.
    max_attempts : int
        Server-fault attempts before ``failed``.
    retention_days : int
        Purge finished rosters older than this (0: keep).
    on_processed : callable, optional
        Called as ``on_processed(job, status)`` after each attempt (tests, metrics).
    summaries : Summariser, optional
        Where roster summaries are built (:mod:`vigil.worker.summaries`): a pool's, so the
        next roster is claimed without waiting for them; without one, in this thread
        before :meth:`process` returns.
    record_summary : RecordSummary, optional
        What builds and stores a finished roster's summary (the service passes
        :data:`vigil.fleet.stored.WORKER_SUMMARIES`; the worker never imports fleet): the
        build runs where the roster's chunk tasks ran, the worker stores its bytes.
        Without it no summary is stored: the dashboard builds it on first view.
    """

    def __init__(
        self,
        sessions: sessionmaker[Session],
        *,
        lease_seconds: float = 60.0,
        chunk_size: int = 500,
        local: ChunkScorer | None = None,
        remote: ChunkScorer | None = None,
        max_attempts: int = jobs.MAX_ATTEMPTS,
        retention_days: int = 0,
        name: str | None = None,
        on_processed: Callable[[jobs.ClaimedJob, jobs.JobStatus | None], None] | None = None,
        summaries: Summariser | None = None,
        record_summary: RecordSummary | None = None,
    ) -> None:
        self.sessions = sessions
        self.record_summary = record_summary
        self.lease_seconds = lease_seconds
        self.chunk_size = chunk_size
        self.local = local or InlineScorer()
        self.remote = remote
        self.max_attempts = max_attempts
        self.retention_days = retention_days
        self.name = name or worker_name()
        self.on_processed = on_processed
        self.summaries = summaries
        self._last_purge = float("-inf")

    def run_once(self) -> bool:
        """Reap lapsed leases, claim one roster and process it; ``False`` if none queued."""
        with self.sessions.begin() as session:
            requeued, failed = jobs.reap_lapsed(session=session, max_attempts=self.max_attempts)
            if requeued or failed:
                logger.info("lapsed leases: %d requeued, %d failed", requeued, failed)
            job = jobs.claim(session=session, owner=self.name, lease_seconds=self.lease_seconds)
        if job is None:
            return False
        self.process(job)
        return True

    def process(self, job: jobs.ClaimedJob) -> jobs.JobStatus | None:
        """Score a claimed roster and store the outcome (guarded by the lease).

        The heartbeat renews the lease only while the roster is scored and its summary
        started (or, with no roster queued, built: :meth:`_start_summary`): it stops before
        the outcome is stored (the lease then has at least two thirds of its length left),
        so no renewal races the commit that releases the lease.
        """
        release_memory()  # what the server freed before (warm-up, requests, uploads)
        scored: ScoredRoster | str  # the result, or the fault's message
        summary: _Summary = None
        with _Heartbeat(self.sessions, job, self.lease_seconds) as beat:
            try:
                with self.sessions.begin() as session:  # settings recorded at upload
                    settings = settings_store.settings_for_upload(session=session, upload_id=job.id)
                scored = score_roster(
                    request_for(job, settings),
                    chunk_size=self.chunk_size,
                    local=self.local,
                    remote=self.remote,
                    progress=self._progress_writer(job),
                )
            except Exception as exc:  # noqa: BLE001 - any failure here is a server fault
                logger.exception("roster %s attempt %d failed", job.id, job.attempt)
                scored = f"{type(exc).__name__}: the server failed to process the roster"
            else:
                summary = self._start_summary(job, scored)
        status = self._store(job, scored, summary, lost=beat.lost.is_set())
        del scored, summary
        release_memory()  # the roster's text, parts, frames and summary
        if status is None:
            logger.warning("roster %s: lease lost, result discarded", job.id)
        if self.on_processed is not None:
            self.on_processed(job, status)
        return status

    def _release_scorers(self) -> None:
        """End the idle scoring processes when no roster is queued: a server that waits
        for the next upload does not hold them (footprint), nor do they add to
        the memory of the summary built next. Rosters queued back to back keep them."""
        if not isinstance(self.local, ProcessScorer) or not self.local.running:
            return
        try:
            with self.sessions() as session:
                queued = jobs.queued(session=session)
        except Exception:  # noqa: BLE001 - only an optimisation: keep the processes
            return
        if not queued:
            self.local.release_idle()

    def _store(
        self, job: jobs.ClaimedJob, scored: ScoredRoster | str, summary: _Summary, *, lost: bool
    ) -> jobs.JobStatus | None:
        """Record the fault (``scored`` is its message) or the result, with its summary
        when built (else left to the summariser: :meth:`_summarise`)."""
        if isinstance(scored, str):
            with self.sessions.begin() as session:
                return jobs.record_fault(
                    session=session, job=job, message=scored, max_attempts=self.max_attempts
                )
        if lost:
            return None
        with self.sessions.begin() as session:
            status = jobs.complete(
                session=session,
                job=job,
                errors=scored.errors,
                scores=scored.scores,
                model_version=scored.model_version,
                sleep=scored.sleep,
            )
            if isinstance(summary, bytes) and status is not None and self.record_summary:
                self.record_summary.store(session, job.id, summary)
        self._release_scorers()
        if summary is not None and not isinstance(summary, bytes) and status is not None:
            self._summarise(job, summary)
        return status

    def _start_summary(self, job: jobs.ClaimedJob, scored: ScoredRoster) -> _Summary:
        """Start the dashboard's figures where the chunk tasks ran (a scoring process, the
        cluster: this thread only hands the bytes over), while the lease is held.

        When no roster waits in the queue (or there is no summariser) the build is waited
        for and stored with the result (:meth:`_store`): the roster then reads as finished
        with its dashboard ready, so one opened at that moment does not build the figures
        itself (a parse of the whole roster). With rosters queued, the result is stored at
        once and the summariser stores the figures when built. ``None`` when there is
        nothing to build (no hook, or a task gave no route facts: built on first view).
        """
        record = self.record_summary
        if record is None or scored.route_parts is None:
            return None
        try:
            with self.sessions() as session:
                build = record.prepare(session, job, scored.model_version)
                wait = self.summaries is None or not jobs.queued(session=session)
            scorer = self.remote if scored.remote and self.remote is not None else self.local
            pending = scorer.submit(build, scored.scores, scored.route_parts)
        except Exception:  # noqa: BLE001 - derived data: rebuilt on first view
            logger.exception("roster %s: starting its summary failed", job.id)
            return None
        return _built(pending, job) if wait else pending

    def _summarise(self, job: jobs.ClaimedJob, pending: Pending[bytes]) -> None:
        """Store the figures once built, on the summariser's thread (the worker claims the
        next roster meanwhile; a dashboard opened before builds them itself:
        ``fleet.stored.ensure``)."""
        record = self.record_summary
        if record is None or self.summaries is None:
            return

        def store() -> None:
            summary = _built(pending, job)
            if summary is not None:
                with self.sessions.begin() as session:
                    record.store(session, job.id, summary)

        self.summaries.submit(store, f"roster {job.id}")

    def _progress_writer(self, job: jobs.ClaimedJob) -> Callable[[int, int], None]:
        """A ``progress(done, total)`` that stores the figures, at most every
        :data:`PROGRESS_INTERVAL` s (and always the total); a failed write is only logged."""
        import time

        last = [float("-inf")]

        def write(done: int, total: int) -> None:
            now = time.monotonic()
            if done not in (0, total) and now - last[0] < PROGRESS_INTERVAL:
                return
            last[0] = now
            try:
                with self.sessions.begin() as session:
                    jobs.report_progress(session=session, job=job, done=done, total=total)
            except Exception:  # noqa: BLE001 - progress is informative; scoring goes on
                logger.warning("storing the progress of roster %s failed", job.id)

        return write

    def purge(self, now_monotonic: float) -> None:
        """Apply the retention setting at most once per :data:`PURGE_INTERVAL`."""
        if self.retention_days <= 0 or now_monotonic - self._last_purge < PURGE_INTERVAL:
            return
        self._last_purge = now_monotonic
        cutoff = utcnow() - timedelta(days=self.retention_days)
        with self.sessions.begin() as session:
            purged = uploads.purge_finished_before(session=session, cutoff=cutoff)
        if purged:
            logger.info("retention: purged %d rosters finished before %s", purged, cutoff)

    def run(
        self,
        stop: threading.Event,
        *,
        poll_interval: float = 1.0,
        wake: threading.Event | None = None,
        until_idle: bool = False,
    ) -> None:
        """Process rosters until ``stop`` is set.

        With ``until_idle``, return once no roster is queued or processing: rosters held
        by other (possibly dead) workers are waited for, as their lease may lapse.
        """
        import time

        wake = wake or threading.Event()
        while not stop.is_set():
            try:
                self.purge(time.monotonic())
                worked = self.run_once()
            except Exception:  # noqa: BLE001 - database unreachable etc.: retry later
                logger.exception("worker %s: claiming failed", self.name)
                worked = False
            if worked:
                continue
            if until_idle:
                with self.sessions() as session:
                    if not jobs.unfinished(session=session):
                        return
            wake.wait(poll_interval)
            wake.clear()


class WorkerPool:
    """``threads`` :class:`Worker` threads sharing one local scorer (and Dask client).

    The server's lifespan starts one (``VIGIL_WORKER_THREADS``); :meth:`wake` is called
    after an upload so a roster is claimed without waiting for the next poll.
    """

    def __init__(
        self,
        sessions: sessionmaker[Session],
        *,
        threads: int = 1,
        processes: int | None = None,
        lease_seconds: float = 60.0,
        poll_interval: float = 1.0,
        chunk_size: int = 500,
        retention_days: int = 0,
        dask_scheduler: str | None = None,
        dask_security: Any = None,
        on_processed: Callable[[jobs.ClaimedJob, jobs.JobStatus | None], None] | None = None,
        record_summary: RecordSummary | None = None,
    ) -> None:
        count = (os.cpu_count() or 1) if processes is None else processes
        self.local: ChunkScorer = ProcessScorer(count) if count > 0 else InlineScorer()
        self.remote: ChunkScorer | None = None
        self._cluster: DaskScorer | None = None
        if dask_scheduler:
            from vigil.worker.dask import DaskScorer

            self.remote = self._cluster = DaskScorer(dask_scheduler, security=dask_security)
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._poll = poll_interval
        self.summaries = Summariser()
        base = worker_name()
        self.workers = [
            Worker(
                sessions,
                lease_seconds=lease_seconds,
                chunk_size=chunk_size,
                local=self.local,
                remote=self.remote,
                retention_days=retention_days,
                name=f"{base}:{i}",
                on_processed=on_processed,
                summaries=self.summaries,
                record_summary=record_summary,
            )
            for i in range(threads)
        ]
        self._threads: list[threading.Thread] = []

    def start(self) -> WorkerPool:
        """Start the worker threads (and, with a Dask cluster, warm its workers up in the
        background: :meth:`_warm_cluster`)."""
        if self._cluster is not None:
            threading.Thread(
                target=self._warm_cluster, name="vigil-dask-warm-up", daemon=True
            ).start()
        for worker in self.workers:
            thread = threading.Thread(
                target=worker.run,
                args=(self._stop,),
                kwargs={"poll_interval": self._poll, "wake": self._wake},
                name=f"vigil-worker-{worker.name}",
                daemon=True,
            )
            thread.start()
            self._threads.append(thread)
        return self

    def _warm_cluster(self) -> None:
        """Connect to the Dask cluster and have each of its workers load the scoring stack
        (:meth:`vigil.worker.dask.DaskScorer.warm_up`), so the first roster is not slowed
        by it; a failure is only logged (the first roster then retries the connection)."""
        assert self._cluster is not None
        try:
            seconds = self._cluster.warm_up()
        except Exception:  # noqa: BLE001 - unreachable cluster, closed pool: score cold
            logger.warning("warming up the Dask workers failed", exc_info=True)
        else:
            logger.info("Dask workers warmed up: %s", seconds)

    def wake(self) -> None:
        """Look for queued rosters now."""
        self._wake.set()

    def run_until_idle(self) -> None:
        """Process in the calling threads until nothing is queued (``vigil worker --once``)."""
        threads = [
            threading.Thread(
                target=w.run, args=(self._stop,), kwargs={"until_idle": True}, daemon=True
            )
            for w in self.workers
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        self.summaries.drain()

    def join(self) -> None:
        for thread in self._threads:
            thread.join()

    def stop(self, timeout: float = 30.0) -> None:
        """Stop claiming; wait up to ``timeout`` s for current rosters, then close scorers.

        A roster still being scored after the timeout keeps its lease until it lapses and
        another worker picks it up (nothing is lost). The summary being built is finished;
        queued ones are dropped (a dashboard builds them on first view).
        """
        self._stop.set()
        self._wake.set()
        for thread in self._threads:
            thread.join(timeout)
        self.summaries.close()
        self.local.close()
        if self.remote is not None:
            self.remote.close()

    @classmethod
    def from_settings(
        cls,
        sessions: sessionmaker[Session],
        settings: Settings,
        *,
        threads: int | None = None,
        record_summary: RecordSummary | None = None,
    ) -> WorkerPool:
        """A pool configured by :class:`vigil.config.settings.Settings` (read once, typed).

        ``threads`` overrides ``worker_threads`` (``vigil worker --threads``);
        ``record_summary`` is :class:`Worker`'s.
        """
        config = PoolSettings.of(settings)
        return cls(
            sessions,
            threads=threads if threads is not None else config.worker_threads,
            processes=config.worker_processes,
            lease_seconds=config.lease_seconds,
            poll_interval=config.worker_poll_interval,
            chunk_size=config.dask_chunk_size,
            retention_days=config.retention_days,
            dask_scheduler=config.dask_scheduler,
            dask_security=config.dask_security(),
            record_summary=record_summary,
        )


@dataclass(frozen=True, slots=True)
class PoolSettings:
    """A worker pool's configuration, copied once from the service settings (frozen)."""

    worker_threads: int
    worker_processes: int | None
    lease_seconds: float
    worker_poll_interval: float
    dask_chunk_size: int
    retention_days: int
    dask_scheduler: str | None
    dask_tls_ca: Path | None
    dask_tls_cert: Path | None
    dask_tls_key: Path | None

    @classmethod
    def of(cls, settings: Settings) -> PoolSettings:
        """The pool fields of ``settings`` (:class:`vigil.config.settings.Settings`, which owns
        the defaults and the validation; none are repeated here)."""
        return cls(**{f.name: getattr(settings, f.name) for f in dataclasses.fields(cls)})

    def dask_security(self) -> Any:
        """Mutual-TLS settings from ``VIGIL_DASK_TLS_CA/CERT/KEY`` (all three), else None."""
        files = (self.dask_tls_ca, self.dask_tls_cert, self.dask_tls_key)
        if not any(files) or not self.dask_scheduler:
            return None
        ca, cert, key = files
        if ca is None or cert is None or key is None:
            raise ValueError("set VIGIL_DASK_TLS_CA, _CERT and _KEY together (all three)")
        from vigil.worker.dask import tls_security

        return tls_security(ca, cert, key)
