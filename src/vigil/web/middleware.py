"""Every surface's middleware stack, built in one place and in one order.

:func:`add_middleware` wraps an app in these layers; a request passes them top to
bottom, its response bottom to top:

1. :class:`~vigil.web._observability.RequestContextMiddleware` (outermost): every answer,
   including a refusal by any layer below, gets its ``X-Request-ID`` and one access-log
   line.
2. :class:`~vigil.web._compress.CompressMiddleware`: zstd, br or gzip as
   ``Accept-Encoding`` allows, for bodies of at least ``compress_min_bytes``; outside
   every refusal so problem+json bodies are compressed alike, and streamed bodies
   (GetResults) chunk by chunk.
3. :class:`~vigil.web._source.SourceAddressMiddleware`: the caller's address, which the
   failure limits of the layers below (and Basic authentication) key on.
4. :class:`~vigil.web._limits.BodySizeLimitMiddleware`: 413 past ``max_body_bytes``
   (``max_upload_bytes`` on UploadRoster and the console's upload form), declared or
   streamed; it wraps the pre-authentication layers, so the body they spool is bounded.
5. :class:`~vigil.web.console._preauth.ConsoleSignInGuard` (surfaces with the console
   only): a console post without a live session gets its 303 before its form is read.
6. :class:`~vigil.web._preauth.PreAuthMiddleware` (innermost): 401/403 from the headers
   before a protected body is read; an authenticated UploadRoster body is spooled to a
   temporary file.

Not middleware, on purpose: the per-operator bound on pooled scoring
(:class:`~vigil.web._operator_gate.OperatorGate`) needs the verified operator and applies
to one route's pooled calls only, so ``routes/processor.py`` takes it around the call; the
problem+json error handlers are exception handlers (:func:`vigil.web.problems.install_handlers`).
"""

from __future__ import annotations

from collections.abc import Sequence

from fastapi import FastAPI
from starlette.routing import BaseRoute

from vigil.config.settings import Settings
from vigil.web._compress import CompressMiddleware
from vigil.web._limits import BodySizeLimitMiddleware
from vigil.web._observability import RequestContextMiddleware
from vigil.web._preauth import PreAuthMiddleware
from vigil.web._source import SourceAddressMiddleware

__all__ = ["CONSOLE_FORM_FRAMING", "SPOOLED_PATHS", "add_middleware"]

#: bodies the pre-authentication layer spools to a temporary file (bulk rosters)
SPOOLED_PATHS = ("/api/UploadRoster",)
#: the console's upload form takes what UploadRoster takes, plus its multipart framing
#: and small fields [bytes]
CONSOLE_FORM_FRAMING = 1024 * 1024


def add_middleware(
    app: FastAPI, settings: Settings, *, routes: Sequence[BaseRoute], console: bool
) -> None:
    """Wrap ``app`` in the stack of the module docstring (Starlette runs the middleware
    added last outermost, so they are added innermost first).

    Parameters
    ----------
    app : FastAPI
    settings : Settings
        The limits and the compression threshold.
    routes : sequence of BaseRoute
        Every route of the surface: the pre-authentication layer checks the scopes of the
        ones that declare ``RequireScope``.
    console : bool
        The surface serves the console (adds its sign-in guard).
    """
    app.add_middleware(PreAuthMiddleware, routes=routes, spool_paths=SPOOLED_PATHS)
    if console:
        from vigil.web.console._preauth import ConsoleSignInGuard

        app.add_middleware(ConsoleSignInGuard)
    app.add_middleware(
        BodySizeLimitMiddleware,
        max_bytes=settings.max_body_bytes,
        path_limits={
            "/api/UploadRoster": settings.max_upload_bytes,
            "/console/rosters": settings.max_upload_bytes + CONSOLE_FORM_FRAMING,
        },
    )
    app.add_middleware(SourceAddressMiddleware)
    # one Zstandard context per thread instead of one per response (vigil.web._compress)
    app.add_middleware(
        CompressMiddleware,
        minimum_size=settings.compress_min_bytes,
        zstd_level=3,
        brotli_quality=4,
        gzip_level=6,
    )
    app.add_middleware(RequestContextMiddleware)
