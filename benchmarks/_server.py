"""A ``vigil serve`` child process for the HTTP benchmarks (loopback only)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path


def free_port() -> int:
    """A free TCP port on 127.0.0.1."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_server(
    workdir: Path, port: int, workers: int, **env_overrides: str
) -> tuple[subprocess.Popen[str], str, str]:
    """``vigil serve`` on ``port`` in ``workdir``; returns the process and the bootstrap
    client's ID and secret. Its log is drained in a thread so the pipe never blocks it."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("VIGIL_")}
    env.update(PYTHONUNBUFFERED="1", VIGIL_DATA_DIR=str(workdir), **env_overrides)
    process = subprocess.Popen(
        [sys.executable, "-m", "vigil", "serve", "--port", str(port), "--workers", str(workers)],
        cwd=workdir,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    assert process.stdout is not None
    lines: list[str] = []
    started = 0
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and started < workers:
        line = process.stdout.readline()
        if not line:
            break
        lines.append(line)
        started += "Application startup complete" in line
    if started < workers:
        process.kill()
        raise SystemExit("server did not start:\n" + "".join(lines))
    text = "".join(lines)
    client_id = text.split("client_id:", 1)[1].split()[0]
    secret = text.split("client_secret:", 1)[1].split()[0]
    stream = process.stdout

    def drain() -> None:
        for _ in stream:
            pass

    threading.Thread(target=drain, daemon=True).start()
    # ready once the scoring kernels are loaded (warm start): measuring before
    # would time the compiler running in the background
    import httpx

    def ready() -> bool:
        # uvicorn logs "startup complete" before its socket listens: refused is "not yet"
        try:
            return httpx.get(f"http://127.0.0.1:{port}/readyz", timeout=30).status_code == 200
        except httpx.ConnectError:
            return False

    ready_by = time.monotonic() + 600
    while not ready():
        if time.monotonic() > ready_by or process.poll() is not None:
            process.kill()
            raise SystemExit("server never became ready")
        time.sleep(0.2)
    return process, client_id, secret
