"""Request plumbing shared by the console pages: templates, the signed-in user, CSRF.

Pages are server-rendered Jinja2 templates (package data under ``templates/``). Every
response carries a strict Content-Security-Policy (scripts and styles from ``/console/
static`` only), so templates hold no inline scripts, handlers or ``style`` attributes.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import quote

from fastapi import Depends, Form, HTTPException, Request
from fastapi.responses import HTMLResponse, Response
from fastapi.templating import Jinja2Templates
from sqlalchemy.orm import Session

from vigil.contract import ACTIVE, statuses_json
from vigil.store import operator_settings, repo
from vigil.store.tables import ConsoleUser
from vigil.web._runtime import Runtime
from vigil.web.console import _session as cookies
from vigil.web.console._session import ConsoleSession
from vigil.web.deps import RuntimeDep, SessionDep

HERE = Path(__file__).parent
PREFIX = "/console"

SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
    ),
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
}


@cache
def templates() -> Jinja2Templates:
    """The console's template environment (built on first use, not at import), with the
    contract's job statuses for the pages and their scripts (:mod:`vigil.contract`)."""
    found = Jinja2Templates(directory=str(HERE / "templates"))
    found.env.globals["job_statuses"] = statuses_json()
    found.env.globals["active_statuses"] = tuple(s.value for s in ACTIVE)
    return found


@dataclass
class Console:
    """One console request: the browser session, the database session and the user."""

    request: Request
    runtime: Runtime
    db: Session
    session: ConsoleSession
    user: ConsoleUser | None
    dirty: bool = False

    @property
    def operator_id(self) -> int:
        assert self.user is not None
        return self.user.operator_id

    @property
    def operator(self) -> str:
        assert self.user is not None
        return self.user.operator.name

    def replace_session(self, session: ConsoleSession) -> None:
        self.session = session
        self.dirty = True

    def finish(self, response: Response) -> Response:
        """Add the security headers and, when the session changed, the cookie."""
        response.headers.update(SECURITY_HEADERS)
        if self.dirty:
            settings = self.runtime.settings
            response.set_cookie(
                cookies.COOKIE_NAME,
                cookies.encode(self.session, signing_key(self.runtime)),
                max_age=cookies.MAX_AGE,
                path=cookies.COOKIE_PATH,
                httponly=True,
                samesite="lax",
                secure=settings.public_base_url.startswith("https://"),
            )
        return response

    def render(self, name: str, status_code: int = 200, **context: Any) -> Response:
        """Render a page template with the common context (user, CSRF token, paths)."""
        context.update(
            user=self.user,
            operator=self.operator if self.user is not None else None,
            csrf_field=cookies.CSRF_FIELD,
            csrf_token=self.session.csrf,
            prefix=PREFIX,
        )
        response = templates().TemplateResponse(
            self.request, name, context, status_code=status_code
        )
        response.headers["Cache-Control"] = "no-store"
        return self.finish(response)

    def not_found(self, what: str = "page") -> Response:
        """The console's 404: another operator's objects look exactly like missing ones."""
        return self.render("not_found.html", status_code=404, what=what)


def signing_key(runtime: Runtime) -> bytes:
    """The cookie key, derived once per runtime."""
    key = runtime.state.console_key
    if key is None:
        key = cookies.session_key(runtime.settings)
        runtime.state.console_key = key
    return key


def load_console(request: Request, runtime: RuntimeDep, db: SessionDep) -> Console:
    """The browser session (a new anonymous one when absent or invalid) and its user."""
    session = cookies.decode(request.cookies.get(cookies.COOKIE_NAME), signing_key(runtime))
    dirty = session is None
    if session is None:
        session = cookies.new_session()
    user = None
    if session.sid is not None:
        # the server-side record decides: signed out, disabled or deleted means out
        user = repo.console_session_user(session=db, secret=session.sid)
        if user is None:
            session, dirty = cookies.new_session(), True
    return Console(request, runtime, db, session, user, dirty)


AnyConsole = Annotated[Console, Depends(load_console)]


def login_redirect(request: Request) -> HTTPException:
    """A 303 to the sign-in page that comes back to the current page afterwards."""
    target = request.url.path + (f"?{request.url.query}" if request.url.query else "")
    return HTTPException(303, headers={"Location": f"{PREFIX}/login?next={quote(target)}"})


def signed_in(request: Request, console: AnyConsole) -> Console:
    """The console of a signed-in user; others are sent to the sign-in page."""
    if console.user is None:
        raise login_redirect(request)
    return console


UserConsole = Annotated[Console, Depends(signed_in)]


def csrf_checked(console: UserConsole, csrf_token: Annotated[str | None, Form()] = None) -> Console:
    """A signed-in console whose POST carries the session's CSRF token (else 403)."""
    if not cookies.csrf_ok(console.session, csrf_token):
        raise HTTPException(403, "The form's CSRF token is missing or stale; reload the page.")
    return console


PostConsole = Annotated[Console, Depends(csrf_checked)]


def safe_next(target: str | None) -> str:
    """A post-sign-in destination inside the console (no open redirects)."""
    if target and target.startswith(PREFIX + "/") and not target.startswith("//"):
        if "\\" not in target and "://" not in target:
            return target
    return PREFIX + "/"


def html(content: str, status_code: int = 200) -> HTMLResponse:
    return HTMLResponse(content, status_code=status_code, headers=SECURITY_HEADERS)


def is_admin(console: Console) -> bool:
    """Whether the signed-in user may change the operator's settings (and adopt presets)."""
    assert console.user is not None
    return operator_settings.is_admin(session=console.db, user_id=console.user.id)
