"""Console sign-in: server-side sessions and bounded password work."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from conftest import LiveService, live_service
from vigil.auth.gate import WorkGate

from .conftest import PASSWORD, create_user, csrf_of, embedded_routers


def client_from(base_url: str, address: str) -> httpx.Client:
    transport = httpx.HTTPTransport(local_address=address)
    return httpx.Client(base_url=base_url, transport=transport, timeout=30)


def attempt(client: httpx.Client, username: str, password: str) -> httpx.Response:
    token = csrf_of(client.get("/console/login").text)
    return client.post(
        "/console/login", data={"username": username, "password": password, "csrf_token": token}
    )


def test_a_copied_cookie_stops_working_after_sign_out(
    service: LiveService, alice: httpx.Client
) -> None:
    copy = httpx.Client(base_url=service.base_url, cookies=dict(alice.cookies))
    with copy:
        assert copy.get("/console/").status_code == 200
        page = alice.get("/console/")
        alice.post("/console/logout", data={"csrf_token": csrf_of(page.text)})
        assert alice.get("/console/").status_code == 303
        # the stolen copy of the signed-in cookie is dead too
        assert copy.get("/console/").status_code == 303
        assert copy.get("/console/clients").status_code == 303


def test_failed_sign_in_replaces_the_csrf_token(service: LiveService) -> None:
    create_user(service, "acme", "alice")
    with httpx.Client(base_url=service.base_url) as client:
        token = csrf_of(client.get("/console/login").text)
        data = {"username": "alice", "password": "wrong", "csrf_token": token}
        assert client.post("/console/login", data=data).status_code == 401
        # replaying the token seen before the failure buys no second argon2 check
        assert client.post("/console/login", data=data).status_code == 403


@pytest.fixture
def strict(tmp_path: Path) -> Iterator[LiveService]:
    """The embedded app with small sign-in limits."""
    with live_service(
        tmp_path,
        f"sqlite:///{tmp_path / 'vigil.db'}",
        routers=embedded_routers(),
        worker_threads=0,
        console_source_max_failures=4,
        console_max_failures=2,
    ) as live:
        yield live


def test_sign_in_limits_are_per_source(strict: LiveService) -> None:
    create_user(strict, "acme", "alice")
    with (
        client_from(strict.base_url, "127.0.0.2") as attacker,
        client_from(strict.base_url, "127.0.0.1") as owner,
    ):
        # one address, two failures for alice: that address is paused for alice
        assert [attempt(attacker, "alice", "x").status_code for _ in range(3)] == [401, 401, 429]
        # new usernames from the same address: paused after 4 failures in all
        codes = [attempt(attacker, f"nobody{i}", "x").status_code for i in range(3)]
        assert codes == [401, 401, 429]
        refused = attempt(attacker, "alice", PASSWORD)
        assert refused.status_code == 429 and int(refused.headers["retry-after"]) > 0
        # alice herself, from another address, signs in
        assert attempt(owner, "alice", PASSWORD).status_code == 303


def test_work_gate_bounds_concurrency_and_queue() -> None:
    gate = WorkGate(slots=2, queue=1, wait=5.0)
    running, peak, results = [0], [0], []
    lock = threading.Lock()
    release = threading.Event()

    def job() -> None:
        with gate.slot() as admitted:
            results.append(admitted)
            if admitted:
                with lock:
                    running[0] += 1
                    peak[0] = max(peak[0], running[0])
                release.wait(5)
                with lock:
                    running[0] -= 1

    threads = [threading.Thread(target=job) for _ in range(6)]
    for thread in threads:
        thread.start()
        time.sleep(0.05)
    # 2 running, 1 queued, 3 turned away at once
    assert results.count(False) == 3 and gate.refused == 3
    release.set()
    for thread in threads:
        thread.join(10)
    assert results.count(True) == 3 and peak[0] == 2


def test_sign_in_flood_answers_503_beyond_the_argon2_queue(tmp_path: Path) -> None:
    with live_service(
        tmp_path,
        f"sqlite:///{tmp_path / 'vigil.db'}",
        routers=embedded_routers(),
        worker_threads=0,
        argon2_concurrency=1,
        argon2_queue=0,
        argon2_wait=0.05,
        console_source_max_failures=1000,
    ) as service:
        codes: list[int] = []

        def flood(i: int) -> None:
            with httpx.Client(base_url=service.base_url, timeout=30) as client:
                response = attempt(client, f"user{i}", "x")
                codes.append(response.status_code)
                if response.status_code == 503:
                    assert response.headers["retry-after"] == "2"

        threads = [threading.Thread(target=flood, args=(i,)) for i in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
        assert len(codes) == 8 and set(codes) <= {401, 503}
        assert codes.count(503) >= 1 and codes.count(401) >= 1
