"""``vigil serve`` as a real process: first start, token to scores, logs, shutdown (issue 6)."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

VIGIL = [sys.executable, "-m", "vigil"]
ROSTER = "\r\n".join(
    [
        "P1,02/03/2026,06:00,LHR,02/03/2026,14:30,LHR,LHR,0",
        "P1,03/03/2026,21:10,LHR,04/03/2026,07:00,JFK,LHR,2",
        "P2,02/03/2026,09:00,JFK,02/03/2026,17:05,BOS,JFK,1",
    ]
)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def clean_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("VIGIL_")}
    env["PYTHONUNBUFFERED"] = "1"
    return env


@dataclass
class Server:
    process: subprocess.Popen[str]
    base: str
    output: list[str]


def start(workdir: Path, port: int) -> Server:
    process = subprocess.Popen(
        [*VIGIL, "serve", "--port", str(port)],
        cwd=workdir,
        env={**clean_env(), "VIGIL_DATA_DIR": str(workdir)},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    base = f"http://127.0.0.1:{port}"
    output: list[str] = []
    assert process.stdout is not None
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            break
        output.append(line)
        if "Application startup complete" in line:
            wait_ready(base, process)
            return Server(process, base, output)
    process.kill()
    raise AssertionError("server did not start:\n" + "".join(output))


def wait_ready(base: str, process: subprocess.Popen[str], timeout: float = 900) -> None:
    """Poll ``/readyz`` until 200: ready once the scoring kernels are loaded (warm start,
    issue 15; a cold Numba cache compiles them first)."""
    deadline = time.monotonic() + timeout
    while True:
        try:  # uvicorn logs "startup complete" before its socket listens: refused is "not yet"
            if httpx.get(f"{base}/readyz", timeout=10).status_code == 200:
                return
        except httpx.TransportError:
            pass
        assert process.poll() is None and time.monotonic() < deadline, "never ready"
        time.sleep(0.2)


def stop(server: Server) -> int:
    server.process.send_signal(signal.SIGTERM)
    try:
        rest, _ = server.process.communicate(timeout=30)
    except subprocess.TimeoutExpired:  # pragma: no cover - a hang is the failure
        server.process.kill()
        raise
    server.output.append(rest)
    return server.process.returncode


@pytest.fixture
def workdir(tmp_path: Path) -> Iterator[Path]:
    (tmp_path / "roster.csv").write_text(ROSTER, encoding="utf-8")
    yield tmp_path


def bootstrap_credentials(output: list[str]) -> tuple[str, str]:
    text = "".join(output)
    client_id = text.split("client_id:", 1)[1].split()[0]
    secret = text.split("client_secret:", 1)[1].split()[0]
    return client_id, secret


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
