"""Failed-credential throttling that never locks a client's owner out.

Source addresses: Linux routes all of 127.0.0.0/8 to the loopback interface, so an
httpx transport bound to 127.0.0.2 is a second, real source address.
"""

from __future__ import annotations

import logging
import secrets
import statistics
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
import redis  # a dev dependency: missing must fail loudly, not skip

from conftest import LiveService, live_service
from vigil.auth.ratelimit import FailureLimiter
from vigil.store.failures import RedisFailureStore

TOKEN_FORM = {"grant_type": "client_credentials"}


def client_from(address: str) -> httpx.Client:
    return httpx.Client(transport=httpx.HTTPTransport(local_address=address), timeout=30)


@pytest.fixture
def attacker() -> Iterator[httpx.Client]:
    with client_from("127.0.0.2") as http:
        yield http


def test_guessing_a_client_id_does_not_lock_its_owner_out(
    identity: LiveService, attacker: httpx.Client
) -> None:
    client_id, secret = identity.create_client()
    url = f"{identity.base_url}/connect/token"
    answers = [
        attacker.post(url, data=TOKEN_FORM, auth=(client_id, f"wrong-{i}")).status_code
        for i in range(12)
    ]
    assert answers[:10] == [401] * 10 and answers[10:] == [429, 429]
    # the attacker's address is refused even with the right secret (source-keyed) ...
    assert attacker.post(url, data=TOKEN_FORM, auth=(client_id, secret)).status_code == 429
    # ... the owner, elsewhere, is not: token endpoint and Basic-authenticated calls
    with client_from("127.0.0.1") as owner:
        assert owner.post(url, data=TOKEN_FORM, auth=(client_id, secret)).status_code == 200
        probe = owner.get(f"{identity.base_url}/probe/fatigue", auth=(client_id, secret))
        assert probe.status_code == 200


def test_basic_failures_are_keyed_by_source(identity: LiveService, attacker: httpx.Client) -> None:
    client_id, secret = identity.create_client()
    probe = f"{identity.base_url}/probe/fatigue"
    codes = [attacker.get(probe, auth=(client_id, "nope")).status_code for _ in range(11)]
    assert codes[-1] == 429 and codes[0] == 401
    with client_from("127.0.0.1") as owner:
        assert owner.get(probe, auth=(client_id, secret)).status_code == 200


def test_one_source_guessing_many_client_ids_is_refused(
    tmp_path: Path, sqlite_url: str, attacker: httpx.Client
) -> None:
    with live_service(tmp_path, sqlite_url, auth_source_max_failures=5) as service:
        client_id, secret = service.create_client()
        url = f"{service.base_url}/connect/token"
        codes = [
            attacker.post(url, data=TOKEN_FORM, auth=(f"guess{i}", "x")).status_code
            for i in range(6)
        ]
        assert codes == [401] * 5 + [429]
        with client_from("127.0.0.1") as owner:
            assert owner.post(url, data=TOKEN_FORM, auth=(client_id, secret)).status_code == 200


def test_two_processes_share_one_allowance(
    tmp_path: Path, sqlite_url: str, attacker: httpx.Client
) -> None:
    """Two servers on one database (as ``vigil serve --workers 2``) count together."""
    with (
        live_service(tmp_path, sqlite_url) as first,
        live_service(tmp_path, sqlite_url) as second,
    ):
        client_id, _ = first.create_client()
        codes = []
        for i in range(12):
            server = (first, second)[i % 2]
            answer = attacker.post(
                f"{server.base_url}/connect/token", data=TOKEN_FORM, auth=(client_id, "bad")
            )
            codes.append(answer.status_code)
        assert codes == [401] * 10 + [429, 429]


def test_redis_store_is_shared_between_connections() -> None:
    """``VIGIL_REDIS_URL``: two processes' stores (two connections) see one count."""
    url = "redis://127.0.0.1:6379/0"
    try:
        redis.Redis.from_url(url, socket_connect_timeout=2).ping()
    except redis.exceptions.ConnectionError as exc:
        pytest.skip(f"Redis at 127.0.0.1:6379 is unreachable: {exc}")
    one = FailureLimiter(max_failures=3, window=60, store=RedisFailureStore(url, horizon=60))
    two = FailureLimiter(max_failures=3, window=60, store=RedisFailureStore(url, horizon=60))
    key = f"pair:test|{uuid.uuid4().hex}"
    one.record_failure([key])
    two.record_failure([key])
    assert one.retry_after([key]) is None and one.failures(key) == 2
    two.record_failure([key])
    wait = one.retry_after([key])
    assert wait is not None and 58 <= wait <= 60
    assert two.retry_after([f"pair:test|{uuid.uuid4().hex}"]) is None


def test_secret_in_the_client_id_field_never_reaches_the_log(
    identity_sqlite: LiveService, caplog: pytest.LogCaptureFixture
) -> None:
    client_id, secret = identity_sqlite.create_client()
    url = f"{identity_sqlite.base_url}/connect/token"
    pasted = secrets.token_urlsafe(32)  # a secret typed into the ID field
    with caplog.at_level(logging.DEBUG):
        for _ in range(12):  # failures, then the rate-limited path
            httpx.post(url, data=TOKEN_FORM, auth=(pasted, secret))
        httpx.post(url, data={**TOKEN_FORM, "client_id": pasted, "client_secret": secret})
        httpx.get(f"{identity_sqlite.base_url}/probe/fatigue", auth=(pasted, "x"))
    text = "\n".join(r.getMessage() for r in caplog.records)
    assert "client authentication failed" in text  # the failures were logged ...
    assert pasted not in text and secret not in text  # ... without the typed values
    # the failure store holds hashes only
    from sqlalchemy import text as sql

    with identity_sqlite.runtime.engine.connect() as conn:
        keys = [row[0] for row in conn.execute(sql("SELECT key FROM auth_failure"))]
    assert keys and all(len(k) == 64 and pasted not in k for k in keys)


def test_unknown_and_known_ids_take_the_same_time(identity_sqlite: LiveService) -> None:
    """Rejection time must not reveal whether a client ID exists.

    Statistical, with a generous margin: interleaved rejections of a known ID (wrong
    secret) and of unknown IDs through the grant itself (no HTTP noise); the medians
    must agree within 25 % (before the fix the known ID cost a row load and a decrypt
    that the unknown one skipped). Failures are not throttled here: huge limits.
    """
    runtime = identity_sqlite.runtime
    client_id, _ = identity_sqlite.create_client()
    grant = runtime.grant
    from dataclasses import replace

    from vigil.auth.credentials import parse_post
    from vigil.auth.errors import InvalidClientError

    quiet = replace(grant, limiter=FailureLimiter(max_failures=10**9), source_limiter=None)

    def reject(cid: str) -> float:
        credentials = parse_post({"client_id": cid, "client_secret": "w" * 43})
        assert credentials is not None
        started = time.perf_counter()
        with pytest.raises(InvalidClientError):
            quiet.authenticate(credentials, "bench")
        return time.perf_counter() - started

    for _ in range(30):  # warm up
        reject(client_id)
        reject("unknown")
    known, unknown = [], []
    for i in range(400):
        known.append(reject(client_id))
        unknown.append(reject(f"U{i:023d}"))
    ratio = statistics.median(known) / statistics.median(unknown)
    assert 0.8 < ratio < 1.25, f"known/unknown median rejection time {ratio:.2f}"


def test_redis_outage_falls_back_to_process_memory(caplog: pytest.LogCaptureFixture) -> None:
    """Redis away: failures are still counted (per process) and nothing raises a 500."""
    with socket_closed_port() as port:
        store = RedisFailureStore(f"redis://127.0.0.1:{port}/0", horizon=60)
        limiter = FailureLimiter(max_failures=2, window=60, store=store)
        with caplog.at_level(logging.WARNING):
            limiter.record_failure(["k"])
            limiter.record_failure(["k"])
            assert limiter.retry_after(["k"]) is not None
    assert "Redis unreachable" in caplog.text


@contextmanager
def socket_closed_port() -> Iterator[int]:
    """A loopback port nobody listens on (bound, never listening)."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        yield int(sock.getsockname()[1])


def test_failed_answers_slow_down_correct_ones_do_not(
    tmp_path: Path, sqlite_url: str, attacker: httpx.Client
) -> None:
    """``VIGIL_AUTH_FAILURE_DELAY`` × failures of the client ID (max 2 s) on failures only."""
    with live_service(tmp_path, sqlite_url, auth_failure_delay=0.5) as service:
        client_id, secret = service.create_client()
        url = f"{service.base_url}/connect/token"
        for _ in range(4):
            attacker.post(url, data=TOKEN_FORM, auth=(client_id, "bad"))
        started = time.perf_counter()
        assert attacker.post(url, data=TOKEN_FORM, auth=(client_id, "bad")).status_code == 401
        assert time.perf_counter() - started >= 2.0  # 5 failures x 0.5 s, capped at 2 s
        with client_from("127.0.0.1") as owner:
            started = time.perf_counter()
            assert owner.post(url, data=TOKEN_FORM, auth=(client_id, secret)).status_code == 200
            assert time.perf_counter() - started < 1.5
