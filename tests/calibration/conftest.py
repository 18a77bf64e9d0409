"""Fixtures: the embedded app (identity, scoring, upload with an in-thread worker, console)."""

from __future__ import annotations

import pytest

from conftest import LiveService


@pytest.fixture
def service(embedded_service: LiveService) -> LiveService:
    """The embedded app on SQLite (root conftest's ``embedded_service``)."""
    return embedded_service
