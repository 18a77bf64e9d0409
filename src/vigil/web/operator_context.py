"""The application layer's operator scoring context: which settings a request scores under.

:func:`context_for` is resolved once per request by every web surface that scores (the
scoring API, the planner, the console's try-it) from the caller's operator; the console's
what-if scores under the settings version its roster was stored with
(:func:`context_of_upload`), so an unedited draft reproduces the stored scores exactly.
A surface without a database scores with the built-in defaults, ``settingsVersion`` 0.
"""

from __future__ import annotations

import logging

from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session

from vigil.scoring.context import ScoringContext
from vigil.store import operator_settings as store
from vigil.store.operator_settings import SettingsVersion
from vigil.web._runtime import Runtime
from vigil.web.runtime_state import SettingsMarker

__all__ = ["MAX_CACHED_OPERATORS", "context_for", "context_of_upload", "settings_for"]

logger = logging.getLogger(__name__)

#: operators whose last read settings are kept for a database outage
MAX_CACHED_OPERATORS = 10_000


def context_for(runtime: Runtime, operator: str) -> ScoringContext:
    """The scoring context of the operator's current settings (:func:`settings_for`)."""
    return settings_for(runtime, operator).context()


def context_of_upload(session: Session, upload_id: int) -> ScoringContext:
    """The scoring context a stored roster was scored under (its recorded version)."""
    return store.settings_for_upload(session=session, upload_id=upload_id).context()


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
    known = runtime.state.operator_settings
    engine = runtime.engine
    try:
        head = store.current_head(engine, operator)
        marker: SettingsMarker = head
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
