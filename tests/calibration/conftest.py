"""Fixtures: the embedded app (identity, scoring, upload with an in-thread worker, console)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import LiveService, live_service


@pytest.fixture
def service(tmp_path: Path) -> Iterator[LiveService]:
    from vigil.web.app import EMBEDDED_ROUTERS, _load_router

    url = f"sqlite:///{tmp_path / 'vigil.db'}"
    routers = [_load_router(spec) for spec in EMBEDDED_ROUTERS]
    with live_service(
        tmp_path, url, routers=routers, worker_processes=0, worker_poll_interval=0.2
    ) as live:
        yield live
