"""Client authentication: read client credentials from a token request (contract §1).

Two methods are accepted, RFC 6749 §2.3.1:

``client_secret_basic``
    ``Authorization: Basic base64(urlenc(client_id) ":" urlenc(client_secret))``. After
    base64 decoding we split at the *first* ``:`` and form-decode both parts (``+`` is a
    space, ``%XX`` a byte), as the RFC and seed §5.3 say. Because requests-oauthlib,
    Authlib and httpx send the parts *unencoded*, the raw parts are tried as a second
    reading when the first does not authenticate (contract §1).
``client_secret_post``
    ``client_id`` and ``client_secret`` in the form body.

Using both at once is refused (RFC 6749 §2.3: "MUST NOT use more than one
authentication method in each request"). Secrets are compared in constant time.
"""

from __future__ import annotations

import binascii
import hmac
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import unquote_plus

from vigil.auth.errors import InvalidClientError, InvalidRequestError

#: longest client ID / client secret accepted (contract §1, as IdentityServer) [characters]
MAX_CLIENT_ID_LENGTH = 100
MAX_SECRET_LENGTH = 100

BASIC = "client_secret_basic"
POST = "client_secret_post"


@dataclass(frozen=True, slots=True)
class ClientCredentials:
    """Credentials as presented by a client.

    Attributes
    ----------
    method : str
        ``"client_secret_basic"`` or ``"client_secret_post"``.
    candidates : tuple of (str, str)
        The ``(client_id, secret)`` readings to try, in order: form-decoded first, then
        raw (Basic only; identical readings appear once).
    """

    method: str
    candidates: tuple[tuple[str, str], ...]

    @property
    def client_id(self) -> str:
        """The client ID of the first reading (used in logs and rate limiting)."""
        return self.candidates[0][0]

    @property
    def client_ids(self) -> frozenset[str]:
        """Every distinct client ID among the readings."""
        return frozenset(c[0] for c in self.candidates)

    def __repr__(self) -> str:  # never print secrets (contract: secrets stay out of logs)
        return f"ClientCredentials(method={self.method!r}, client_id={self.client_id!r})"


def _check_lengths(pairs: list[tuple[str, str]]) -> list[tuple[str, str]]:
    ok = [
        (cid, sec)
        for cid, sec in pairs
        if len(cid) <= MAX_CLIENT_ID_LENGTH and len(sec) <= MAX_SECRET_LENGTH
    ]
    if not ok:
        raise InvalidRequestError(
            f"client_id and client_secret must be at most {MAX_CLIENT_ID_LENGTH} and "
            f"{MAX_SECRET_LENGTH} characters"
        )
    if any(not cid for cid, _ in ok):
        raise InvalidRequestError("client_id is empty")
    return ok


def parse_basic(authorization: str) -> ClientCredentials | None:
    """Read ``client_secret_basic`` credentials from an ``Authorization`` header value.

    Parameters
    ----------
    authorization : str
        The header value, e.g. ``"Basic Y2xpZW50OnNlY3JldA=="``.

    Returns
    -------
    ClientCredentials or None
        ``None`` when the header uses another scheme.

    Raises
    ------
    InvalidRequestError
        The Basic parameter is not base64 of UTF-8 ``id:secret``, or a part is too long.
    """
    scheme, _, param = authorization.strip().partition(" ")
    if scheme.lower() != "basic":
        return None
    try:
        decoded = binascii.a2b_base64(param.strip().encode("ascii"), strict_mode=True)
        text = decoded.decode("utf-8")
    except (binascii.Error, ValueError):
        raise InvalidRequestError("the Basic credentials are not valid base64 UTF-8") from None
    if ":" not in text:
        raise InvalidRequestError("the Basic credentials lack the ':' separator")
    raw_id, raw_secret = text.split(":", 1)  # the first ':' separates (RFC 7617 §2)
    pairs: list[tuple[str, str]] = []
    try:
        pairs.append(
            (unquote_plus(raw_id, errors="strict"), unquote_plus(raw_secret, errors="strict"))
        )
    except UnicodeDecodeError:
        pass  # not a valid form-encoding: only the raw reading remains
    if (raw_id, raw_secret) not in pairs:
        pairs.append((raw_id, raw_secret))
    return ClientCredentials(BASIC, tuple(_check_lengths(pairs)))


def parse_post(form: Mapping[str, str]) -> ClientCredentials | None:
    """Read ``client_secret_post`` credentials from a decoded form body.

    Returns ``None`` when the form carries no ``client_id``.

    Raises
    ------
    InvalidClientError
        ``client_id`` without ``client_secret`` (public clients are not supported).
    InvalidRequestError
        A part is too long.
    """
    if "client_id" not in form:
        return None
    if "client_secret" not in form:
        raise InvalidClientError("client_secret is required")
    pair = (form["client_id"], form["client_secret"])
    return ClientCredentials(POST, tuple(_check_lengths([pair])))


def secrets_equal(presented: str, stored: str) -> bool:
    """Compare two secrets in constant time (with respect to their content)."""
    return hmac.compare_digest(presented.encode("utf-8"), stored.encode("utf-8"))
