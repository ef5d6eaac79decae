"""Migration 0005 creates exactly the tables the knowledge models describe."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.operations import Operations
from sqlalchemy import MetaData, create_engine, inspect

from bot.storage.base import NAMING_CONVENTION
from bot.storage.knowledge import KnowledgeChange, KnowledgeDocument

MIGRATION = Path(__file__).parents[2] / "migrations" / "versions" / "0005_knowledge.py"
TABLES = {KnowledgeDocument.__tablename__, KnowledgeChange.__tablename__}


def _migration() -> Any:
    spec = importlib.util.spec_from_file_location("migration_0005", MIGRATION)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _models_only() -> MetaData:
    metadata = MetaData(naming_convention=NAMING_CONVENTION)
    for table in (KnowledgeDocument.__table__, KnowledgeChange.__table__):
        table.to_metadata(metadata)
    return metadata


def test_upgrade_matches_the_models_and_downgrade_removes_them() -> None:
    migration = _migration()
    assert (migration.revision, migration.down_revision) == ("0005", "0004")
    engine = create_engine("sqlite://")
    with engine.begin() as connection:
        context = MigrationContext.configure(
            connection, opts={"compare_type": True, "render_as_batch": True}
        )
        with Operations.context(context):
            migration.upgrade()
        differences = compare_metadata(context, _models_only())
        assert differences == []

        with Operations.context(context):
            migration.downgrade()
        assert TABLES.isdisjoint(inspect(connection).get_table_names())
