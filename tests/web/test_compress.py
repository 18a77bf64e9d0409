"""Per-thread Zstandard contexts: the same bytes as the library's fresh context.

:mod:`vigil.web._compress` replaces only ``starlette_compress``'s one-shot Zstandard
function. These tests compare what the middleware sends with what the library's own
middleware sends for the same bodies (a fresh ``ZstdCompressor`` per response), over
bodies of many sizes and in several threads, and check that the other encodings and the
small-body passthrough are the library's.
"""

from __future__ import annotations

import asyncio
import gzip
import os
import threading
from typing import Any

import pytest
import zstandard
from starlette.types import Message, Receive, Scope, Send
from starlette_compress import CompressMiddleware as LibraryCompressMiddleware

from vigil.web._compress import CompressMiddleware, ZstdOneShot

LEVELS = {"minimum_size": 1024, "zstd_level": 3, "brotli_quality": 4, "gzip_level": 6}


def _bodies() -> list[bytes]:
    """JSON-like text of many sizes, plus incompressible bytes."""
    text = b'{"schedule":"P1","fatigueScores":[' + b",".join(
        str(round(3 + (i % 37) / 7, 2)).encode() for i in range(6000)
    )
    return [text[:n] for n in (1024, 2000, 6125, 20_000, len(text))] + [os.urandom(50_000)]


def _app(body: bytes) -> Any:
    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})

    return app


def _answer(middleware: Any, accept: bytes) -> list[Message]:
    scope = {
        "type": "http",
        "method": "POST",
        "path": "/api/Processor/ProcessFatigue",
        "headers": [(b"accept-encoding", accept)],
    }
    sent: list[Message] = []

    async def receive() -> Message:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: Message) -> None:
        sent.append(message)

    asyncio.run(middleware(scope, receive, send))
    return sent


@pytest.mark.parametrize("accept", [b"gzip, deflate, br, zstd", b"gzip, br", b"gzip", b"identity"])
def test_same_answer_as_the_library(accept: bytes) -> None:
    for body in _bodies():
        ours = _answer(CompressMiddleware(_app(body), **LEVELS), accept)
        theirs = _answer(LibraryCompressMiddleware(_app(body), **LEVELS), accept)
        assert [m["type"] for m in ours] == ["http.response.start", "http.response.body"]
        assert ours[0] == theirs[0], (accept, len(body))  # status, encoding, length, vary
        if dict(ours[0]["headers"]).get(b"content-encoding") == b"gzip":
            # gzip writes the time into its header: equal once decompressed
            assert gzip.decompress(ours[1]["body"]) == gzip.decompress(theirs[1]["body"])
        else:
            assert ours[1] == theirs[1], (accept, len(body))


def test_reused_context_gives_the_fresh_context_bytes() -> None:
    one_shot = ZstdOneShot(3)
    for body in _bodies() * 3:  # each body again after others: the context is reused
        sent = one_shot(body)
        assert sent == zstandard.ZstdCompressor(level=3).compress(body)
        assert zstandard.ZstdDecompressor().decompress(sent) == body


def test_one_context_per_thread() -> None:
    one_shot = ZstdOneShot(3)
    bodies = _bodies()
    expected = [zstandard.ZstdCompressor(level=3).compress(b) for b in bodies]
    failures: list[int] = []

    def work() -> None:
        for _ in range(20):
            for body, want in zip(bodies, expected, strict=True):
                if one_shot(body) != want:
                    failures.append(len(body))

    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
