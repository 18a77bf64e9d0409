"""Session cookies and CSRF tokens for the operator console (contract §6).

The cookie holds a JSON payload, base64url-encoded, followed by an HMAC-SHA256 tag
(``payload.tag``): the CSRF token, the issue time and, once signed in, the secret of a
server-side session record (``console_session``, only its SHA-256 stored). The cookie is
``HttpOnly``, ``SameSite=Lax``, scoped to ``/console`` and ``Secure`` when the public
base URL is ``https``. Ours, where the contract is silent:

- **Key.** Derived from the deployment's secret key (``VIGIL_SECRET_KEY``, first key, or
  the key file that also encrypts client secrets): ``HMAC(key, "vigil console session
  v1")``. Rotating the secret key signs everybody out.
- **Lifetime.** 12 hours from sign-in (``iat`` is signed, so it cannot be extended).
- **CSRF.** Synchronizer token: a random value kept in the signed session and echoed in
  a hidden ``csrf_token`` field of every POST form; compared with ``compare_digest``. An
  anonymous session (with its own token) is issued with the sign-in form, and the token
  is replaced at sign-in (no session fixation).
- **Revocation.** Sign-out deletes the server-side record, so a copied cookie stops
  working at once; so do disabling or deleting the user and a password reset (``vigil
  user …``). Every request reloads the record and the user.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import secrets
import time
from dataclasses import dataclass, field, replace

from vigil.config.settings import Settings
from vigil.store.crypto import load_or_create_key_file

COOKIE_NAME = "vigil_console"
COOKIE_PATH = "/console"
#: session lifetime [s] (ours)
MAX_AGE = 12 * 3600
#: form field carrying the CSRF token
CSRF_FIELD = "csrf_token"


@dataclass(frozen=True, slots=True)
class ConsoleSession:
    """What the cookie carries."""

    csrf: str
    #: secret naming the server-side session record; ``None`` when signed out
    sid: str | None = field(default=None, repr=False)
    issued_at: int = 0

    @property
    def signed_in(self) -> bool:
        return self.sid is not None


def new_session(sid: str | None = None, *, now: float | None = None) -> ConsoleSession:
    """A fresh session with a new CSRF token (signed in when ``sid`` is given)."""
    issued = int(time.time() if now is None else now)
    return ConsoleSession(csrf=secrets.token_urlsafe(24), sid=sid, issued_at=issued)


def session_key(settings: Settings) -> bytes:
    """The cookie-signing key, derived from the deployment's secret key."""
    if settings.secret_key is not None:
        first = settings.secret_key.get_secret_value().split(",")[0].strip().encode("ascii")
    else:
        first = load_or_create_key_file(settings.effective_secret_key_file)
    return hmac.new(first, b"vigil console session v1", hashlib.sha256).digest()


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def encode(session: ConsoleSession, key: bytes) -> str:
    """The cookie value for ``session``."""
    body = {"c": session.csrf, "s": session.sid, "t": session.issued_at}
    payload = _b64(json.dumps(body, separators=(",", ":")).encode("utf-8"))
    tag = _b64(hmac.new(key, payload.encode("ascii"), hashlib.sha256).digest())
    return f"{payload}.{tag}"


def decode(value: str | None, key: bytes, *, now: float | None = None) -> ConsoleSession | None:
    """The session in a cookie value; ``None`` when missing, forged, malformed or expired."""
    if not value or value.count(".") != 1:
        return None
    payload, tag = value.split(".")
    expected = _b64(hmac.new(key, payload.encode("ascii", "replace"), hashlib.sha256).digest())
    if not hmac.compare_digest(tag, expected):
        return None
    try:
        body = json.loads(_unb64(payload))
        session = ConsoleSession(
            csrf=str(body["c"]),
            sid=None if body["s"] is None else str(body["s"]),
            issued_at=int(body["t"]),
        )
    except (ValueError, KeyError, TypeError, binascii.Error):
        return None
    current = time.time() if now is None else now
    if session.signed_in and not 0 <= current - session.issued_at <= MAX_AGE:
        return None
    return session


def signed_out(session: ConsoleSession) -> ConsoleSession:
    """The same browser, signed out, with a new CSRF token."""
    return replace(new_session(), issued_at=session.issued_at)


def csrf_ok(session: ConsoleSession | None, submitted: str | None) -> bool:
    """Whether a POSTed token matches the session's (constant time)."""
    if session is None or not submitted:
        return False
    return hmac.compare_digest(session.csrf.encode(), submitted.encode())
