"""Connection limits for ``vigil serve`` (docs/deployment.md, docs/hardening.md).

uvicorn enforces a keep-alive timeout and a concurrency limit (``timeout_keep_alive``,
``limit_concurrency``, passed by :func:`uvicorn_options`), but with httptools it has no
limit on header size and no header or body read timeout: a client sending one byte
every few seconds keeps a connection (and its memory) forever. We keep uvicorn (it is
what the service, its tests and its benchmarks run on, with uvloop + httptools) and add
the missing limits in :class:`GuardedHttpToolsProtocol`, a subclass of uvicorn's
httptools protocol, passed as ``http=``:

- **header size**: more than ``max_header_bytes`` before the end of the request head
  answers ``431 Request Header Fields Too Large`` and closes the connection;
- **header read timeout**: the whole request head must arrive within
  ``header_timeout`` seconds of the connection opening (first request) or of its first
  byte (later requests on a kept-alive connection, which uvicorn's keep-alive timeout
  closes when idle); otherwise ``408 Request Timeout`` and the connection is closed;
- **body read timeout**: while a body is being received, each ``body_timeout`` window
  must bring at least ``body_min_rate * body_timeout`` bytes (or the rest of the body);
  otherwise ``408`` (if no response started) and the connection is closed. Time during
  which uvicorn itself paused reading (the application is not consuming the body yet) is
  not counted against the client.

The values come from :class:`vigil.config.settings.Settings` (``VIGIL_HEADER_TIMEOUT`` and
friends); every worker process reads them from the same environment as its app.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from vigil import config
from vigil.config.settings import Settings


@dataclass(frozen=True, slots=True)
class ServerLimits:
    """Per-connection limits enforced by :class:`GuardedHttpToolsProtocol`.

    Attributes
    ----------
    max_header_bytes : int
        Largest request head (request line and headers) [bytes].
    header_timeout : float
        Time allowed for a whole request head [s].
    body_timeout : float
        Length of one body-progress window [s].
    body_min_rate : int
        Least average body rate over a window [bytes/s].
    """

    max_header_bytes: int
    header_timeout: float
    body_timeout: float
    body_min_rate: int

    @classmethod
    def from_settings(cls, settings: Settings) -> ServerLimits:
        return cls(
            max_header_bytes=settings.max_header_bytes,
            header_timeout=settings.header_timeout,
            body_timeout=settings.body_timeout,
            body_min_rate=settings.body_min_rate,
        )


@lru_cache(maxsize=1)
def _limits_from_env() -> ServerLimits:
    return ServerLimits.from_settings(Settings.from_env(config.env_file()))


def uvicorn_options(settings: Settings) -> dict[str, Any]:
    """Keyword arguments for ``uvicorn.run`` / ``uvicorn.Config`` carrying every limit."""
    return {
        "http": GuardedHttpToolsProtocol,
        "timeout_keep_alive": settings.keep_alive_timeout,
        "limit_concurrency": settings.limit_concurrency,
        "backlog": settings.backlog,
    }


def _plain_response(status: bytes, reason: bytes) -> bytes:
    body = reason + b"\n"
    return b"".join(
        [
            b"HTTP/1.1 " + status + b" " + reason + b"\r\n",
            b"content-type: text/plain; charset=utf-8\r\n",
            b"content-length: " + str(len(body)).encode() + b"\r\n",
            b"connection: close\r\n\r\n",
            body,
        ]
    )


_REQUEST_TIMEOUT = _plain_response(b"408", b"Request Timeout")
_HEADERS_TOO_LARGE = _plain_response(b"431", b"Request Header Fields Too Large")


class GuardedHttpToolsProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with header-size, header- and body-timeout limits."""

    #: limits used when none are given (read once per process from ``VIGIL_*``)
    limits: ServerLimits | None = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._limits = type(self).limits or _limits_from_env()
        self._in_head = True
        self._head_bytes = 0
        self._head_timer: asyncio.TimerHandle | None = None
        self._body_timer: asyncio.TimerHandle | None = None
        self._window_bytes = 0

    # connection life
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)  # type: ignore[arg-type]
        self._start_head()

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_timers()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self._in_head:
            self._head_bytes += len(data)
        else:
            self._window_bytes += len(data)
        if self.transport.is_closing():
            return
        super().data_received(data)
        if self._in_head and self._head_bytes > self._limits.max_header_bytes:
            self._refuse(
                _HEADERS_TOO_LARGE, f"request head over {self._limits.max_header_bytes} bytes"
            )

    # parser callbacks
    def on_message_begin(self) -> None:
        super().on_message_begin()
        if self._head_timer is None:  # the first byte of a new head (not the connection's)
            self._start_head()

    def on_headers_complete(self) -> None:
        self._in_head = False
        self._cancel(self._head_timer)
        self._head_timer = None
        size = len(self.url) + sum(len(name) + len(value) + 4 for name, value in self.headers)
        if size > self._limits.max_header_bytes:  # a whole head that came in one read
            self._refuse(
                _HEADERS_TOO_LARGE, f"request head over {self._limits.max_header_bytes} bytes"
            )
            return
        super().on_headers_complete()
        if self.cycle is not None and self.cycle.more_body and not self.transport.is_closing():
            self._window_bytes = 0
            self._body_timer = self.loop.call_later(self._limits.body_timeout, self._body_check)

    def on_body(self, body: bytes) -> None:
        if self.cycle is not None and not self.transport.is_closing():
            super().on_body(body)

    def on_message_complete(self) -> None:
        self._cancel(self._body_timer)
        self._body_timer = None
        if self.cycle is not None and not self.transport.is_closing():
            super().on_message_complete()

    # timers
    def _start_head(self) -> None:
        self._in_head = True
        self._head_bytes = 0
        self._cancel(self._head_timer)
        self._head_timer = self.loop.call_later(self._limits.header_timeout, self._head_expired)

    def _head_expired(self) -> None:
        self._head_timer = None
        if self._in_head and not self.transport.is_closing():
            if self._head_bytes:
                self._refuse(_REQUEST_TIMEOUT, "request head not complete in time")
            else:
                self.transport.close()  # an idle connection: nothing to answer

    def _body_check(self) -> None:
        self._body_timer = None
        if self.transport.is_closing() or self.cycle is None or not self.cycle.more_body:
            return
        wanted = self._limits.body_min_rate * self._limits.body_timeout
        if self.flow.read_paused or self._window_bytes >= wanted:
            # progress made, or the application is not reading yet: a new window
            self._window_bytes = 0
            self._body_timer = self.loop.call_later(self._limits.body_timeout, self._body_check)
            return
        if self.cycle.response_started:
            self.transport.close()
        else:
            self._refuse(_REQUEST_TIMEOUT, "request body slower than the minimum rate")
        self.cycle.disconnected = True
        self.cycle.message_event.set()

    def _refuse(self, response: bytes, why: str) -> None:
        self._cancel_timers()
        prefix = f"{self.client[0]}:{self.client[1]} - " if self.client else ""
        self.logger.warning("%sconnection closed: %s", prefix, why)
        if not self.transport.is_closing():
            self.transport.write(response)
            self.transport.close()

    def _cancel_timers(self) -> None:
        self._cancel(self._head_timer)
        self._cancel(self._body_timer)
        self._head_timer = self._body_timer = None

    @staticmethod
    def _cancel(timer: asyncio.TimerHandle | None) -> None:
        if timer is not None:
            timer.cancel()
