"""``vigil serve --workers 2`` shares one failure allowance (9)."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import httpx

from live_server import Server, bootstrap_credentials, clean_env, free_port, stop

TOKEN_FORM = {"grant_type": "client_credentials"}


def test_two_workers_do_not_double_the_allowance(tmp_path: Path) -> None:
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "vigil", "serve", "--port", str(port), "--workers", "2"],
        cwd=tmp_path,
        env={**clean_env(), "VIGIL_DATA_DIR": str(tmp_path)},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    output: list[str] = []
    assert process.stdout is not None
    deadline, started = time.monotonic() + 120, 0
    while started < 2 and time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            break
        output.append(line)
        started += "Application startup complete" in line
    server = Server(process, f"http://127.0.0.1:{port}", output)
    try:
        assert started == 2, "".join(output)
        client_id, secret = bootstrap_credentials(output)
        url = f"{server.base}/connect/token"
        codes = []
        for _ in range(12):  # a new connection each time: the kernel spreads them
            attacker = httpx.HTTPTransport(local_address="127.0.0.2")
            with httpx.Client(transport=attacker) as http:
                codes.append(http.post(url, data=TOKEN_FORM, auth=(client_id, "x")).status_code)
        # one allowance of 10 for both processes (per process it would be up to 20)
        assert codes == [401] * 10 + [429, 429]
        with httpx.Client() as owner:
            assert owner.post(url, data=TOKEN_FORM, auth=(client_id, secret)).status_code == 200
    finally:
        stop(server)
