"""A real ``vigil serve`` process for the tests that need one: start it, wait until
``/readyz`` says ready, read the bootstrap credentials from its output, stop it.

One module imported under one name (``live_server``, from the tests' root) by every test
that starts a server, instead of importing another test module.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import httpx

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


def start(workdir: Path, port: int, *args: str, env: dict[str, str] | None = None) -> Server:
    """``vigil serve --port PORT ARGS...`` in ``workdir`` (its data directory), ``env`` added."""
    process = subprocess.Popen(
        [*VIGIL, "serve", "--port", str(port), *args],
        cwd=workdir,
        env={**clean_env(), "VIGIL_DATA_DIR": str(workdir), **(env or {})},
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
    a cold Numba cache compiles them first)."""
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


def bootstrap_credentials(output: list[str]) -> tuple[str, str]:
    text = "".join(output)
    client_id = text.split("client_id:", 1)[1].split()[0]
    secret = text.split("client_secret:", 1)[1].split()[0]
    return client_id, secret
