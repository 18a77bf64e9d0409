"""The caller's network address, for failure throttling.

:class:`SourceAddressMiddleware` puts the peer address of every HTTP request in
:data:`SOURCE_ADDRESS`, so code that has no ``Request`` (Basic authentication inside
``vigil.web._runtime``) can key failures by source. The address is the TCP peer as
uvicorn reports it; behind a reverse proxy it is the proxy's unless uvicorn is told to
trust the proxy's forwarding headers (docs/hardening.md).
"""

from __future__ import annotations

import logging
from contextvars import ContextVar

from starlette.types import ASGIApp, Receive, Scope, Send

logger = logging.getLogger(__name__)

#: peer address of the request being served; ``""`` outside a request
SOURCE_ADDRESS: ContextVar[str] = ContextVar("vigil_source_address", default="")


def untrusted_forwarding(scope: Scope) -> str | None:
    """The peer address when the request carries ``X-Forwarded-For`` that was not applied
    (the peer is not among ``--forwarded-allow-ips``), else ``None``.

    uvicorn replaces the client address with the forwarded one only for trusted peers, so
    a forwarded header naming another address than the client means a proxy Vigil was
    not told about: every client behind it shares its failure allowance.
    """
    for name, value in scope.get("headers", []):
        if name == b"x-forwarded-for":
            forwarded = value.decode("latin-1").split(",")[-1].strip()
            peer = address_of(scope)
            return peer if forwarded and forwarded != peer else None
    return None


def address_of(scope: Scope) -> str:
    """The peer host of an ASGI connection scope (``""`` when unknown)."""
    client = scope.get("client")
    return str(client[0]) if client else ""


class SourceAddressMiddleware:
    """Set :data:`SOURCE_ADDRESS` for the duration of each HTTP request."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.warned = False

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if not self.warned and (proxy := untrusted_forwarding(scope)) is not None:
            self.warned = True  # once per process: a misconfiguration, not an event
            logger.warning(
                "requests from %s carry X-Forwarded-For, but %s is not a trusted proxy: "
                "every client behind it shares one failure allowance; set "
                "VIGIL_FORWARDED_ALLOW_IPS (vigil serve --forwarded-allow-ips) to it",
                proxy,
                proxy,
            )
        token = SOURCE_ADDRESS.set(address_of(scope))
        try:
            await self.app(scope, receive, send)
        finally:
            SOURCE_ADDRESS.reset(token)
