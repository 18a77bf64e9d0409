"""RFC 9457 ``application/problem+json`` responses and the exception handlers.

Rules (contract §1–§3): every 4xx is problem+json except the token endpoint's RFC 6749
§5.2 errors (rendered by ``routes/token.py``) and the empty-bodied 403
``insufficient_scope``; request validation problems answer 400 with an ``errors`` list;
a 500 never carries a stack trace or exception text.

Database faults (docs/hardening.md): an unreachable, locked or restarting
database answers 503 with ``Retry-After`` (the pool reconnects by itself once it is
back); a full disk answers 507 with ``Retry-After`` (the transaction was rolled back, so
nothing was half-stored); a value the database cannot hold (PostgreSQL text with NUL)
answers 400. The log names the fault but never the SQL parameters (roster text, secrets).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from http import HTTPStatus
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from sqlalchemy.exc import DataError, DBAPIError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeoutError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import JSONResponse, Response

from vigil.auth.errors import (
    BearerError,
    InsufficientScopeError,
    KeySetUnavailableError,
    OAuthError,
)

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


class UnknownQueryParameterError(Exception):
    """A query parameter the operation does not take (400 naming it)."""

    def __init__(self, names: list[str], known: tuple[str, ...]) -> None:
        super().__init__(", ".join(names))
        self.names = names
        self.known = known


def only_query(*known: str) -> Callable[[Request], None]:
    """A route dependency: any query parameter other than ``known`` (compared without case,
    as the upload API's names are) is a 400 problem naming it, never silently ignored."""
    allowed = {name.lower() for name in known}

    def check(request: Request) -> None:
        unknown = [k for k in dict.fromkeys(request.query_params) if k.lower() not in allowed]
        if unknown:
            raise UnknownQueryParameterError(unknown, known)

    return check


async def _unknown_query(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, UnknownQueryParameterError)
    names = ", ".join(exc.names)
    takes = ", ".join(exc.known) if exc.known else "no query parameters"
    return problem(
        400,
        f"Unknown query parameter {names}; this operation takes {takes}.",
        title="Unknown query parameter",
        errors=[{"property": n, "message": "unknown query parameter"} for n in exc.names],
    )


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
    detail: str | None = exc.detail if isinstance(exc.detail, str) else None
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
    return problem(
        503,
        "Token verification keys are unavailable; retry shortly.",
        headers={"Retry-After": str(DB_RETRY_AFTER)},
    )


#: seconds a client should wait before retrying after a database fault (ours)
DB_RETRY_AFTER = 5

#: driver messages (lower case) of a full disk: SQLite SQLITE_FULL, PostgreSQL class 53
_DISK_FULL = ("database or disk is full", "no space left on device", "could not extend file")


def _db_fault(exc: BaseException) -> str:
    """One line naming a database fault, without SQL or parameters (they may hold data)."""
    orig = getattr(exc, "orig", None) or exc
    first = str(orig).strip().splitlines()[0] if str(orig).strip() else ""
    return f"{type(orig).__module__}.{type(orig).__name__}: {first[:200]}"


def _disk_full(exc: BaseException) -> bool:
    orig = getattr(exc, "orig", None)
    sqlstate = getattr(orig, "sqlstate", None) or ""
    return sqlstate.startswith("53") or any(m in str(orig).lower() for m in _DISK_FULL)


async def _database_error(request: Request, exc: Exception) -> Response:
    """503 (unavailable, retry), 507 (disk full) or 400 (value not storable)."""
    fault = _db_fault(exc)
    retry = {"Retry-After": str(DB_RETRY_AFTER)}
    if isinstance(exc, DBAPIError) and _disk_full(exc):
        logger.error("storage full on %s %s: %s", request.method, request.url.path, fault)
        return problem(
            507,
            "The server has no room to store this request; nothing was stored. Retry later.",
            headers=retry,
        )
    if isinstance(exc, DataError):
        logger.warning("unstorable value on %s %s: %s", request.method, request.url.path, fault)
        return problem(
            400, "The request holds a value the database cannot store (e.g. a NUL character)."
        )
    if isinstance(exc, OperationalError | PoolTimeoutError) or (
        isinstance(exc, DBAPIError) and exc.connection_invalidated
    ):
        logger.error("database unavailable on %s %s: %s", request.method, request.url.path, fault)
        return problem(503, "The database is unavailable; retry shortly.", headers=retry)
    logger.exception("database error on %s %s", request.method, request.url.path)
    return problem(500, "The server failed to process the request.")


async def _unhandled(request: Request, exc: Exception) -> Response:
    logger.exception("unhandled error on %s %s", request.method, request.url.path)
    return problem(500, "The server failed to process the request.")


def install_handlers(app: FastAPI) -> None:
    """Register the handlers that turn exceptions into problem responses."""
    app.add_exception_handler(StarletteHTTPException, _http_exception)
    app.add_exception_handler(RequestValidationError, _validation_exception)
    app.add_exception_handler(UnknownQueryParameterError, _unknown_query)
    app.add_exception_handler(BearerError, _bearer_exception)
    app.add_exception_handler(OAuthError, _oauth_exception)
    app.add_exception_handler(KeySetUnavailableError, _keys_unavailable)
    app.add_exception_handler(DBAPIError, _database_error)
    app.add_exception_handler(PoolTimeoutError, _database_error)
    app.add_exception_handler(Exception, _unhandled)
