"""Job states, claiming and leases for uploaded rosters (contract §5, §8; STYLE §1.7).

A roster row is its own job. Transitions (contract §5)::

    queued ──claim──▶ processing ──▶ completedsuccessfully | completedwitherrors
      ▲                   │
      └── lease lapsed ───┤ (worker died: back to queued, picked up again)
      └── server fault ───┤ (exception while scoring, attempts < 3)
                          └──▶ failed (3rd attempt ended by a fault or a lapsed lease)

Claiming is one ``UPDATE ... WHERE id = (SELECT ... LIMIT 1) AND status = 'queued'
RETURNING``, the sub-select choosing fairly across operators (:func:`claim`): on
PostgreSQL the sub-select is ``FOR UPDATE SKIP LOCKED`` (concurrent claimers skip each
other's rows); on SQLite the single statement takes the write lock, and the ``status =
'queued'`` guard makes a lost race claim nothing. Every later write by a worker is
guarded by ``lease_owner = <me> AND status = 'processing'``, so a worker whose lease
lapsed (and whose roster was claimed again) can never store a result.

Times come from the worker's clock (aware UTC); machines sharing a database must keep
their clocks synchronised (NTP) to well within the lease.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import ColumnElement, Row, Select, case, func, select, update
from sqlalchemy.orm import Session, aliased

from vigil.contract import JobStatus
from vigil.store.tables import RosterInput, RosterResult, RosterUpload, utcnow

__all__ = [
    "MAX_ATTEMPTS",
    "ClaimedJob",
    "JobStatus",
    "claim",
    "complete",
    "record_fault",
    "queued",
    "reap_lapsed",
    "renew",
    "report_progress",
    "unfinished",
]

#: claims ended by server faults (exceptions, dead workers) before a roster is ``failed``
MAX_ATTEMPTS = 3


@dataclass(frozen=True, slots=True)
class ClaimedJob:
    """A roster a worker holds the lease on, with everything needed to score it."""

    id: int
    token: str
    owner: str
    attempt: int
    roster_text: str
    activity_text: str
    sleep_data: list[dict[str, object]]
    date_format: str
    preferred_scale: str


def claim(
    *, session: Session, owner: str, lease_seconds: float, now: datetime | None = None
) -> ClaimedJob | None:
    """Claim the next queued roster, fairly across operators; ``None`` when none is queued.

    Fairness (docs/upload.md "Fairness"): the roster claimed is the oldest queued
    one of the operator that (1) has the fewest rosters in ``processing`` and then (2) was
    served least recently (the latest ``updated_at`` of its rosters that left the queue;
    never served comes first). One operator's huge roster, or hundreds of its rosters,
    therefore delays another operator's roster by at most one roster per worker, whatever
    the submission order. Derived from existing columns only (no schema change).

    The caller commits right after, so the claim is visible to other workers.
    """
    now = now or utcnow()
    if not queued(session=session):
        return None  # the common idle poll: no per-operator aggregate
    candidate = _fairest_queued(skip_locked=session.get_bind().dialect.name == "postgresql")
    claimed = session.execute(
        update(RosterUpload)
        .where(
            RosterUpload.id == candidate.scalar_subquery(),
            RosterUpload.status == JobStatus.QUEUED,
        )
        .values(
            status=JobStatus.PROCESSING,
            lease_owner=owner,
            lease_expires_at=now + timedelta(seconds=lease_seconds),
            attempts=RosterUpload.attempts + 1,
            updated_at=now,
            progress_done=0,
            progress_total=0,
        )
        .returning(
            RosterUpload.id,
            RosterUpload.token,
            RosterUpload.attempts,
            RosterUpload.date_format,
            RosterUpload.preferred_scale,
        )
        .execution_options(synchronize_session=False)
    ).first()
    if claimed is None:
        return None
    return _with_texts(session, claimed, owner)


def _fairest_queued(*, skip_locked: bool) -> Select[int]:
    """The ID of the queued roster to claim next: the oldest of the operator with the
    fewest rosters processing, then served least recently (never served first).
    ``skip_locked`` (PostgreSQL): passes over a row another worker is claiming."""
    seen = aliased(RosterUpload, name="seen")
    served = (
        select(
            seen.operator.label("operator"),
            func.sum(case((seen.status == JobStatus.PROCESSING, 1), else_=0)).label("busy"),
            func.max(seen.updated_at).label("last"),
        )
        .where(seen.status != JobStatus.QUEUED)
        .group_by(seen.operator)
        .subquery("served")
    )
    waiting = aliased(RosterUpload, name="queued")
    candidate = (
        select(waiting.id)
        .outerjoin(served, served.c.operator == waiting.operator)
        .where(waiting.status == JobStatus.QUEUED)
        .order_by(
            func.coalesce(served.c.busy, 0),
            served.c.last.is_not(None),  # never served first
            served.c.last,
            waiting.submitted_at,
            waiting.id,
        )
        .limit(1)
    )
    return candidate.with_for_update(skip_locked=True, of=waiting) if skip_locked else candidate


def _with_texts(session: Session, claimed: Row[int, str, int, str, str], owner: str) -> ClaimedJob:
    """The claimed roster's job, with its texts (read once, from ``roster_input``)."""
    texts = session.execute(
        select(RosterInput.roster_text, RosterInput.activity_text, RosterInput.sleep_json).where(
            RosterInput.upload_id == claimed.id
        )
    ).one()
    return ClaimedJob(
        id=claimed.id,
        token=claimed.token,
        owner=owner,
        attempt=claimed.attempts,
        roster_text=texts.roster_text,
        activity_text=texts.activity_text,
        sleep_data=json.loads(texts.sleep_json or "[]"),
        date_format=claimed.date_format,
        preferred_scale=claimed.preferred_scale,
    )


def queued(*, session: Session) -> bool:
    """Whether any roster waits in the queue."""
    found = select(RosterUpload.id).where(RosterUpload.status == JobStatus.QUEUED).limit(1)
    return session.scalar(found) is not None


def unfinished(*, session: Session) -> int:
    """Rosters queued or processing (``vigil worker --once`` waits for these)."""
    return int(
        session.scalar(
            select(func.count())
            .select_from(RosterUpload)
            .where(RosterUpload.status.in_([JobStatus.QUEUED, JobStatus.PROCESSING]))
        )
        or 0
    )


def _mine(job_id: int, owner: str) -> tuple[ColumnElement[bool], ...]:
    return (
        RosterUpload.id == job_id,
        RosterUpload.lease_owner == owner,
        RosterUpload.status == JobStatus.PROCESSING,
    )


def renew(
    *, session: Session, job: ClaimedJob, lease_seconds: float, now: datetime | None = None
) -> bool:
    """Extend the lease; ``False`` if the worker no longer holds it (lapsed or deleted)."""
    now = now or utcnow()
    result = session.execute(
        update(RosterUpload)
        .where(*_mine(job.id, job.owner))
        .values(lease_expires_at=now + timedelta(seconds=lease_seconds))
        .execution_options(synchronize_session=False)
    )
    return bool(result.rowcount)  # type: ignore[attr-defined]


def report_progress(*, session: Session, job: ClaimedJob, done: int, total: int) -> bool:
    """Record ``done`` of ``total`` crew scored (GetResults ``progress``); ``False`` if the
    worker no longer holds the lease. ``updated_at`` is left alone (it means a status
    change)."""
    result = session.execute(
        update(RosterUpload)
        .where(*_mine(job.id, job.owner))
        .values(progress_done=done, progress_total=total)
        .execution_options(synchronize_session=False)
    )
    return bool(result.rowcount)  # type: ignore[attr-defined]


def complete(
    *,
    session: Session,
    job: ClaimedJob,
    errors: list[str],
    scores: bytes,
    model_version: str,
    sleep: bytes | None = None,
    now: datetime | None = None,
) -> JobStatus | None:
    """Store the result and finish the roster; ``None`` if the lease was lost (discarded).

    ``sleep`` is the sleep the scores rest on (:mod:`vigil.results.stored_sleep`).
    """
    now = now or utcnow()
    status = JobStatus.COMPLETED_WITH_ERRORS if errors else JobStatus.COMPLETED_SUCCESSFULLY
    result = session.execute(
        update(RosterUpload)
        .where(*_mine(job.id, job.owner))
        .values(
            status=status,
            updated_at=now,
            finished_at=now,
            lease_owner=None,
            lease_expires_at=None,
            error_summary=None,
            progress_done=RosterUpload.progress_total,
        )
        .execution_options(synchronize_session=False)
    )
    if not result.rowcount:  # type: ignore[attr-defined]
        return None
    session.add(
        RosterResult(
            upload_id=job.id,
            errors_json=json.dumps(errors, ensure_ascii=False),
            scores=scores,
            model_version=model_version,
            created_at=now,
            sleep=sleep,
        )
    )
    session.flush()
    return status


def record_fault(
    *,
    session: Session,
    job: ClaimedJob,
    message: str,
    max_attempts: int = MAX_ATTEMPTS,
    now: datetime | None = None,
) -> JobStatus | None:
    """A server fault ended this attempt: back to ``queued``, or ``failed`` after the last.

    Returns the new status, or ``None`` if the worker no longer held the lease.
    """
    now = now or utcnow()
    final = job.attempt >= max_attempts
    status = JobStatus.FAILED if final else JobStatus.QUEUED
    result = session.execute(
        update(RosterUpload)
        .where(*_mine(job.id, job.owner))
        .values(
            status=status,
            updated_at=now,
            finished_at=now if final else None,
            lease_owner=None,
            lease_expires_at=None,
            error_summary=message[:2000],
        )
        .execution_options(synchronize_session=False)
    )
    return status if result.rowcount else None  # type: ignore[attr-defined]


def reap_lapsed(
    *, session: Session, max_attempts: int = MAX_ATTEMPTS, now: datetime | None = None
) -> tuple[int, int]:
    """Return rosters whose lease lapsed (dead worker) to ``queued``, or fail them.

    Returns
    -------
    (requeued, failed) : tuple of int
    """
    now = now or utcnow()
    lapsed = (
        RosterUpload.status == JobStatus.PROCESSING,
        RosterUpload.lease_expires_at < now,
    )
    failed = session.execute(
        update(RosterUpload)
        .where(*lapsed, RosterUpload.attempts >= max_attempts)
        .values(
            status=JobStatus.FAILED,
            updated_at=now,
            finished_at=now,
            lease_owner=None,
            lease_expires_at=None,
            error_summary="the worker processing this roster stopped (lease lapsed)",
        )
        .execution_options(synchronize_session=False)
    ).rowcount  # type: ignore[attr-defined]
    requeued = session.execute(
        update(RosterUpload)
        .where(*lapsed, RosterUpload.attempts < max_attempts)
        .values(
            status=JobStatus.QUEUED,
            updated_at=now,
            lease_owner=None,
            lease_expires_at=None,
            error_summary="the worker processing this roster stopped (lease lapsed)",
        )
        .execution_options(synchronize_session=False)
    ).rowcount  # type: ignore[attr-defined]
    return int(requeued), int(failed)
