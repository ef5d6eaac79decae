"""cached prompt tokens of each model call

Revision ID: 0022
Revises: 0021
Create Date: 2026-12-07
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0022"
down_revision: str | None = "0021"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Calls logged before: NULL (unknown), counted as none cached.
    with op.batch_alter_table("llm_calls") as batch:
        batch.add_column(sa.Column("tokens_cached", sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("llm_calls") as batch:
        batch.drop_column("tokens_cached")
