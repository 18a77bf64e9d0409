"""Store: migrations, pragmas, repository functions, secrets at rest (SQLite and PostgreSQL)."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import Engine, inspect, text
from sqlalchemy.orm import Session

from vigil.store import repo
from vigil.store.crypto import SecretBox, SecretBoxError, load_or_create_key_file
from vigil.store.db import make_engine, make_session_factory, normalise_url, upgrade
from vigil.store.tables import Base


@pytest.fixture
def engine(db_url: str) -> Iterator[Engine]:
    eng = make_engine(db_url)
    upgrade(eng)
    yield eng
    eng.dispose()


@pytest.fixture
def box(tmp_path: Path) -> SecretBox:
    return SecretBox.from_config(None, tmp_path / "secret.key")


@pytest.fixture
def session(engine: Engine) -> Iterator[Session]:
    with make_session_factory(engine).begin() as s:
        yield s


def test_migrations_match_models(engine: Engine) -> None:
    assert {"operator", "api_client", "signing_key", "console_user"} <= set(
        inspect(engine).get_table_names()
    )
    with engine.connect() as conn:
        assert compare_metadata(MigrationContext.configure(conn), Base.metadata) == []
    upgrade(engine)  # idempotent


def test_sqlite_pragmas(tmp_path: Path) -> None:
    eng = make_engine(f"sqlite:///{tmp_path / 'p.db'}")
    with eng.connect() as conn:
        assert conn.execute(text("PRAGMA foreign_keys")).scalar() == 1
        assert conn.execute(text("PRAGMA journal_mode")).scalar() == "wal"
    eng.dispose()


def test_postgres_url_uses_psycopg3() -> None:
    assert normalise_url("postgresql://u@h/db").drivername == "postgresql+psycopg"
    assert normalise_url("sqlite://").drivername == "sqlite"


def test_client_secret_encrypted_at_rest(session: Session, box: SecretBox) -> None:
    client, secret = repo.create_api_client(
        session=session, box=box, operator="acme", scopes="fatigue", secret="a+b/c=d%e:f g"
    )
    raw = session.execute(
        text("SELECT secret_encrypted FROM api_client WHERE client_id = :c"),
        {"c": client.client_id},
    ).scalar_one()
    assert b"a+b/c=d%e:f g" not in bytes(raw)
    assert repo.reveal_client_secret(box=box, client=client) == secret
    assert client.created_at.tzinfo is not None


def test_client_lifecycle(session: Session, box: SecretBox) -> None:
    client, first = repo.create_api_client(
        session=session, box=box, operator="acme", scopes="fatigue risk upload"
    )
    assert len(client.client_id) == 24 and client.client_id.isalnum()
    with pytest.raises(repo.AlreadyExistsError):
        repo.create_api_client(
            session=session, box=box, operator="acme", scopes="x", client_id=client.client_id
        )
    second = repo.rotate_client_secret(session=session, box=box, client_id=client.client_id)
    assert second != first and client.rotated_at is not None
    repo.set_client_disabled(session=session, client_id=client.client_id)
    found = repo.get_api_client(session=session, client_id=client.client_id)
    assert found is not None and found.disabled
    assert [c.client_id for c in repo.list_api_clients(session=session, operator="acme")] == [
        client.client_id
    ]
    assert repo.list_api_clients(session=session, operator="other") == []
    with pytest.raises(repo.NotFoundError):
        repo.rotate_client_secret(session=session, box=box, client_id="missing")


def test_bootstrap_client_only_once(session: Session, box: SecretBox) -> None:
    made = repo.ensure_bootstrap_client(
        session=session, box=box, operator="default", scopes="fatigue risk upload"
    )
    assert made is not None
    again = repo.ensure_bootstrap_client(session=session, box=box, operator="default", scopes="")
    assert again is None


def test_console_user_argon2(session: Session) -> None:
    user = repo.create_console_user(
        session=session, operator="acme", username="ops", password="correct horse"
    )
    assert user.password_hash.startswith("$argon2id$")
    assert repo.authenticate_console_user(session=session, username="ops", password="correct horse")
    assert not repo.authenticate_console_user(session=session, username="ops", password="wrong!!")
    assert not repo.authenticate_console_user(session=session, username="nobody", password="x")


def test_signing_keys(session: Session, box: SecretBox) -> None:
    now = datetime.now(UTC)
    repo.add_signing_key(session=session, box=box, kid="k1", private_pem=b"PEM", created_at=now)
    repo.retire_signing_key(session=session, kid="k1", retired_at=now)
    (row,) = repo.list_signing_keys(session=session)
    assert row.retired_at is not None and abs((row.retired_at - now).total_seconds()) < 1e-3
    assert box.decrypt_bytes(row.private_key_encrypted) == b"PEM"


def test_key_file_created_0600_and_reused(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "secret.key"
    key = load_or_create_key_file(path)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert load_or_create_key_file(path) == key
    token = SecretBox([key]).encrypt("s")
    other = SecretBox.from_config(load_or_create_key_file(tmp_path / "other.key").decode(), path)
    with pytest.raises(SecretBoxError):
        other.decrypt(token)
