"""The client credentials grant, RFC 6749 §4.4, framework-free (contract §1).

::

     +---------+                                  +---------------+
     |         |                                  |               |
     |         |>--(A)- Client Authentication --->| Authorization |
     | Client  |                                  |     Server    |
     |         |<--(B)---- Access Token ---------<|               |
     |         |                                  |               |
     +---------+                                  +---------------+

The grant reaches storage only through an injected ``query_client`` callable (authlib
style); ``vigil.web`` wires it to the database. :meth:`ClientCredentialsGrant.handle`
either returns an :class:`~vigil.auth.tokens.IssuedToken` or raises an
:class:`~vigil.auth.errors.OAuthError` that the web layer renders as RFC 6749 §5.2.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from urllib.parse import parse_qsl

from vigil.auth.credentials import ClientCredentials, parse_basic, parse_post, secrets_equal
from vigil.auth.errors import (
    InvalidClientError,
    InvalidRequestError,
    InvalidScopeError,
    TooManyFailuresError,
    UnsupportedGrantTypeError,
)
from vigil.auth.ratelimit import FailureLimiter
from vigil.auth.scopes import ScopeKind, ScopeTable
from vigil.auth.tokens import IssuedToken

logger = logging.getLogger(__name__)

#: longest ``scope`` parameter accepted (contract §1, as IdentityServer) [characters]
MAX_SCOPE_LENGTH = 300
#: most form fields read from a token request body
MAX_FORM_FIELDS = 20
GRANT_TYPE = "client_credentials"
#: compared against when the client ID is unknown, so timing does not reveal existence
_DUMMY_SECRET = secrets.token_urlsafe(32)
#: per-process key for log labels of unknown client IDs (never log what a
#: caller typed; the label still lets one process's log lines be correlated)
_LABEL_KEY = secrets.token_bytes(32)


def unknown_label(client_id: str) -> str:
    """A log-safe stand-in for a client ID that matched no client (it may be a secret)."""
    digest = hmac.new(_LABEL_KEY, client_id.encode("utf-8", "replace"), hashlib.sha256)
    return f"<unknown client id #{digest.hexdigest()[:12]}>"


@dataclass(frozen=True, slots=True)
class ClientRecord:
    """What the grant needs to know about a registered client."""

    client_id: str
    secret: str = field(repr=False)
    operator: str
    scopes: frozenset[ScopeKind]
    disabled: bool = False
    #: raised on every rotation and disable; tokens carry it as ``cver`` (revocation)
    version: int = 0


ClientLookup = Callable[[str], ClientRecord | None]
TokenIssuer = Callable[[ClientRecord, tuple[str, ...]], IssuedToken]


def parse_form(body: bytes) -> dict[str, str]:
    """Decode an ``application/x-www-form-urlencoded`` token request body.

    Raises
    ------
    InvalidRequestError
        Not UTF-8, too many fields, or a parameter sent twice (RFC 6749 §3.2: "Request
        and response parameters MUST NOT be included more than once").
    """
    try:
        text = body.decode("utf-8")
        pairs = parse_qsl(
            text, keep_blank_values=True, errors="strict", max_num_fields=MAX_FORM_FIELDS
        )
    except (UnicodeDecodeError, ValueError):
        raise InvalidRequestError("the request body is not a valid form") from None
    form: dict[str, str] = {}
    for name, value in pairs:
        if name in form:
            raise InvalidRequestError(f"parameter {name!r} is repeated")
        form[name] = value
    return form


@dataclass(frozen=True)
class ClientCredentialsGrant:
    """Authenticate a client and issue it an access token.

    Parameters
    ----------
    query_client : callable
        ``client_id -> ClientRecord | None``.
    scope_table : ScopeTable
        The deployment's scope names.
    limiter : FailureLimiter
        Failures keyed by source address and client ID (contract §8's 10 in 5 min,
        so a caller can block only itself), and by client ID alone (counted
        for the slow-down of failed answers, never a refusal).
    issue : callable
        ``(client, granted_scopes) -> IssuedToken``; signs the token.
    source_limiter : FailureLimiter, optional
        Failures keyed by source address alone (many client IDs from one address).
    """

    query_client: ClientLookup
    scope_table: ScopeTable
    limiter: FailureLimiter
    issue: TokenIssuer
    source_limiter: FailureLimiter | None = None

    def credentials(self, authorization: str | None, form: Mapping[str, str]) -> ClientCredentials:
        """The client's credentials from the header or the body (exactly one method)."""
        basic = parse_basic(authorization) if authorization else None
        post = parse_post(form)
        if basic is not None and post is not None:
            raise InvalidRequestError("use one client authentication method, not two")
        found = basic or post
        if found is None:
            raise InvalidClientError("client authentication is required (HTTP Basic)")
        return found

    def authenticate(self, credentials: ClientCredentials, source: str = "") -> ClientRecord:
        """Check the secret; count failures; refuse sources that failed too often.

        Parameters
        ----------
        credentials : ClientCredentials
        source : str
            The caller's address (``""`` when unknown).

        Raises
        ------
        TooManyFailuresError
            This source failed too often for this client ID, or for any (429).
        InvalidClientError
            Unknown client, wrong secret or disabled client (401).
        """
        ids = sorted(credentials.client_ids)
        pair_keys = [f"pair:{source}|{cid}" for cid in ids]
        source_keys = [f"source:{source}"]
        self._refuse_if_limited(pair_keys, source_keys, source)
        matched, known = self._match(credentials)
        if matched is None or matched.disabled:
            self.limiter.record_failure([*pair_keys, *(f"id:{cid}" for cid in ids)])
            if self.source_limiter is not None:
                self.source_limiter.record_failure(source_keys)
            label = repr(known.client_id) if known else unknown_label(credentials.client_id)
            logger.info(
                "client authentication failed for %s from %s (%s)",
                label,
                source or "?",
                "disabled" if matched is not None else "unknown client or wrong secret",
            )
            failures = self.limiter.failures(f"id:{credentials.client_id}")
            if matched is not None:
                raise InvalidClientError("the client is disabled", failures=failures)
            raise InvalidClientError("client authentication failed", failures=failures)
        return matched

    def _refuse_if_limited(self, pair_keys: list[str], source_keys: list[str], source: str) -> None:
        """Raise :class:`TooManyFailuresError` with the longer wait when this source failed
        too often for these client IDs, or for any."""
        retry = self.limiter.retry_after(pair_keys)
        if self.source_limiter is not None:
            wait = self.source_limiter.retry_after(source_keys)
            if wait is not None:
                retry = max(retry or 0, wait)
        if retry is not None:
            logger.warning("token request refused: source %s is rate limited", source or "?")
            raise TooManyFailuresError(retry)

    def _match(
        self, credentials: ClientCredentials
    ) -> tuple[ClientRecord | None, ClientRecord | None]:
        """The client whose secret matches (first candidate that does), and the first
        known client among the candidates (for the log line)."""
        matched: ClientRecord | None = None
        known: ClientRecord | None = None
        for client_id, secret in credentials.candidates:
            record = self.query_client(client_id)
            stored = record.secret if record is not None else _DUMMY_SECRET
            # always compare, so an unknown ID costs the same time as a known one
            if secrets_equal(secret, stored) and record is not None and matched is None:
                matched = record
            known = known or record
        return matched, known

    def granted_scopes(self, client: ClientRecord, scope: str | None) -> tuple[str, ...]:
        """The scopes to grant: those asked, in order, or all held when none are asked.

        Raises
        ------
        InvalidScopeError
            A scope that does not exist or that the client does not hold.
        """
        if scope is None or not scope.strip():
            if not client.scopes:
                raise InvalidScopeError("the client holds no scopes")
            return self.scope_table.names(client.scopes)
        granted: list[str] = []
        for name in scope.split(" "):
            if not name or name in granted:
                continue
            kind = self.scope_table.kind_of(name)
            if kind is None:
                raise InvalidScopeError(f"unknown scope {name!r}")
            if kind not in client.scopes:
                raise InvalidScopeError(f"the client does not hold scope {name!r}")
            granted.append(name)
        return tuple(granted)

    def handle(
        self, *, authorization: str | None, form: Mapping[str, str], source: str = ""
    ) -> IssuedToken:
        """Process one token request (RFC 6749 §4.4.2) and return the issued token."""
        credentials = self.credentials(authorization, form)
        grant_type = form.get("grant_type")
        if not grant_type:
            raise InvalidRequestError("grant_type is required")
        scope = form.get("scope")
        if scope is not None and len(scope) > MAX_SCOPE_LENGTH:
            raise InvalidRequestError(f"scope must be at most {MAX_SCOPE_LENGTH} characters")
        client = self.authenticate(credentials, source)
        if grant_type != GRANT_TYPE:
            raise UnsupportedGrantTypeError(
                f"grant_type {grant_type[:40]!r} is not supported; use client_credentials"
            )
        granted = self.granted_scopes(client, scope)
        token = self.issue(client, granted)
        logger.info("issued token %s to client %r", token.claims.token_id, client.client_id)
        return token
