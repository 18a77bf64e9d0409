"""A scored roster's packed duty tables: table ``roster_table``.

One row per result (deleted with it), written when the roster's summary is built
(:mod:`vigil.fleet.packed`). Derived data: results stored before it have no row and are
read from their scores as before, so the upgrade fills nothing in.

Revision ID: 0008_roster_table
Revises: 0007_hazard_log
Create Date: 2026-11-28 04:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008_roster_table"
down_revision = "0007_hazard_log"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "roster_table",
        sa.Column("upload_id", sa.Integer(), nullable=False),
        sa.Column("data", sa.LargeBinary(), nullable=False),
        sa.ForeignKeyConstraint(
            ["upload_id"],
            ["roster_result.upload_id"],
            name=op.f("fk_roster_table_upload_id_roster_result"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("upload_id", name=op.f("pk_roster_table")),
    )


def downgrade() -> None:
    op.drop_table("roster_table")
