"""Failure limits behind a reverse proxy count per client, not per proxy (docs/deployment.md).

An attack found that behind the documented nginx every client shares the proxy's
address, so 10 wrong secrets locked a client's owner out, 105 failures locked every
tenant out of ``/connect/token``, and 20 failed console sign-ins every console user.
Here a real ``vigil serve --forwarded-allow-ips 127.0.0.1`` gets requests as the proxy
sends them (``X-Forwarded-For: <client>``), from the proxy's address 127.0.0.1.
"""

from __future__ import annotations

import re
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from live_server import VIGIL, Server, bootstrap_credentials, clean_env, free_port, start, stop
from vigil.cli.serve import trusted_proxies

PASSWORD = "correct horse battery staple"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    workdir = tmp_path_factory.mktemp("forwarded")
    limits = {
        "VIGIL_AUTH_FAILURE_DELAY": "0",
        "VIGIL_AUTH_SOURCE_MAX_FAILURES": "30",
        "VIGIL_CONSOLE_MAX_FAILURES": "5",
        "VIGIL_CONSOLE_SOURCE_MAX_FAILURES": "8",
    }
    served = start(workdir, free_port(), "--forwarded-allow-ips", "127.0.0.1", env=limits)
    subprocess.run(
        [*VIGIL, "user", "create", "--operator", "default", "--username", "alice",
         "--password-stdin"],
        input=PASSWORD,
        env={**clean_env(), "VIGIL_DATA_DIR": str(workdir)},
        check=True,
        capture_output=True,
        text=True,
    )  # fmt: skip
    try:
        yield served
    finally:
        stop(served)


def _token(server: Server, client: str, secret: str, source: str) -> httpx.Response:
    return httpx.post(
        f"{server.base}/connect/token",
        data={"grant_type": "client_credentials"},
        auth=(client, secret),
        headers={"X-Forwarded-For": source},
        timeout=30,
    )


def test_wrong_secrets_from_one_client_do_not_lock_the_owner_out(server: Server) -> None:
    client_id, secret = bootstrap_credentials(server.output)
    for _ in range(10):
        assert _token(server, client_id, "wrong", "203.0.113.1").status_code == 401
    assert _token(server, client_id, secret, "203.0.113.1").status_code == 429
    assert _token(server, client_id, secret, "203.0.113.2").status_code == 200


def test_one_source_guessing_many_ids_does_not_lock_out_everyone(server: Server) -> None:
    client_id, secret = bootstrap_credentials(server.output)
    for _ in range(30):
        guess = _token(server, uuid.uuid4().hex, "wrong", "198.51.100.7")
        assert guess.status_code == 401
    assert _token(server, uuid.uuid4().hex, "wrong", "198.51.100.7").status_code == 429
    assert _token(server, client_id, secret, "198.51.100.7").status_code == 429
    assert _token(server, client_id, secret, "198.51.100.8").status_code == 200


def _sign_in(server: Server, source: str, username: str, password: str) -> int:
    headers = {"X-Forwarded-For": source}
    with httpx.Client(base_url=server.base, headers=headers, timeout=30) as browser:
        page = browser.get("/console/login").text
        found = re.search(r'name="csrf_token" value="([^"]+)"', page)
        assert found
        data = {"username": username, "password": password, "csrf_token": found.group(1)}
        return browser.post("/console/login", data=data).status_code


def test_failed_console_sign_ins_lock_out_only_their_source(server: Server) -> None:
    for i in range(8):
        assert _sign_in(server, "192.0.2.66", f"guess{i}", "wrong") == 401
    assert _sign_in(server, "192.0.2.66", "alice", PASSWORD) == 429
    assert _sign_in(server, "192.0.2.67", "alice", PASSWORD) == 303  # signed in


def test_forwarding_headers_are_ignored_unless_a_proxy_is_named() -> None:
    assert trusted_proxies(None) is None
    assert trusted_proxies("  ") is None
    assert trusted_proxies(" 127.0.0.1,10.0.0.0/8") == "127.0.0.1,10.0.0.0/8"


def test_a_direct_client_cannot_choose_its_address(tmp_path: Path) -> None:
    """Without the option a forged X-Forwarded-For changes nothing: failures count
    against the TCP peer, so changing the header does not escape a block."""
    served = start(tmp_path, free_port(), env={"VIGIL_AUTH_FAILURE_DELAY": "0"})
    try:
        client_id, secret = bootstrap_credentials(served.output)
        for _ in range(10):
            assert _token(served, client_id, "wrong", "203.0.113.1").status_code == 401
        assert _token(served, client_id, secret, "203.0.113.99").status_code == 429
    finally:
        stop(served)
    # the operator is told once that a proxy it did not name is in front
    log = "".join(served.output)
    assert log.count("carry X-Forwarded-For, but 127.0.0.1 is not a trusted proxy") == 1
