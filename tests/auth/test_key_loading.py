"""Signing keys are parsed once per key-ring change, not per request."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import httpx
import pytest
from cryptography.hazmat.primitives import serialization

from vigil.auth import keys as keys_module
from vigil.auth.keys import rotate_keys
from vigil.web.wiring import DbKeyStorage

if TYPE_CHECKING:
    from conftest import LiveService

JWKS = "/.well-known/openid-configuration/jwks"
DISCOVERY = "/.well-known/openid-configuration"


@pytest.fixture
def pem_loads(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count real PEM parses made through ``vigil.auth.keys``."""
    calls: list[int] = []
    real = serialization.load_pem_private_key

    def counting(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(keys_module.serialization, "load_pem_private_key", counting)
    return calls


def test_jwks_and_tokens_do_not_reparse_keys(
    identity_sqlite: LiveService, pem_loads: list[int]
) -> None:
    service = identity_sqlite
    client_id, secret = service.create_client()
    pem_loads.clear()
    for _ in range(20):
        assert httpx.get(service.base_url + JWKS).status_code == 200
    for _ in range(5):
        response = httpx.post(
            service.base_url + "/connect/token",
            data={"grant_type": "client_credentials"},
            auth=(client_id, secret),
        )
        assert response.status_code == 200
    # forced reloads that find the same keys keep the parsed ones
    for _ in range(3):
        service.runtime.keyring.key_set(force=True)
    assert pem_loads == []


def test_rotation_parses_only_the_new_key(
    identity_sqlite: LiveService, pem_loads: list[int]
) -> None:
    runtime = identity_sqlite.runtime
    before = runtime.keyring.changes
    rotate_keys(DbKeyStorage(runtime.sessions, runtime.box), token_lifetime=3600)
    pem_loads.clear()
    runtime.keyring.key_set(force=True)
    # the new key was generated in this process but stored and reloaded: parsed once;
    # the old key is carried over
    assert len(pem_loads) == 1
    assert runtime.keyring.changes == before + 1
    for _ in range(10):
        httpx.get(identity_sqlite.base_url + JWKS)
        runtime.keyring.key_set(force=True)
    assert len(pem_loads) == 1
    assert len(httpx.get(identity_sqlite.base_url + JWKS).json()["keys"]) == 2


def test_documents_are_cacheable(identity_sqlite: LiveService) -> None:
    for path, media in ((JWKS, "application/jwk-set+json"), (DISCOVERY, "application/json")):
        response = httpx.get(identity_sqlite.base_url + path)
        assert response.status_code == 200
        assert response.headers["content-type"].startswith(media)
        assert response.headers["cache-control"] == "public, max-age=300"
        # the same bytes every time (one serialised document)
        assert httpx.get(identity_sqlite.base_url + path).content == response.content
