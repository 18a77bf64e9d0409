"""Fixtures for the worker tests: a migrated database and its sessions."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy.orm import Session, sessionmaker

from vigil.store.db import make_engine, make_session_factory, upgrade


@pytest.fixture
def sessions(db_url: str) -> Iterator[sessionmaker[Session]]:
    """Sessions on a freshly migrated SQLite file or PostgreSQL schema."""
    engine = make_engine(db_url)
    upgrade(engine)
    yield make_session_factory(engine)
    engine.dispose()
