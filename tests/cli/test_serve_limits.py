"""``vigil serve --workers 2`` enforces the connection limits end to end.

Short limits come from an env file, as an operator would set them; two worker processes
check that the guarded protocol survives uvicorn's process spawning.
"""

from __future__ import annotations

import signal
import socket
import subprocess
import time
from pathlib import Path

import httpx

from live_server import VIGIL, clean_env, free_port


def test_served_process_closes_slow_and_oversized_requests(tmp_path: Path) -> None:
    env_file = tmp_path / "vigil.env"
    env_file.write_text(
        f"VIGIL_HEADER_TIMEOUT=1.5\nVIGIL_MAX_HEADER_BYTES=4096\nVIGIL_DATA_DIR={tmp_path}\n"
    )
    port = free_port()
    process = subprocess.Popen(
        [*VIGIL, "serve", "--port", str(port), "--workers", "2", "--env-file", str(env_file)],
        cwd=tmp_path,
        env=clean_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    output: list[str] = []
    try:
        assert process.stdout is not None
        deadline = time.monotonic() + 90
        while sum("Application startup complete" in line for line in output) < 2:
            line = process.stdout.readline()
            assert line and time.monotonic() < deadline, "".join(output)
            output.append(line)
        assert httpx.get(f"http://127.0.0.1:{port}/healthz").status_code == 200
        with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
            start = time.monotonic()
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")  # and nothing more
            assert sock.recv(4096).startswith(b"HTTP/1.1 408")
            assert time.monotonic() - start < 4
        with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 8000 + b"\r\n\r\n")
            assert sock.recv(4096).startswith(b"HTTP/1.1 431")
        with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
            sock.sendall(
                b"POST /api/UploadRoster HTTP/1.1\r\nHost: x\r\nContent-Type: application/json"
                b"\r\nContent-Length: 104857600\r\n\r\n{"
            )
            assert sock.recv(4096).startswith(b"HTTP/1.1 401")
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()
