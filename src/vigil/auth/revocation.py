"""Token revocation: the client-state list every verifier checks.

Access tokens are self-contained JWTs, so a resource surface cannot ask the database
about each one. Instead every client has a *version* that goes up when its secret is
rotated or it is disabled; tokens carry the version they were issued under (``cver``).
The identity server publishes the **revocation list**: for every client whose tokens
are not all valid, its current version and whether it is disabled, keyed by the
SHA-256 of the client ID (the list does not enumerate client IDs), the ``kid`` of every
published signing key and when the list was built. A token is refused when its client
is disabled, its ``cver`` is older than the client's version, or it was issued before
the list was built and its key is not in it (the key was withdrawn; ``vigil keys
withdraw``). A token signed by a key newer than the list is left to the JWKS check.

Each verifier keeps the list for ``ttl`` seconds (``VIGIL_REVOCATION_TTL``, default
15 s). In process the list comes from the database; a standalone scoring or upload
surface fetches ``{identity_url}/connect/revocations``, which the identity server
rebuilds at most every :data:`DOCUMENT_MAX_AGE` seconds. So a disable or a rotation
takes effect everywhere within ``ttl + DOCUMENT_MAX_AGE`` seconds (default 20 s; at most
60 s, the settings cap ``ttl`` at 55 s). When the list cannot be refreshed the last one
is kept (the identity server being away must not stop scoring) and a warning
is logged; a surface that never got a list answers 503.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from vigil.auth.errors import InvalidTokenError, KeySetUnavailableError
from vigil.auth.tokens import AccessTokenClaims

logger = logging.getLogger(__name__)

#: how long the identity server reuses a built revocation document [s]
DOCUMENT_MAX_AGE = 5
#: the path of the published list, on the identity server
REVOCATIONS_PATH = "/connect/revocations"

RevocationSource = Callable[[], Mapping[str, Any]]


@functools.lru_cache(maxsize=4096)
def client_key(client_id: str) -> str:
    """How the list names a client: SHA-256 hex of its ID.

    Kept per process (hashed on every verified call): a pure function of the ID,
    so the cache never decides whether a token is revoked; :meth:`RevocationList.reason`
    still looks the key up in the current list on every call.
    """
    return hashlib.sha256(client_id.encode("utf-8", "surrogatepass")).hexdigest()


def revocation_document(
    states: Iterable[tuple[str, int, bool]], kids: Iterable[str], *, now: float | None = None
) -> dict[str, Any]:
    """The published list from ``(client_id, version, disabled)`` rows and live kids."""
    return {
        "built_at": int(time.time() if now is None else now),
        "clients": {
            client_key(cid): {"version": version, "disabled": disabled}
            for cid, version, disabled in states
        },
        "kids": sorted(kids),
    }


@dataclass(frozen=True, slots=True)
class RevocationList:
    """A parsed revocation document."""

    clients: Mapping[str, tuple[int, bool]]
    kids: frozenset[str]
    built_at: int = 0

    @classmethod
    def parse(cls, document: Mapping[str, Any]) -> RevocationList:
        """Read a document; :class:`ValueError` when it is malformed."""
        raw_clients = document.get("clients")
        raw_kids = document.get("kids")
        built_at = document.get("built_at")
        if not isinstance(raw_clients, Mapping) or not isinstance(raw_kids, list):
            raise ValueError("the revocation list lacks clients or kids")
        if not isinstance(built_at, int):
            raise ValueError("the revocation list lacks built_at")
        clients: dict[str, tuple[int, bool]] = {}
        for key, state in raw_clients.items():
            if not isinstance(state, Mapping):
                raise ValueError("a revocation entry is not an object")
            version, disabled = state.get("version"), state.get("disabled")
            if not isinstance(version, int) or not isinstance(disabled, bool):
                raise ValueError("a revocation entry lacks version or disabled")
            clients[str(key)] = (version, disabled)
        return cls(clients, frozenset(str(k) for k in raw_kids), built_at)

    def reason(self, claims: AccessTokenClaims, kid: str) -> str | None:
        """Why the token is revoked, or ``None`` when it is not."""
        if kid not in self.kids and claims.issued_at < self.built_at:
            return "the access token's signing key was withdrawn"
        state = self.clients.get(client_key(claims.client_id))
        if state is None:
            return None
        version, disabled = state
        if disabled:
            return "the client is disabled"
        if claims.client_version < version:
            return "the access token was revoked (client secret rotated)"
        return None


class RevocationUnavailableError(KeySetUnavailableError):
    """No revocation list could ever be fetched (infrastructure, 503, as missing keys)."""


class RevocationChecker:
    """Check tokens against a revocation list cached for ``ttl`` seconds.

    Parameters
    ----------
    source : callable
        Returns the current document (database or HTTP).
    ttl : float
        How long one list is used [s].
    clock : callable
        Monotonic clock [s].
    """

    def __init__(
        self,
        source: RevocationSource,
        *,
        ttl: float,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._source = source
        self.ttl = ttl
        self._clock = clock
        self._list: RevocationList | None = None
        self._fetched_at = float("-inf")
        self._lock = threading.Lock()

    def current(self) -> RevocationList:
        """The list, refreshed when older than ``ttl``."""
        with self._lock:
            now = self._clock()
            if self._list is None or now - self._fetched_at >= self.ttl:
                self._fetched_at = now
                try:
                    self._list = RevocationList.parse(self._source())
                except Exception as exc:  # noqa: BLE001 - keep the last list on any fault
                    logger.warning("could not refresh the revocation list: %s", exc)
                    if self._list is None:
                        raise RevocationUnavailableError(
                            "the identity server's revocation list is unavailable"
                        ) from exc
            return self._list

    def fresh(self) -> bool:
        """A list is loaded and not due for a refresh: :meth:`check` does no I/O."""
        with self._lock:
            return self._list is not None and self._clock() - self._fetched_at < self.ttl

    def check(self, claims: AccessTokenClaims, kid: str) -> None:
        """Raise :class:`InvalidTokenError` when the token is revoked."""
        reason = self.current().reason(claims, kid)
        if reason is not None:
            raise InvalidTokenError(reason)
