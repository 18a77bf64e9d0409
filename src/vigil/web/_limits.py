"""Pure ASGI middleware refusing request bodies over the size limit (contract §3: 413)."""

from __future__ import annotations

import json
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send


class _TooLarge(Exception):
    pass


class BodySizeLimitMiddleware:
    """Answer 413 problem+json when a body exceeds its limit (declared or streamed).

    ``max_bytes`` applies everywhere except the paths in ``path_limits`` (e.g. the bulk
    ``/api/UploadRoster``, whose rosters are far larger than a synchronous call's).
    """

    def __init__(
        self, app: ASGIApp, *, max_bytes: int, path_limits: dict[str, int] | None = None
    ) -> None:
        self.app = app
        self.default_bytes = max_bytes
        self.path_limits = {k.lower(): v for k, v in (path_limits or {}).items()}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = str(scope.get("path", "")).lower()
        max_bytes = self.path_limits.get(path, self.default_bytes)
        for name, value in scope.get("headers", []):
            if name == b"content-length":
                try:
                    declared = int(value)
                except ValueError:
                    declared = 0
                if declared > max_bytes:
                    await self._refuse(send, max_bytes)
                    return
        seen = 0
        started = False

        async def limited_receive() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > max_bytes:
                    raise _TooLarge
            return message

        async def tracking_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, limited_receive, tracking_send)
        except _TooLarge:
            if not started:
                await self._refuse(send, max_bytes)

    async def _refuse(self, send: Send, max_bytes: int) -> None:
        body: dict[str, Any] = {
            "type": "about:blank",
            "title": "Content Too Large",
            "status": 413,
            "detail": f"The request body exceeds {max_bytes} bytes.",
        }
        data = json.dumps(body).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 413,
                "headers": [
                    (b"content-type", b"application/problem+json"),
                    (b"content-length", str(len(data)).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": data})
