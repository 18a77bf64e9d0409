"""``settings_for`` (the scoring routes' settings lookup) against the ORM's own reading.

The current version is read with the driver's cursor; these tests pin that it
answers what :func:`vigil.store.operator_settings.current_settings` answers, sees a change
committed by another engine (another process) on the very next call, and keeps the last
settings read when the database cannot answer, as the ``Connection`` path did.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from sqlalchemy import Engine, text

from vigil.settings import merge_settings
from vigil.store import operator_settings as store
from vigil.store.db import make_engine, make_session_factory, upgrade
from vigil.web.operator_context import settings_for
from vigil.web.runtime_state import RuntimeState


def _runtime(engine: Engine) -> Any:
    """What ``settings_for`` reads of a :class:`vigil.web._runtime.Runtime`."""
    return SimpleNamespace(
        engine=engine, sessions=make_session_factory(engine), state=RuntimeState()
    )


def _save(engine: Engine, operator: str, changes: dict[str, Any]) -> int:
    with make_session_factory(engine).begin() as session:
        current = store.current_settings(session=session, operator=operator)
        new = merge_settings(current.settings, changes)
        saved = store.save_settings(
            session=session, operator=operator, settings=new, changed_by="test"
        )
        return saved.version


def _current(engine: Engine, operator: str) -> store.SettingsVersion:
    with make_session_factory(engine)() as session:
        return store.current_settings(session=session, operator=operator)


@pytest.fixture
def db(tmp_path: Path) -> Iterator[tuple[Engine, Engine]]:
    """The service's engine and another one on the same file (another process's)."""
    url = f"sqlite:///{tmp_path / 'vigil.db'}"
    ours, theirs = make_engine(url), make_engine(url)
    upgrade(ours)
    yield ours, theirs
    ours.dispose()
    theirs.dispose()


def test_answers_the_stored_current_version_and_sees_changes_at_once(
    db: tuple[Engine, Engine],
) -> None:
    ours, theirs = db
    runtime = _runtime(ours)
    assert settings_for(runtime, "acme") is store.BUILT_IN  # never changed: version 0
    for prep in (90, 120, 45):
        version = _save(theirs, "acme", {"crewPrepMinutes": prep})
        found = settings_for(runtime, "acme")
        expected = _current(theirs, "acme")
        assert (found.version, found.settings) == (version, expected.settings)
        assert found.settings.to_dict()["crewPrepMinutes"] == prep
        assert settings_for(runtime, "acme") is found  # unchanged: the parsed record kept
    assert settings_for(runtime, "globex") is store.BUILT_IN  # per operator


def test_unreadable_database_keeps_the_last_settings_read(
    db: tuple[Engine, Engine], caplog: pytest.LogCaptureFixture
) -> None:
    ours, theirs = db
    runtime = _runtime(ours)
    _save(theirs, "acme", {"crewPrepMinutes": 120})
    assert settings_for(runtime, "acme").version == 1
    with theirs.begin() as connection:  # the driver's query now fails (no such table)
        connection.execute(text("ALTER TABLE operator_settings_version RENAME TO moved"))
    with caplog.at_level(logging.WARNING, logger="vigil.web.operator_context"):
        kept = settings_for(runtime, "acme")
        unknown = settings_for(runtime, "globex")
    assert kept.version == 1 and kept.settings.to_dict()["crewPrepMinutes"] == 120
    assert unknown is store.BUILT_IN
    assert caplog.messages == [
        "settings of 'acme' unreadable (OperationalError); scoring with settings version 1",
        "settings of 'globex' unreadable (OperationalError); scoring with settings version 0",
    ]
