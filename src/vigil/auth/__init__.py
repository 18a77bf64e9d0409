"""Identity core, framework-free (contract §1, §2; STYLE §1.6).

Storage is reached only through injected callables (``ClientLookup``, ``KeyStorage``);
``vigil.web`` wires them to ``vigil.store``.

Layer 6 of docs/architecture.md. May import: nothing of ours; never a package of its own
layer or above.
"""

from vigil.auth.errors import (
    BearerError,
    InsufficientScopeError,
    InvalidClientError,
    InvalidRequestError,
    InvalidScopeError,
    InvalidTokenError,
    KeySetUnavailableError,
    MissingTokenError,
    OAuthError,
    TooManyFailuresError,
    UnsupportedGrantTypeError,
)
from vigil.auth.grant import ClientCredentialsGrant, ClientRecord, parse_form
from vigil.auth.keys import KeySet, KeyStorage, SigningKey, ensure_key_set, rotate_keys
from vigil.auth.ratelimit import FailureLimiter
from vigil.auth.scopes import ScopeKind, ScopeTable, parse_kinds
from vigil.auth.tokens import AccessTokenClaims, IssuedToken, issue_access_token
from vigil.auth.verify import TokenVerifier

__all__ = [
    "AccessTokenClaims",
    "BearerError",
    "ClientCredentialsGrant",
    "ClientRecord",
    "FailureLimiter",
    "InsufficientScopeError",
    "InvalidClientError",
    "InvalidRequestError",
    "InvalidScopeError",
    "InvalidTokenError",
    "IssuedToken",
    "KeySet",
    "KeySetUnavailableError",
    "KeyStorage",
    "MissingTokenError",
    "OAuthError",
    "ScopeKind",
    "ScopeTable",
    "SigningKey",
    "TokenVerifier",
    "TooManyFailuresError",
    "UnsupportedGrantTypeError",
    "ensure_key_set",
    "issue_access_token",
    "parse_form",
    "parse_kinds",
    "rotate_keys",
]
