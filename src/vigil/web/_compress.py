"""Response compression that keeps one Zstandard context per thread.

:class:`CompressMiddleware` is ``starlette_compress``'s middleware, with the same choice
of encoding (zstd, then br, then gzip, as ``Accept-Encoding`` allows) and the same bytes
on the wire. Only its one-shot Zstandard compression differs: the library builds a new
``ZstdCompressor`` (a compression context of a few hundred KiB, allocated and cleared)
for every response, which cost about a tenth of the HTTP layer's CPU on a scoring call;
here each thread keeps one compressor and reuses it. A compressor is not safe to share
between threads, hence one per thread. Reusing a context does not change its output
(``tests/web/test_compress.py`` compares it with a fresh context's). Streamed bodies
(GetResults scores) keep the library's encoder, a fresh context per response.

The library has no public hook for this: the middleware's Zstandard responder gets our
one-shot function in place of its own (``starlette-compress`` 2.0, pinned in
``constraints.txt``; the tests above fail if a new version renames them).
"""

from __future__ import annotations

import threading

from starlette.types import ASGIApp
from starlette_compress import CompressMiddleware as _LibraryCompressMiddleware
from zstandard import ZstdCompressor


class ZstdOneShot:
    """``body -> zstd frame`` at ``level``, with one ``ZstdCompressor`` per thread."""

    def __init__(self, level: int) -> None:
        self.level = level
        self._local = threading.local()

    def __call__(self, body: bytes) -> bytes:
        compressor: ZstdCompressor | None = getattr(self._local, "compressor", None)
        if compressor is None:
            compressor = self._local.compressor = ZstdCompressor(level=self.level)
        return compressor.compress(body)


class CompressMiddleware(_LibraryCompressMiddleware):
    """``starlette_compress.CompressMiddleware`` with per-thread Zstandard contexts."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        minimum_size: int,
        zstd_level: int,
        brotli_quality: int,
        gzip_level: int,
    ) -> None:
        super().__init__(
            app,
            minimum_size=minimum_size,
            zstd_level=zstd_level,
            brotli_quality=brotli_quality,
            gzip_level=gzip_level,
        )
        assert self._zstd is not None  # enabled (the library's default)
        self._zstd.oneshot = ZstdOneShot(zstd_level)
