"""Job progress, stored sleep and roster summary, console preferences.

Revision ID: 0004_results_detail
Revises: 0003_identity_hardening
Create Date: 2026-11-24 00:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004_results_detail"
down_revision = "0003_identity_hardening"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("roster_upload") as batch:
        batch.add_column(
            sa.Column("progress_done", sa.Integer(), server_default="0", nullable=False)
        )
        batch.add_column(
            sa.Column("progress_total", sa.Integer(), server_default="0", nullable=False)
        )
    with op.batch_alter_table("roster_result") as batch:
        batch.add_column(sa.Column("sleep", sa.LargeBinary(), nullable=True))
        batch.add_column(sa.Column("summary_json", sa.Text(), nullable=True))
    with op.batch_alter_table("console_user") as batch:
        batch.add_column(
            sa.Column("preferences_json", sa.Text(), server_default="{}", nullable=False)
        )


def downgrade() -> None:
    with op.batch_alter_table("console_user") as batch:
        batch.drop_column("preferences_json")
    with op.batch_alter_table("roster_result") as batch:
        batch.drop_column("summary_json")
        batch.drop_column("sleep")
    with op.batch_alter_table("roster_upload") as batch:
        batch.drop_column("progress_total")
        batch.drop_column("progress_done")
