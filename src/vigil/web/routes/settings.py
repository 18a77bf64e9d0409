"""Operator settings, read-only over the API (issue 18, docs/settings.md).

``GET /api/GetSettings`` (upload scope) answers the caller's operator's current settings
or, with ``version=N``, any earlier version, with who changed them and when, and the
history of versions. Settings change only in the console (admins) and the CLI.

:func:`settings_for` is what the scoring and upload routes call to score under the
operator's settings; a surface without a database scores with the built-in defaults,
``settingsVersion`` 0.
"""

from __future__ import annotations

import logging
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field
from sqlalchemy import Engine, bindparam, select
from sqlalchemy.exc import SQLAlchemyError

from vigil.scoring.service import iso
from vigil.store import operator_settings as store
from vigil.store.operator_settings import SettingsVersion
from vigil.store.tables import OperatorSettingsVersion
from vigil.web._runtime import Runtime
from vigil.web.deps import SessionDep, UploadPrincipal
from vigil.web.problems import only_query, problem
from vigil.web.query import whole_number

logger = logging.getLogger(__name__)

router = APIRouter(prefix="/api", tags=["settings"])

#: operators whose last read settings are kept for a database outage
MAX_CACHED_OPERATORS = 10_000


class SettingsHistoryItemOut(BaseModel):
    """One settings version in the history."""

    settingsVersion: int
    changedBy: str
    changedAt: str | None = Field(description="UTC; null for version 0, the defaults.")
    note: str


class SettingsOut(BaseModel):
    """GetSettings: one settings version and the history (docs/settings.md)."""

    operator: str
    settingsVersion: int
    changedBy: str
    changedAt: str | None
    note: str
    modelVersion: str = Field(description="The modelVersion scores under these settings carry.")
    settings: dict[str, Any] = Field(
        description="crewPrepMinutes, commuteMinutes, preset, scale, kpThreshold, "
        "warningLevels, airports, calibratedPresets."
    )
    history: list[SettingsHistoryItemOut]


def settings_for(runtime: Runtime, operator: str) -> SettingsVersion:
    """The operator's current settings (built-in defaults without a database).

    Every call asks the database which version is current (one indexed one-row query on
    a pooled connection, no ORM session), so a change made anywhere applies to the next
    call; the version's record is parsed once per process and kept (versions are never
    edited in place, and the row's ID and time tell a re-created one apart).

    Synchronous scoring must keep working while the database is away (docs/hardening.md):
    then the last settings read for the operator in this process are used, or the built-in
    defaults if none were, and the response's ``settingsVersion`` says which.
    """
    if runtime.sessions is None or runtime.engine is None:
        return store.BUILT_IN
    known: dict[str, tuple[Any, SettingsVersion]] = runtime.cache.setdefault(
        "operator_settings", {}
    )
    engine = runtime.engine
    try:
        head = _current_head(engine, operator)
        marker = head
        cached = known.get(operator)
        if cached is not None and cached[0] == marker:
            return cached[1]
        found = store.BUILT_IN
        if head is not None:
            with runtime.sessions() as session:
                read = store.settings_at(session=session, operator=operator, version=head[1])
                if read is None:  # changed between the two reads: take the current one
                    read = store.current_settings(session=session, operator=operator)
                    marker = (None,)  # no row's marker: asked again on the next call
            found = read
    except (SQLAlchemyError, engine.dialect.loaded_dbapi.Error) as exc:
        cached = known.get(operator)
        found = store.BUILT_IN if cached is None else cached[1]
        logger.warning(
            "settings of %r unreadable (%s); scoring with settings version %d",
            operator,
            type(exc).__name__,
            found.version,
        )
        return found
    if len(known) >= MAX_CACHED_OPERATORS and operator not in known:
        known.clear()
    known[operator] = (marker, found)
    return found


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


def _current_head(engine: Engine, operator: str) -> tuple[Any, ...] | None:
    """The current version's ``(id, version, changed_at)``, or ``None`` (version 0).

    Asked with the driver's own cursor on a pooled connection (issue 14: a quarter of the
    CPU of a ``Connection``'s ``exec_driver_sql``, itself a third of compiling the
    statement): the values are the driver's, exactly as ``exec_driver_sql`` returns them,
    and are only compared. A driver error is raised as the driver's ``Error``.
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


def version_body(found: SettingsVersion, operator: str) -> dict[str, Any]:
    """A settings version as the API and the CLI show it."""
    return {
        "operator": operator,
        "settingsVersion": found.version,
        "changedBy": found.changed_by,
        "changedAt": iso(found.changed_at) if found.changed_at else None,
        "note": found.note,
        "modelVersion": found.settings.parameters().model_version,
        "settings": found.settings.to_dict(),
    }


@router.get(
    "/GetSettings",
    dependencies=[Depends(only_query("version"))],
    summary="Your operator's settings (current, or one version), with their history",
    responses={
        200: {"model": SettingsOut, "description": "The version, who changed it, when, history."},
        400: {"description": "version is not a whole number."},
        404: {"description": "Your operator has no such settings version."},
    },
)
def get_settings(
    principal: UploadPrincipal,
    session: SessionDep,
    version: Annotated[
        str | None, Query(description="A settings version (default current).")
    ] = None,
) -> JSONResponse:
    """Read-only settings (docs/settings.md); change them in the console or the CLI."""
    operator = principal.operator
    if version is None:
        found: SettingsVersion | None = store.current_settings(session=session, operator=operator)
    else:
        number = whole_number(version)
        if number is None:
            return problem(
                400,
                "version must be a whole number (0 is the built-in defaults).",
                errors=[{"property": "version", "message": "not a whole number"}],
            )
        found = store.settings_at(session=session, operator=operator, version=number)
    if found is None:
        return problem(404, f"Your operator has no settings version {version}.")
    body = version_body(found, operator)
    body["history"] = [
        {
            "settingsVersion": v.version,
            "changedBy": v.changed_by,
            "changedAt": iso(v.changed_at) if v.changed_at else None,
            "note": v.note,
        }
        for v in store.settings_history(session=session, operator=operator)
    ]
    return JSONResponse(body)
