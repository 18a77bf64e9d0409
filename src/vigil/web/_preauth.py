"""Authenticate ``/api/*`` calls from their headers before any body byte is read.

A FastAPI route reads and parses its JSON body before its dependencies run, so without
this middleware an anonymous client could make the server receive, hold and parse a
128 MiB UploadRoster body before it answered 401. :class:`PreAuthMiddleware` runs the
same check as :func:`vigil.web.deps.authenticate` (credentials and the route's scope)
from the ``Authorization`` header alone:

- a caller without valid credentials gets its 401 (or 403 without the scope) at once,
  rendered by the application's own exception handlers, and its body is never read;
- an authenticated caller's :class:`~vigil.web.deps.Principal` is stored in the request
  state, so the route's dependency does not verify the credentials a second time;
- on the ``spool_paths`` (the bulk UploadRoster), the body of an authenticated caller is
  received into a temporary file (in memory up to ``SPOOL_MEMORY_BYTES``, on disk beyond)
  and handed to the route once complete: a slow or large upload does not pile up
  network chunks in memory while it arrives. The size limit stays with
  :class:`vigil.web._limits.BodySizeLimitMiddleware`, which wraps this one.

Only the ``(path, method)`` pairs of the routes that declare ``RequireScope`` (given to
the middleware by :func:`vigil.web.app.make_surface_app`) are checked here; an unknown
path or method keeps its 404/405.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterable
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.routing import BaseRoute, Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from vigil.auth.scopes import ScopeKind
from vigil.web.deps import (
    PRINCIPAL_STATE,
    SCOPE_KIND_ATTRIBUTE,
    authenticate,
    authenticate_now,
)

#: spooled bodies stay in memory up to this size, then go to a temporary file [bytes]
SPOOL_MEMORY_BYTES = 1024 * 1024
_READ_CHUNK = 1024 * 1024


def _scope_kind(dependant: Any) -> ScopeKind | None:
    """The scope kind required by ``RequireScope`` anywhere in a route's dependencies."""
    stack = [dependant]
    while stack:
        current = stack.pop()
        kind = getattr(current.call, SCOPE_KIND_ATTRIBUTE, None)
        if isinstance(kind, ScopeKind):
            return kind
        stack.extend(current.dependencies)
    return None


def protected_routes(routes: Iterable[BaseRoute]) -> dict[tuple[str, str], ScopeKind]:
    """``{(path, METHOD): scope kind}`` for every route that declares ``RequireScope``."""
    table: dict[tuple[str, str], ScopeKind] = {}
    for route in routes:
        dependant = getattr(route, "dependant", None)
        if not isinstance(route, Route) or dependant is None:
            continue
        kind = _scope_kind(dependant)
        if kind is None:
            continue
        for method in route.methods or ():
            table[(route.path, method.upper())] = kind
    return table


class PreAuthMiddleware:
    """Answer 401/403 from the headers before the body of a protected call is read."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        routes: Iterable[BaseRoute],
        spool_paths: Iterable[str] = (),
    ) -> None:
        self.app = app
        self.table = protected_routes(routes)
        self.spool_paths = frozenset(spool_paths)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        application = scope["app"]
        path = str(scope.get("path", ""))
        kind = self.table.get((path, str(scope.get("method", "")).upper()))
        if kind is None:
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        runtime = application.state.vigil
        needed = runtime.scopes.name(kind)
        try:
            # on the loop when no I/O is needed (a bearer token, keys and revocation list
            # fresh); in a thread otherwise (Basic credentials, a refetch)
            principal = authenticate_now(request, runtime, needed)
            if principal is None:
                principal = await run_in_threadpool(authenticate, request, runtime, needed)
        except Exception as exc:  # rendered exactly as the route would have answered
            response = await self._render(application, request, exc)
            if _has_body(scope):
                # the unread body must not be taken for the next request on this connection
                response.headers["connection"] = "close"
            await response(scope, receive, send)
            return
        scope.setdefault("state", {})[PRINCIPAL_STATE] = principal
        if path in self.spool_paths:
            receive = await _spooled(receive)
        await self.app(scope, receive, send)

    @staticmethod
    async def _render(application: Any, request: Request, exc: Exception) -> Any:
        handlers = application.exception_handlers
        for cls in type(exc).__mro__:
            handler = handlers.get(cls)
            if handler is not None:
                return await handler(request, exc)
        raise exc


def _has_body(scope: Scope) -> bool:
    for name, value in scope.get("headers", []):
        if name == b"transfer-encoding" or (name == b"content-length" and value.strip() != b"0"):
            return True
    return False


async def _spooled(receive: Receive) -> Receive:
    """Receive the whole body into a temporary file; return a ``receive`` that replays it.

    The body is handed on as one message (the route parses it whole anyway), so the
    network chunks are never held in memory alongside their concatenation. A
    ``http.disconnect`` while receiving is passed on as it came.
    """
    spool = tempfile.SpooledTemporaryFile(max_size=SPOOL_MEMORY_BYTES)  # noqa: SIM115
    disconnect: Message | None = None
    try:
        while True:
            message = await receive()
            if message["type"] != "http.request":
                disconnect = message
                break
            spool.write(message.get("body", b""))
            if not message.get("more_body", False):
                break
        spool.seek(0)
        body = spool.read()
    finally:
        spool.close()
    replayed = False

    async def replay() -> Message:
        nonlocal replayed, body
        if disconnect is not None:
            return disconnect
        if not replayed:
            replayed = True
            message: Message = {"type": "http.request", "body": body, "more_body": False}
            body = b""  # the route holds it now; this closure no longer does
            return message
        return await receive()

    return replay
