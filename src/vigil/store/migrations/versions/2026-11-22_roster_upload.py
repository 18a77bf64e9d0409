"""Upload tables: roster_upload (request + job state) and roster_result.

Revision ID: 0002_roster_upload
Revises: 0001_identity
Create Date: 2026-11-22 10:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002_roster_upload"
down_revision = "0001_identity"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "roster_upload",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("token", sa.String(length=64), nullable=False),
        sa.Column("operator", sa.String(length=100), nullable=False),
        sa.Column("roster_name", sa.String(length=200), nullable=False),
        sa.Column("status", sa.String(length=32), nullable=False),
        sa.Column("submitted_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("roster_text", sa.Text(), nullable=False),
        sa.Column("activity_text", sa.Text(), nullable=False),
        sa.Column("sleep_json", sa.Text(), nullable=False),
        sa.Column("date_format", sa.String(length=8), nullable=False),
        sa.Column("preferred_scale", sa.String(length=8), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("lease_owner", sa.String(length=200), nullable=True),
        sa.Column("lease_expires_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("error_summary", sa.Text(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_roster_upload")),
        sa.UniqueConstraint("token", name=op.f("uq_roster_upload_token")),
        sa.UniqueConstraint("operator", "roster_name", name=op.f("uq_roster_upload_operator")),
    )
    with op.batch_alter_table("roster_upload", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_roster_upload_operator"), ["operator"], unique=False)
        batch_op.create_index(batch_op.f("ix_roster_upload_status"), ["status"], unique=False)
    op.create_table(
        "roster_result",
        sa.Column("upload_id", sa.Integer(), nullable=False),
        sa.Column("errors_json", sa.Text(), nullable=False),
        sa.Column("scores", sa.LargeBinary(), nullable=False),
        sa.Column("model_version", sa.String(length=100), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["upload_id"],
            ["roster_upload.id"],
            name=op.f("fk_roster_result_upload_id_roster_upload"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("upload_id", name=op.f("pk_roster_result")),
    )


def downgrade() -> None:
    op.drop_table("roster_result")
    with op.batch_alter_table("roster_upload", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_roster_upload_status"))
        batch_op.drop_index(batch_op.f("ix_roster_upload_operator"))
    op.drop_table("roster_upload")
