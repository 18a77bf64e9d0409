"""Engine, sessions and schema migrations (STYLE §2 ``store/``).

``make_engine(url)`` accepts SQLite (the default, ``sqlite:///./vigil.db``; ``sqlite://``
is an in-memory database shared by every session of the engine) and PostgreSQL
(``postgresql://`` and ``postgres://`` are rewritten to ``postgresql+psycopg://``,
psycopg 3). SQLite connections get ``journal_mode=WAL`` (file databases),
``foreign_keys=ON`` and a 5 s ``busy_timeout``. A SQLite file holds rosters, password
hashes and encrypted secrets, so it is created with mode 0600 before SQLite opens it
(SQLite gives its ``-wal`` and ``-shm`` files the database file's mode), and an existing
file readable by others is narrowed to 0600 with a warning.

The schema is owned by Alembic. The migration scripts ship inside the package
(``vigil/store/migrations``) so an installed service can run them; :func:`upgrade` does
so programmatically and every entry point calls it at start.
"""

from __future__ import annotations

import logging
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import DateTime, Engine, MetaData, create_engine, event
from sqlalchemy.engine import URL, Dialect, make_url
from sqlalchemy.orm import DeclarativeBase, Session, sessionmaker
from sqlalchemy.pool import StaticPool
from sqlalchemy.types import TypeDecorator

logger = logging.getLogger(__name__)

MIGRATIONS_DIR = Path(__file__).parent / "migrations"

#: constraint names Alembic can rely on (fastapi-best-practices; SQLAlchemy docs)
NAMING_CONVENTION: dict[str, str] = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Base(DeclarativeBase):
    """Declarative base of every table; its metadata carries the naming convention."""

    metadata = MetaData(naming_convention=NAMING_CONVENTION)


class UTCDateTime(TypeDecorator[datetime]):
    """An aware UTC datetime on every backend (SQLite stores it naive, as UTC)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.utcoffset() is None:
            raise ValueError("naive datetimes are not stored; use aware UTC")
        value = value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value.astimezone(UTC)


def normalise_url(url: str | URL) -> URL:
    """Parse ``url``, mapping bare PostgreSQL URLs onto the psycopg 3 driver."""
    parsed = make_url(url)
    if parsed.drivername in ("postgresql", "postgres"):
        parsed = parsed.set(drivername="postgresql+psycopg")
    return parsed


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA busy_timeout=5000")
        mode = cursor.execute("PRAGMA journal_mode").fetchone()
        if mode and str(mode[0]).lower() not in ("memory", "wal"):
            cursor.execute("PRAGMA journal_mode=WAL")
    finally:
        cursor.close()


def private_sqlite_file(database: str) -> None:
    """Create the SQLite file ``database`` with mode 0600, or narrow an existing one."""
    if os.name != "posix" or database.startswith("file:"):
        return
    path = Path(database)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        return
    except FileExistsError:
        pass
    for file in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
        try:
            mode = file.stat().st_mode & 0o777
            if mode & 0o077:
                os.chmod(file, 0o600)
                logger.warning("%s had mode %04o; narrowed to 0600", file, mode)
        except FileNotFoundError:
            continue
        except PermissionError:
            logger.warning("%s is readable by other users and not ours to chmod", file)


def make_engine(url: str | URL, **kwargs: Any) -> Engine:
    """Create an engine for ``url`` with the pragmas and pool this service needs.

    Parameters
    ----------
    url : str or URL
        SQLAlchemy URL; ``sqlite://`` gives one in-memory database per engine.
    **kwargs
        Passed to :func:`sqlalchemy.create_engine`.
    """
    parsed = normalise_url(url)
    # SQL parameters hold roster text and encrypted secrets: keep them out of exception
    # messages, which end in logs (secrets absent from logs)
    kwargs.setdefault("hide_parameters", True)
    if parsed.get_backend_name() == "sqlite":
        if parsed.database in (None, "", ":memory:"):
            kwargs.setdefault("poolclass", StaticPool)
        else:
            private_sqlite_file(parsed.database)
        kwargs.setdefault("connect_args", {"check_same_thread": False})
        engine = create_engine(parsed, **kwargs)
        event.listen(engine, "connect", _sqlite_pragmas)
        return engine
    kwargs.setdefault("pool_pre_ping", True)
    return create_engine(parsed, **kwargs)


def make_session_factory(engine: Engine) -> sessionmaker[Session]:
    """Sessions bound to ``engine``; objects stay readable after commit."""
    return sessionmaker(bind=engine, expire_on_commit=False)


def alembic_config(engine: Engine) -> Any:
    """An Alembic ``Config`` pointing at the packaged migrations and ``engine``."""
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    # ConfigParser interpolates '%': escape it (URL-encoded query options contain '%')
    url = engine.url.render_as_string(hide_password=False).replace("%", "%%")
    config.set_main_option("sqlalchemy.url", url)
    config.attributes["engine"] = engine
    return config


def upgrade(url_or_engine: str | URL | Engine, revision: str = "head") -> None:
    """Bring the schema up to ``revision`` (default: the newest).

    Parameters
    ----------
    url_or_engine : str, URL or Engine
        The database; pass the engine for in-memory SQLite so the same database is used.
    revision : str
        Alembic revision identifier.
    """
    from alembic import command

    engine = url_or_engine if isinstance(url_or_engine, Engine) else make_engine(url_or_engine)
    command.upgrade(alembic_config(engine), revision)
    if not isinstance(url_or_engine, Engine):
        engine.dispose()
