"""``vigil serve`` as a real process: first start, token to scores, logs, shutdown."""

from __future__ import annotations

import json
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from live_server import (
    ROSTER,
    VIGIL,
    bootstrap_credentials,
    clean_env,
    free_port,
    start,
    stop,
)


@pytest.fixture
def workdir(tmp_path: Path) -> Iterator[Path]:
    (tmp_path / "roster.csv").write_text(ROSTER, encoding="utf-8")
    yield tmp_path


def test_first_start_prints_a_client_that_scores_like_the_cli(workdir: Path) -> None:
    server = start(workdir, free_port())
    try:
        client_id, secret = bootstrap_credentials(server.output)
        token = httpx.post(
            f"{server.base}/connect/token",
            data={"grant_type": "client_credentials", "scope": "svc_fast_safe_risk_api"},
            auth=(client_id, secret),
        )
        assert token.status_code == 200, token.text
        access = token.json()["access_token"]
        response = httpx.post(
            f"{server.base}/api/Processor/ProcessFatigueRisk",
            json={
                "RosterData": ROSTER,
                "SleepData": [],
                "DateFormat": "dmy",
                "PreferredScale": "KSS",
            },
            headers={"Authorization": f"Bearer {access}", "X-Request-ID": "test-req-1"},
            timeout=60,
        )
        assert response.status_code == 200, response.text
        assert response.headers["x-request-id"] == "test-req-1"
        # one code path: the CLI on the same roster gives the same envelope
        cli = subprocess.run(
            [*VIGIL, "score", "roster.csv", "--risk", "--json"],
            cwd=workdir,
            env=clean_env(),
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert cli.returncode == 0, cli.stderr
        assert json.loads(cli.stdout) == response.json()
    finally:
        # graceful shutdown on SIGTERM: the lifespan finishes; uvicorn then re-raises the
        # signal, so the exit status is 0 or -SIGTERM depending on its version
        assert stop(server) in (0, -signal.SIGTERM)
    log = "".join(server.output)
    assert "Application shutdown complete" in log
    assert '"path": "/api/Processor/ProcessFatigueRisk"' in log
    assert '"request_id": "test-req-1"' in log
    for secret_text in (secret, access, "LHR,LHR,0"):
        assert secret_text not in log.split("client_secret:", 1)[1].split("\n", 1)[1]


def test_second_start_creates_no_new_client(workdir: Path) -> None:
    port = free_port()
    first = start(workdir, port)
    stop(first)
    assert "client_secret:" in "".join(first.output)
    second = start(workdir, port)
    stop(second)
    assert "client_secret:" not in "".join(second.output)
    assert (workdir / "vigil.db").exists()
