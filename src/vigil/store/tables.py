"""Tables, as SQLAlchemy 2 typed ``Mapped[...]`` classes (STYLE §3.11).

Singular snake_case table names; datetime columns end in ``_at`` and hold aware UTC.

Identity tables (issue 5): ``operator`` (a tenant: an airline), ``api_client``,
``signing_key``, ``console_user``. Upload/job tables (``roster_upload``, ``job``) are
added below by the upload engineer, each with its own Alembic revision in
``vigil/store/migrations/versions``.
"""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import Boolean, ForeignKey, Integer, LargeBinary, String
from sqlalchemy.orm import Mapped, mapped_column, relationship

from vigil.store.db import Base, UTCDateTime

__all__ = ["ApiClient", "Base", "ConsoleUser", "Operator", "SigningKey"]


def utcnow() -> datetime:
    """The current instant, aware UTC."""
    return datetime.now(UTC)


class Operator(Base):
    """A tenant: the airline that owns API clients, console users and rosters (contract §8)."""

    __tablename__ = "operator"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(100), unique=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)

    clients: Mapped[list[ApiClient]] = relationship(back_populates="operator")


class ApiClient(Base):
    """An OAuth 2.0 confidential client (contract §1).

    ``secret_encrypted`` is the client secret encrypted with :mod:`vigil.store.crypto`
    (seed §5.2: the console shows it again). ``scopes`` holds scope *kinds*
    (``"fatigue risk upload"``), not wire names, so the deployment prefix can change.
    """

    __tablename__ = "api_client"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    client_id: Mapped[str] = mapped_column(String(100), unique=True)
    secret_encrypted: Mapped[bytes] = mapped_column(LargeBinary)
    scopes: Mapped[str] = mapped_column(String(100))
    operator_id: Mapped[int] = mapped_column(
        ForeignKey("operator.id", ondelete="RESTRICT"), index=True
    )
    name: Mapped[str] = mapped_column(String(200), default="")
    disabled: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    rotated_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)

    operator: Mapped[Operator] = relationship(back_populates="clients", lazy="joined")

    def __repr__(self) -> str:
        return f"ApiClient(client_id={self.client_id!r}, disabled={self.disabled!r})"


class SigningKey(Base):
    """An RSA token-signing key; the private key is encrypted at rest (contract §1)."""

    __tablename__ = "signing_key"

    kid: Mapped[str] = mapped_column(String(100), primary_key=True)
    private_key_encrypted: Mapped[bytes] = mapped_column(LargeBinary)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    retired_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)

    def __repr__(self) -> str:
        return f"SigningKey(kid={self.kid!r}, retired_at={self.retired_at!r})"


class ConsoleUser(Base):
    """A person who signs in to the operator console (contract §6); argon2 password hash."""

    __tablename__ = "console_user"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    username: Mapped[str] = mapped_column(String(100), unique=True)
    password_hash: Mapped[str] = mapped_column(String(255))
    operator_id: Mapped[int] = mapped_column(
        ForeignKey("operator.id", ondelete="RESTRICT"), index=True
    )
    disabled: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)

    operator: Mapped[Operator] = relationship(lazy="joined")

    def __repr__(self) -> str:
        return f"ConsoleUser(username={self.username!r})"


# --- upload / job tables (roster_upload, job) go below this line -------------------------
