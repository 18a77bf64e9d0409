"""RFC 9457 ``application/problem+json`` responses and the exception handlers.

Rules (contract §1–§3): every 4xx is problem+json except the token endpoint's RFC 6749
§5.2 errors (rendered by ``routes/token.py``) and the empty-bodied 403
``insufficient_scope``; request validation problems answer 400 with an ``errors`` list;
a 500 never carries a stack trace or exception text.
"""

from __future__ import annotations

import logging
from http import HTTPStatus
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import JSONResponse, Response

from vigil.auth.errors import BearerError, InsufficientScopeError, OAuthError
from vigil.auth.verify import KeySetUnavailableError

logger = logging.getLogger(__name__)

PROBLEM_JSON = "application/problem+json"


def problem(
    status: int,
    detail: str | None = None,
    *,
    title: str | None = None,
    type_: str = "about:blank",
    headers: dict[str, str] | None = None,
    **extensions: Any,
) -> JSONResponse:
    """An RFC 9457 problem response.

    Parameters
    ----------
    status : int
        HTTP status.
    detail : str, optional
        Human-readable explanation of this occurrence.
    title : str, optional
        Short summary; the HTTP reason phrase by default (RFC 9457 §4.2.1 for
        ``about:blank``).
    type_ : str
        Problem type URI.
    headers : dict, optional
        Extra headers.
    **extensions
        Extension members, e.g. ``errors=[...]``.
    """
    body: dict[str, Any] = {
        "type": type_,
        "title": title or HTTPStatus(status).phrase,
        "status": status,
    }
    if detail:
        body["detail"] = detail
    body.update(extensions)
    return JSONResponse(body, status_code=status, headers=headers, media_type=PROBLEM_JSON)


def _validation_errors(exc: RequestValidationError) -> list[dict[str, str]]:
    out = []
    for err in exc.errors():
        loc = [str(p) for p in err.get("loc", ()) if p not in ("body", "query", "path")]
        out.append({"property": ".".join(loc), "message": str(err.get("msg", "invalid"))})
    return out


async def _http_exception(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, StarletteHTTPException)
    if exc.status_code < 400 or exc.status_code in (204, 304):
        return Response(status_code=exc.status_code, headers=exc.headers)
    detail = exc.detail if isinstance(exc.detail, str) else None
    if exc.status_code >= 500:
        detail = None
    return problem(exc.status_code, detail, headers=dict(exc.headers or {}))


async def _validation_exception(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, RequestValidationError)
    errors = _validation_errors(exc)
    return problem(400, "The request is invalid.", errors=errors)


async def _bearer_exception(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, BearerError)
    if isinstance(exc, InsufficientScopeError):
        # contract §2: 403 with an EMPTY body (Content-Length: 0)
        return Response(status_code=403, headers=exc.headers())
    return problem(exc.status_code, exc.description, headers=exc.headers())


async def _oauth_exception(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, OAuthError)
    return problem(exc.status_code, exc.description, headers=exc.headers())


async def _keys_unavailable(request: Request, exc: Exception) -> Response:
    logger.error("token keys unavailable: %s", exc)
    return problem(503, "Token verification keys are unavailable; retry shortly.")


async def _unhandled(request: Request, exc: Exception) -> Response:
    logger.exception("unhandled error on %s %s", request.method, request.url.path)
    return problem(500, "The server failed to process the request.")


def install_handlers(app: FastAPI) -> None:
    """Register the handlers that turn exceptions into problem responses."""
    app.add_exception_handler(StarletteHTTPException, _http_exception)
    app.add_exception_handler(RequestValidationError, _validation_exception)
    app.add_exception_handler(BearerError, _bearer_exception)
    app.add_exception_handler(OAuthError, _oauth_exception)
    app.add_exception_handler(KeySetUnavailableError, _keys_unavailable)
    app.add_exception_handler(Exception, _unhandled)
