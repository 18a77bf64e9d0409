"""RSA signing keys: generation, JWKS and rotation (contract §1).

Keys live in storage the caller injects (:class:`KeyStorage`; ``vigil.web`` wires it to
the ``signing_key`` table, private keys encrypted at rest). A rotation makes a new
current key and marks the old one retired; a retired key stays in the JWKS for
``token_lifetime`` seconds after its retirement, so every token it signed can still be
verified until it expires (ours: no extra grace beyond the token lifetime plus a
60 s clock-skew margin).

The ``kid`` is the RFC 7638 JWK thumbprint (SHA-256, base64url) of the public key.

Loading an RSA private key from PEM validates it (about 60 ms for 2048 bits), so a
:class:`SigningKey` parses its PEM once and keeps the loaded key, and a :class:`KeySet`
builds its JWKS document once (JWKS was a CPU lever). Callers that reload
keys from storage carry parsed keys over with :meth:`KeySet.reuse_loaded`.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from typing import Any, Protocol

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

#: RSA modulus size [bits]; RFC 7518 §3.3 requires at least 2048
KEY_SIZE = 2048
#: extra time a retired key stays published beyond the token lifetime [s] (clock skew)
PUBLISH_MARGIN = 60


def _b64u_uint(value: int) -> str:
    raw = value.to_bytes((value.bit_length() + 7) // 8, "big")
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def _public_numbers_jwk(public_key: rsa.RSAPublicKey) -> dict[str, str]:
    numbers = public_key.public_numbers()
    return {"e": _b64u_uint(numbers.e), "kty": "RSA", "n": _b64u_uint(numbers.n)}


def thumbprint(public_key: rsa.RSAPublicKey) -> str:
    """RFC 7638 JWK thumbprint: SHA-256 of the canonical ``{"e","kty","n"}`` JSON."""
    canonical = json.dumps(_public_numbers_jwk(public_key), separators=(",", ":"), sort_keys=True)
    digest = hashlib.sha256(canonical.encode("ascii")).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


@dataclass(frozen=True, slots=True)
class SigningKey:
    """One RSA key pair.

    Attributes
    ----------
    kid : str
        Key ID (RFC 7638 thumbprint).
    private_pem : bytes
        PKCS#8 PEM of the private key (unencrypted: storage encrypts it at rest).
    created_at : datetime
        Creation instant (aware UTC).
    retired_at : datetime or None
        When the key stopped signing; ``None`` for the current key.
    """

    kid: str
    private_pem: bytes = field(repr=False)
    created_at: datetime
    retired_at: datetime | None = None
    _loaded: rsa.RSAPrivateKey | None = field(default=None, repr=False, compare=False)

    @property
    def private_key(self) -> rsa.RSAPrivateKey:
        """The parsed private key; the PEM is parsed (and validated) on first use only."""
        if self._loaded is None:
            key = serialization.load_pem_private_key(self.private_pem, password=None)
            if not isinstance(key, rsa.RSAPrivateKey):
                raise TypeError("signing key is not an RSA key")
            object.__setattr__(self, "_loaded", key)
        assert self._loaded is not None
        return self._loaded

    @property
    def loaded(self) -> bool:
        """Whether the PEM has been parsed already."""
        return self._loaded is not None

    @property
    def public_key(self) -> rsa.RSAPublicKey:
        return self.private_key.public_key()

    def public_jwk(self) -> dict[str, str]:
        """The public key as a JWK (RFC 7517) for the JWKS document."""
        return {
            **_public_numbers_jwk(self.public_key),
            "use": "sig",
            "alg": "RS256",
            "kid": self.kid,
        }


def generate_key(*, now: datetime | None = None, key_size: int = KEY_SIZE) -> SigningKey:
    """Make a new RSA key pair (public exponent 65537)."""
    private = rsa.generate_private_key(public_exponent=65537, key_size=key_size)
    pem = private.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    return SigningKey(
        thumbprint(private.public_key()), pem, now or datetime.now(UTC), None, private
    )


class KeyStorage(Protocol):
    """Where keys persist; ``vigil.web`` adapts the database to this."""

    def load_keys(self) -> Sequence[SigningKey]:
        """Every stored key, retired ones included."""
        ...

    def add_key(self, key: SigningKey) -> None:
        """Store a new key."""
        ...

    def retire_key(self, kid: str, at: datetime) -> None:
        """Mark a key retired at ``at``."""
        ...


@dataclass(frozen=True, slots=True)
class KeySet:
    """The current signing key and the retired keys still published.

    Attributes
    ----------
    current : SigningKey
        The key new tokens are signed with.
    previous : tuple of SigningKey
        Retired keys whose tokens may still be valid, newest first.
    """

    current: SigningKey
    previous: tuple[SigningKey, ...] = ()
    _jwks: dict[str, list[dict[str, Any]]] | None = field(default=None, repr=False, compare=False)

    @property
    def keys(self) -> tuple[SigningKey, ...]:
        """Every published key, current first."""
        return (self.current, *self.previous)

    @property
    def state(self) -> tuple[tuple[str, datetime | None], ...]:
        """``(kid, retired_at)`` of every published key: equal states publish equal JWKS."""
        return tuple((k.kid, k.retired_at) for k in self.keys)

    def jwks(self) -> dict[str, list[dict[str, Any]]]:
        """RFC 7517 §5 JWK Set of the published public keys (built once per key set)."""
        if self._jwks is None:
            object.__setattr__(self, "_jwks", {"keys": [k.public_jwk() for k in self.keys]})
        assert self._jwks is not None
        return self._jwks

    def reuse_loaded(self, older: KeySet | None) -> KeySet:
        """This key set, with the parsed keys of ``older`` carried over by ``kid``."""
        if older is None:
            return self
        parsed = {k.kid: k._loaded for k in older.keys if k._loaded is not None}

        def carry(key: SigningKey) -> SigningKey:
            loaded = parsed.get(key.kid)
            return key if loaded is None or key.loaded else replace(key, _loaded=loaded)

        return KeySet(carry(self.current), tuple(carry(k) for k in self.previous))


def published_keys(
    keys: Sequence[SigningKey], *, token_lifetime: int, now: datetime | None = None
) -> KeySet | None:
    """Select the current key and the retired keys still needed for verification.

    Parameters
    ----------
    keys : sequence of SigningKey
        All stored keys.
    token_lifetime : int
        Access-token lifetime [s]: a retired key is kept this long plus
        :data:`PUBLISH_MARGIN` after retirement.
    now : datetime, optional
        The current instant (aware UTC).

    Returns
    -------
    KeySet or None
        ``None`` when no current key exists.
    """
    now = now or datetime.now(UTC)
    live = [k for k in keys if k.retired_at is None]
    if not live:
        return None
    current = max(live, key=lambda k: k.created_at)
    keep = timedelta(seconds=token_lifetime + PUBLISH_MARGIN)
    previous = sorted(
        (
            k
            for k in keys
            if k is not current and (k.retired_at is None or k.retired_at + keep > now)
        ),
        key=lambda k: k.created_at,
        reverse=True,
    )
    return KeySet(current, tuple(previous))


def ensure_key_set(
    storage: KeyStorage, *, token_lifetime: int, now: datetime | None = None
) -> KeySet:
    """Return the published keys, generating the first key when storage has none."""
    key_set = published_keys(storage.load_keys(), token_lifetime=token_lifetime, now=now)
    if key_set is None:
        storage.add_key(generate_key(now=now))
        key_set = published_keys(storage.load_keys(), token_lifetime=token_lifetime, now=now)
    assert key_set is not None
    return key_set


def rotate_keys(storage: KeyStorage, *, token_lifetime: int, now: datetime | None = None) -> KeySet:
    """Make a new current key and retire the others (contract §1 rotation)."""
    now = now or datetime.now(UTC)
    new = generate_key(now=now)
    for key in storage.load_keys():
        if key.retired_at is None:
            storage.retire_key(key.kid, now)
    storage.add_key(new)
    key_set = published_keys(storage.load_keys(), token_lifetime=token_lifetime, now=now)
    assert key_set is not None and key_set.current.kid == new.kid
    return key_set
