"""JWT access tokens, RFC 9068 profile, signed RS256 (contract §1).

Header ``{"alg": "RS256", "typ": "at+jwt", "kid": ...}``; claims ``iss``, ``aud``,
``client_id``, ``sub`` (= client ID, RFC 9068 §2.2 for client-credentials tokens),
``scope`` (space-separated), ``iat``, ``nbf``, ``exp``, ``jti``, ``operator`` (the
tenant, ours) and ``cver`` (ours: the client's version when the token was issued; a
rotation or a disable raises the version and so revokes the token, see
:mod:`vigil.auth.revocation`).

Verification (:func:`verify_access_token`) accepts RS256 only, whatever the header
says, so ``alg: none`` and HS256-with-the-public-key forgeries fail (RFC 8725 §3.1),
requires ``typ`` ``at+jwt`` (RFC 9068 §4), a known ``kid``, and checks ``iss``,
``aud``, ``exp`` and ``nbf`` strictly (no leeway unless given).
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import jwt
from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.types import Options

from vigil.auth.errors import InvalidTokenError
from vigil.auth.keys import SigningKey

ALGORITHM = "RS256"
TOKEN_TYPE = "at+jwt"
_REQUIRED = ["iss", "aud", "exp", "nbf", "iat", "jti", "sub", "client_id", "scope"]


@dataclass(frozen=True, slots=True)
class AccessTokenClaims:
    """The verified content of an access token.

    Attributes
    ----------
    issuer, audience, client_id, subject : str
        ``iss``, ``aud``, ``client_id``, ``sub``.
    scopes : tuple of str
        ``scope`` split on spaces, in token order.
    operator : str
        The tenant the client belongs to.
    issued_at, not_before, expires_at : int
        ``iat``, ``nbf``, ``exp`` [s since the Unix epoch].
    token_id : str
        ``jti``.
    client_version : int
        ``cver``; 0 for tokens issued before versions existed.
    """

    issuer: str
    audience: str
    client_id: str
    subject: str
    scopes: tuple[str, ...]
    operator: str
    issued_at: int
    not_before: int
    expires_at: int
    token_id: str
    client_version: int = 0


@dataclass(frozen=True, slots=True)
class IssuedToken:
    """A freshly signed token and the RFC 6749 §5.1 fields that go with it."""

    access_token: str
    expires_in: int  #: [s]
    scope: str  #: granted scopes, space-separated, in the order requested
    claims: AccessTokenClaims

    def response_body(self) -> dict[str, Any]:
        """RFC 6749 §5.1 success body (contract §1)."""
        return {
            "access_token": self.access_token,
            "token_type": "Bearer",
            "expires_in": self.expires_in,
            "scope": self.scope,
        }


def issue_access_token(
    *,
    signing_key: SigningKey,
    issuer: str,
    audience: str,
    client_id: str,
    operator: str,
    scopes: Sequence[str],
    lifetime: int,
    now: float | None = None,
    client_version: int = 0,
) -> IssuedToken:
    """Sign an access token.

    Parameters
    ----------
    signing_key : SigningKey
        The current key; its ``kid`` goes in the header.
    issuer, audience : str
        ``iss`` (byte-identical to discovery's ``issuer``) and ``aud``.
    client_id, operator : str
        The authenticated client and its tenant.
    scopes : sequence of str
        Granted wire scopes, in the order requested (contract §1 echo rule).
    lifetime : int
        Token lifetime [s].
    now : float, optional
        Issue instant [s since the Unix epoch]; defaults to the clock.
    client_version : int
        The client's version (``cver``).
    """
    issued = int(time.time() if now is None else now)
    scope = " ".join(scopes)
    claims = AccessTokenClaims(
        issuer=issuer,
        audience=audience,
        client_id=client_id,
        subject=client_id,
        scopes=tuple(scopes),
        operator=operator,
        issued_at=issued,
        not_before=issued,
        expires_at=issued + lifetime,
        token_id=secrets.token_urlsafe(16),
        client_version=client_version,
    )
    return IssuedToken(_signed(claims, signing_key), lifetime, scope, claims)


def _signed(claims: AccessTokenClaims, signing_key: SigningKey) -> str:
    """The compact JWT of ``claims``, signed with ``signing_key`` (its ``kid`` in the
    header)."""
    return jwt.encode(
        _payload(claims),
        signing_key.private_key,
        algorithm=ALGORITHM,
        headers={"typ": TOKEN_TYPE, "kid": signing_key.kid},
    )


def _payload(claims: AccessTokenClaims) -> dict[str, Any]:
    """The JWT claims set of ``claims``, by their wire names."""
    return {
        "iss": claims.issuer,
        "aud": claims.audience,
        "sub": claims.subject,
        "client_id": claims.client_id,
        "scope": " ".join(claims.scopes),
        "operator": claims.operator,
        "iat": claims.issued_at,
        "nbf": claims.not_before,
        "exp": claims.expires_at,
        "jti": claims.token_id,
        "cver": claims.client_version,
    }


def unverified_kid(token: str) -> str:
    """The ``kid`` of a token's header, after checking ``alg`` and ``typ``.

    Raises
    ------
    InvalidTokenError
        Malformed header, an algorithm other than RS256, a wrong ``typ``, no ``kid``.
    """
    try:
        header = jwt.get_unverified_header(token)
    except jwt.PyJWTError:
        raise InvalidTokenError("the access token is malformed") from None
    if header.get("alg") != ALGORITHM:
        raise InvalidTokenError("the access token is not signed with RS256")
    typ = str(header.get("typ", "")).lower()
    if typ not in (TOKEN_TYPE, f"application/{TOKEN_TYPE}"):
        raise InvalidTokenError("the token is not an access token (typ must be at+jwt)")
    kid = header.get("kid")
    if not isinstance(kid, str) or not kid:
        raise InvalidTokenError("the access token has no key ID")
    return kid


def verify_access_token(
    token: str,
    *,
    keys: Mapping[str, rsa.RSAPublicKey],
    issuer: str,
    audience: str,
    leeway: int = 0,
    now: float | None = None,
) -> AccessTokenClaims:
    """Verify an access token and return its claims.

    Parameters
    ----------
    token : str
        The compact JWT.
    keys : mapping of str to RSAPublicKey
        Trusted public keys by ``kid``.
    issuer, audience : str
        Expected ``iss`` and ``aud``.
    leeway : int
        Allowed clock skew for ``exp``/``nbf``/``iat`` [s]; 0 by default (strict).
    now : float, optional
        Verification instant [s since the Unix epoch]; defaults to the clock.

    Raises
    ------
    InvalidTokenError
        For any defect; the description says which, without echoing the token.
    """
    key = keys.get(unverified_kid(token))
    if key is None:
        raise InvalidTokenError("the access token was signed with an unknown key")
    try:
        payload = _decode(token, key, issuer=issuer, audience=audience, leeway=leeway, now=now)
    except jwt.ExpiredSignatureError:
        raise InvalidTokenError("the access token has expired") from None
    except jwt.ImmatureSignatureError:
        raise InvalidTokenError("the access token is not valid yet") from None
    except jwt.InvalidAudienceError:
        raise InvalidTokenError("the access token is for another audience") from None
    except jwt.InvalidIssuerError:
        raise InvalidTokenError("the access token is from another issuer") from None
    except jwt.PyJWTError:
        raise InvalidTokenError("the access token is invalid") from None
    return _claims(payload, audience)


def _decode(
    token: str,
    key: rsa.RSAPublicKey,
    *,
    issuer: str,
    audience: str,
    leeway: int,
    now: float | None,
) -> dict[str, Any]:
    """The verified payload; raises PyJWT's errors. With ``now`` given, the signature is
    verified by PyJWT (which reads the clock itself) and the times here."""
    options: Options = {"require": _REQUIRED, "verify_iat": False}
    if now is None:
        return jwt.decode(
            token,
            key,
            algorithms=[ALGORITHM],
            audience=audience,
            issuer=issuer,
            leeway=leeway,
            options=options,
        )
    payload = jwt.decode(
        token,
        key,
        algorithms=[ALGORITHM],
        audience=audience,
        issuer=issuer,
        options={**options, "verify_exp": False, "verify_nbf": False},
    )
    if int(payload["exp"]) <= now - leeway:
        raise jwt.ExpiredSignatureError("expired")
    if int(payload["nbf"]) > now + leeway:
        raise jwt.ImmatureSignatureError("not yet valid")
    return payload


def _claims(payload: Mapping[str, Any], audience: str) -> AccessTokenClaims:
    """The claims of a verified payload; refuses a missing scope or operator and a
    malformed client version."""
    aud = payload["aud"]
    scope = payload["scope"]
    operator = payload.get("operator", "")
    version = payload.get("cver", 0)
    if not isinstance(scope, str) or not isinstance(operator, str) or not operator:
        raise InvalidTokenError("the access token lacks scope or operator")
    if not isinstance(version, int) or isinstance(version, bool) or version < 0:
        raise InvalidTokenError("the access token has a malformed cver")
    return AccessTokenClaims(
        issuer=payload["iss"],
        audience=aud if isinstance(aud, str) else audience,
        client_id=str(payload["client_id"]),
        subject=str(payload["sub"]),
        scopes=tuple(scope.split()),
        operator=operator,
        issued_at=int(payload["iat"]),
        not_before=int(payload["nbf"]),
        expires_at=int(payload["exp"]),
        token_id=str(payload["jti"]),
        client_version=version,
    )
