"""The wiring of ``vigil.auth`` to ``vigil.store`` (STYLE §2).

``auth`` and ``store`` do not know each other; this module adapts the database to the
auth core's injected callables: :class:`DbKeyStorage` is a ``KeyStorage`` (the running
surfaces and ``vigil keys``), :func:`client_lookup` a ``ClientLookup``.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Sequence
from typing import Any

from sqlalchemy.orm import Session, sessionmaker

from vigil.auth.grant import ClientLookup, ClientRecord
from vigil.auth.keys import SigningKey
from vigil.auth.scopes import ScopeKind
from vigil.store import repo
from vigil.store.crypto import SecretBox

__all__ = ["DbKeyStorage", "client_lookup", "kinds_of"]

logger = logging.getLogger(__name__)


def kinds_of(stored: str) -> frozenset[ScopeKind]:
    """Scope kinds from the stored ``api_client.scopes`` string; unknown words are ignored."""
    out = set()
    for word in stored.split():
        try:
            out.add(ScopeKind(word))
        except ValueError:
            logger.warning("ignoring unknown stored scope kind %r", word)
    return frozenset(out)


class DbKeyStorage:
    """``vigil.auth.keys.KeyStorage`` over the ``signing_key`` table."""

    def __init__(self, sessions: sessionmaker[Session], box: SecretBox) -> None:
        self._sessions = sessions
        self._box = box

    def load_keys(self) -> Sequence[SigningKey]:
        with self._sessions() as session:
            rows = repo.list_signing_keys(session=session)
            return [
                SigningKey(
                    r.kid,
                    self._box.decrypt_bytes(r.private_key_encrypted),
                    r.created_at,
                    r.retired_at,
                )
                for r in rows
            ]

    def add_key(self, key: SigningKey) -> None:
        with self._sessions.begin() as session:
            repo.add_signing_key(
                session=session,
                box=self._box,
                kid=key.kid,
                private_pem=key.private_pem,
                created_at=key.created_at,
            )

    def retire_key(self, kid: str, at: Any) -> None:
        with self._sessions.begin() as session:
            repo.retire_signing_key(session=session, kid=kid, retired_at=at)


def client_lookup(sessions: sessionmaker[Session], box: SecretBox) -> ClientLookup:
    """A ``ClientLookup`` reading ``api_client`` and decrypting the secret.

    An unknown ID runs the same query and decrypts a dummy secret of a real secret's
    length, so rejecting it takes as long as rejecting a known ID.
    """
    dummy = box.encrypt(secrets.token_urlsafe(32))

    def query(client_id: str) -> ClientRecord | None:
        if "\x00" in client_id:  # no client has one; PostgreSQL refuses NUL in text (a 500)
            client_id = ""
        with sessions() as session:
            row = repo.client_credentials(session=session, client_id=client_id)
        if row is None:
            box.decrypt(dummy)
            return None
        cid, encrypted, scopes, disabled, version, operator = row
        return ClientRecord(
            client_id=cid,
            secret=box.decrypt(encrypted),
            operator=operator,
            scopes=kinds_of(scopes),
            disabled=disabled,
            version=version,
        )

    return query
