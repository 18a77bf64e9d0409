"""Console form posts are refused before their body is read unless signed in.

A FastAPI route parses its form (a multipart upload of up to ``VIGIL_MAX_UPLOAD_BYTES``
into temporary files) before its dependencies run, so without this middleware an
anonymous client made the server receive 129 MiB per post before it was sent to the
sign-in page. :class:`ConsoleSignInGuard` checks the console cookie and its server-side
session (the same check as :func:`vigil.web.console._web.load_console`) from the headers
alone: a POST under ``/console/`` other than the sign-in form, without a live session,
gets its 303 to the sign-in page at once, with ``Connection: close``, and its body is
never received. The API does the same for its calls (:mod:`vigil.web._preauth`).
"""

from __future__ import annotations

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import RedirectResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from vigil.store import repo
from vigil.web._preauth import _has_body
from vigil.web.console import _session as cookies

__all__ = ["ConsoleSignInGuard"]

#: posts anyone may make: the sign-in form itself
OPEN_POSTS = frozenset({"/console/login"})


class ConsoleSignInGuard:
    """303 to the sign-in page, before the body, for console posts without a session."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = str(scope.get("path", ""))
        if (
            scope["type"] != "http"
            or scope.get("method") != "POST"
            or not path.startswith(cookies.COOKIE_PATH + "/")
            or path in OPEN_POSTS
            or await self._signed_in(scope)
        ):
            await self.app(scope, receive, send)
            return
        response = RedirectResponse(f"{cookies.COOKIE_PATH}/login", status_code=303)
        if _has_body(scope):
            response.headers["connection"] = "close"  # the unread body is not a request
        await response(scope, receive, send)

    @staticmethod
    async def _signed_in(scope: Scope) -> bool:
        from vigil.web.console._web import signing_key

        runtime = getattr(scope["app"].state, "vigil", None)
        if runtime is None or runtime.sessions is None:
            return True  # no console on this surface: the route answers (404)
        value = Request(scope).cookies.get(cookies.COOKIE_NAME)
        session = cookies.decode(value, signing_key(runtime))
        if session is None or session.sid is None:
            return False
        sid = session.sid

        def live() -> bool:
            with runtime.sessions() as db:
                return repo.console_session_user(session=db, secret=sid) is not None

        return await run_in_threadpool(live)
