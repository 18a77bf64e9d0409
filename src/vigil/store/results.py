"""A roster's stored result, read and written in parts: the small columns without the
scores blob, a slice of the blob, the summary (``roster_result``; docs/upload.md) and the
packed duty tables (``roster_table``).

Keyword-free helpers taking a ``Session`` (the caller owns the transaction), used by fleet,
the routes and the console so none of them writes SQL of its own.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from sqlalchemy import delete, func, select, update
from sqlalchemy.orm import Session

from vigil.store.tables import RosterResult, RosterTable, RosterUpload

__all__ = [
    "LightResult",
    "light_result",
    "model_version",
    "operator_of",
    "packed_tables",
    "save_summary",
    "save_tables",
    "scores_reader",
]


def operator_of(session: Session, upload_id: int) -> str | None:
    """The operator of an upload, or ``None`` when there is no such upload."""
    return session.scalar(select(RosterUpload.operator).where(RosterUpload.id == upload_id))


def model_version(session: Session, upload_id: int) -> str:
    """The model version of an upload's stored result ("" before one)."""
    found = session.scalar(
        select(RosterResult.model_version).where(RosterResult.upload_id == upload_id)
    )
    return found or ""


def save_summary(session: Session, upload_id: int, text: str) -> None:
    """Store the roster summary JSON of an upload's result."""
    session.execute(
        update(RosterResult)
        .where(RosterResult.upload_id == upload_id)
        .values(summary_json=text)
        .execution_options(synchronize_session=False)
    )


def save_tables(session: Session, upload_id: int, data: bytes) -> None:
    """Store (or replace) the packed duty tables of an upload's result
    (:mod:`vigil.fleet.packed`)."""
    session.execute(delete(RosterTable).where(RosterTable.upload_id == upload_id))
    session.add(RosterTable(upload_id=upload_id, data=data))
    session.flush()


def packed_tables(session: Session, upload_id: int) -> bytes | None:
    """The packed duty tables of an upload's result; ``None`` when none were stored."""
    found = session.scalar(select(RosterTable.data).where(RosterTable.upload_id == upload_id))
    return bytes(found) if found is not None else None


@dataclass(frozen=True, slots=True)
class LightResult:
    """A roster's stored result without its scores blob (a page never reads 100+ MB)."""

    upload_id: int
    errors_json: str
    model_version: str
    summary_json: str | None
    sleep: bytes | None


def light_result(session: Session, upload_id: int, *, sleep: bool = False) -> LightResult | None:
    """The result's small columns (and the sleep blob when asked); ``None`` before one."""
    row = session.execute(
        select(
            RosterResult.errors_json,
            RosterResult.model_version,
            RosterResult.summary_json,
            RosterResult.sleep if sleep else RosterResult.upload_id,
        ).where(RosterResult.upload_id == upload_id)
    ).first()
    if row is None:
        return None
    blob = row[3] if sleep and isinstance(row[3], bytes) else None
    return LightResult(upload_id, row[0], row[1], row[2], blob)


def scores_reader(session: Session, upload_id: int) -> Callable[[int, int], bytes]:
    """``read(offset, length)`` of the stored scores blob without fetching all of it.

    SQLite: incremental blob I/O (``Connection.blobopen``; ``substr`` would load the whole
    value for every call). Other databases: SQL ``substr`` (PostgreSQL reads only the
    TOAST chunks a slice of an uncompressed value needs).
    """
    connection = session.connection()
    if connection.dialect.name == "sqlite":
        raw = connection.connection.driver_connection
        blob = raw.blobopen("roster_result", "scores", upload_id, readonly=True)  # type: ignore[union-attr]

        def read_sqlite(offset: int, length: int) -> bytes:
            blob.seek(offset)
            return bytes(blob.read(length))

        return read_sqlite

    def read(offset: int, length: int) -> bytes:
        piece = session.scalar(
            select(func.substr(RosterResult.scores, offset + 1, length)).where(
                RosterResult.upload_id == upload_id
            )
        )
        return bytes(piece or b"")

    return read
