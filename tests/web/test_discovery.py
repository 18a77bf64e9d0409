"""Discovery, JWKS and key rotation (contract §0, §1)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

import httpx
import jwt

from vigil.auth.keys import PUBLISH_MARGIN, published_keys, rotate_keys
from vigil.web.wiring import DbKeyStorage

if TYPE_CHECKING:
    from conftest import LiveService


def token_for(service: LiveService, client_id: str, secret: str) -> str:
    response = httpx.post(
        f"{service.base_url}/connect/token",
        data={"grant_type": "client_credentials"},
        auth=(client_id, secret),
    )
    assert response.status_code == 200
    return str(response.json()["access_token"])


def test_discovery_document(identity: LiveService) -> None:
    doc = httpx.get(f"{identity.base_url}/.well-known/openid-configuration").json()
    assert doc["issuer"] == identity.base_url
    assert doc["token_endpoint"] == f"{identity.base_url}/connect/token"
    assert doc["jwks_uri"] == f"{identity.base_url}/.well-known/openid-configuration/jwks"
    assert doc["grant_types_supported"] == ["client_credentials"]
    assert doc["scopes_supported"] == [
        "svc_fast_safe_api", "svc_fast_safe_risk_api", "svc_safe_upload_api"
    ]  # fmt: skip
    # contract §1: iss is byte-identical to the discovery issuer
    client_id, secret = identity.create_client()
    claims = jwt.decode(token_for(identity, client_id, secret), options={"verify_signature": False})
    assert claims["iss"] == doc["issuer"]


def test_jwks_public_only(identity: LiveService) -> None:
    response = httpx.get(f"{identity.base_url}/.well-known/openid-configuration/jwks")
    (key,) = response.json()["keys"]
    assert key["kty"] == "RSA" and key["alg"] == "RS256" and key["use"] == "sig"
    assert not {"d", "p", "q", "dp", "dq", "qi"} & set(key)  # no private members
    assert len(base64url_bytes(key["n"])) * 8 >= 2048  # RFC 7518 §3.3 minimum


def base64url_bytes(text: str) -> bytes:
    import base64

    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def test_rotation_keeps_old_tokens_valid(identity: LiveService) -> None:
    client_id, secret = identity.create_client()
    before = token_for(identity, client_id, secret)
    old_kid = jwt.get_unverified_header(before)["kid"]
    runtime = identity.runtime
    rotate_keys(DbKeyStorage(runtime.sessions, runtime.box), token_lifetime=3600)
    runtime.keyring.key_set(force=True)  # a running server reloads within 30 s anyway
    kids = [
        k["kid"]
        for k in httpx.get(f"{identity.base_url}/.well-known/openid-configuration/jwks").json()[
            "keys"
        ]
    ]
    assert len(kids) == 2 and kids[1] == old_kid  # current first, then the previous
    after = token_for(identity, client_id, secret)
    assert jwt.get_unverified_header(after)["kid"] == kids[0] != old_kid
    for token in (before, after):
        response = httpx.get(
            f"{identity.base_url}/probe/fatigue", headers={"Authorization": f"Bearer {token}"}
        )
        assert response.status_code == 200
    # once every old token has expired the old key leaves the JWKS
    keys = DbKeyStorage(runtime.sessions, runtime.box).load_keys()
    later = datetime.now(UTC) + timedelta(seconds=3600 + PUBLISH_MARGIN + 1)
    remaining = published_keys(keys, token_lifetime=3600, now=later)
    assert remaining is not None and remaining.previous == ()


def test_keys_persist_across_restart(tmp_path, sqlite_url) -> None:  # type: ignore[no-untyped-def]
    from conftest import live_service

    with live_service(tmp_path, sqlite_url) as first:
        jwks1 = httpx.get(f"{first.base_url}/.well-known/openid-configuration/jwks").json()
    with live_service(tmp_path, sqlite_url) as second:
        jwks2 = httpx.get(f"{second.base_url}/.well-known/openid-configuration/jwks").json()
        assert httpx.get(f"{second.base_url}/readyz").json() == {"status": "ready"}
        assert httpx.get(f"{second.base_url}/healthz").json() == {"status": "ok"}
    assert jwks1 == jwks2
