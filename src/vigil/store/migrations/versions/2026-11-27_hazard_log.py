"""The FRMS hazard log: table ``hazard_entry``, append-only.

Each row is one reviewer's decision on a duty, trip or pattern. Rows are never edited
or deleted: a trigger refuses ``UPDATE`` and ``DELETE`` on SQLite and PostgreSQL, so the
log stays an audit record whatever code or console reaches the database (a changed
decision is a new row naming the one it supersedes).

Revision ID: 0007_hazard_log
Revises: 0006_roster_input
Create Date: 2026-11-27 23:30:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007_hazard_log"
down_revision = "0006_roster_input"
branch_labels = None
depends_on = None

_REFUSAL = "hazard_entry is append-only: record a new entry that supersedes this one"


def upgrade() -> None:
    op.create_table(
        "hazard_entry",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("operator", sa.String(length=100), nullable=False),
        sa.Column("subject_kind", sa.String(length=16), nullable=False),
        sa.Column("subject_key", sa.String(length=400), nullable=False),
        sa.Column("subject_label", sa.String(length=400), nullable=False),
        sa.Column("reference", sa.String(length=200), nullable=False),
        sa.Column("report_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("start_airport", sa.String(length=16), nullable=False),
        sa.Column("end_airport", sa.String(length=16), nullable=False),
        sa.Column("roster_name", sa.String(length=200), nullable=False),
        sa.Column("risk", sa.Float(), nullable=True),
        sa.Column("decision", sa.String(length=16), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("mitigation", sa.Text(), nullable=False),
        sa.Column("recorded_by", sa.String(length=200), nullable=False),
        sa.Column("recorded_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("supersedes_id", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(
            ["supersedes_id"],
            ["hazard_entry.id"],
            name=op.f("fk_hazard_entry_supersedes_id_hazard_entry"),
            ondelete="RESTRICT",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_hazard_entry")),
        sa.UniqueConstraint("supersedes_id", name=op.f("uq_hazard_entry_supersedes_id")),
    )
    with op.batch_alter_table("hazard_entry") as batch:
        batch.create_index(batch.f("ix_hazard_entry_operator"), ["operator"], unique=False)
        batch.create_index(
            "ix_hazard_entry_subject", ["operator", "subject_kind", "subject_key"], unique=False
        )
        batch.create_index(
            "uq_hazard_entry_first",
            ["operator", "subject_kind", "subject_key"],
            unique=True,
            sqlite_where=sa.text("supersedes_id IS NULL"),
            postgresql_where=sa.text("supersedes_id IS NULL"),
        )
    if op.get_bind().dialect.name == "postgresql":
        op.execute(
            "CREATE FUNCTION hazard_entry_append_only() RETURNS trigger LANGUAGE plpgsql AS "
            f"$$ BEGIN RAISE EXCEPTION '{_REFUSAL}'; END $$"
        )
        op.execute(
            "CREATE TRIGGER hazard_entry_append_only BEFORE UPDATE OR DELETE ON hazard_entry "
            "FOR EACH ROW EXECUTE FUNCTION hazard_entry_append_only()"
        )
    else:
        for event in ("UPDATE", "DELETE"):
            op.execute(
                f"CREATE TRIGGER hazard_entry_no_{event.lower()} BEFORE {event} ON hazard_entry "
                f"BEGIN SELECT RAISE(ABORT, '{_REFUSAL}'); END"
            )


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP TRIGGER hazard_entry_append_only ON hazard_entry")
        op.execute("DROP FUNCTION hazard_entry_append_only()")
    else:
        for event in ("update", "delete"):
            op.execute(f"DROP TRIGGER hazard_entry_no_{event}")
    with op.batch_alter_table("hazard_entry") as batch:
        batch.drop_index("uq_hazard_entry_first")
        batch.drop_index("ix_hazard_entry_subject")
        batch.drop_index(batch.f("ix_hazard_entry_operator"))
    op.drop_table("hazard_entry")
