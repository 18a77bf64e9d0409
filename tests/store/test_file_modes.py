"""Database and key files are private to the service's user."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import text

from vigil.store.crypto import KeyFilePermissionError, SecretBox, load_or_create_key_file
from vigil.store.db import make_engine, upgrade


def mode(path: Path) -> int:
    return path.stat().st_mode & 0o777


@pytest.fixture
def loose_umask() -> Iterator[None]:
    old = os.umask(0o022)  # the common default: files 0644 unless asked otherwise
    yield
    os.umask(old)


def test_sqlite_database_wal_and_shm_are_0600(tmp_path: Path, loose_umask: object) -> None:
    path = tmp_path / "data" / "vigil.db"
    engine = make_engine(f"sqlite:///{path}")
    try:
        upgrade(engine)
        with engine.begin() as conn:  # keep a connection open so -wal and -shm exist
            conn.execute(text("INSERT INTO operator (name, created_at) VALUES ('a', '2026-01-01')"))
            files = [path, Path(f"{path}-wal"), Path(f"{path}-shm")]
            assert all(f.exists() for f in files)
            assert [mode(f) for f in files] == [0o600] * 3
    finally:
        engine.dispose()


def test_existing_readable_database_is_narrowed(tmp_path: Path, loose_umask: object) -> None:
    path = tmp_path / "vigil.db"
    path.touch(mode=0o644)
    assert mode(path) == 0o644
    make_engine(f"sqlite:///{path}").dispose()
    assert mode(path) == 0o600


def test_key_file_created_0600_and_refused_when_others_can_read(
    tmp_path: Path, loose_umask: object
) -> None:
    key_file = tmp_path / "secret.key"
    key = load_or_create_key_file(key_file)
    assert mode(key_file) == 0o600
    assert SecretBox.from_config(None, key_file).decrypt(SecretBox([key]).encrypt("x")) == "x"
    for loose in (0o640, 0o604, 0o644):
        key_file.chmod(loose)
        with pytest.raises(KeyFilePermissionError) as caught:
            SecretBox.from_config(None, key_file)
        message = str(caught.value)
        assert str(key_file) in message and f"chmod 600 {key_file}" in message
