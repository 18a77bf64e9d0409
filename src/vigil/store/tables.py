"""Tables, as SQLAlchemy 2 typed ``Mapped[...]`` classes (STYLE §3.11).

Singular snake_case table names; datetime columns end in ``_at`` and hold aware UTC.

Identity tables: ``operator`` (a tenant: an airline), ``api_client``,
``signing_key``, ``console_user``; later ``console_session`` (server-side
console sign-ins), ``auth_failure`` (failed-credential counters shared by every server
process) and ``api_client.version`` (revocation). Upload/job tables (``roster_upload``, ``job``) are
added below by the upload engineer, each with its own Alembic revision in
``vigil/store/migrations/versions``.
"""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import (
    Boolean,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    String,
    Text,
    UniqueConstraint,
    text,
)
from sqlalchemy.orm import Mapped, mapped_column, relationship

from vigil.store.db import Base, UTCDateTime

__all__ = [
    "ApiClient",
    "AuthFailure",
    "Base",
    "ConsoleSession",
    "ConsoleUser",
    "HazardEntry",
    "ObservationSet",
    "Operator",
    "OperatorSettingsVersion",
    "RosterInput",
    "RosterResult",
    "RosterTable",
    "RosterSettings",
    "RosterUpload",
    "SettingsAdmin",
    "SigningKey",
]


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
    ``version`` goes up on every secret rotation and every disable; tokens carry the
    version they were issued under (claim ``cver``) and stop verifying when it changes
    (revocation, docs/identity.md).
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
    version: Mapped[int] = mapped_column(Integer, default=0, server_default="0")

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
    #: console display choices remembered per user (time axis, airport codes)
    preferences_json: Mapped[str] = mapped_column(Text, default="{}", server_default="{}")

    operator: Mapped[Operator] = relationship(lazy="joined")

    def __repr__(self) -> str:
        return f"ConsoleUser(username={self.username!r})"


class ConsoleSession(Base):
    """A signed-in console session: the cookie carries a random secret, the
    table its SHA-256 (``id``). Sign-out, disabling or deleting the user and a password
    reset delete the rows, so a copied cookie stops working at once."""

    __tablename__ = "console_session"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    user_id: Mapped[int] = mapped_column(
        ForeignKey("console_user.id", ondelete="CASCADE"), index=True
    )
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime, index=True)


class AuthFailure(Base):
    """One failed credential check, counted against a throttle key.

    ``key`` is the SHA-256 of the throttle key (source address, client ID, username), so
    nothing a caller typed, which may be a secret pasted in the wrong field, is stored.
    ``at`` is seconds since the Unix epoch. Rows older than the window are deleted.
    """

    __tablename__ = "auth_failure"
    __table_args__ = (Index("ix_auth_failure_key_at", "key", "at"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    key: Mapped[str] = mapped_column(String(64))
    at: Mapped[float] = mapped_column(Float, index=True)


# --- upload / job tables (roster_upload, job) go below this line -------------------------


class RosterUpload(Base):
    """An uploaded roster and its processing job (contract §5).

    One row is both the request's options and the job's state: ``status`` (a
    :class:`vigil.worker.jobs.JobStatus` value), ``attempts`` (claims so far), the lease
    (``lease_owner``, ``lease_expires_at``) of the worker processing it and its progress.
    ``operator`` is the tenant's *name*, as carried by the token (ours: no foreign key, so
    a standalone upload surface needs no identity table).

    The request's texts live in :class:`RosterInput` (``input``), written once: SQLite
    rewrites a whole row on every ``UPDATE``, so with a month's 16 MB of roster text in
    this row each progress write, lease renewal and claim copied it (~35 ms of CPU each),
    and every status read loaded it (scale-out). ``roster_text``,
    ``activity_text`` and ``sleep_json`` read through ``input``.
    """

    __tablename__ = "roster_upload"
    __table_args__ = (UniqueConstraint("operator", "roster_name"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    token: Mapped[str] = mapped_column(String(64), unique=True)
    operator: Mapped[str] = mapped_column(String(100), index=True)
    roster_name: Mapped[str] = mapped_column(String(200))
    status: Mapped[str] = mapped_column(String(32), index=True)
    submitted_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    date_format: Mapped[str] = mapped_column(String(8))
    preferred_scale: Mapped[str] = mapped_column(String(8))
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    lease_owner: Mapped[str | None] = mapped_column(String(200), nullable=True)
    lease_expires_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    error_summary: Mapped[str | None] = mapped_column(Text, nullable=True)
    #: schedules scored so far and in all (GetResults status progress)
    progress_done: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    progress_total: Mapped[int] = mapped_column(Integer, default=0, server_default="0")

    #: the request's texts (loaded on first use)
    input: Mapped[RosterInput] = relationship(cascade="all, delete-orphan", passive_deletes=True)

    @property
    def roster_text(self) -> str:
        """RosterData as uploaded."""
        return self.input.roster_text

    @property
    def activity_text(self) -> str:
        """ActivityData as uploaded (``""``: none)."""
        return self.input.activity_text

    @property
    def sleep_json(self) -> str:
        """SleepData as uploaded, a JSON list of records."""
        return self.input.sleep_json

    def __repr__(self) -> str:
        return f"RosterUpload(id={self.id!r}, status={self.status!r})"


class RosterInput(Base):
    """What an upload asked to score: its texts, apart from the job's state.

    Written once with the upload and deleted with it (``ON DELETE CASCADE``); read when a
    worker claims the roster and by the console's what-if, feedback and calibration.
    """

    __tablename__ = "roster_input"

    upload_id: Mapped[int] = mapped_column(
        ForeignKey("roster_upload.id", ondelete="CASCADE"), primary_key=True
    )
    roster_text: Mapped[str] = mapped_column(Text)
    activity_text: Mapped[str] = mapped_column(Text, default="")
    sleep_json: Mapped[str] = mapped_column(Text, default="[]")


class RosterResult(Base):
    """The stored outcome of one roster: data errors and the compact scores blob.

    ``scores`` is :mod:`vigil.results.compact`'s format: float32 interval scores for all
    six scales plus a JSON index, so ``GetResults&scale=`` converts without recomputing.
    """

    __tablename__ = "roster_result"

    upload_id: Mapped[int] = mapped_column(
        ForeignKey("roster_upload.id", ondelete="CASCADE"), primary_key=True
    )
    errors_json: Mapped[str] = mapped_column(Text, default="[]")
    scores: Mapped[bytes] = mapped_column(LargeBinary)
    model_version: Mapped[str] = mapped_column(String(100))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    #: the sleep the scores rest on, given or predicted (``dataKey=sleep``)
    sleep: Mapped[bytes | None] = mapped_column(LargeBinary, nullable=True)
    #: the roster's dashboard figures, computed once when it finishes
    summary_json: Mapped[str | None] = mapped_column(Text, nullable=True)


class RosterTable(Base):
    """A scored roster's duty tables, packed once when its summary is built
    (:mod:`vigil.fleet.packed`), so the duty explorer, trips and months compared open
    without decoding the scores. Derived data: a result without a row reads the scores
    instead; deleted with the result (``ON DELETE CASCADE``).
    """

    __tablename__ = "roster_table"

    upload_id: Mapped[int] = mapped_column(
        ForeignKey("roster_result.upload_id", ondelete="CASCADE"), primary_key=True
    )
    data: Mapped[bytes] = mapped_column(LargeBinary)


# --- operator settings and crew observations (migration 0005) -----------------


class OperatorSettingsVersion(Base):
    """One version of an operator's settings (docs/settings.md): the history is the rows.

    ``version`` counts from 1 per operator (0 is the built-in defaults, never stored);
    ``settings_json`` is :meth:`vigil.settings.OperatorSettings.to_json`, the whole record,
    so any version can be scored with again. ``changed_by`` says who (a console user,
    ``cli:<login>``), ``note`` why.
    """

    __tablename__ = "operator_settings_version"
    __table_args__ = (UniqueConstraint("operator", "version"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    operator: Mapped[str] = mapped_column(String(100), index=True)
    version: Mapped[int] = mapped_column(Integer)
    settings_json: Mapped[str] = mapped_column(Text)
    changed_by: Mapped[str] = mapped_column(String(200))
    changed_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    note: Mapped[str] = mapped_column(Text, default="")


class SettingsAdmin(Base):
    """A console user allowed to change the operator's settings (admins only)."""

    __tablename__ = "settings_admin"

    user_id: Mapped[int] = mapped_column(
        ForeignKey("console_user.id", ondelete="CASCADE"), primary_key=True
    )
    granted_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class RosterSettings(Base):
    """The settings version an uploaded roster was (or will be) scored with."""

    __tablename__ = "roster_settings"

    upload_id: Mapped[int] = mapped_column(
        ForeignKey("roster_upload.id", ondelete="CASCADE"), primary_key=True
    )
    settings_version: Mapped[int] = mapped_column(Integer)


class ObservationSet(Base):
    """Crew observations (KSS / Samn-Perelli ratings, actual sleep) for a stored roster.

    Kept as the uploaded CSV texts (docs/calibration.md) so the report can always be
    recomputed from exactly what was sent; ``operator`` scopes it like its roster.
    """

    __tablename__ = "observation_set"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    token: Mapped[str] = mapped_column(String(64), unique=True)
    operator: Mapped[str] = mapped_column(String(100), index=True)
    upload_id: Mapped[int] = mapped_column(
        ForeignKey("roster_upload.id", ondelete="CASCADE"), index=True
    )
    name: Mapped[str] = mapped_column(String(200))
    observations_csv: Mapped[str] = mapped_column(Text)
    sleep_csv: Mapped[str] = mapped_column(Text, default="")
    created_by: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


# --- the FRMS hazard log (migration 0007) ------------------------------------------------


class HazardEntry(Base):
    """One decision of the operator's hazard log (ICAO Doc 9966 FRMS; EASA ORO.FTL.120).

    An audit record: rows are only ever added (the migration installs triggers that refuse
    ``UPDATE`` and ``DELETE``). A changed decision is a new row whose ``supersedes_id``
    names the one it replaces; the newest row of a subject is its decision in force.

    A subject is ``(subject_kind, subject_key)`` within ``operator``: for a duty the key is
    its stable identity (Reference, report instant UTC, start and end airport, see
    :func:`vigil.store.hazards.duty_key`), never a roster token or row ID, so a decision
    outlives the roster it was made on and shows again when the same duty recurs in a
    newer or re-uploaded roster. Trips and patterns are named by the reviewer.
    """

    __tablename__ = "hazard_entry"
    __table_args__ = (
        Index("ix_hazard_entry_subject", "operator", "subject_kind", "subject_key"),
        # one first entry per subject and one successor per entry: each subject's
        # decisions form a single chain, even when two reviewers decide at once
        Index(
            "uq_hazard_entry_first",
            "operator",
            "subject_kind",
            "subject_key",
            unique=True,
            sqlite_where=text("supersedes_id IS NULL"),
            postgresql_where=text("supersedes_id IS NULL"),
        ),
        UniqueConstraint("supersedes_id"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    operator: Mapped[str] = mapped_column(String(100), index=True)
    subject_kind: Mapped[str] = mapped_column(String(16))
    subject_key: Mapped[str] = mapped_column(String(400))
    #: what the reviewer saw, for reading the log (a duty: schedule, number and route)
    subject_label: Mapped[str] = mapped_column(String(400))
    reference: Mapped[str] = mapped_column(String(200), default="")
    report_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    start_airport: Mapped[str] = mapped_column(String(16), default="")
    end_airport: Mapped[str] = mapped_column(String(16), default="")
    #: the roster the decision was recorded on (its name: the roster may be gone since)
    roster_name: Mapped[str] = mapped_column(String(200), default="")
    #: the duty risk R shown when the decision was recorded
    risk: Mapped[float | None] = mapped_column(Float, nullable=True)
    decision: Mapped[str] = mapped_column(String(16))
    reason: Mapped[str] = mapped_column(Text)
    mitigation: Mapped[str] = mapped_column(Text, default="")
    recorded_by: Mapped[str] = mapped_column(String(200))
    recorded_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    supersedes_id: Mapped[int | None] = mapped_column(
        ForeignKey("hazard_entry.id", ondelete="RESTRICT"), nullable=True
    )
