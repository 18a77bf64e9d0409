"""Server-side console sessions, shared failure counters, client version.

Revision ID: 0003_identity_hardening
Revises: 0002_roster_upload
Create Date: 2026-11-23 20:30:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003_identity_hardening"
down_revision = "0002_roster_upload"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("api_client") as batch:
        batch.add_column(sa.Column("version", sa.Integer(), server_default="0", nullable=False))
    op.create_table(
        "console_session",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["console_user.id"],
            name=op.f("fk_console_session_user_id_console_user"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_console_session")),
    )
    op.create_index(
        op.f("ix_console_session_user_id"), "console_session", ["user_id"], unique=False
    )
    op.create_index(
        op.f("ix_console_session_expires_at"), "console_session", ["expires_at"], unique=False
    )
    op.create_table(
        "auth_failure",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("key", sa.String(length=64), nullable=False),
        sa.Column("at", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_auth_failure")),
    )
    op.create_index("ix_auth_failure_key_at", "auth_failure", ["key", "at"], unique=False)
    op.create_index(op.f("ix_auth_failure_at"), "auth_failure", ["at"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_auth_failure_at"), table_name="auth_failure")
    op.drop_index("ix_auth_failure_key_at", table_name="auth_failure")
    op.drop_table("auth_failure")
    op.drop_index(op.f("ix_console_session_expires_at"), table_name="console_session")
    op.drop_index(op.f("ix_console_session_user_id"), table_name="console_session")
    op.drop_table("console_session")
    with op.batch_alter_table("api_client") as batch:
        batch.drop_column("version")
