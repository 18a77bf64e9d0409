"""``POST /connect/token`` (contract §1, RFC 6749 §4.4) and the retired ``/authentication``.

Errors here are RFC 6749 §5.2 JSON (``{"error", "error_description"}``), not
problem+json, because OAuth client libraries parse that shape.
"""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter, Request
from starlette.concurrency import run_in_threadpool
from starlette.responses import JSONResponse, Response

from vigil.auth.errors import InvalidClientError, InvalidRequestError, OAuthError
from vigil.auth.grant import parse_form
from vigil.web.deps import get_runtime
from vigil.web.problems import problem
from vigil.web.schemas import OAuthErrorOut, TokenOut

router = APIRouter(tags=["identity"])

#: RFC 6749 §5.1: "Cache-Control: no-store" and "Pragma: no-cache" on token responses
NO_STORE = {"Cache-Control": "no-store", "Pragma": "no-cache"}
FORM = "application/x-www-form-urlencoded"
#: longest token request body read [bytes] (ours; a valid request is far smaller)
MAX_TOKEN_BODY = 4096
#: longest slow-down of a failed authentication [s] (ours)
MAX_DELAY = 2.0

_TOKEN_DOC: dict[int | str, dict[str, Any]] = {
    200: {"model": TokenOut, "description": "An access token (RFC 6749 §5.1)."},
    400: {
        "model": OAuthErrorOut,
        "description": "invalid_request, unsupported_grant_type or invalid_scope.",
    },
    401: {"model": OAuthErrorOut, "description": "invalid_client (WWW-Authenticate: Basic)."},
    429: {
        "model": OAuthErrorOut,
        "description": "Too many failed authentications from this address (Retry-After).",
    },
}


def _oauth_error(exc: OAuthError) -> JSONResponse:
    return JSONResponse(
        exc.body(), status_code=exc.status_code, headers={**NO_STORE, **exc.headers()}
    )


@router.post(
    "/connect/token",
    summary="Issue an access token (client credentials)",
    responses=_TOKEN_DOC,
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {
                FORM: {
                    "schema": {
                        "type": "object",
                        "required": ["grant_type"],
                        "properties": {
                            "grant_type": {"type": "string", "enum": ["client_credentials"]},
                            "scope": {"type": "string"},
                            "client_id": {"type": "string"},
                            "client_secret": {"type": "string"},
                        },
                    }
                }
            },
        }
    },
)
async def token(request: Request) -> Response:
    """RFC 6749 §4.4.2: ``grant_type=client_credentials`` and optional ``scope``."""
    runtime = get_runtime(request)
    grant = runtime.grant
    assert grant is not None, "the identity surface has a grant"
    content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    try:
        if content_type != FORM:
            raise InvalidRequestError(f"the request body must be {FORM}")
        body = bytearray()
        async for chunk in request.stream():
            body += chunk
            if len(body) > MAX_TOKEN_BODY:
                raise InvalidRequestError("the request body is too large")
        form = parse_form(bytes(body))
        issued = await run_in_threadpool(
            grant.handle,
            authorization=request.headers.get("authorization"),
            form=form,
            source=request.client.host if request.client else "",
        )
    except InvalidClientError as exc:
        # contract §1: repeated failures are slowed, then refused with 429
        delay = min(runtime.settings.auth_failure_delay * exc.failures, MAX_DELAY)
        if delay > 0:
            await asyncio.sleep(delay)
        return _oauth_error(exc)
    except OAuthError as exc:
        return _oauth_error(exc)
    return JSONResponse(issued.response_body(), headers=NO_STORE)


@router.post("/authentication", status_code=410, summary="Version 1 token endpoint (gone)")
async def authentication_gone(request: Request) -> Response:
    """Seed §9.1: version 1's token endpoint is gone; say what replaced it (contract §1)."""
    base = get_runtime(request).settings.public_base_url
    return problem(
        410,
        "Version 1's /authentication endpoint was removed. Request tokens with the OAuth 2.0 "
        "client credentials flow: POST /connect/token with Authorization: Basic "
        "base64(client_id:url_encoded_client_secret) and the form body "
        "grant_type=client_credentials&scope=<scope>.",
        title="Endpoint moved to /connect/token",
        token_endpoint=f"{base}/connect/token",
    )
