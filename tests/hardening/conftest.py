"""Fixtures for the hardening tests: the embedded app on uvicorn, tokens per scope."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from conftest import LiveService, live_service
from rosters import HEADER, ROSTER  # noqa: F401

#: wire scope of each scope kind (default operator prefix ``svc``, contract §1)
WIRE_SCOPES = {
    "fatigue": "svc_fast_safe_api",
    "risk": "svc_fast_safe_risk_api",
    "upload": "svc_safe_upload_api",
}
#: the in-thread worker, no scoring processes: quick and light on a 2-core machine
FAST_WORKER: dict[str, Any] = {"worker_processes": 0, "worker_poll_interval": 0.05}


def embedded_routers() -> list[Any]:
    """The routers ``vigil serve`` mounts besides the identity surface's."""
    from vigil.web.app import EMBEDDED_ROUTERS, _load_router

    return [_load_router(spec) for spec in EMBEDDED_ROUTERS]


def serve_embedded(tmp_path: Path, database_url: str | None = None, **overrides: Any) -> Any:
    """A context manager serving the embedded app (all surfaces) on loopback."""
    url = database_url or f"sqlite:///{tmp_path / 'vigil.db'}"
    return live_service(tmp_path, url, routers=embedded_routers(), **{**FAST_WORKER, **overrides})


def get_token(service: LiveService, kind: str, *, operator: str = "acme") -> str:
    """A fresh client of ``operator`` holding scope ``kind``, and its access token."""
    client_id, secret = service.create_client(operator=operator, scopes=kind)
    response = httpx.post(
        f"{service.base_url}/connect/token",
        data={"grant_type": "client_credentials", "scope": WIRE_SCOPES[kind]},
        auth=(client_id, secret),
        timeout=30,
    )
    assert response.status_code == 200, response.text
    return str(response.json()["access_token"])


def wait_finished(http: httpx.Client, token: str, timeout: float = 60.0) -> str:
    """Poll GetResults status until the roster leaves queued/processing; the status."""
    deadline = time.monotonic() + timeout
    while True:
        response = http.get("/api/GetResults", params={"rosterToken": token, "dataKey": "status"})
        assert response.status_code == 200, response.text
        status = str(response.json()["status"])
        if status not in ("queued", "processing"):
            return status
        assert time.monotonic() < deadline, f"roster still {status}"
        time.sleep(0.05)


@pytest.fixture(scope="module")
def embedded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveService]:
    """One embedded service per test module (SQLite)."""
    tmp = tmp_path_factory.mktemp("embedded")
    with serve_embedded(tmp) as service:
        yield service


@pytest.fixture(scope="module")
def tokens(embedded: LiveService) -> dict[str, str]:
    """One access token per scope kind, all of operator ``acme``."""
    return {kind: get_token(embedded, kind) for kind in WIRE_SCOPES}
