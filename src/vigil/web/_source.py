"""The caller's network address, for failure throttling (issue 13).

:class:`SourceAddressMiddleware` puts the peer address of every HTTP request in
:data:`SOURCE_ADDRESS`, so code that has no ``Request`` (Basic authentication inside
``vigil.web._runtime``) can key failures by source. The address is the TCP peer as
uvicorn reports it; behind a reverse proxy it is the proxy's unless uvicorn is told to
trust the proxy's forwarding headers (docs/hardening.md).
"""

from __future__ import annotations

from contextvars import ContextVar

from starlette.types import ASGIApp, Receive, Scope, Send

#: peer address of the request being served; ``""`` outside a request
SOURCE_ADDRESS: ContextVar[str] = ContextVar("vigil_source_address", default="")


def address_of(scope: Scope) -> str:
    """The peer host of an ASGI connection scope (``""`` when unknown)."""
    client = scope.get("client")
    return str(client[0]) if client else ""


class SourceAddressMiddleware:
    """Set :data:`SOURCE_ADDRESS` for the duration of each HTTP request."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        token = SOURCE_ADDRESS.set(address_of(scope))
        try:
            await self.app(scope, receive, send)
        finally:
            SOURCE_ADDRESS.reset(token)
