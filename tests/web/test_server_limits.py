"""Connection limits of ``vigil serve``: header size, header and body timeouts.

A real uvicorn server with :class:`GuardedHttpToolsProtocol` and short limits, driven
over raw sockets the way a slowloris client would.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.routing import Route

from vigil.config.settings import Settings
from vigil.web.server import GuardedHttpToolsProtocol, ServerLimits, uvicorn_options

LIMITS = ServerLimits(
    max_header_bytes=8192, header_timeout=1.5, body_timeout=1.0, body_min_rate=256
)


class _Guarded(GuardedHttpToolsProtocol):
    limits = LIMITS


async def echo(request: Request) -> PlainTextResponse:
    if request.query_params.get("slow"):
        import asyncio

        await asyncio.sleep(2.5)  # the application is busy; the client is not slow
    body = await request.body()
    return PlainTextResponse(f"{len(body)}")


@pytest.fixture
def port() -> Iterator[int]:
    app = Starlette(routes=[Route("/", echo, methods=["GET", "POST"])])
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    config = uvicorn.Config(app, http=_Guarded, log_level="error", lifespan="off")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.01)
    yield sock.getsockname()[1]
    server.should_exit = True
    thread.join(10)
    sock.close()


def trickle(port: int, data: bytes, every: float, give_up: float) -> tuple[bytes, float]:
    """Send ``data`` one byte per ``every`` seconds; return (answer, seconds until closed).

    The answer is empty when the server's close reset the connection before it was read.
    """
    start = time.monotonic()
    answer = b""
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.settimeout(every)
        for byte in data:
            try:
                sock.sendall(bytes([byte]))
                chunk = sock.recv(4096)
            except TimeoutError:
                if time.monotonic() - start > give_up:
                    raise AssertionError("never closed") from None
                continue
            except OSError:  # reset: closed while we were still sending
                break
            answer += chunk
            if not chunk:
                break
        else:
            raise AssertionError("the whole head was sent without the server closing")
    return answer, time.monotonic() - start


def test_slow_header_is_closed_with_408(port: int) -> None:
    head = b"GET / HTTP/1.1\r\nHost: x\r\n" + b"X-Slow: " + b"a" * 200
    answer, took = trickle(port, head, every=0.25, give_up=10)
    assert answer in (b"",) or answer.startswith(b"HTTP/1.1 408"), answer
    assert took < LIMITS.header_timeout + 1.5
    with socket.create_connection(("127.0.0.1", port)) as sock:  # a head that stops
        sock.settimeout(10)
        sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")
        assert sock.recv(4096).startswith(b"HTTP/1.1 408")


def test_slow_body_is_closed_with_408(port: int) -> None:
    head = b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n"
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.sendall(head)
        sock.settimeout(0.3)
        start = time.monotonic()
        answer, reset = b"", False
        while time.monotonic() - start < 10 and not answer:
            try:
                sock.sendall(b"x")
                answer = sock.recv(4096)
            except TimeoutError:
                continue
            except OSError:  # closed while we were still sending
                reset = True
                break
    assert reset or answer.startswith(b"HTTP/1.1 408"), answer
    assert time.monotonic() - start < 3 * LIMITS.body_timeout + 1


def test_idle_connection_is_closed(port: int) -> None:
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.settimeout(10)
        start = time.monotonic()
        assert sock.recv(100) == b""  # closed without an answer
        assert time.monotonic() - start < LIMITS.header_timeout + 1


def test_oversized_head_is_431(port: int) -> None:
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.settimeout(5)
        sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 20_000 + b"\r\n\r\n")
        assert sock.recv(4096).startswith(b"HTTP/1.1 431")
    with socket.create_connection(("127.0.0.1", port)) as sock:  # head and body in one read
        sock.settimeout(5)
        head = b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nX-Big: " + b"a" * 9000
        sock.sendall(head + b"\r\n\r\nhello")
        assert sock.recv(4096).startswith(b"HTTP/1.1 431")
    with socket.create_connection(("127.0.0.1", port)) as sock:  # a head trickling in parts
        sock.settimeout(5)
        sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")
        for _ in range(10):
            try:
                sock.sendall(b"X-Many: " + b"b" * 1000 + b"\r\n")
            except OSError:
                break
            time.sleep(0.01)
        assert sock.recv(4096).startswith(b"HTTP/1.1 431")


def test_normal_requests_keep_alive_and_a_busy_app_is_not_the_clients_fault(port: int) -> None:
    import httpx

    body = b"y" * 2_000_000
    with httpx.Client(base_url=f"http://127.0.0.1:{port}") as client:
        for _ in range(3):  # several requests on one kept-alive connection
            assert client.get("/").text == "0"
        # the app waits 2.5 s (> body window) before reading: uvicorn pauses reading, and
        # a paused window does not count against the client
        assert client.post("/?slow=1", content=body).text == str(len(body))
        time.sleep(LIMITS.header_timeout + 0.5)  # idle past the head limit: a new head
        assert client.post("/", content=body).text == str(len(body))


def test_serve_passes_the_limits_from_settings() -> None:
    settings = Settings.from_mapping(
        {"keep_alive_timeout": 7, "limit_concurrency": 50, "header_timeout": 3}
    )
    options: dict[str, Any] = uvicorn_options(settings)
    assert options["http"] is GuardedHttpToolsProtocol
    assert (options["timeout_keep_alive"], options["limit_concurrency"]) == (7, 50)
    assert ServerLimits.from_settings(settings).header_timeout == 3
    defaults = ServerLimits.from_settings(Settings.from_mapping({}))
    # a slowloris client sending a byte every 5 s gets at most a few bytes per window
    assert defaults.body_min_rate * defaults.body_timeout > 5 * 2
    assert defaults.header_timeout < 60


def test_pipelined_requests_with_large_bodies_pass(port: int) -> None:
    """A second request parsed while the first is answered is not taken for a slow head."""
    body = b"z" * 200_000  # more than the 8 KiB head limit, and than uvicorn's buffer
    one = b"POST /?slow=1 HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n" % len(body)
    two = b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n" % len(body)
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.settimeout(10)
        sock.sendall(one + body + two + body)
        answers = b""
        while answers.count(b"HTTP/1.1 ") < 2:
            chunk = sock.recv(65536)
            if not chunk:
                break
            answers += chunk
    assert answers.count(b"HTTP/1.1 200 OK") == 2, answers
    assert answers.endswith(b"200000")
