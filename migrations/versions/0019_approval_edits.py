"""approvals remember a member's edit of the arguments and the calls asked together

Revision ID: 0019
Revises: 0016
Create Date: 2026-12-02
"""
from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0019"
down_revision: str | None = "0018"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Rows made before: NULL for both, which reads as "not edited" and "asked alone".
    with op.batch_alter_table("approval_requests") as batch:
        batch.add_column(sa.Column("original_arguments", sa.Text(), nullable=True))
        batch.add_column(sa.Column("batch", sa.String(length=100), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("approval_requests") as batch:
        batch.drop_column("batch")
        batch.drop_column("original_arguments")
