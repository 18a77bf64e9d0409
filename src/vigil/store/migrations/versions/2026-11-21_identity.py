"""Identity tables: operator, api_client, signing_key, console_user.

Revision ID: 0001_identity
Revises:
Create Date: 2026-11-21 23:25:40.661863
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001_identity"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:

    op.create_table(
        "operator",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=100), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_operator")),
        sa.UniqueConstraint("name", name=op.f("uq_operator_name")),
    )
    op.create_table(
        "signing_key",
        sa.Column("kid", sa.String(length=100), nullable=False),
        sa.Column("private_key_encrypted", sa.LargeBinary(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("retired_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("kid", name=op.f("pk_signing_key")),
    )
    op.create_table(
        "api_client",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("client_id", sa.String(length=100), nullable=False),
        sa.Column("secret_encrypted", sa.LargeBinary(), nullable=False),
        sa.Column("scopes", sa.String(length=100), nullable=False),
        sa.Column("operator_id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("disabled", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("rotated_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["operator_id"],
            ["operator.id"],
            name=op.f("fk_api_client_operator_id_operator"),
            ondelete="RESTRICT",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_api_client")),
        sa.UniqueConstraint("client_id", name=op.f("uq_api_client_client_id")),
    )
    with op.batch_alter_table("api_client", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_api_client_operator_id"), ["operator_id"], unique=False
        )

    op.create_table(
        "console_user",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("username", sa.String(length=100), nullable=False),
        sa.Column("password_hash", sa.String(length=255), nullable=False),
        sa.Column("operator_id", sa.Integer(), nullable=False),
        sa.Column("disabled", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["operator_id"],
            ["operator.id"],
            name=op.f("fk_console_user_operator_id_operator"),
            ondelete="RESTRICT",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_console_user")),
        sa.UniqueConstraint("username", name=op.f("uq_console_user_username")),
    )
    with op.batch_alter_table("console_user", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_console_user_operator_id"), ["operator_id"], unique=False
        )


def downgrade() -> None:

    with op.batch_alter_table("console_user", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_console_user_operator_id"))

    op.drop_table("console_user")
    with op.batch_alter_table("api_client", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_api_client_operator_id"))

    op.drop_table("api_client")
    op.drop_table("signing_key")
    op.drop_table("operator")
