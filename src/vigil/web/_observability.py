"""Request IDs and structured access logs (pure ASGI middleware).

Every response carries ``X-Request-ID`` (the caller's, when it is a short printable
token, else a new one). One JSON log line per request records method, path, status,
duration and request ID — never the query string (it may hold a roster token), headers
(credentials) or bodies (roster content).
"""

from __future__ import annotations

import json
import logging
import re
import secrets
import time

from starlette.types import ASGIApp, Message, Receive, Scope, Send

logger = logging.getLogger("vigil.access")

_SAFE_ID = re.compile(r"^[A-Za-z0-9._-]{1,64}$")


def _request_id(scope: Scope) -> str:
    for name, value in scope.get("headers", []):
        if name == b"x-request-id":
            candidate: str = value.decode("latin-1")
            if _SAFE_ID.match(candidate):
                return candidate
            break
    return secrets.token_hex(8)


class RequestContextMiddleware:
    """Attach a request ID and log one structured line per HTTP request."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_id = _request_id(scope)
        scope.setdefault("state", {})["request_id"] = request_id
        started = time.perf_counter()
        status = 500

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
                headers = list(message.get("headers", []))
                headers.append((b"x-request-id", request_id.encode("ascii")))
                message = {**message, "headers": headers}
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        finally:
            if logger.isEnabledFor(logging.INFO):
                logger.info(
                    json.dumps(
                        {
                            "event": "request",
                            "request_id": request_id,
                            "method": scope.get("method"),
                            "path": scope.get("path"),
                            "status": status,
                            "ms": round((time.perf_counter() - started) * 1000, 2),
                        }
                    )
                )
