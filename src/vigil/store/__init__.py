"""Persistence: SQLAlchemy 2 typed ORM, Alembic migrations; knows nothing of HTTP."""

from vigil.store.crypto import SecretBox
from vigil.store.db import Base, make_engine, make_session_factory, upgrade

__all__ = ["Base", "SecretBox", "make_engine", "make_session_factory", "upgrade"]
