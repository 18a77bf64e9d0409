"""Token verification for the scoring and upload surfaces (contract §0, §2).

Resource surfaces trust the identity server's *public* keys only. A
:class:`TokenVerifier` gets them from a JWKS source: over HTTP from
``{identity_url}/.well-known/openid-configuration/jwks`` (:meth:`TokenVerifier.from_url`),
or in process from a callable or a fixed key set (:meth:`TokenVerifier.from_jwks`). Keys
are cached for ``cache_ttl`` seconds and refetched early when a token names an unknown
``kid`` (after a rotation), at most once per ``min_refresh_interval`` seconds so forged
``kid`` values cannot make us hammer the identity server.

With a :class:`~vigil.auth.revocation.RevocationChecker` every verified token is also
checked against the revocation list (disabled or rotated clients, withdrawn
keys).

Verified tokens are remembered (the signature check was a fifth of the HTTP
layer's CPU per call): a bounded table keyed by the exact token text holds the claims,
the ``kid`` and the key that verified them. A token found there is accepted only while
that same key is still trusted, its ``exp``/``nbf`` hold at this instant, and the
revocation list (checked on every call, as before) does not refuse it; anything else goes
through full verification. A token not in the table is always verified in full.
:meth:`TokenVerifier.verify_now` does the same without any I/O (no key or revocation
refetch), for callers on the event loop.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

import httpx
from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.algorithms import RSAAlgorithm

from vigil.auth.errors import InvalidTokenError, KeySetUnavailableError
from vigil.auth.tokens import AccessTokenClaims, unverified_kid, verify_access_token

if TYPE_CHECKING:
    from vigil.auth.revocation import RevocationChecker

logger = logging.getLogger(__name__)

JwksSource = Callable[[], Mapping[str, Any]]

JWKS_PATH = "/.well-known/openid-configuration/jwks"


#: verified tokens remembered per verifier (a token is ~1 KiB: at most a few MiB)
VERIFIED_CACHE_SIZE = 4096


class _Verified(NamedTuple):
    """A token that passed full verification, and the key that verified it."""

    claims: AccessTokenClaims
    kid: str
    key: rsa.RSAPublicKey


def keys_from_jwks(jwks: Mapping[str, Any]) -> dict[str, rsa.RSAPublicKey]:
    """RSA signature keys of a JWK Set by ``kid``; other keys are ignored (RFC 7517 §5)."""
    out: dict[str, rsa.RSAPublicKey] = {}
    for jwk in jwks.get("keys", []):
        if not isinstance(jwk, Mapping) or jwk.get("kty") != "RSA":
            continue
        if jwk.get("use", "sig") != "sig" or jwk.get("alg", "RS256") != "RS256":
            continue
        kid = jwk.get("kid")
        if not isinstance(kid, str) or not kid:
            continue
        try:
            key = RSAAlgorithm.from_jwk(dict(jwk))
        except Exception:  # noqa: BLE001 - a bad entry must not hide the good ones
            logger.warning("ignoring malformed JWK %r", kid)
            continue
        if isinstance(key, rsa.RSAPublicKey):
            out[kid] = key
    return out


def http_jwks_source(
    url: str,
    *,
    client: httpx.Client | None = None,
    timeout: float = 5.0,
    bearer: str | None = None,
) -> JwksSource:
    """A JSON document source that GETs ``url`` (a JWKS URI, or the revocation list with
    the ``bearer`` secret that opens it)."""
    http = client or httpx.Client(timeout=timeout, follow_redirects=False)
    headers = {"Accept": "application/json"}
    if bearer:
        headers["Authorization"] = f"Bearer {bearer}"

    def fetch() -> Mapping[str, Any]:
        response = http.get(url, headers=headers)
        response.raise_for_status()
        data = response.json()
        if not isinstance(data, Mapping):
            raise ValueError("JWKS is not a JSON object")
        return data

    return fetch


class TokenVerifier:
    """Verify bearer tokens against a cached JWKS.

    Parameters
    ----------
    source : callable
        Returns the current JWK Set (a mapping with ``keys``).
    issuer, audience : str
        Expected ``iss`` and ``aud`` (strict equality).
    leeway : int
        Clock skew allowed on ``exp``/``nbf`` [s]; 0 by default.
    cache_ttl : float
        How long fetched keys are used before a routine refetch [s].
    min_refresh_interval : float
        Shortest time between two fetches triggered by unknown ``kid`` values [s].
    clock : callable
        Monotonic clock [s].
    revocations : RevocationChecker, optional
        Refuse revoked tokens (docs/identity.md "Revocation").
    """

    def __init__(
        self,
        source: JwksSource,
        *,
        issuer: str,
        audience: str,
        leeway: int = 0,
        cache_ttl: float = 300.0,
        min_refresh_interval: float = 10.0,
        clock: Callable[[], float] = time.monotonic,
        revocations: RevocationChecker | None = None,
    ) -> None:
        self._source = source
        self.revocations = revocations
        self.issuer = issuer
        self.audience = audience
        self.leeway = leeway
        self.cache_ttl = cache_ttl
        self.min_refresh_interval = min_refresh_interval
        self._clock = clock
        self._keys: dict[str, rsa.RSAPublicKey] | None = None
        self._fetched_at = float("-inf")
        self._lock = threading.Lock()
        self.fetch_count = 0
        #: exact token text → its verification (see the module docstring)
        self._verified: OrderedDict[str, _Verified] = OrderedDict()
        self._verified_lock = threading.Lock()
        #: wall clock for ``exp``/``nbf`` of remembered tokens (PyJWT reads the same)
        self.wall_clock: Callable[[], float] = time.time

    @classmethod
    def from_url(
        cls,
        url: str,
        *,
        issuer: str,
        audience: str,
        client: httpx.Client | None = None,
        **kwargs: Any,
    ) -> TokenVerifier:
        """Verifier fetching the JWKS at ``url`` with httpx."""
        return cls(http_jwks_source(url, client=client), issuer=issuer, audience=audience, **kwargs)

    @classmethod
    def from_jwks(cls, jwks: Mapping[str, Any], *, issuer: str, audience: str) -> TokenVerifier:
        """In-process verifier over a fixed key set."""
        return cls(lambda: jwks, issuer=issuer, audience=audience)

    def _fetch(self) -> None:
        self.fetch_count += 1
        self._fetched_at = self._clock()
        try:
            jwks = self._source()
        except Exception as exc:  # noqa: BLE001 - network faults: keep the cached keys
            logger.warning("could not fetch the JWKS: %s", exc)
            if self._keys is None:
                raise KeySetUnavailableError("the identity server's keys are unavailable") from exc
            return
        fresh = keys_from_jwks(jwks)
        if self._keys is not None:
            # keep the parsed key objects of unchanged keys: remembered tokens name them
            for kid, key in fresh.items():
                old = self._keys.get(kid)
                if old is not None and old.public_numbers() == key.public_numbers():
                    fresh[kid] = old
        self._keys = fresh

    def keys(self, *, want_kid: str | None = None) -> dict[str, rsa.RSAPublicKey]:
        """Current trusted keys, fetching when stale or when ``want_kid`` is unknown."""
        with self._lock:
            age = self._clock() - self._fetched_at
            if self._keys is None or age >= self.cache_ttl:
                self._fetch()
            elif (
                want_kid is not None
                and want_kid not in self._keys
                and age >= self.min_refresh_interval
            ):
                self._fetch()
            assert self._keys is not None
            return dict(self._keys)

    def verify(self, token: str) -> AccessTokenClaims:
        """Verify ``token`` and return its claims.

        Raises
        ------
        InvalidTokenError
            Any defect (contract §2: 401 ``invalid_token``).
        KeySetUnavailableError
            No keys could ever be fetched.
        """
        if not token or len(token) > 8192:
            raise InvalidTokenError("the access token is malformed")
        found = self._remembered(token, self.keys()) if self._seen(token) else None
        if found is None:
            kid = unverified_kid(token)
            found = self._verify_in_full(token, kid, self.keys(want_kid=kid))
        if self.revocations is not None:
            self.revocations.check(found.claims, found.kid)
        return found.claims

    def verify_now(self, token: str) -> AccessTokenClaims | None:
        """:meth:`verify` without I/O, for the event loop: ``None`` when the keys or the
        revocation list are due for a refetch, or the token names a key not loaded (then
        call :meth:`verify` in a thread). Otherwise the same answer, or the same error.
        """
        if not token or len(token) > 8192:
            raise InvalidTokenError("the access token is malformed")
        keys = self._fresh_keys()
        if keys is None or (self.revocations is not None and not self.revocations.fresh()):
            return None
        found = self._remembered(token, keys)
        if found is None:
            kid = unverified_kid(token)
            if kid not in keys:
                return None  # perhaps a key newer than ours: fetching it is I/O
            found = self._verify_in_full(token, kid, keys)
        if self.revocations is not None:
            self.revocations.check(found.claims, found.kid)
        return found.claims

    def _fresh_keys(self) -> dict[str, rsa.RSAPublicKey] | None:
        """The loaded keys when no routine refetch is due, else ``None``."""
        with self._lock:
            if self._keys is None or self._clock() - self._fetched_at >= self.cache_ttl:
                return None
            return self._keys

    def _seen(self, token: str) -> bool:
        with self._verified_lock:
            return token in self._verified

    def _verify_in_full(
        self, token: str, kid: str, keys: Mapping[str, rsa.RSAPublicKey]
    ) -> _Verified:
        """Signature, header and claims (``verify_access_token``); remembered when valid."""
        claims = verify_access_token(
            token, keys=keys, issuer=self.issuer, audience=self.audience, leeway=self.leeway
        )
        found = _Verified(claims, kid, keys[kid])
        with self._verified_lock:
            self._verified[token] = found
            if len(self._verified) > VERIFIED_CACHE_SIZE:
                self._verified.popitem(last=False)
        return found

    def _remembered(self, token: str, keys: Mapping[str, rsa.RSAPublicKey]) -> _Verified | None:
        """A token verified before, if the key that verified it is still trusted and the
        token is inside its validity period now; else ``None`` (verify it in full, which
        also says why it fails)."""
        with self._verified_lock:
            found = self._verified.get(token)
            if found is None:
                return None
            now = self.wall_clock()
            claims = found.claims
            if (
                keys.get(found.kid) is not found.key
                or claims.expires_at <= now - self.leeway
                or claims.not_before > now + self.leeway
            ):
                del self._verified[token]
                return None
            self._verified.move_to_end(token)
            return found
