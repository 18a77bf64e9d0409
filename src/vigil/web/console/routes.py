"""The operator console at ``/console`` (contract §6): the router and its pages.

``router`` is mounted by :func:`vigil.web.app.create_app` (``EMBEDDED_ROUTERS``). It
gathers the page modules: sign-in and the overview here, API clients
(:mod:`.clients`), rosters (:mod:`.rosters`) and "try it" (:mod:`.tryit`), plus the
package's static files (``/console/static/…``: CSS and the plain-SVG chart script).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

from fastapi import APIRouter, Form, HTTPException
from fastapi.responses import FileResponse, RedirectResponse, Response

from vigil.auth.gate import WorkGate
from vigil.auth.ratelimit import FailureLimiter
from vigil.auth.scopes import ALL_KINDS
from vigil.store import repo
from vigil.web.console import _session as cookies
from vigil.web.console import calibration, clients, rosters, settings_page, tryit, whatif
from vigil.web.console import compare as compare_page
from vigil.web.console import explorer as duty_explorer
from vigil.web.console import hazards as hazard_log
from vigil.web.console import trips as trip_pages
from vigil.web.console._web import (
    HERE,
    PREFIX,
    SECURITY_HEADERS,
    AnyConsole,
    UserConsole,
    safe_next,
)
from vigil.web.runtime_state import SignInGuard

pages = APIRouter()

STATIC_DIR = HERE / "static"
_STATIC_TYPES = {".css": "text/css", ".js": "text/javascript", ".svg": "image/svg+xml"}

#: ``Retry-After`` when every password-check slot is busy [s]
BUSY_RETRY_AFTER = 2


@pages.get("/static/{name}")
def static_file(name: str) -> Response:
    """A file shipped in ``static/`` (flat directory; nothing else is reachable)."""
    path = STATIC_DIR / name
    if (
        "/" in name
        or name.startswith(".")
        or Path(name).suffix not in _STATIC_TYPES
        or not path.is_file()
    ):
        raise HTTPException(404, "no such static file")
    return FileResponse(
        path,
        media_type=_STATIC_TYPES[path.suffix],
        headers={"Cache-Control": "public, max-age=300", **SECURITY_HEADERS},
    )


def _guard(console: AnyConsole) -> SignInGuard:
    runtime = console.runtime
    guard = runtime.state.sign_in_guard
    if guard is None:
        settings = runtime.settings
        window = settings.console_failure_window
        store = runtime.failures
        guard = SignInGuard(
            pair=FailureLimiter(
                max_failures=settings.console_max_failures, window=window, store=store
            ),
            source=FailureLimiter(
                max_failures=settings.console_source_max_failures, window=window, store=store
            ),
            gate=WorkGate(
                slots=settings.argon2_concurrency or os.cpu_count() or 1,
                queue=settings.argon2_queue,
                wait=settings.argon2_wait,
            ),
        )
        runtime.state.sign_in_guard = guard
    return guard


@pages.get("/login")
def login_form(console: AnyConsole, next: str | None = None) -> Response:
    """The sign-in form (issues the anonymous session that carries its CSRF token)."""
    if console.user is not None:
        return console.finish(RedirectResponse(safe_next(next), status_code=303))
    return console.render("login.html", next=safe_next(next), error=None, username="")


@pages.post("/login")
def login(
    console: AnyConsole,
    username: Annotated[str, Form(max_length=100)] = "",
    password: Annotated[str, Form(max_length=1000)] = "",
    next: Annotated[str, Form(max_length=2000)] = "",
    csrf_token: Annotated[str | None, Form()] = None,
) -> Response:
    """Check the password (argon2, repository); on success start a fresh session."""
    target = safe_next(next)
    if not cookies.csrf_ok(console.session, csrf_token):
        console.replace_session(cookies.new_session())
        return _refused(
            console, 403, "The sign-in form expired. Please try again.", target, username
        )
    guard = _guard(console)
    request = console.request
    source = request.client.host if request.client else ""
    pair_key = f"console:{source}|{username.strip().lower()}"
    source_key = f"console-source:{source}"
    wait = max(guard.pair.retry_after([pair_key]) or 0, guard.source.retry_after([source_key]) or 0)
    if wait:
        error = f"Too many failed attempts. Try again in {wait} s."
        return _refused(console, 429, error, target, username, retry_after=wait)
    with guard.gate.slot() as admitted:
        if not admitted:
            error = "The server is busy checking passwords. Please try again in a moment."
            return _refused(console, 503, error, target, username, retry_after=BUSY_RETRY_AFTER)
        user = repo.authenticate_console_user(
            session=console.db, username=username.strip(), password=password
        )
    if user is None:
        guard.pair.record_failure([pair_key])
        guard.source.record_failure([source_key])
        # a new CSRF token after every failure: a token seen once buys one attempt
        console.replace_session(cookies.new_session())
        return _refused(console, 401, "Unknown user or wrong password.", target, username)
    sid = repo.start_console_session(session=console.db, user_id=user.id, lifetime=cookies.MAX_AGE)
    console.replace_session(cookies.new_session(sid))
    return console.finish(RedirectResponse(target, status_code=303))


def _refused(
    console: AnyConsole,
    status: int,
    error: str,
    target: str,
    username: str,
    *,
    retry_after: int | None = None,
) -> Response:
    """The sign-in page again with ``error``, answered ``status`` (and ``Retry-After``)."""
    response = console.render(
        "login.html", status_code=status, next=target, error=error, username=username
    )
    if retry_after is not None:
        response.headers["Retry-After"] = str(retry_after)
    return response


@pages.post("/logout")
def logout(console: AnyConsole, csrf_token: Annotated[str | None, Form()] = None) -> Response:
    """Sign out (CSRF-checked, so another site cannot sign a user out): the server-side
    session is deleted, so a copy of the cookie stops working too."""
    if console.user is not None and not cookies.csrf_ok(console.session, csrf_token):
        raise HTTPException(403, "The form's CSRF token is missing or stale; reload the page.")
    if console.session.sid is not None:
        repo.end_console_session(session=console.db, secret=console.session.sid)
    console.replace_session(cookies.signed_out(console.session))
    return console.finish(RedirectResponse(f"{PREFIX}/login", status_code=303))


@pages.get("/")
def home(console: UserConsole) -> Response:
    """The officer's start: the dashboard of the operator's newest scored roster; the
    connection overview while there is none."""
    latest = rosters.latest_scored(console)
    if latest is not None:
        return RedirectResponse(f"{PREFIX}/rosters/{latest}", status_code=303)
    return overview(console)


@pages.get("/connect")
def overview(console: UserConsole) -> Response:
    """Where to connect, which scopes this operator's clients hold, what is stored."""
    settings = console.runtime.settings
    scope_table = console.runtime.scopes
    own = repo.list_api_clients(session=console.db, operator=console.operator)
    return console.render(
        "overview.html",
        base_url=settings.public_base_url,
        scopes=[(kind.value, scope_table.name(kind)) for kind in ALL_KINDS],
        client_count=sum(1 for c in own if not c.disabled),
        roster_count=rosters.count_for(console),
    )


router = APIRouter(prefix=PREFIX, include_in_schema=False)
router.include_router(pages)
router.include_router(clients.router)
router.include_router(rosters.router)
router.include_router(duty_explorer.router)
router.include_router(tryit.router)
router.include_router(whatif.router)
router.include_router(settings_page.router)
router.include_router(calibration.router)
router.include_router(hazard_log.router)
router.include_router(trip_pages.router)
router.include_router(compare_page.router)


@router.get("", include_in_schema=False)
def console_root() -> Response:
    return RedirectResponse(f"{PREFIX}/", status_code=307)
