"""OAuth 2.0 protocol errors, one class per RFC error code (authlib style).

Errors are raised by the framework-free core and turned into HTTP responses by exactly
one handler per surface (``vigil.web``). Each class carries its RFC ``error`` code, its
HTTP status and, where the RFC asks for one, a ``WWW-Authenticate`` challenge.

::

    OAuthError                         token endpoint errors, RFC 6749 §5.2
    ├── InvalidRequestError            400 invalid_request
    ├── InvalidClientError             401 invalid_client (WWW-Authenticate: Basic)
    ├── UnsupportedGrantTypeError      400 unsupported_grant_type
    ├── InvalidScopeError              400 invalid_scope
    ├── TooManyFailuresError           429 (contract §8 brute-force protection)
    └── BearerError                    resource-server errors, RFC 6750 §3
        ├── MissingTokenError          401, challenge without an error code (§3.1)
        ├── InvalidTokenError          401 invalid_token
        └── InsufficientScopeError     403 insufficient_scope (empty body, contract §2)

The class docstring is the default ``error_description``.
"""

from __future__ import annotations


class OAuthError(Exception):
    """The request failed."""

    error: str = "server_error"
    status_code: int = 400

    def __init__(self, description: str | None = None) -> None:
        self.description = description or (type(self).__doc__ or "").strip()
        super().__init__(self.description)

    def body(self) -> dict[str, str]:
        """RFC 6749 §5.2 error body."""
        return {"error": self.error, "error_description": self.description}

    def headers(self) -> dict[str, str]:
        """Extra response headers (challenges, ``Retry-After``)."""
        return {}


class InvalidRequestError(OAuthError):
    """The request is missing a required parameter, repeats a parameter or is malformed."""

    error = "invalid_request"


class InvalidClientError(OAuthError):
    """Client authentication failed."""

    error = "invalid_client"
    status_code = 401

    def __init__(self, description: str | None = None, *, failures: int = 0) -> None:
        super().__init__(description)
        #: failed attempts for this client ID in the rate-limit window (drives the slow-down)
        self.failures = failures

    def headers(self) -> dict[str, str]:
        # RFC 6749 §5.2: a 401 invalid_client MUST carry a WWW-Authenticate challenge
        # matching the scheme the client used (contract §1: Basic).
        return {"WWW-Authenticate": 'Basic realm="vigil"'}


class UnsupportedGrantTypeError(OAuthError):
    """The authorization grant type is not supported; use client_credentials."""

    error = "unsupported_grant_type"


class InvalidScopeError(OAuthError):
    """The requested scope is invalid, unknown, or not held by the client."""

    error = "invalid_scope"


class TooManyFailuresError(OAuthError):
    """Too many failed authentications for this client ID; retry later."""

    error = "too_many_requests"  # ours: no RFC code exists for 429
    status_code = 429

    def __init__(self, retry_after: int, description: str | None = None) -> None:
        super().__init__(description)
        self.retry_after = max(1, int(retry_after))

    def headers(self) -> dict[str, str]:
        return {"Retry-After": str(self.retry_after)}


class BearerError(OAuthError):
    """The access token was refused."""

    error = "invalid_token"
    status_code = 401

    def challenge(self) -> str:
        """The ``WWW-Authenticate`` value (RFC 6750 §3)."""
        return f'Bearer error="{self.error}"'

    def headers(self) -> dict[str, str]:
        return {"WWW-Authenticate": self.challenge()}


class MissingTokenError(BearerError):
    """The request carries no credentials."""

    error = ""

    def challenge(self) -> str:
        # RFC 6750 §3.1: with no authentication information the challenge has no error code.
        return "Bearer"


class InvalidTokenError(BearerError):
    """The access token is malformed, expired, revoked or not for this service."""

    error = "invalid_token"


class InsufficientScopeError(BearerError):
    """The access token does not carry the scope this endpoint needs."""

    error = "insufficient_scope"
    status_code = 403

    def __init__(self, scope: str, description: str | None = None) -> None:
        super().__init__(description)
        self.scope = scope

    def challenge(self) -> str:
        return f'Bearer error="insufficient_scope", scope="{self.scope}"'


class KeySetUnavailableError(RuntimeError):
    """The JWKS could not be fetched and no cached keys exist (infrastructure, 503)."""
