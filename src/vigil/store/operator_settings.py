"""Operator settings, their history, settings admins, crew observation sets.

Keyword-only functions taking a ``Session`` (STYLE §3.12); the caller owns the
transaction. Settings are never edited in place: every change adds a version (1, 2, …
per operator) holding the whole record, who made it, when and why, so any version can be
read back and scored with again. Version 0 is the built-in defaults
(:data:`vigil.settings.DEFAULT_SETTINGS`) and is never stored. Everything is scoped by
operator: another operator's observation set is indistinguishable from a missing one.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Engine, bindparam, delete, func, select
from sqlalchemy.orm import Session

from vigil.scoring.context import ScoringContext
from vigil.settings import DEFAULT_SETTINGS, OperatorSettings, load_settings
from vigil.store.tables import (
    ObservationSet,
    OperatorSettingsVersion,
    RosterSettings,
    RosterUpload,
    SettingsAdmin,
    utcnow,
)

__all__ = [
    "BUILT_IN",
    "SettingsVersion",
    "create_observation_set",
    "current_settings",
    "current_head",
    "delete_observation_set",
    "get_observation_set",
    "grant_admin",
    "is_admin",
    "list_observation_sets",
    "record_roster_settings",
    "revoke_admin",
    "roster_settings_version",
    "save_settings",
    "settings_at",
    "settings_for_upload",
    "settings_history",
]


@dataclass(frozen=True, slots=True)
class SettingsVersion:
    """One version of an operator's settings, with who changed it, when and why."""

    version: int
    settings: OperatorSettings
    changed_by: str
    changed_at: datetime | None
    note: str

    def context(self) -> ScoringContext:
        """What scoring under this version takes (:class:`vigil.scoring.context.ScoringContext`)."""
        return ScoringContext.of_settings(self.settings, self.version)


#: version 0: the built-in defaults, never stored
BUILT_IN = SettingsVersion(0, DEFAULT_SETTINGS, "vigil", None, "built-in defaults")


def _row(row: OperatorSettingsVersion) -> SettingsVersion:
    return SettingsVersion(
        row.version, load_settings(row.settings_json), row.changed_by, row.changed_at, row.note
    )


def current_settings(*, session: Session, operator: str) -> SettingsVersion:
    """The operator's newest settings (version 0, the defaults, if never changed)."""
    row = session.scalar(
        select(OperatorSettingsVersion)
        .where(OperatorSettingsVersion.operator == operator)
        .order_by(OperatorSettingsVersion.version.desc())
        .limit(1)
    )
    return BUILT_IN if row is None else _row(row)


def settings_at(*, session: Session, operator: str, version: int) -> SettingsVersion | None:
    """Version ``version`` of the operator's settings, or ``None`` if it has none such."""
    if version == 0:
        return BUILT_IN
    row = session.scalar(
        select(OperatorSettingsVersion).where(
            OperatorSettingsVersion.operator == operator,
            OperatorSettingsVersion.version == version,
        )
    )
    return None if row is None else _row(row)


def settings_history(*, session: Session, operator: str) -> list[SettingsVersion]:
    """Every version, newest first, ending with version 0 (the built-in defaults)."""
    rows = session.scalars(
        select(OperatorSettingsVersion)
        .where(OperatorSettingsVersion.operator == operator)
        .order_by(OperatorSettingsVersion.version.desc())
    ).all()
    return [*(_row(r) for r in rows), BUILT_IN]


def save_settings(
    *,
    session: Session,
    operator: str,
    settings: OperatorSettings,
    changed_by: str,
    note: str = "",
    now: datetime | None = None,
) -> SettingsVersion:
    """Record ``settings`` as the operator's next version and return it.

    Saving settings equal to the current ones records nothing and returns the current
    version: a version number always means a change.
    """
    current = current_settings(session=session, operator=operator)
    if current.settings.to_json() == settings.to_json():
        return current
    row = OperatorSettingsVersion(
        operator=operator,
        version=current.version + 1,
        settings_json=settings.to_json().decode("utf-8"),
        changed_by=changed_by[:200],
        changed_at=now or utcnow(),
        note=note,
    )
    session.add(row)
    session.flush()
    return _row(row)


_VERSIONS = OperatorSettingsVersion.__table__
_TABLE = OperatorSettingsVersion.__tablename__
#: the current version's row ID, number and time: what identifies its (immutable) record
_CURRENT = (
    select(_VERSIONS.c.id, _VERSIONS.c.version, _VERSIONS.c.changed_at)
    .where(_VERSIONS.c.operator == bindparam("operator"))
    .order_by(_VERSIONS.c.version.desc())
    .limit(1)
)
#: the same as driver SQL, by the driver's positional parameter style
_CURRENT_SQL = {
    style: (
        f"SELECT id, version, changed_at FROM {_TABLE} WHERE operator = {mark} "
        "ORDER BY version DESC LIMIT 1"
    )
    for style, mark in (("qmark", "?"), ("format", "%s"), ("pyformat", "%s"))
}


def current_head(engine: Engine, operator: str) -> tuple[Any, ...] | None:
    """The current version's ``(id, version, changed_at)``, or ``None`` (version 0).

    Asked with the driver's own cursor on a pooled connection (a fraction of the CPU of a
    ``Connection``'s ``exec_driver_sql``, itself cheaper than compiling the statement):
    the values are the driver's, exactly as ``exec_driver_sql`` returns them, and are
    only compared. A driver error is raised as the driver's ``Error``.
    """
    sql = _CURRENT_SQL.get(engine.dialect.paramstyle)
    if sql is None:
        with engine.connect() as connection:
            row = connection.execute(_CURRENT, {"operator": operator}).first()
    else:
        raw = engine.raw_connection()  # close() gives it back to the pool
        try:
            cursor = raw.cursor()
            try:
                cursor.execute(sql, (operator,))
                row = cursor.fetchone()
            finally:
                cursor.close()
        finally:
            raw.close()
    return None if row is None else tuple(row)


# --- settings admins -----------------------------------------------------------------------


def is_admin(*, session: Session, user_id: int) -> bool:
    """Whether the console user may change the operator's settings."""
    return session.get(SettingsAdmin, user_id) is not None


def grant_admin(*, session: Session, user_id: int) -> None:
    """Let the console user change settings (idempotent)."""
    if session.get(SettingsAdmin, user_id) is None:
        session.add(SettingsAdmin(user_id=user_id, granted_at=utcnow()))
        session.flush()


def revoke_admin(*, session: Session, user_id: int) -> None:
    """Withdraw the right to change settings (idempotent)."""
    session.execute(delete(SettingsAdmin).where(SettingsAdmin.user_id == user_id))


# --- rosters and their settings version ----------------------------------------------------


def record_roster_settings(*, session: Session, upload_id: int, version: int) -> None:
    """Remember the settings version an uploaded roster is scored with."""
    session.merge(RosterSettings(upload_id=upload_id, settings_version=version))
    session.flush()


def settings_for_upload(*, session: Session, upload_id: int) -> SettingsVersion:
    """The settings an uploaded roster is scored with: the version recorded at upload.

    A roster stored without one (a path that does not record it, such as the console's
    upload form) is given its operator's current version now, and that is recorded, so
    GetResults names the version the scores were computed with.
    """
    operator = session.scalar(select(RosterUpload.operator).where(RosterUpload.id == upload_id))
    if operator is None:
        return BUILT_IN
    link = session.get(RosterSettings, upload_id)
    if link is None:
        current = current_settings(session=session, operator=operator)
        record_roster_settings(session=session, upload_id=upload_id, version=current.version)
        return current
    found = settings_at(session=session, operator=operator, version=link.settings_version)
    return found or BUILT_IN


def roster_settings_version(*, session: Session, upload_id: int) -> int:
    """The settings version of an upload (0 for rosters stored before operator settings existed)."""
    row = session.get(RosterSettings, upload_id)
    return 0 if row is None else row.settings_version


# --- crew observation sets -----------------------------------------------------------------


class ObservationSetLimitError(Exception):
    """The operator already stores its most observation sets."""

    def __init__(self, limit: int) -> None:
        super().__init__(
            f"Your operator already stores {limit} observation sets, the most allowed; "
            "delete some first."
        )
        self.limit = limit


def create_observation_set(
    *,
    session: Session,
    operator: str,
    upload_id: int,
    name: str,
    observations_csv: str,
    sleep_csv: str = "",
    created_by: str,
    max_sets: int = 0,
) -> ObservationSet:
    """Store crew observations for one of the operator's rosters, with a fresh token.

    ``max_sets`` (0: none) bounds the operator's stored sets: beyond it
    :class:`ObservationSetLimitError`, nothing stored.
    """
    if max_sets:
        stored = session.scalar(
            select(func.count())
            .select_from(ObservationSet)
            .where(ObservationSet.operator == operator)
        )
        if int(stored or 0) >= max_sets:
            raise ObservationSetLimitError(max_sets)
    owner = session.scalar(select(RosterUpload.operator).where(RosterUpload.id == upload_id))
    if owner != operator:  # the caller resolved the roster by token within its operator
        raise ValueError("the roster belongs to another operator")
    row = ObservationSet(
        token=secrets.token_urlsafe(24),
        operator=operator,
        upload_id=upload_id,
        name=name[:200],
        observations_csv=observations_csv,
        sleep_csv=sleep_csv,
        created_by=created_by[:200],
        created_at=utcnow(),
    )
    session.add(row)
    session.flush()
    return row


def get_observation_set(*, session: Session, operator: str, token: str) -> ObservationSet | None:
    """The operator's observation set with ``token``, or ``None`` (also for another's)."""
    return session.scalar(
        select(ObservationSet).where(
            ObservationSet.token == token, ObservationSet.operator == operator
        )
    )


def list_observation_sets(*, session: Session, operator: str) -> Sequence[ObservationSet]:
    """The operator's observation sets, newest first."""
    return session.scalars(
        select(ObservationSet)
        .where(ObservationSet.operator == operator)
        .order_by(ObservationSet.created_at.desc(), ObservationSet.id.desc())
    ).all()


def delete_observation_set(*, session: Session, operator: str, token: str) -> bool:
    """Delete the operator's observation set; ``False`` if there was none."""
    result = session.execute(
        delete(ObservationSet).where(
            ObservationSet.token == token, ObservationSet.operator == operator
        )
    )
    return bool(result.rowcount)  # type: ignore[attr-defined]
