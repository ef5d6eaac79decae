"""approvals and always-allow grants record the provider of a tool from outside

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-02
"""
from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0016"
down_revision: str | None = "0015"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Rows made before: NULL, which matches only the bot's own tools, so a tool from outside
    # asks again once rather than run on a decision that named no provider.
    with op.batch_alter_table("approval_requests") as batch:
        batch.add_column(sa.Column("provider", sa.String(length=64), nullable=True))
    with op.batch_alter_table("tool_grants") as batch:
        batch.add_column(sa.Column("provider", sa.String(length=64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("tool_grants") as batch:
        batch.drop_column("provider")
    with op.batch_alter_table("approval_requests") as batch:
        batch.drop_column("provider")
