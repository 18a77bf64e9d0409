"""Operator settings with history, settings admins, roster settings version, crew
observations.

Revision ID: 0005_operator_settings
Revises: 0004_results_detail
Create Date: 2026-11-24 01:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005_operator_settings"
down_revision = "0004_results_detail"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "operator_settings_version",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("operator", sa.String(length=100), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("settings_json", sa.Text(), nullable=False),
        sa.Column("changed_by", sa.String(length=200), nullable=False),
        sa.Column("changed_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("note", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_operator_settings_version")),
        sa.UniqueConstraint(
            "operator", "version", name=op.f("uq_operator_settings_version_operator")
        ),
    )
    with op.batch_alter_table("operator_settings_version") as batch:
        batch.create_index(
            batch.f("ix_operator_settings_version_operator"), ["operator"], unique=False
        )
    op.create_table(
        "settings_admin",
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("granted_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["console_user.id"],
            name=op.f("fk_settings_admin_user_id_console_user"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("user_id", name=op.f("pk_settings_admin")),
    )
    op.create_table(
        "roster_settings",
        sa.Column("upload_id", sa.Integer(), nullable=False),
        sa.Column("settings_version", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["upload_id"],
            ["roster_upload.id"],
            name=op.f("fk_roster_settings_upload_id_roster_upload"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("upload_id", name=op.f("pk_roster_settings")),
    )
    op.create_table(
        "observation_set",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("token", sa.String(length=64), nullable=False),
        sa.Column("operator", sa.String(length=100), nullable=False),
        sa.Column("upload_id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("observations_csv", sa.Text(), nullable=False),
        sa.Column("sleep_csv", sa.Text(), nullable=False),
        sa.Column("created_by", sa.String(length=200), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["upload_id"],
            ["roster_upload.id"],
            name=op.f("fk_observation_set_upload_id_roster_upload"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_observation_set")),
        sa.UniqueConstraint("token", name=op.f("uq_observation_set_token")),
    )
    with op.batch_alter_table("observation_set") as batch:
        batch.create_index(batch.f("ix_observation_set_operator"), ["operator"], unique=False)
        batch.create_index(batch.f("ix_observation_set_upload_id"), ["upload_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("observation_set") as batch:
        batch.drop_index(batch.f("ix_observation_set_upload_id"))
        batch.drop_index(batch.f("ix_observation_set_operator"))
    op.drop_table("observation_set")
    op.drop_table("roster_settings")
    op.drop_table("settings_admin")
    with op.batch_alter_table("operator_settings_version") as batch:
        batch.drop_index(batch.f("ix_operator_settings_version_operator"))
    op.drop_table("operator_settings_version")
