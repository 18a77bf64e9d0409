"""Discovery (OpenID Connect Discovery 1.0 §3 / RFC 8414) and the JWKS (RFC 7517 §5).

Paths as IdentityServer serves them (contract §0). Absolute URLs are built from the
configured ``public_base_url``, never from the request's ``Host`` header.
"""

from __future__ import annotations

import hmac
import json
from typing import Any

from fastapi import APIRouter, Request
from pydantic import SecretStr
from starlette.concurrency import run_in_threadpool
from starlette.responses import Response

from vigil.auth.revocation import DOCUMENT_MAX_AGE, REVOCATIONS_PATH
from vigil.web._runtime import Runtime
from vigil.web.deps import get_runtime
from vigil.web.problems import problem

router = APIRouter(tags=["identity"])

#: how long clients may cache discovery and JWKS [s] (ours; verifiers refetch on unknown kid)
MAX_AGE = 300


def _discovery_body(runtime: Runtime) -> bytes:
    """The discovery document, serialised once per runtime (it changes only on restart)."""
    cached = runtime.state.discovery
    if cached is not None:
        return cached
    settings = runtime.settings
    base = settings.public_base_url
    body: dict[str, Any] = {
        "issuer": settings.effective_issuer,
        "jwks_uri": f"{base}/.well-known/openid-configuration/jwks",
        "token_endpoint": f"{base}/connect/token",
        "grant_types_supported": ["client_credentials"],
        "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post"],
        "scopes_supported": list(runtime.scopes.names()),
        "claims_supported": [
            "iss", "aud", "sub", "client_id", "scope", "operator", "iat", "nbf", "exp", "jti",
            "cver",
        ],
        "access_token_signing_alg_values_supported": ["RS256"],
    }  # fmt: skip
    encoded = json.dumps(body, separators=(",", ":")).encode()
    runtime.state.discovery = encoded
    return encoded


@router.get("/.well-known/openid-configuration", summary="Authorization server metadata")
async def openid_configuration(request: Request) -> Response:
    # async and prebuilt: an anonymous request costs no thread hop and no work
    return Response(
        _discovery_body(get_runtime(request)),
        headers={"Cache-Control": f"public, max-age={MAX_AGE}"},
        media_type="application/json",
    )


@router.get("/.well-known/openid-configuration/jwks", summary="Token signing keys (JWKS)")
async def jwks(request: Request) -> Response:
    keyring = get_runtime(request).keyring
    assert keyring is not None
    body = keyring.fresh_jwks_body()
    if body is None:  # a reload is due: it reads the database, so off the event loop
        body = await run_in_threadpool(keyring.jwks_body)
    return Response(
        body,
        headers={"Cache-Control": f"public, max-age={MAX_AGE}"},
        media_type="application/jwk-set+json",
    )


@router.get(REVOCATIONS_PATH, summary="Revocation list for resource servers (ours)")
def revocations(request: Request) -> Response:
    """Versions of rotated or disabled clients (by SHA-256 of the ID) and the live key IDs.

    Standalone scoring and upload surfaces poll this to refuse revoked tokens
    (docs/identity.md "Revocation"); rebuilt at most every 5 s. Served only with the
    bearer secret ``VIGIL_REVOCATION_SECRET``: anyone else (another tenant) would learn
    which clients of every tenant were rotated or disabled.
    """
    runtime = get_runtime(request)
    assert runtime.revocations is not None
    if not _opens_revocations(request, runtime.settings.revocation_secret):
        return problem(
            401,
            "The revocation list is served only to token-verifying services, with the "
            "bearer secret VIGIL_REVOCATION_SECRET.",
            headers={"WWW-Authenticate": "Bearer"},
        )
    document = runtime.revocations()
    cached = runtime.state.revocations
    if cached is None or cached[0] is not document:  # serialise once per rebuilt document
        cached = (document, json.dumps(document, separators=(",", ":")).encode())
        runtime.state.revocations = cached
    return Response(
        cached[1],
        headers={"Cache-Control": f"private, max-age={DOCUMENT_MAX_AGE}"},
        media_type="application/json",
    )


def _opens_revocations(request: Request, secret: SecretStr | None) -> bool:
    """Whether ``Authorization: Bearer <secret>`` names the configured secret (constant
    time); never when no secret is configured."""
    if secret is None or not secret.get_secret_value():
        return False
    scheme, _, given = request.headers.get("authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not given:
        return False
    expected = secret.get_secret_value().encode("utf-8")
    return hmac.compare_digest(given.strip().encode("utf-8", "surrogatepass"), expected)
