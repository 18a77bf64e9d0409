"""Fixtures of the CLI tests: the credential commands in one Typer app, and their settings."""

from __future__ import annotations

from pathlib import Path

import pytest
import typer

from vigil.cli import client, keys, operator


@pytest.fixture
def cli() -> typer.Typer:
    """``vigil client|user``, ``vigil keys`` and ``vigil operator``, without the rest."""
    app = typer.Typer()
    client.register(app)
    keys.register(app)
    operator.register(app)
    return app


@pytest.fixture
def env(tmp_path: Path, sqlite_url: str) -> dict[str, str]:
    """A fresh SQLite database and data directory for one test."""
    return {"VIGIL_DATABASE_URL": sqlite_url, "VIGIL_DATA_DIR": str(tmp_path)}
