"""Repository functions for uploaded rosters and their results (contract §5).

Keyword-only, each taking a ``Session`` (STYLE §3.12); the caller owns the transaction
(functions ``flush`` but never ``commit``). Every read and delete is scoped by
``operator``: another operator's roster is indistinguishable from a missing one
(contract §2). Job claiming and leases live in :mod:`vigil.worker.jobs`.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session, load_only

from vigil.contract import ACTIVE, JobStatus
from vigil.contract import FINISHED as FINISHED_STATUSES
from vigil.store.repo import AlreadyExistsError
from vigil.store.tables import RosterInput, RosterResult, RosterTable, RosterUpload, utcnow

__all__ = [
    "QUEUED",
    "FINISHED",
    "create_upload",
    "delete_upload",
    "get_result",
    "get_upload",
    "list_uploads",
    "new_roster_token",
    "purge_finished_before",
]

#: status of a new upload
QUEUED = JobStatus.QUEUED
#: statuses after which a roster no longer changes
FINISHED = tuple(sorted(FINISHED_STATUSES))

#: columns read for status and listings (never the roster text)
_LIGHT = (
    RosterUpload.id,
    RosterUpload.token,
    RosterUpload.operator,
    RosterUpload.roster_name,
    RosterUpload.status,
    RosterUpload.submitted_at,
    RosterUpload.updated_at,
    RosterUpload.finished_at,
    RosterUpload.attempts,
    RosterUpload.error_summary,
    RosterUpload.preferred_scale,
    RosterUpload.progress_done,
    RosterUpload.progress_total,
)


def new_roster_token() -> str:
    """A roster token: 32 URL-safe characters, 192 random bits (contract §5: ≥ 128)."""
    return secrets.token_urlsafe(24)


class QueueFullError(Exception):
    """The operator already has its quota of rosters queued or processing."""

    def __init__(self, quota: int) -> None:
        super().__init__(
            f"Your operator already has {quota} rosters queued or processing, the most "
            "allowed at once; retry when some have finished."
        )
        self.quota = quota


def create_upload(
    *,
    session: Session,
    operator: str,
    roster_name: str,
    roster_text: str,
    activity_text: str = "",
    sleep_json: str = "[]",
    date_format: str = "dmy",
    preferred_scale: str = "KSS",
    overwrite: bool = False,
    now: datetime | None = None,
    max_unfinished: int = 0,
) -> RosterUpload:
    """Store a new roster, ``queued``, with a fresh token.

    ``max_unfinished`` is the operator's queue quota (``VIGIL_MAX_QUEUED_PER_OPERATOR``;
    0: none), enforced here so that every way in (UploadRoster, the console) shares it.

    Raises
    ------
    AlreadyExistsError
        ``operator`` already has ``roster_name`` and ``overwrite`` is false (contract §5:
        409). With ``overwrite`` the old roster and its results are deleted first, so its
        token becomes unknown (404).
    QueueFullError
        ``operator`` already has ``max_unfinished`` rosters queued or processing.
    """
    if max_unfinished and count_unfinished(session=session, operator=operator) >= max_unfinished:
        raise QueueFullError(max_unfinished)
    _free_name(session, operator, roster_name, overwrite=overwrite)
    at = now or utcnow()
    upload = RosterUpload(
        token=new_roster_token(),
        operator=operator,
        roster_name=roster_name,
        status=QUEUED,
        submitted_at=at,
        updated_at=at,
        input=RosterInput(
            roster_text=roster_text, activity_text=activity_text, sleep_json=sleep_json
        ),
        date_format=date_format,
        preferred_scale=preferred_scale,
        attempts=0,
    )
    session.add(upload)
    session.flush()
    return upload


def _free_name(session: Session, operator: str, roster_name: str, *, overwrite: bool) -> None:
    """Make ``roster_name`` free for a new roster: delete the operator's roster of that
    name (with its results) when ``overwrite``, else :class:`AlreadyExistsError`."""
    existing = session.scalar(
        select(RosterUpload.id).where(
            RosterUpload.operator == operator, RosterUpload.roster_name == roster_name
        )
    )
    if existing is not None:
        if not overwrite:
            raise AlreadyExistsError(f"a roster named {roster_name!r} exists")
        _delete(session, [existing])


def get_upload(*, session: Session, operator: str, token: str) -> RosterUpload | None:
    """The operator's roster with ``token`` (without its texts), or ``None``."""
    return session.scalar(
        select(RosterUpload)
        .options(load_only(*_LIGHT))
        .where(RosterUpload.token == token, RosterUpload.operator == operator)
    )


def count_unfinished(*, session: Session, operator: str) -> int:
    """The operator's rosters waiting or being processed (the per-operator quota)."""
    return int(
        session.scalar(
            select(func.count())
            .select_from(RosterUpload)
            .where(
                RosterUpload.operator == operator,
                RosterUpload.status.in_(ACTIVE),
            )
        )
        or 0
    )


def list_uploads(*, session: Session, operator: str) -> Sequence[RosterUpload]:
    """The operator's rosters, newest first (contract §5 ListRosters)."""
    return session.scalars(
        select(RosterUpload)
        .options(load_only(*_LIGHT))
        .where(RosterUpload.operator == operator)
        .order_by(RosterUpload.submitted_at.desc(), RosterUpload.id.desc())
    ).all()


def delete_upload(*, session: Session, operator: str, token: str) -> bool:
    """Delete the operator's roster and its results; ``False`` if there was none."""
    found = session.scalar(
        select(RosterUpload.id).where(
            RosterUpload.token == token, RosterUpload.operator == operator
        )
    )
    if found is None:
        return False
    _delete(session, [found])
    return True


def get_result(*, session: Session, upload_id: int) -> RosterResult | None:
    """The stored result of a roster, or ``None`` while it has none."""
    return session.get(RosterResult, upload_id)


def purge_finished_before(*, session: Session, cutoff: datetime) -> int:
    """Delete finished rosters (and results) that finished before ``cutoff``; the count.

    The retention setting (``VIGIL_RETENTION_DAYS``) calls this; unfinished rosters are
    never purged, so nothing accepted is lost before it is processed.
    """
    ids = session.scalars(
        select(RosterUpload.id).where(
            RosterUpload.status.in_(FINISHED), RosterUpload.finished_at < cutoff
        )
    ).all()
    if not ids:
        return 0
    _delete(session, ids)
    return len(ids)


def _delete(session: Session, ids: Sequence[int]) -> None:
    """Delete the uploads ``ids`` with their inputs and results (the database's cascade
    would too; said here so no backend setting is relied on)."""
    session.execute(delete(RosterTable).where(RosterTable.upload_id.in_(ids)))
    session.execute(delete(RosterResult).where(RosterResult.upload_id.in_(ids)))
    session.execute(delete(RosterInput).where(RosterInput.upload_id.in_(ids)))
    session.execute(delete(RosterUpload).where(RosterUpload.id.in_(ids)))
