"""Revocation: disabled or rotated clients' tokens stop verifying."""

from __future__ import annotations

import time
from pathlib import Path

import httpx
import pytest

from conftest import LiveService, live_service, probe_router
from vigil.auth.errors import InvalidTokenError
from vigil.auth.revocation import (
    DOCUMENT_MAX_AGE,
    RevocationChecker,
    RevocationList,
    client_key,
    revocation_document,
)
from vigil.auth.tokens import AccessTokenClaims
from vigil.store import repo

#: the secret opening /connect/revocations to the standalone surface
SHARED = "revocation-secret-for-tests"
TTL = 0.3


def token(service: LiveService, client_id: str, secret: str) -> str:
    answer = httpx.post(
        f"{service.base_url}/connect/token",
        data={"grant_type": "client_credentials"},
        auth=(client_id, secret),
    )
    assert answer.status_code == 200, answer.text
    return str(answer.json()["access_token"])


def probe(base_url: str, access_token: str) -> int:
    headers = {"Authorization": f"Bearer {access_token}"}
    return httpx.get(f"{base_url}/probe/fatigue", headers=headers).status_code


def claims(client_id: str, version: int, issued_at: int = 1000) -> AccessTokenClaims:
    return AccessTokenClaims(
        "iss", "aud", client_id, client_id, ("s",), "op", issued_at, issued_at, issued_at + 60,
        "jti", version,
    )  # fmt: skip


def test_revocation_list_rules() -> None:
    doc = revocation_document([("gone", 2, True), ("rotated", 3, False)], ["k1"], now=2000)
    assert "gone" not in str(doc) and client_key("gone") in doc["clients"]  # IDs hashed
    rl = RevocationList.parse(doc)
    assert rl.reason(claims("gone", 2), "k1") == "the client is disabled"
    assert rl.reason(claims("rotated", 2), "k1") is not None
    assert rl.reason(claims("rotated", 3), "k1") is None
    assert rl.reason(claims("untouched", 0), "k1") is None
    assert rl.reason(claims("untouched", 0), "k0") is not None  # key withdrawn
    # a key newer than the list: left to the JWKS check
    assert rl.reason(claims("untouched", 0, issued_at=2001), "k9") is None
    with pytest.raises(ValueError):
        RevocationList.parse({"clients": {}, "kids": "k1", "built_at": 1})


def test_checker_keeps_the_last_list_and_refetches_after_ttl() -> None:
    now = [0.0]
    docs = [revocation_document([], ["k"], now=0)]

    def source() -> dict[str, object]:
        if not docs:
            raise OSError("identity server away")
        return docs[-1]

    checker = RevocationChecker(source, ttl=10, clock=lambda: now[0])
    checker.check(claims("c", 0), "k")
    docs.append(revocation_document([("c", 1, False)], ["k"], now=0))
    now[0] = 5
    checker.check(claims("c", 0), "k")  # cached: not yet seen
    now[0] = 10
    with pytest.raises(InvalidTokenError):
        checker.check(claims("c", 0), "k")
    docs.clear()
    now[0] = 30
    with pytest.raises(InvalidTokenError):  # source down: last list still applies
        checker.check(claims("c", 0), "k")


def test_disable_and_rotation_revoke_issued_tokens(tmp_path: Path, db_url: str) -> None:
    with live_service(tmp_path, db_url, routers=[probe_router()], revocation_ttl=TTL) as service:
        runtime = service.runtime
        a_id, a_secret = service.create_client()
        b_id, b_secret = service.create_client()
        a_token, b_token = token(service, a_id, a_secret), token(service, b_id, b_secret)
        assert probe(service.base_url, a_token) == probe(service.base_url, b_token) == 200
        with runtime.sessions.begin() as session:
            repo.set_client_disabled(session=session, client_id=a_id)
            new_b_secret = repo.rotate_client_secret(
                session=session, box=runtime.box, client_id=b_id
            )
        time.sleep(TTL + 0.1)
        assert probe(service.base_url, a_token) == 401
        assert probe(service.base_url, b_token) == 401  # issued under the old secret
        b_new_token = token(service, b_id, new_b_secret)
        assert probe(service.base_url, b_new_token) == 200
        # enabling again does not bring the tokens issued before the disable back
        with runtime.sessions.begin() as session:
            repo.set_client_disabled(session=session, client_id=a_id, disabled=False)
        time.sleep(TTL + 0.1)
        assert probe(service.base_url, a_token) == 401
        assert probe(service.base_url, token(service, a_id, a_secret)) == 200


def test_standalone_surface_learns_revocation_within_the_bound(
    tmp_path: Path, sqlite_url: str
) -> None:
    """A scoring/upload surface without the identity database polls
    ``/connect/revocations``: revocation reaches it within ttl + DOCUMENT_MAX_AGE."""
    with live_service(tmp_path, sqlite_url, revocation_secret=SHARED) as identity:
        with live_service(
            tmp_path,
            None,
            identity=False,
            routers=[probe_router()],
            identity_url=identity.base_url,
            issuer=identity.base_url,
            revocation_ttl=TTL,
            revocation_secret=SHARED,
        ) as scoring:
            client_id, secret = identity.create_client()
            access = token(identity, client_id, secret)
            assert probe(scoring.base_url, access) == 200
            with identity.runtime.sessions.begin() as session:
                repo.set_client_disabled(session=session, client_id=client_id)
            started = time.monotonic()
            while probe(scoring.base_url, access) == 200:
                assert time.monotonic() - started < TTL + DOCUMENT_MAX_AGE + 2
                time.sleep(0.1)
            assert probe(scoring.base_url, access) == 401
            doc = httpx.get(
                f"{identity.base_url}/connect/revocations",
                headers={"Authorization": f"Bearer {SHARED}"},
            )
            assert doc.headers["cache-control"] == f"private, max-age={DOCUMENT_MAX_AGE}"
            assert client_id not in doc.text and client_key(client_id) in doc.json()["clients"]


def test_the_list_is_served_only_to_token_verifiers(tmp_path: Path, sqlite_url: str) -> None:
    """Found by an attack: ``/connect/revocations`` was public and listed a hash of every
    rotated or disabled client ID of every tenant. Without the shared secret (another
    tenant, anyone) it is a 401 problem; with no secret configured it is never served."""
    with live_service(tmp_path, sqlite_url, revocation_secret=SHARED) as identity:
        client_id, _ = identity.create_client()
        with identity.runtime.sessions.begin() as session:
            repo.set_client_disabled(session=session, client_id=client_id)
        url = f"{identity.base_url}/connect/revocations"
        tenant_id, tenant_secret = identity.create_client(operator="other")
        tenant_token = token(identity, tenant_id, tenant_secret)
        for headers in (
            {},
            {"Authorization": f"Bearer {tenant_token}"},
            {"Authorization": f"Bearer {SHARED}x"},
            {"Authorization": f"Basic {SHARED}"},
        ):
            refused = httpx.get(url, headers=headers)
            assert refused.status_code == 401
            assert refused.headers["content-type"] == "application/problem+json"
            assert client_key(client_id) not in refused.text
        opened = httpx.get(url, headers={"Authorization": f"Bearer {SHARED}"})
        assert opened.status_code == 200 and client_key(client_id) in opened.json()["clients"]
    with live_service(tmp_path, sqlite_url) as unset:
        assert httpx.get(f"{unset.base_url}/connect/revocations").status_code == 401
