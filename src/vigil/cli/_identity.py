"""Shared plumbing of the identity commands: settings, database and secret box."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import typer
from sqlalchemy.orm import Session, sessionmaker

from vigil.config.settings import Settings
from vigil.store.crypto import SecretBox, SecretBoxError
from vigil.store.db import make_engine, make_session_factory, upgrade

DatabaseUrlOption = typer.Option(
    "--database-url",
    help="SQLAlchemy URL (default: VIGIL_DATABASE_URL, else vigil.db in the data directory, "
    "VIGIL_DATA_DIR).",
    show_default=False,
)


@dataclass(frozen=True)
class IdentityContext:
    settings: Settings
    session: Session
    box: SecretBox
    sessions: sessionmaker[Session]


@contextmanager
def identity_context(database_url: str | None) -> Iterator[IdentityContext]:
    """Open the database (migrated), the secret box and a committing session."""
    settings = Settings.from_env()
    settings.ensure_data_dir()
    url = database_url or settings.database_url
    engine = make_engine(url)
    try:
        upgrade(engine)
        secret = settings.secret_key.get_secret_value() if settings.secret_key else None
        try:
            box = SecretBox.from_config(secret, settings.effective_secret_key_file)
        except SecretBoxError as exc:  # e.g. a key file others can read
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(code=1) from None
        sessions = make_session_factory(engine)
        with sessions.begin() as session:
            yield IdentityContext(settings, session, box, sessions)
    finally:
        engine.dispose()
