"""Query functions, keyword-only, each taking a ``Session`` (STYLE §3.12).

The caller owns the transaction: functions ``flush`` but never ``commit``.
"""

from __future__ import annotations

import hashlib
import secrets
import string
from collections.abc import Sequence
from datetime import datetime, timedelta

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy import delete, or_, select
from sqlalchemy.orm import Session

from vigil.store.crypto import SecretBox
from vigil.store.tables import (
    ApiClient,
    ConsoleSession,
    ConsoleUser,
    Operator,
    SigningKey,
    utcnow,
)

_ALNUM = string.ascii_letters + string.digits
_hasher = PasswordHasher()
_DUMMY_HASH = _hasher.hash("vigil-dummy-password")


class RepoError(Exception):
    """A repository precondition failed."""


class NotFoundError(RepoError):
    """The record does not exist."""


class AlreadyExistsError(RepoError):
    """A record with that unique name exists."""


class UnknownOperatorError(NotFoundError):
    """No operator has that exact name; the message lists the known ones."""


def new_client_id() -> str:
    """A fresh client ID: 24 characters of ``A–Z a–z 0–9`` (≈143 random bits)."""
    return "".join(secrets.choice(_ALNUM) for _ in range(24))


def new_client_secret() -> str:
    """A fresh secret: 43 characters of ``A–Z a–z 0–9 - _`` (256 random bits, contract §1)."""
    return secrets.token_urlsafe(32)


# --- operators ---------------------------------------------------------------------------


def list_operators(*, session: Session) -> Sequence[Operator]:
    """Every operator, oldest first."""
    return session.scalars(select(Operator).order_by(Operator.id)).all()


def get_or_create_operator(*, session: Session, name: str, create: bool = True) -> Operator:
    """The operator called exactly ``name`` (case and spaces inside count), created if
    missing and ``create``; otherwise :class:`UnknownOperatorError` naming the known ones."""
    name = name.strip()
    if not name or len(name) > 100:
        raise RepoError("operator name must be 1 to 100 characters")
    found = session.scalar(select(Operator).where(Operator.name == name))
    if found is not None:
        return found
    if not create:
        known = ", ".join(repr(o.name) for o in list_operators(session=session)) or "none"
        raise UnknownOperatorError(
            f"no operator {name!r} (names are compared exactly); known operators: {known}"
        )
    operator = Operator(name=name)
    session.add(operator)
    session.flush()
    return operator


# --- API clients -------------------------------------------------------------------------


def create_api_client(
    *,
    session: Session,
    box: SecretBox,
    operator: str,
    scopes: str,
    name: str = "",
    client_id: str | None = None,
    secret: str | None = None,
    create_operator: bool = True,
) -> tuple[ApiClient, str]:
    """Register a client and return it with its plaintext secret.

    Parameters
    ----------
    session : Session
    box : SecretBox
        Encrypts the secret at rest.
    operator : str
        Operator (tenant) name; created if missing.
    scopes : str
        Scope kinds, space-separated, e.g. ``"fatigue risk upload"``.
    name : str
        Free label shown in listings.
    client_id, secret : str, optional
        Explicit values (tests, imports); generated when omitted.
    create_operator : bool
        Create a missing operator; if false, an unknown one is :class:`UnknownOperatorError`.
    """
    client_id = client_id or new_client_id()
    secret = secret if secret is not None else new_client_secret()
    if not 1 <= len(client_id) <= 100 or not 1 <= len(secret) <= 100:
        raise RepoError("client_id and secret must be 1 to 100 characters")
    if get_api_client(session=session, client_id=client_id) is not None:
        raise AlreadyExistsError(f"client {client_id!r} exists")
    owner = get_or_create_operator(session=session, name=operator, create=create_operator)
    client = ApiClient(
        client_id=client_id,
        secret_encrypted=box.encrypt(secret),
        scopes=scopes,
        operator=owner,
        name=name,
        disabled=False,
        created_at=utcnow(),
    )
    session.add(client)
    session.flush()
    return client, secret


def get_api_client(*, session: Session, client_id: str) -> ApiClient | None:
    """The client with ``client_id``, or ``None``."""
    return session.scalar(select(ApiClient).where(ApiClient.client_id == client_id))


def require_api_client(*, session: Session, client_id: str) -> ApiClient:
    """The client with ``client_id``; :class:`NotFoundError` when missing."""
    client = get_api_client(session=session, client_id=client_id)
    if client is None:
        raise NotFoundError(f"no client {client_id!r}")
    return client


def client_credentials(
    *, session: Session, client_id: str
) -> tuple[str, bytes, str, bool, int, str] | None:
    """``(client_id, secret_encrypted, scopes, disabled, version, operator)`` or ``None``.

    One query and no ORM objects, so a known and an unknown ID cost about the same.
    """
    row = session.execute(
        select(
            ApiClient.client_id,
            ApiClient.secret_encrypted,
            ApiClient.scopes,
            ApiClient.disabled,
            ApiClient.version,
            Operator.name,
        )
        .join(Operator, ApiClient.operator_id == Operator.id)
        .where(ApiClient.client_id == client_id)
    ).first()
    if row is None:
        return None
    cid, secret, scopes, disabled, version, operator = row
    return str(cid), bytes(secret), str(scopes), bool(disabled), int(version), str(operator)


def list_api_clients(*, session: Session, operator: str | None = None) -> Sequence[ApiClient]:
    """Clients, oldest first, optionally of one operator."""
    query = select(ApiClient).join(ApiClient.operator).order_by(ApiClient.id)
    if operator is not None:
        query = query.where(Operator.name == operator)
    return session.scalars(query).all()


def reveal_client_secret(*, box: SecretBox, client: ApiClient) -> str:
    """The plaintext secret of ``client`` (seed §5.2: shown again in the console)."""
    return box.decrypt(client.secret_encrypted)


def rotate_client_secret(
    *, session: Session, box: SecretBox, client_id: str, secret: str | None = None
) -> str:
    """Give the client a new secret (the old one stops working at once) and return it."""
    client = require_api_client(session=session, client_id=client_id)
    secret = secret if secret is not None else new_client_secret()
    client.secret_encrypted = box.encrypt(secret)
    client.rotated_at = utcnow()
    client.version += 1  # tokens issued under the old secret stop verifying
    session.flush()
    return secret


def set_client_disabled(*, session: Session, client_id: str, disabled: bool = True) -> ApiClient:
    """Disable (or re-enable) a client.

    A disabled client gets no new tokens, and disabling raises its ``version``, so its
    issued tokens stop verifying (within the revocation bound, docs/identity.md) and do
    not come back when the client is enabled again.
    """
    client = require_api_client(session=session, client_id=client_id)
    if disabled and not client.disabled:
        client.version += 1
    client.disabled = disabled
    session.flush()
    return client


def client_states(*, session: Session) -> list[tuple[str, int, bool]]:
    """``(client_id, version, disabled)`` of every client with revoked tokens.

    Clients never rotated nor disabled (version 0, enabled) are left out: their tokens
    all verify. This is the revocation list the identity server publishes.
    """
    rows = session.execute(
        select(ApiClient.client_id, ApiClient.version, ApiClient.disabled).where(
            or_(ApiClient.version != 0, ApiClient.disabled.is_(True))
        )
    )
    return [(cid, int(version), bool(disabled)) for cid, version, disabled in rows]


def ensure_bootstrap_client(
    *, session: Session, box: SecretBox, operator: str, scopes: str
) -> tuple[ApiClient, str] | None:
    """Create a first client when none exists (contract §0 ``vigil serve``), else ``None``."""
    if session.scalar(select(ApiClient.id).limit(1)) is not None:
        return None
    return create_api_client(
        session=session, box=box, operator=operator, scopes=scopes, name="bootstrap"
    )


# --- signing keys ------------------------------------------------------------------------


def list_signing_keys(*, session: Session) -> Sequence[SigningKey]:
    """Every signing key, oldest first."""
    return session.scalars(select(SigningKey).order_by(SigningKey.created_at)).all()


def add_signing_key(
    *, session: Session, box: SecretBox, kid: str, private_pem: bytes, created_at: datetime
) -> SigningKey:
    """Store a signing key, its private part encrypted."""
    row = SigningKey(
        kid=kid, private_key_encrypted=box.encrypt_bytes(private_pem), created_at=created_at
    )
    session.add(row)
    session.flush()
    return row


def retire_signing_key(*, session: Session, kid: str, retired_at: datetime) -> None:
    """Mark a signing key retired."""
    row = session.get(SigningKey, kid)
    if row is None:
        raise NotFoundError(f"no signing key {kid!r}")
    row.retired_at = retired_at
    session.flush()


def delete_signing_key(*, session: Session, kid: str) -> None:
    """Delete a retired signing key (withdrawal); the current key cannot be deleted."""
    row = session.get(SigningKey, kid)
    if row is None:
        raise NotFoundError(f"no signing key {kid!r}")
    if row.retired_at is None:
        raise RepoError(f"key {kid!r} is the current key: run `vigil keys rotate` first")
    session.delete(row)
    session.flush()


# --- console users -----------------------------------------------------------------------


def create_console_user(
    *, session: Session, operator: str, username: str, password: str, create_operator: bool = True
) -> ConsoleUser:
    """Create a console user with an argon2id password hash; a missing operator is created
    only if ``create_operator`` (else :class:`UnknownOperatorError`)."""
    username = username.strip()
    if not 1 <= len(username) <= 100:
        raise RepoError("username must be 1 to 100 characters")
    if len(password) < 8:
        raise RepoError("password must be at least 8 characters")
    if session.scalar(select(ConsoleUser).where(ConsoleUser.username == username)):
        raise AlreadyExistsError(f"user {username!r} exists")
    owner = get_or_create_operator(session=session, name=operator, create=create_operator)
    user = ConsoleUser(
        username=username, password_hash=_hasher.hash(password), operator=owner, created_at=utcnow()
    )
    session.add(user)
    session.flush()
    return user


def get_console_user(*, session: Session, username: str) -> ConsoleUser | None:
    """The console user called ``username``, or ``None``."""
    return session.scalar(select(ConsoleUser).where(ConsoleUser.username == username.strip()))


def require_console_user(*, session: Session, username: str) -> ConsoleUser:
    """The console user called ``username``; :class:`NotFoundError` when missing."""
    user = get_console_user(session=session, username=username)
    if user is None:
        raise NotFoundError(f"no user {username!r}")
    return user


def list_console_users(*, session: Session, operator: str | None = None) -> Sequence[ConsoleUser]:
    """Console users, oldest first, optionally of one operator."""
    query = select(ConsoleUser).join(ConsoleUser.operator).order_by(ConsoleUser.id)
    if operator is not None:
        query = query.where(Operator.name == operator)
    return session.scalars(query).all()


def set_console_user_disabled(
    *, session: Session, username: str, disabled: bool = True
) -> ConsoleUser:
    """Disable (or enable) a console user; disabling ends every session of theirs."""
    user = require_console_user(session=session, username=username)
    user.disabled = disabled
    if disabled:
        end_console_sessions(session=session, user_id=user.id)
    session.flush()
    return user


def delete_console_user(*, session: Session, username: str) -> None:
    """Delete a console user and their sessions."""
    user = require_console_user(session=session, username=username)
    end_console_sessions(session=session, user_id=user.id)
    session.delete(user)
    session.flush()


def reset_console_password(*, session: Session, username: str, password: str) -> ConsoleUser:
    """Set a new password (argon2id) and end every session of the user."""
    if len(password) < 8:
        raise RepoError("password must be at least 8 characters")
    user = require_console_user(session=session, username=username)
    user.password_hash = _hasher.hash(password)
    end_console_sessions(session=session, user_id=user.id)
    session.flush()
    return user


# --- console sessions (server side) ---------------------------------------------


def _session_id(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def start_console_session(*, session: Session, user_id: int, lifetime: float) -> str:
    """Record a signed-in session and return its secret (for the cookie; only its hash
    is stored). Expired sessions are purged at the same time."""
    now = utcnow()
    session.execute(delete(ConsoleSession).where(ConsoleSession.expires_at <= now))
    secret = secrets.token_urlsafe(32)
    session.add(
        ConsoleSession(
            id=_session_id(secret),
            user_id=user_id,
            created_at=now,
            expires_at=now + timedelta(seconds=lifetime),
        )
    )
    session.flush()
    return secret


def console_session_user(*, session: Session, secret: str) -> ConsoleUser | None:
    """The enabled user of a live session, or ``None`` (unknown, ended or expired)."""
    if not secret or len(secret) > 100:
        return None
    row = session.get(ConsoleSession, _session_id(secret))
    if row is None or row.expires_at <= utcnow():
        return None
    user = session.get(ConsoleUser, row.user_id)
    if user is None or user.disabled:
        return None
    return user


def end_console_session(*, session: Session, secret: str) -> None:
    """Delete one session (sign-out)."""
    session.execute(delete(ConsoleSession).where(ConsoleSession.id == _session_id(secret)))


def end_console_sessions(*, session: Session, user_id: int) -> None:
    """Delete every session of one user."""
    session.execute(delete(ConsoleSession).where(ConsoleSession.user_id == user_id))


def authenticate_console_user(
    *, session: Session, username: str, password: str
) -> ConsoleUser | None:
    """The enabled user whose password matches, else ``None``.

    An unknown username is checked against a dummy hash, so timing does not reveal
    which usernames exist (full-stack-fastapi-template ``authenticate``).
    """
    user = session.scalar(select(ConsoleUser).where(ConsoleUser.username == username))
    try:
        _hasher.verify(user.password_hash if user else _DUMMY_HASH, password)
    except (VerificationError, InvalidHashError):
        return None
    if user is None or user.disabled:
        return None
    if _hasher.check_needs_rehash(user.password_hash):
        user.password_hash = _hasher.hash(password)
        session.flush()
    return user
