"""RequireScope / Principal on guarded routes (contract §2, RFC 6750 §3), incl. forged tokens."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
import jwt
import pytest
from cryptography.hazmat.primitives import serialization

from vigil.auth.keys import generate_key
from vigil.auth.tokens import issue_access_token

if TYPE_CHECKING:
    from conftest import LiveService


def get_token(service: LiveService, client_id: str, secret: str, scope: str) -> str:
    response = httpx.post(
        f"{service.base_url}/connect/token",
        data={"grant_type": "client_credentials", "scope": scope},
        auth=(client_id, secret),
    )
    assert response.status_code == 200, response.text
    return str(response.json()["access_token"])


def call(service: LiveService, path: str, authorization: str | None) -> httpx.Response:
    headers = {"Authorization": authorization} if authorization else {}
    return httpx.get(f"{service.base_url}{path}", headers=headers)


def b64u(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def assert_invalid_token(response: httpx.Response) -> None:
    assert response.status_code == 401
    assert response.headers["www-authenticate"] == 'Bearer error="invalid_token"'
    assert response.headers["content-type"] == "application/problem+json"


def test_valid_token_gives_principal(identity_sqlite: LiveService) -> None:
    client_id, secret = identity_sqlite.create_client(operator="Airline A", scopes="risk")
    token = get_token(identity_sqlite, client_id, secret, "svc_fast_safe_risk_api")
    response = call(identity_sqlite, "/probe/risk", f"Bearer {token}")
    assert response.status_code == 200
    assert response.json() == {
        "client_id": client_id,
        "operator": "Airline A",
        "scopes": ["svc_fast_safe_risk_api"],
        "via": "bearer",
    }


def test_no_credentials(identity_sqlite: LiveService) -> None:
    for auth in (None, "Digest abc"):
        response = call(identity_sqlite, "/probe/fatigue", auth)
        assert response.status_code == 401
        assert response.headers["www-authenticate"] == "Bearer"  # RFC 6750 §3.1: no error code


def test_insufficient_scope_is_empty_403(identity_sqlite: LiveService) -> None:
    client_id, secret = identity_sqlite.create_client()
    token = get_token(identity_sqlite, client_id, secret, "svc_fast_safe_api")
    response = call(identity_sqlite, "/probe/upload", f"Bearer {token}")
    assert response.status_code == 403
    assert response.content == b"" and response.headers["content-length"] == "0"
    assert response.headers["www-authenticate"] == (
        'Bearer error="insufficient_scope", scope="svc_safe_upload_api"'
    )


def test_basic_credentials_accepted_on_resource(identity_sqlite: LiveService) -> None:
    """Seed §5.7: interactive docs may send the client ID and secret as Basic."""
    client_id, secret = identity_sqlite.create_client(scopes="upload", secret="p a+s/s=%:")
    response = httpx.get(f"{identity_sqlite.base_url}/probe/upload", auth=(client_id, secret))
    assert response.status_code == 200 and response.json()["via"] == "basic"
    wrong = httpx.get(f"{identity_sqlite.base_url}/probe/upload", auth=(client_id, "nope"))
    assert_invalid_token(wrong)
    other = httpx.get(f"{identity_sqlite.base_url}/probe/risk", auth=(client_id, secret))
    assert other.status_code == 403 and other.content == b""


def _forge(service: LiveService, client_id: str, case: str) -> str:
    """A token the service must refuse, built the way an attacker would."""
    key_set = service.runtime.keyring.key_set()
    real = issue_access_token(
        signing_key=key_set.current,
        issuer=service.settings.effective_issuer,
        audience="vigil",
        client_id=client_id,
        operator="acme",
        scopes=["svc_fast_safe_api"],
        lifetime=3600,
    ).access_token
    header, payload, signature = real.split(".")
    claims: dict[str, Any] = json.loads(base64.urlsafe_b64decode(payload + "=="))
    kid = key_set.current.kid
    if case == "alg_none":
        head = b64u(json.dumps({"alg": "none", "typ": "at+jwt", "kid": kid}).encode())
        return f"{head}.{payload}."
    if case == "hs256_public_key":
        # RFC 8725 §2.1 key confusion: HMAC keyed with the published public key
        pem = key_set.current.public_key.public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        )
        head = b64u(json.dumps({"alg": "HS256", "typ": "at+jwt", "kid": kid}).encode())
        mac = hmac.new(pem, f"{head}.{payload}".encode(), hashlib.sha256).digest()
        return f"{head}.{payload}.{b64u(mac)}"
    if case == "tampered":
        claims["scope"] = "svc_fast_safe_api svc_safe_upload_api"
        return f"{header}.{b64u(json.dumps(claims).encode())}.{signature}"
    if case == "garbage":
        return "not-a-jwt"
    now = int(time.time())
    kwargs: dict[str, Any] = {
        "signing_key": key_set.current,
        "issuer": service.settings.effective_issuer,
        "audience": "vigil",
        "client_id": client_id,
        "operator": "acme",
        "scopes": ["svc_fast_safe_api"],
        "lifetime": 3600,
    }
    if case == "expired":
        kwargs.update(now=now - 7200)
    elif case == "not_yet_valid":
        kwargs.update(now=now + 600)
    elif case == "unknown_kid":
        kwargs.update(signing_key=generate_key())
    elif case == "other_issuer":
        kwargs.update(issuer="https://evil.example")
    elif case == "other_audience":
        kwargs.update(audience="someone-else")
    elif case == "wrong_typ":
        private = key_set.current.private_key
        return jwt.encode(
            {**claims}, private, algorithm="RS256", headers={"kid": kid, "typ": "JWT"}
        )
    return issue_access_token(**kwargs).access_token


@pytest.mark.parametrize(
    "case",
    [
        "alg_none",
        "hs256_public_key",
        "expired",
        "not_yet_valid",
        "unknown_kid",
        "other_issuer",
        "other_audience",
        "tampered",
        "wrong_typ",
        "garbage",
    ],
)
def test_forged_tokens_refused(identity_sqlite: LiveService, case: str) -> None:
    client_id, _ = identity_sqlite.create_client()
    token = _forge(identity_sqlite, client_id, case)
    assert_invalid_token(call(identity_sqlite, "/probe/fatigue", f"Bearer {token}"))


def test_standalone_surface_verifies_over_jwks(tmp_path: Path, sqlite_url: str) -> None:
    """A scoring/upload surface without the identity DB: JWKS over HTTP (contract §0)."""
    from conftest import live_service, probe_router

    shared = {"revocation_secret": "opens-the-revocation-list"}
    with live_service(tmp_path / "id", sqlite_url, **shared) as idp:
        client_id, secret = idp.create_client(scopes="fatigue", secret="x y+z")
        token = get_token(idp, client_id, secret, "svc_fast_safe_api")
        with live_service(
            tmp_path / "rs",
            None,
            identity=False,
            routers=[probe_router()],
            identity_url=idp.base_url,
            issuer=idp.settings.effective_issuer,
            **shared,
        ) as resource:
            ok = call(resource, "/probe/fatigue", f"Bearer {token}")
            assert ok.status_code == 200 and ok.json()["operator"] == "acme"
            assert resource.runtime.engine is None  # never needs the identity database
            basic = httpx.get(f"{resource.base_url}/probe/fatigue", auth=(client_id, secret))
            assert basic.status_code == 200 and basic.json()["via"] == "basic"
            assert_invalid_token(call(resource, "/probe/fatigue", "Bearer a.b.c"))
