"""Roster texts apart from the job's state: table ``roster_input``.

SQLite rewrites a whole row on every ``UPDATE``: with an airline month's 16 MB of roster
text in ``roster_upload``, each progress write, lease renewal and claim copied it. The
texts move, unchanged, to ``roster_input`` (one row per upload, deleted with it).

The old columns are dropped with ``ALTER TABLE … DROP COLUMN`` (SQLite 3.35+, and
PostgreSQL), not by batch mode: batch mode copies ``roster_upload`` and drops the
original, and with ``foreign_keys=ON`` SQLite's ``DROP TABLE`` deletes the rows of every
table that references it with ``ON DELETE CASCADE`` (results, settings, observations).

Revision ID: 0006_roster_input
Revises: 0005_operator_settings
Create Date: 2026-11-27 10:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006_roster_input"
down_revision = "0005_operator_settings"
branch_labels = None
depends_on = None

_TEXTS = ("roster_text", "activity_text", "sleep_json")


def upgrade() -> None:
    op.create_table(
        "roster_input",
        sa.Column("upload_id", sa.Integer(), nullable=False),
        sa.Column("roster_text", sa.Text(), nullable=False),
        sa.Column("activity_text", sa.Text(), nullable=False),
        sa.Column("sleep_json", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(
            ["upload_id"],
            ["roster_upload.id"],
            name=op.f("fk_roster_input_upload_id_roster_upload"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("upload_id", name=op.f("pk_roster_input")),
    )
    op.execute(
        "INSERT INTO roster_input (upload_id, roster_text, activity_text, sleep_json) "
        "SELECT id, roster_text, activity_text, sleep_json FROM roster_upload"
    )
    for column in _TEXTS:
        op.drop_column("roster_upload", column)


def downgrade() -> None:
    for column, default in zip(_TEXTS, ("", "", "[]"), strict=True):
        op.add_column(
            "roster_upload",
            sa.Column(column, sa.Text(), nullable=False, server_default=default),
        )
        op.execute(
            f"UPDATE roster_upload SET {column} = COALESCE((SELECT {column} FROM roster_input"
            f" WHERE roster_input.upload_id = roster_upload.id), {column})"
        )
    op.drop_table("roster_input")
